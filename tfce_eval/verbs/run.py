"""`run`'s core: a model asked the items of any task, its answers scored, and the
reports of either task written while the run directory is still the run's."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from tfce_eval.report.document import Document
    from tfce_eval.run import ProgressSink, RunConfig, RunResult


@dataclass(frozen=True, slots=True)
class Ran:
    """A run done: its result, and a QA run's report Document (as written into its
    report.md) for a caller to show; None for function calling, whose report is read
    from the directory."""

    result: RunResult
    document: Document | None = None


def run_model(config: RunConfig, *, progress: ProgressSink | None = None) -> Ran:
    """Run (or resume) `config` as `run.run_eval` does, writing report.md and
    report.html of either task beside its scores before the directory is let go.
    Inside a running event loop, await `run_model_async` instead."""
    from tfce_eval.errors import refuse_running_loop
    from tfce_eval.report import write_score_reports
    from tfce_eval.run import run_eval

    refuse_running_loop("run_model", "run_model_async")
    _check_arguments(config, progress)

    documents: list[Document] = []
    result = run_eval(
        config,
        progress=progress,
        write_reports=write_score_reports,
        write_qa_reports=_qa_writer(documents),
    )
    return Ran(result, documents[-1] if documents else None)


async def run_model_async(config: RunConfig, *, progress: ProgressSink | None = None) -> Ran:
    """`run_model` in the caller's event loop (Jupyter, an async application), as
    `run.run_eval_async` is `run_eval`'s."""
    from tfce_eval.report import write_score_reports
    from tfce_eval.run import run_eval_async

    _check_arguments(config, progress)
    documents: list[Document] = []
    result = await run_eval_async(
        config,
        progress=progress,
        write_reports=write_score_reports,
        write_qa_reports=_qa_writer(documents),
    )
    return Ran(result, documents[-1] if documents else None)


#: What a progress sink is called with: `run.ProgressSink`'s methods.
_SINK_METHODS = ("start", "advance", "message", "stop")


def _check_arguments(config: object, progress: object) -> None:
    """A UsageError, before anything is written, for a config that is no RunConfig or a
    progress that is no ProgressSink (which would fail only once the run had begun)."""
    from tfce_eval.errors import UsageError
    from tfce_eval.run import RunConfig

    if not isinstance(config, RunConfig):
        raise UsageError(f"config: give a run.RunConfig, not {config!r:.60}")
    lacking = [m for m in _SINK_METHODS if not callable(getattr(progress, m, None))]
    if progress is not None and lacking:
        raise UsageError(
            f"progress: give a run.ProgressSink (with {', '.join(_SINK_METHODS)}), not "
            f"{progress!r:.40}"
        )


def _qa_writer(documents: list[Document]) -> Callable[[Path], None]:
    """A QA run's report writer, keeping each Document it writes in `documents`."""

    def write_and_keep(run_dir: Path) -> None:
        from tfce_eval.verbs.score import write_qa_reports

        documents.append(write_qa_reports(run_dir))

    return write_and_keep
