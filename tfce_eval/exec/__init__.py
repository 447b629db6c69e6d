"""Exec checking: running expected and received calls in sandboxed worker processes and
comparing their results.

records (options, outcomes, verdicts) <- names, sandbox <- worker <- pool <- judge <-
executor <- call (the `call` command) and validate (validate's exec checks).
"""
