"""Reports of one run or several side by side: terminal table, Markdown, JSON, CSV and HTML.

Every format is rendered from one report model (tfce_eval.report.model), built from the run
directories' summary.json and scores.jsonl, so the figures agree across formats. Nothing here
prints: `render` and `render_table` return text and a rich renderable for a caller to show
(`tfce_eval.verbs.report_runs`, behind the `report` command, builds the model once and uses
`render_report` and `report_renderable`).

The renderers are imported when a report is made in their format, not with the package:
writing report.md and report.html (what `score` and `run` do) needs neither rich nor the
terminal table, CSV or JSON renderers. The names below are the package's whole interface.
"""

from __future__ import annotations

import importlib
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from tfce_eval.lazy import lazy_names
from tfce_eval.model import parse_choice
from tfce_eval.report.formats import ReportFormat

if TYPE_CHECKING:
    from rich.console import RenderableType

    from tfce_eval.dataset.load import Dataset
    from tfce_eval.report.document import Document, render_document
    from tfce_eval.report.model import Report, build_report
    from tfce_eval.report.prices import Prices
    from tfce_eval.report.runs import RunView, load_run
    from tfce_eval.report.source import FailureSource
    from tfce_eval.scoring.score import ScoreResult

__all__ = [
    "Document",
    "FailureSource",
    "Prices",
    "ReportFormat",
    "RunView",
    "build_report",
    "load_run",
    "render",
    "render_document",
    "render_report",
    "render_table",
    "report_renderable",
    "write_document_reports",
    "write_run_reports",
    "write_score_reports",
]

#: The names read from a module of the package when they are first asked for.
_LAZY = {
    "Document": "tfce_eval.report.document",
    "render_document": "tfce_eval.report.document",
    "FailureSource": "tfce_eval.report.source",
    "Prices": "tfce_eval.report.prices",
    "Report": "tfce_eval.report.model",
    "build_report": "tfce_eval.report.model",
    "RunView": "tfce_eval.report.runs",
    "load_run": "tfce_eval.report.runs",
}


__getattr__ = lazy_names(__name__, _LAZY)


#: Each format's renderer, as module and function.
_RENDERERS = {
    ReportFormat.TABLE: ("tfce_eval.report.table", "table_text"),
    ReportFormat.MD: ("tfce_eval.report.markdown", "render_markdown"),
    ReportFormat.JSON: ("tfce_eval.report.csvjson", "render_json"),
    ReportFormat.CSV: ("tfce_eval.report.csvjson", "render_csv"),
    ReportFormat.HTML: ("tfce_eval.report.html", "render_html"),
}


def render(
    runs: Sequence[RunView],
    fmt: ReportFormat | str,
    *,
    failures: int = 0,
    prices: Prices | None = None,
    failure_source: FailureSource | None = None,
) -> str:
    """The report of `runs` (one column group per run, in order) as text in format `fmt`.

    `failures`: list up to that many failing items per category. `failure_source`: where their
    questions come from; by default the dataset each run names (run.json), else the built-in.
    """
    from tfce_eval.report.model import build_report

    report = build_report(runs, failures=failures, prices=prices, failure_source=failure_source)
    return render_report(report, fmt)


def render_report(report: Report, fmt: ReportFormat | str) -> str:
    """A report model built once (`build_report`) as text in format `fmt`."""
    module, function = _RENDERERS[parse_choice(ReportFormat, fmt, "fmt")]
    text: str = getattr(importlib.import_module(module), function)(report)
    return text


def render_table(
    runs: Sequence[RunView],
    *,
    failures: int = 0,
    prices: Prices | None = None,
    failure_source: FailureSource | None = None,
) -> RenderableType:
    """The terminal report as a rich renderable (colours and width decided by the console)."""
    from tfce_eval.report.model import build_report

    report = build_report(runs, failures=failures, prices=prices, failure_source=failure_source)
    return report_renderable(report)


def report_renderable(report: Report) -> RenderableType:
    """A report model built once (`build_report`) as a rich renderable, for a terminal."""
    from tfce_eval.report.table import table_renderable

    return table_renderable(report)


def write_run_reports(
    run_dir: Path,
    run: RunView,
    *,
    failures: int = 5,
    failure_source: FailureSource | None = None,
) -> None:
    """Write report.md and report.html into `run_dir` (atomically), with failing items."""
    from tfce_eval.report.html import render_html
    from tfce_eval.report.markdown import render_markdown
    from tfce_eval.report.model import build_report
    from tfce_eval.scoring.rundir import RunDir, write_text_atomic

    report: Report = build_report([run], failures=failures, failure_source=failure_source)
    files = RunDir(run_dir)
    write_text_atomic(files.report_md, render_markdown(report))
    write_text_atomic(files.report_html, render_html(report))


def write_score_reports(
    score: ScoreResult, dataset: Dataset, run_info: Mapping[str, Any] | None = None
) -> None:
    """report.md and report.html beside a function-calling score, the failing items'
    questions from `dataset`; titled by the run's name when `run_info` (run.json) is of
    a run, else by its directory. What `run` and `score` write (`run_eval`'s
    `write_reports`)."""
    from tfce_eval.report.runs import RunView
    from tfce_eval.report.source import FailureSource

    assert score.run_dir is not None  # scored into a directory
    path = score.run_dir.path
    info = dict(run_info) if run_info else None
    name = str((info or {}).get("run_name") or path.resolve().name)
    view = RunView(name, path, score.summary, score.records, info)
    write_run_reports(path, view, failure_source=FailureSource(dataset=dataset))


def write_document_reports(run_dir: Path, document: Document) -> None:
    """Write a QA or retrieval run's report.md and report.html into `run_dir` (atomically):
    its Document, as `report` renders it in those formats."""
    from tfce_eval.report.document import render_document_html, render_document_markdown
    from tfce_eval.scoring.rundir import RunDir, write_text_atomic

    files = RunDir(run_dir)
    write_text_atomic(files.report_md, render_document_markdown(document))
    write_text_atomic(files.report_html, render_document_html(document))
