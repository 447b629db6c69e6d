"""The resumable asynchronous run: the runner, one session per item, retries, the
appender, run metadata and the progress protocol.

`run_eval(RunConfig(...))` runs a model on a dataset (any task) and scores it;
`run_eval_async` does the same in the caller's event loop (Jupyter, an async application).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from tfce_eval.lazy import lazy_names

if TYPE_CHECKING:
    from tfce_eval.run.config import Context, ContextSpec, RunConfig, RunResult
    from tfce_eval.run.progress import NullProgress, ProgressSink
    from tfce_eval.run.retry import RetryPolicy
    from tfce_eval.run.runner import dump_request, run_eval, run_eval_async

__all__ = [
    "Context",
    "ContextSpec",
    "NullProgress",
    "ProgressSink",
    "RetryPolicy",
    "RunConfig",
    "RunResult",
    "dump_request",
    "run_eval",
    "run_eval_async",
]

#: The names read from a module of the package when they are first asked for: importing
#: one module of the package never imports the others.
_LAZY = {
    "Context": "tfce_eval.run.config",
    "ContextSpec": "tfce_eval.run.config",
    "RunConfig": "tfce_eval.run.config",
    "RunResult": "tfce_eval.run.config",
    "dump_request": "tfce_eval.run.runner",
    "run_eval": "tfce_eval.run.runner",
    "run_eval_async": "tfce_eval.run.runner",
    "RetryPolicy": "tfce_eval.run.retry",
    "NullProgress": "tfce_eval.run.progress",
    "ProgressSink": "tfce_eval.run.progress",
}


__getattr__ = lazy_names(__name__, _LAZY)
