"""Reports of one run or several side by side: terminal table, Markdown, JSON, CSV and HTML.

Every format is rendered from one report model (tfce_eval.report.model), built from the run
directories' summary.json and scores.jsonl, so the figures agree across formats. Nothing here
prints; the command line prints what `render` and `render_table` return.
"""

from __future__ import annotations

from collections.abc import Sequence
from enum import StrEnum
from pathlib import Path

from rich.console import RenderableType

from tfce_eval.report.csvjson import render_csv, render_json
from tfce_eval.report.html import render_html
from tfce_eval.report.markdown import render_markdown
from tfce_eval.report.model import Prices, Report, build_report
from tfce_eval.report.runs import RunView, load_run
from tfce_eval.report.source import FailureSource
from tfce_eval.report.table import table_renderable, table_text
from tfce_eval.scoring.rundir import RunDir, write_text_atomic

__all__ = [
    "FailureSource",
    "Prices",
    "ReportFormat",
    "RunView",
    "build_report",
    "load_run",
    "render",
    "render_table",
    "write_run_reports",
]


class ReportFormat(StrEnum):
    TABLE = "table"
    MD = "md"
    JSON = "json"
    CSV = "csv"
    HTML = "html"


_RENDERERS = {
    ReportFormat.TABLE: table_text,
    ReportFormat.MD: render_markdown,
    ReportFormat.JSON: render_json,
    ReportFormat.CSV: render_csv,
    ReportFormat.HTML: render_html,
}


def render(
    runs: Sequence[RunView],
    fmt: ReportFormat,
    *,
    failures: int = 0,
    prices: Prices | None = None,
    failure_source: FailureSource | None = None,
) -> str:
    """The report of `runs` (one column group per run, in order) as text in format `fmt`.

    `failures`: list up to that many failing items per category. `failure_source`: where their
    questions come from; by default the dataset each run names (run.json), else the built-in.
    """
    report = build_report(runs, failures=failures, prices=prices, failure_source=failure_source)
    return _RENDERERS[ReportFormat(fmt)](report)


def render_table(
    runs: Sequence[RunView],
    *,
    failures: int = 0,
    prices: Prices | None = None,
    failure_source: FailureSource | None = None,
) -> RenderableType:
    """The terminal report as a rich renderable (colours and width decided by the console)."""
    report = build_report(runs, failures=failures, prices=prices, failure_source=failure_source)
    return table_renderable(report)


def write_run_reports(
    run_dir: Path,
    run: RunView,
    *,
    failures: int = 5,
    failure_source: FailureSource | None = None,
) -> None:
    """Write report.md and report.html into `run_dir` (atomically), with failing items."""
    report: Report = build_report([run], failures=failures, failure_source=failure_source)
    files = RunDir(run_dir)
    write_text_atomic(files.report_md, render_markdown(report))
    write_text_atomic(files.report_html, render_html(report))
