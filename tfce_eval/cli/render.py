"""Rendering helpers shared by the commands: warnings and the per-category table."""

from __future__ import annotations

import os
import sys
from collections.abc import Iterable

import click
from rich.console import Console

from tfce_eval.report import RunView, render_table
from tfce_eval.scoring.score import ScoreResult

#: Width of tables written to a pipe or file, where no terminal says how wide it is.
PIPE_WIDTH = 140


def stdout_console() -> Console:
    """A console on stdout: the terminal's width; when piped, $COLUMNS or a fixed width."""
    console = Console(file=sys.stdout)
    if not console.is_terminal and not os.environ.get("COLUMNS", "").isdigit():
        console = Console(file=sys.stdout, width=PIPE_WIDTH)
    return console


def print_warnings(warnings: Iterable[str]) -> None:
    for warning in warnings:
        click.echo(f"warning: {warning}", err=True)


def print_summary(result: ScoreResult, name: str | None = None) -> None:
    """The per-category table on stdout, then where the files are."""
    run_dir = result.run_dir
    view = RunView(
        name or run_dir.path.resolve().name, run_dir.path, result.summary, result.records, None
    )
    stdout_console().print(render_table([view]))
    click.echo(
        f"written: {run_dir.scores}, {run_dir.summary}, {run_dir.report_md}, {run_dir.report_html}"
    )
