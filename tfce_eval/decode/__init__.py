"""Every answer shape to calls: structured tool calls, JSON and Python-literal text, with
the ast-only literal parser and its bounds.
"""
