"""Declared types and wire schemas: the one type vocabulary (kinds), value equality, and
the translation of function docs to provider tool schemas and names.
"""
