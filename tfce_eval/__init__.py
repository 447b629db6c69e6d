"""tfce-eval: measure how well large language models call telecom functions, answer
telecom questions and retrieve the passages that answer them.

The library is usable on its own; `tfce_eval.cli` is a thin command line over it. The
entry points of each task are named here and imported when first used, so that
`import tfce_eval` stays light (the command line's `--help` imports no task):

- function calling: `load_dataset`, `ScoreOptions`, `score_outputs`, `RunConfig`,
  `run_eval`, `run_eval_async`; reports: `load_run`, `render`
- question answering: `load_telco`, `score_predictions`, `score_predictions_async`,
  `load_qa_run`
- retrieval: `load_retrieval`, `read_run`, `score_run`, `retrieve`, `load_scored_run`
- any task, as the commands do it (`tfce_eval.verbs`): `score_task` and `score_files`,
  `validate_data`, `report_runs`, `run_model`; `score_files_async` and
  `run_model_async` inside a running event loop

Each task package (`tfce_eval.qa`, `tfce_eval.retrieval`, ...) lists its whole interface
in `__all__`. Errors that stop a call are `tfce_eval.errors.TfceError`s.
"""

# typing.TYPE_CHECKING without importing typing (mypy reads it as True): importing the
# package imports nothing else.
TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

    from tfce_eval.dataset.load import load_dataset
    from tfce_eval.errors import DataError, RunError, TfceError, UsageError
    from tfce_eval.model import TaskKind
    from tfce_eval.qa import load_qa_run, load_telco, score_predictions, score_predictions_async
    from tfce_eval.report import load_run, render
    from tfce_eval.retrieval import load_retrieval, load_scored_run, read_run, retrieve, score_run
    from tfce_eval.run.config import RunConfig
    from tfce_eval.run.runner import run_eval, run_eval_async
    from tfce_eval.scoring.options import ScoreOptions
    from tfce_eval.scoring.score import score_outputs
    from tfce_eval.verbs.report import report_runs
    from tfce_eval.verbs.run import run_model, run_model_async
    from tfce_eval.verbs.score import score_files, score_files_async, score_task
    from tfce_eval.verbs.validate import validate_data

__version__ = "0.1.0"

#: The names read from a module of the package when they are first asked for.
_LAZY = {
    "TaskKind": "tfce_eval.model",
    "TfceError": "tfce_eval.errors",
    "DataError": "tfce_eval.errors",
    "UsageError": "tfce_eval.errors",
    "RunError": "tfce_eval.errors",
    "load_dataset": "tfce_eval.dataset.load",
    "ScoreOptions": "tfce_eval.scoring.options",
    "score_outputs": "tfce_eval.scoring.score",
    "RunConfig": "tfce_eval.run.config",
    "run_eval": "tfce_eval.run.runner",
    "run_eval_async": "tfce_eval.run.runner",
    "load_run": "tfce_eval.report",
    "render": "tfce_eval.report",
    "load_telco": "tfce_eval.qa",
    "score_predictions": "tfce_eval.qa",
    "score_predictions_async": "tfce_eval.qa",
    "load_qa_run": "tfce_eval.qa",
    "load_retrieval": "tfce_eval.retrieval",
    "read_run": "tfce_eval.retrieval",
    "score_run": "tfce_eval.retrieval",
    "retrieve": "tfce_eval.retrieval",
    "load_scored_run": "tfce_eval.retrieval",
    "score_task": "tfce_eval.verbs.score",
    "score_files": "tfce_eval.verbs.score",
    "score_files_async": "tfce_eval.verbs.score",
    "validate_data": "tfce_eval.verbs.validate",
    "report_runs": "tfce_eval.verbs.report",
    "run_model": "tfce_eval.verbs.run",
    "run_model_async": "tfce_eval.verbs.run",
}

__all__ = [
    "DataError",
    "RunConfig",
    "RunError",
    "ScoreOptions",
    "TaskKind",
    "TfceError",
    "UsageError",
    "__version__",
    "load_dataset",
    "load_qa_run",
    "load_retrieval",
    "load_run",
    "load_scored_run",
    "load_telco",
    "read_run",
    "render",
    "report_runs",
    "retrieve",
    "run_eval",
    "run_eval_async",
    "run_model",
    "run_model_async",
    "score_files",
    "score_files_async",
    "score_outputs",
    "score_predictions",
    "score_predictions_async",
    "score_run",
    "score_task",
    "validate_data",
]


def __getattr__(name: str) -> "Any":
    # tfce_eval.lazy's, written out: importing the package imports no other module at all.
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    import importlib  # here, not at the top: `import tfce_eval` stays as light as it was

    return getattr(importlib.import_module(module), name)


def __dir__() -> list[str]:
    return sorted({*globals(), *_LAZY})
