"""The terminal report (rich): what `score`, `run` and `report` print.

Every cell is a rich Text, never markup: run names and model output would otherwise be read
as rich markup (`[bold]` in a model's answer must print as typed).
"""

from __future__ import annotations

import io

from rich import box
from rich.console import Console, Group, RenderableType
from rich.padding import Padding
from rich.table import Table
from rich.text import Text

from tfce_eval.report.failures import Failure, RunFailures
from tfce_eval.report.layout import Grid, RowKind, grids, meta_lines
from tfce_eval.report.model import Report

_ROW_STYLE = {RowKind.CATEGORY: "", RowKind.NOT_RUN: "dim", RowKind.OVERALL: "bold"}


def _table(grid: Grid) -> RenderableType:
    parts: list[RenderableType] = [Text(grid.title, style="bold underline")]
    if grid.columns:
        table = Table(box=box.SIMPLE_HEAD, show_edge=False, pad_edge=False)
        for i, col in enumerate(grid.columns):
            header = f"{col.group}\n{col.label}" if col.group else col.label
            # The first column names the row ("overall (micro, item-weighted)"): keep it whole.
            table.add_column(
                Text(header), justify="right" if col.numeric else "left", no_wrap=i == 0
            )
        for cells, kind in grid.rows:
            texts = [
                Text(c.replace(", ", "\n") if col.listing else c)
                for col, c in zip(grid.columns, cells, strict=True)
            ]
            table.add_row(*texts, style=_ROW_STYLE[kind])
        parts.append(table)
    parts.extend(Text(note, style="italic") for note in grid.notes)
    parts.append(Text(""))
    return Group(*parts)


def _failures(runs: tuple[RunFailures, ...], per_category: int) -> RenderableType:
    parts: list[RenderableType] = [
        Text(f"Failures (up to {per_category} per category)", "bold underline")
    ]
    for run in runs:
        if len(runs) > 1:
            parts.append(Text(run.run, style="bold"))
        if run.note:
            parts.append(Text(f"Questions: {run.note}", style="italic"))
        for cat in run.categories:
            parts.append(Text(f"{cat.category}: {len(cat.shown)} of {cat.failing} failing", "bold"))
            for f in cat.shown:
                parts.append(_failure(f))
        parts.append(Text(""))
    return Group(*parts)


def _failure(f: Failure) -> RenderableType:
    grid = Table.grid(padding=(0, 1))
    grid.add_column(style="dim", min_width=10)
    grid.add_column()
    head = Text(f.id, style="cyan")
    head.append(f"  {f.error_type or ''}", style="bold")
    grid.add_row(Text(""), head)
    rows = [
        ("error", f.error or ""),
        ("question", f.question if f.question is not None else "(unavailable)"),
        ("expected", f.expected),
        ("received", f.received),
    ]
    if f.raw is not None:
        rows.append(("as sent", f.raw))
    for label, text in rows:
        grid.add_row(Text(label), Text(text))
    return Padding(grid, (0, 0, 1, 2))


def table_renderable(report: Report) -> RenderableType:
    parts: list[RenderableType] = [Text(line) for line in meta_lines(report)]
    parts.append(Text(""))
    parts.extend(_table(g) for g in grids(report, breakdown=False))
    if report.failures:
        parts.append(_failures(report.failures, report.failures_per_category))
    return Group(*parts)


def table_text(report: Report, width: int = 140) -> str:
    """The terminal report as plain text (no colours), for files and pipes."""
    buffer = io.StringIO()
    console = Console(file=buffer, width=width, color_system=None, force_terminal=False)
    console.print(table_renderable(report))
    return buffer.getvalue()
