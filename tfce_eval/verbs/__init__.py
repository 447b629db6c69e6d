"""What each command does, for every task: the one core function a command calls.

`score`, `validate`, `report` and `run` serve several kinds of task. The choice among the
tasks' own library calls is made here, once, so that a program gets what the command line
gets by calling one function: `score_files` (after `score_task` has found the task),
`validate_data`, `report_runs` and `run_model`; inside a running event loop,
`score_files_async` and `run_model_async`. `tfce_eval.cli` parses options into their
arguments and renders what they return; nothing here prints or exits. The names are
read from their modules when first asked for.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from tfce_eval.lazy import lazy_names

if TYPE_CHECKING:
    from tfce_eval.report.formats import ReportFormat
    from tfce_eval.verbs.report import Reported, report_runs, runs_task
    from tfce_eval.verbs.run import Ran, run_model, run_model_async
    from tfce_eval.verbs.score import (
        DATASET_RUN,
        Scored,
        score_files,
        score_files_async,
        score_task,
    )
    from tfce_eval.verbs.settings import ScoreSettings, ValidateSettings
    from tfce_eval.verbs.validate import Size, Validated, validate_data

__all__ = [
    "DATASET_RUN",
    "Ran",
    "ReportFormat",
    "Reported",
    "ScoreSettings",
    "Scored",
    "Size",
    "ValidateSettings",
    "Validated",
    "report_runs",
    "run_model",
    "run_model_async",
    "runs_task",
    "score_files",
    "score_files_async",
    "score_task",
    "validate_data",
]

_LAZY = {
    "DATASET_RUN": "tfce_eval.verbs.score",
    "ScoreSettings": "tfce_eval.verbs.settings",
    "Scored": "tfce_eval.verbs.score",
    "score_files": "tfce_eval.verbs.score",
    "score_files_async": "tfce_eval.verbs.score",
    "score_task": "tfce_eval.verbs.score",
    "Size": "tfce_eval.verbs.validate",
    "ValidateSettings": "tfce_eval.verbs.settings",
    "Validated": "tfce_eval.verbs.validate",
    "validate_data": "tfce_eval.verbs.validate",
    "ReportFormat": "tfce_eval.report.formats",
    "Reported": "tfce_eval.verbs.report",
    "report_runs": "tfce_eval.verbs.report",
    "runs_task": "tfce_eval.verbs.report",
    "Ran": "tfce_eval.verbs.run",
    "run_model": "tfce_eval.verbs.run",
    "run_model_async": "tfce_eval.verbs.run",
}

__getattr__ = lazy_names(__name__, _LAZY)
