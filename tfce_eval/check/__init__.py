"""The AST checker: per-call rules in a yes/no and an explaining form, coercion and
matching of values under declared types, and maximum bipartite matching of parallel calls.
"""
