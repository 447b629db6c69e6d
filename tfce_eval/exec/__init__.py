"""Exec checking: running expected and received calls in worker processes, comparing
their results, the `call` command's logic and validate's exec checks.
"""
