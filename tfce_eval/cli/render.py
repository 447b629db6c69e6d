"""Rendering helpers shared by the commands: warnings, the per-category table, a
report document on stdout, and the line that says where a score's files went.

What they print of a run (a warning naming a query id, a run directory's path) is
printable: control characters are shown as escapes, never obeyed by the terminal.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any

import click

from tfce_eval.cli.text import fold, shown

if TYPE_CHECKING:  # rich and the report renderers load only when a table is printed
    from rich.console import Console

    from tfce_eval.report.document import Document
    from tfce_eval.scoring.score import ScoreResult

#: Width of tables written to a pipe or file, where no terminal says how wide it is: the
#: 80 columns everything a person reads fits in.
PIPE_WIDTH = 80


def stdout_console() -> Console:
    """A console on stdout: the terminal's width, never under 80 columns; when piped,
    $COLUMNS or 80."""
    from rich.console import Console

    console = Console(file=sys.stdout)
    if console.width < PIPE_WIDTH or (
        not console.is_terminal and not os.environ.get("COLUMNS", "").isdigit()
    ):
        # The tables are laid out for 80 columns: narrower, rich would squeeze their labels
        # (category names one letter a line) and intervals to nothing. At 80 a narrow
        # terminal wraps the lines, losing nothing.
        console = Console(file=sys.stdout, width=PIPE_WIDTH)
    return console


def print_warnings(warnings: Iterable[str]) -> None:
    """Each warning on stderr, folded at 80 columns under itself, as errors are."""
    for warning in warnings:
        click.echo(fold(shown(warning), "warning: "), err=True)


def print_summary(result: ScoreResult, run_info: Mapping[str, Any] | None = None) -> None:
    """The per-category table on stdout, then where the files are; `run_info`, the
    run.json of the run whose outputs these are, names its model as its report does."""
    from tfce_eval.report import RunView, render_table

    run_dir = result.run_dir
    assert run_dir is not None  # scored into a directory
    name = run_dir.path.resolve().name
    info = dict(run_info) if run_info is not None else None
    view = RunView(name, run_dir.path, result.summary, result.records, info)
    stdout_console().print(render_table([view]))
    # The directory once, then the file names: the line stays short whatever the path.
    files = (run_dir.scores, run_dir.summary, run_dir.report_md, run_dir.report_html)
    names = ", ".join(f.name for f in files)
    click.echo(fold(shown(f"written to {run_dir.path}: {names}")))


def print_document(document: Document) -> None:
    """A task's report Document as tables on stdout (the terminal's width, else 80)."""
    from tfce_eval.report.document import document_renderables

    console = stdout_console()
    for part in document_renderables(document):
        console.print(part)


def written_line(out_dir: Path) -> str:
    """The line that says where a QA or retrieval score's files went."""
    from tfce_eval.scoring.rundir import REPORT_HTML, REPORT_MD, SCORES, SUMMARY

    files = ", ".join((SCORES, SUMMARY, REPORT_MD, REPORT_HTML))
    return fold(shown(f"written to {out_dir}: {files}"))
