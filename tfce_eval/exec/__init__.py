"""Exec checking: running expected and received calls in sandboxed worker processes and
comparing their results.

Modules, lowest first: records (options, outcomes, verdicts), names, sandbox, results;
worker (the worker process's side); pool (the harness's side of the workers); judge (an
item's verdict); executor; call (the `call` command) and validate (validate's exec checks).
"""
