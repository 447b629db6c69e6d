"""`report`'s core: scored runs of one task read for one report, in any format.

Every run directory's summary.json names its task (fc when it names none); runs of
different tasks cannot share a report. Function-calling runs make the report model of
`tfce_eval.report`; QA and retrieval runs a `report.document.Document`. Either renders
in the five formats.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from functools import partial
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar

from tfce_eval.errors import UsageError, check_number
from tfce_eval.model import TaskKind
from tfce_eval.report.formats import ReportFormat

_T = TypeVar("_T")

if TYPE_CHECKING:
    from tfce_eval.qa import QaDataset
    from tfce_eval.report import Prices
    from tfce_eval.report.document import Document
    from tfce_eval.report.model import Report


@dataclass(frozen=True, slots=True)
class Reported:
    """Runs read for a report: function calling's report model (`fc`) or a QA or
    retrieval `document`, and notes on what was asked but does not apply."""

    task: TaskKind
    fc: Report | None = None
    document: Document | None = None
    notes: tuple[str, ...] = ()

    def render(self, fmt: ReportFormat | str) -> str:
        """The report as text in one of the five formats."""
        if self.fc is not None:
            from tfce_eval.report import render_report

            return render_report(self.fc, fmt)
        from tfce_eval.report.document import render_document

        assert self.document is not None
        return render_document(self.document, fmt)

    def renderables(self) -> list[Any]:
        """The report as rich renderables, for a terminal (the table format)."""
        if self.fc is not None:
            from tfce_eval.report import report_renderable

            return [report_renderable(self.fc)]
        from tfce_eval.report.document import document_renderables

        assert self.document is not None
        return document_renderables(self.document)


def report_runs(
    run_dirs: Sequence[str | Path],
    *,
    failures: int = 0,
    data: str | Path | None = None,
    prices: Prices | None = None,
    on_note: Callable[[str], None] | None = None,
) -> Reported:
    """Read scored runs of one task for one report.

    `failures`: list up to that many failing items (fc: per category; qa: per answer
    type; retrieval: queries lowest on the first measure) of each run. `data`: the
    dataset their questions come from (a directory or builtin:NAME; by default the one
    each run recorded). `prices`: USD per million tokens, for fc runs' cost. A note on
    what was asked but does not apply goes to `on_note` as soon as it is known (before
    the runs are read, so a caller can show it even when reading fails), else into the
    result's `notes`. DataError for a directory that is no scored run; UsageError for
    runs of different tasks.
    """
    paths = _run_paths(run_dirs)
    check_number(failures, "failures", 0, whole=True)
    from tfce_eval.report import Prices

    if prices is not None and not isinstance(prices, Prices):
        raise UsageError(f"prices: give a report.Prices, not {prices!r}")
    if on_note is not None and not callable(on_note):
        raise UsageError(f"on_note: give a function of one text, not {on_note!r}")
    task = runs_task(paths)
    if task is TaskKind.FC:
        return _report_fc(paths, failures, data, prices)
    notes: tuple[str, ...] = ()
    if prices is not None:
        notes = ("--price-in/--price-out: for function-calling runs only",)
    if on_note is not None:
        for note in notes:
            on_note(note)
        notes = ()
    if task is TaskKind.RETRIEVAL:
        document = _retrieval_document(paths, failures, data)
    else:
        document = _qa_document(paths, failures, data)
    return Reported(task, document=document, notes=notes)


#: How often a run is read again when a score replaced its files while it was read.
READ_TRIES = 10


def read_stable(run_dir: Path, read: Callable[[], _T]) -> _T:
    """`read()` of a run directory, again while a score committing there replaced
    scores.jsonl or summary.json during it (a score renames each into place): a report
    never shows one score's figures beside another's failures. `report` takes no lock,
    since a run holds its own for as long as it runs. An error from a read the files
    changed under is read again too; the last read's error or result stands."""
    from tfce_eval.errors import TfceError

    for attempt in range(READ_TRIES):
        before = _identities(run_dir)
        try:
            value = read()
        except TfceError:
            if attempt + 1 < READ_TRIES and _identities(run_dir) != before:
                continue
            raise
        if _identities(run_dir) == before:
            return value
    return value


def _identities(run_dir: Path) -> tuple[tuple[int, int, int] | None, ...]:
    """What tells each of a run's two files from the next score's: device, inode and
    modification time (None: not there)."""
    from tfce_eval.scoring.rundir import SCORES, SUMMARY

    found: list[tuple[int, int, int] | None] = []
    base = run_dir.parent if run_dir.name == SUMMARY else run_dir
    for name in (SCORES, SUMMARY):
        try:
            info = (base / name).stat()
        except OSError:
            found.append(None)
            continue
        found.append((info.st_dev, info.st_ino, info.st_mtime_ns))
    return tuple(found)


def _run_paths(run_dirs: Sequence[str | Path]) -> tuple[Path, ...]:
    """The run directories as paths; a UsageError for one path given alone (it would be
    read letter by letter) or for none."""
    if isinstance(run_dirs, str | Path):
        raise UsageError(f"run_dirs: give a sequence of directories, not one ({str(run_dirs)!r})")
    try:
        paths = tuple(Path(d) for d in run_dirs)
    except TypeError:
        raise UsageError(f"run_dirs: give a sequence of directories, not {run_dirs!r}") from None
    if not paths:
        raise UsageError("run_dirs: give at least one run directory")
    return paths


def _report_fc(
    paths: tuple[Path, ...], failures: int, data: str | Path | None, prices: Prices | None
) -> Reported:
    from tfce_eval.report import FailureSource, build_report, load_run

    # Details only for the failures listed: a run of 100,000 items holds hundreds of MB.
    runs = [read_stable(d, partial(load_run, d, keep_details=failures)) for d in paths]
    source = None
    if data is not None and failures > 0:
        from tfce_eval.dataset.load import load_dataset
        from tfce_eval.tasks import resolve_data

        source = FailureSource(dataset=load_dataset(resolve_data(data, TaskKind.FC).path))
    report = build_report(runs, failures=failures, prices=prices, failure_source=source)
    return Reported(TaskKind.FC, fc=report)


def _retrieval_document(
    paths: tuple[Path, ...], failures: int, data: str | Path | None
) -> Document:
    from tfce_eval.retrieval import load_scored_run, retrieval_document

    directory = None if data is None or not failures else _data_dir(data, TaskKind.RETRIEVAL)
    scored = [read_stable(d, partial(load_scored_run, d)) for d in paths]
    document = retrieval_document(scored)
    if failures > 0:
        from tfce_eval.retrieval.failures import GoldSource, with_failing_queries

        document = with_failing_queries(document, scored, failures, GoldSource(directory))
    return document


def _qa_document(paths: tuple[Path, ...], failures: int, data: str | Path | None) -> Document:
    from tfce_eval.qa.report import qa_document
    from tfce_eval.qa.runs import load_qa_run

    given = None if data is None or not failures else str(_data_dir(data, TaskKind.QA))
    runs = [read_stable(d, partial(load_qa_run, d)) for d in paths]
    document = qa_document(runs)
    if failures > 0:
        from tfce_eval.qa.failures import QuestionSource, with_qa_failures

        document = with_qa_failures(document, runs, failures, QuestionSource(_load_qa, given))
    return document


def _data_dir(data: str | Path, task: TaskKind) -> Path:
    """`data` (a directory or builtin:NAME) as the directory of a `task` dataset."""
    from tfce_eval.tasks import resolve_data

    return resolve_data(data, task).directory


def _load_qa(path: str, split: str | None) -> QaDataset:
    """The QA dataset a run recorded (a directory or builtin:NAME) or `data` names."""
    from tfce_eval.dataset.paths import builtin_dir
    from tfce_eval.tasks.load import load_qa_dataset

    # builtin:NAME, or builtin:NAME/FILE as a summary records a built-in split file.
    where = builtin_dir(path, TaskKind.QA, also=TaskKind.RETRIEVAL) or Path(path)
    return load_qa_dataset(where, split=split, name=path)


def runs_task(run_dirs: Sequence[Path]) -> TaskKind:
    """The task every run directory's summary.json names (fc when it names none).

    A directory without summary.json has no task yet: the loader of the others' task
    says what is missing there (it is never taken for a run of another task)."""
    from tfce_eval.errors import DataError, UsageError
    from tfce_eval.jsonl import read_json
    from tfce_eval.scoring.rundir import SUMMARY

    tasks: list[str | None] = []
    for given in run_dirs:
        # A run may be named by its summary.json, as every task's loader accepts it.
        run_dir = given.parent if given.name == SUMMARY and given.is_file() else given
        summary = run_dir / SUMMARY
        task: str | None = TaskKind.FC
        if not summary.exists():
            task = _task_of_scores(run_dir)
        else:
            if not summary.is_file():  # a directory, a FIFO: never opened
                raise DataError(
                    "not a file", path=str(summary), hint="score the run again to rewrite it"
                )
            head = read_json(summary, hint="score the run again to rewrite it")
            if not isinstance(head, dict):
                raise DataError(
                    "not a summary (a JSON object is expected)",
                    path=str(summary),
                    hint="score the run again to rewrite it",
                )
            if isinstance(head.get("task"), str):
                task = head["task"]
        tasks.append(task)
    if len({t for t in tasks if t}) > 1:
        named = ", ".join(f"{d} ({t})" for d, t in zip(run_dirs, tasks, strict=True) if t)
        raise UsageError(
            f"runs of different tasks cannot share a report: {named}\n"
            "  fix: report the runs of each task apart (tfce-eval report RUN_DIR... once "
            "per task)"
        )
    task = next((t for t in tasks if t), TaskKind.FC)
    try:
        return TaskKind(task)
    except ValueError:
        raise DataError(
            f"{SUMMARY} names an unknown task {task!r}",
            path=str(run_dirs[0] / SUMMARY),
            hint="expected fc, qa or retrieval: score the run again",
        ) from None


def _task_of_scores(run_dir: Path) -> str | None:
    """The task of a directory with scores.jsonl but no summary.json, read from its first
    record (QA records have an answer type, retrieval ones measures); None when unknown."""
    from tfce_eval.errors import DataError
    from tfce_eval.jsonl import JsonLines
    from tfce_eval.scoring.rundir import SCORES

    scores = run_dir / SCORES
    if not scores.is_file():
        return None
    try:
        first = next(iter(JsonLines(scores)), None)
    except DataError:
        return None  # the task's loader says what is wrong with it
    value = None if first is None else first.value
    if isinstance(value, dict) and "answer_type" in value:
        return TaskKind.QA
    if isinstance(value, dict) and "measures" in value and "qid" in value:
        return TaskKind.RETRIEVAL
    return None
