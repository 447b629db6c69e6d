"""The terminal report (rich): what `score`, `run` and `report` print.

Tables come from report.compact in several shapes; `Fit` prints the first shape whose tables
fit the console, so at 80 columns as at 200 no figure is cut: figures never wrap, and a
numeric column's header is stacked over its figures. Every text is a rich Text, never
markup: run names and model output would otherwise be read as rich markup (`[bold]` in a
model's answer must print as typed); and its control characters are shown as escapes
(`printable`), never sent to the terminal.
"""

from __future__ import annotations

import io
from collections.abc import Callable, Sequence
from dataclasses import replace

from rich import box
from rich.cells import cell_len
from rich.console import Console, ConsoleOptions, Group, RenderableType, RenderResult
from rich.padding import Padding
from rich.table import Table
from rich.text import Text

from tfce_eval.report.compact import Shape, accuracy_shapes, error_shapes, legend, run_labels
from tfce_eval.report.document import Folded, Trimmed, rich_text
from tfce_eval.report.failures import Failure, Line, Piece, outline
from tfce_eval.report.layout import Column, Grid, RowKind, paired_grid, usage_grid
from tfce_eval.report.model import Report

_ROW_STYLE = {RowKind.CATEGORY: "", RowKind.NOT_RUN: "dim", RowKind.OVERALL: "bold"}
#: Narrowest a stacked header is made, so that short labels stay on one line.
_HEADER_MIN = 8
#: Wide enough that measuring a table never wraps it.
_UNBOUNDED = 10_000


def _stacked(label: str, cells: Sequence[str]) -> str:
    """A numeric column's label in lines no wider than its figures (breaks at spaces and `_`).

    Figures never wrap, so a long label would otherwise make the column, and the table,
    wider than its numbers need.
    """
    pieces = [(part, j == 0) for word in label.split(" ") for j, part in enumerate(_parts(word))]
    width = max(_HEADER_MIN, *(cell_len(c) for c in cells), *(cell_len(p) for p, _ in pieces))
    lines: list[str] = []
    current = ""
    for piece, starts_word in pieces:
        joined = current + (" " if starts_word and current else "") + piece
        if current and cell_len(joined) > width:
            lines.append(current)
            current = piece
        else:
            current = joined
    return "\n".join([*lines, current])


def _parts(word: str) -> list[str]:
    """`parallel_multiple` -> `parallel_`, `multiple`: where a header may break in a word."""
    parts = [p + "_" for p in word.split("_")]
    parts[-1] = parts[-1][:-1]
    return [p for p in parts if p]


def _header(col: Column, index: int, grid: Grid) -> str:
    label = col.label
    if col.numeric:
        label = _stacked(label, [cells[index] for cells, _ in grid.rows])
    if col.group is None:
        return label
    # A run's letter above the first column of its group only.
    first = index == 0 or grid.columns[index - 1].group != col.group
    return f"{col.group if first else ''}\n{label}"


def _grid_table(grid: Grid) -> Table | None:
    """The grid as a rich table whose figures never wrap and are never cut."""
    if not grid.columns:
        return None
    table = Table(box=box.SIMPLE_HEAD, show_edge=False, pad_edge=False, padding=(0, 1, 0, 0))
    for i, col in enumerate(grid.columns):
        # Figures never wrap; text (names, notes) folds rather than being cut.
        table.add_column(
            rich_text(_header(col, i, grid)),
            justify="right" if col.numeric else "left",
            no_wrap=col.numeric,
            overflow="fold",
        )
    for cells, kind in grid.rows:
        table.add_row(*map(rich_text, cells), style=_ROW_STYLE[kind])
    return table


def _grid(grid: Grid, table: Table | None = None) -> RenderableType:
    parts: list[RenderableType] = [rich_text(grid.title, style="bold underline")]
    table = table or _grid_table(grid)
    if table is not None:
        parts.append(table)
    parts.extend(rich_text(note, style="italic") for note in grid.notes)
    parts.append(Text(""))
    return Group(*parts)


class Fit:
    """The first of several shapes of a table set whose every table fits the console's width."""

    def __init__(self, shapes: Sequence[Shape]) -> None:
        self.shapes = [[(g, _grid_table(g)) for g in shape] for shape in shapes]

    def __rich_console__(self, console: Console, options: ConsoleOptions) -> RenderResult:
        unbounded = options.update_width(_UNBOUNDED)
        chosen = self.shapes[-1]
        for shape in self.shapes:
            widths = [console.measure(t, options=unbounded).maximum for _, t in shape if t]
            if all(w <= options.max_width for w in widths):
                chosen = shape
                break
        for grid, table in chosen:
            yield _grid(grid, table)


def _unnamed(grid: Grid) -> Grid:
    """A one-run grid without its first column, the run's name (the legend names it)."""
    rows = tuple((cells[1:], kind) for cells, kind in grid.rows)
    return replace(grid, columns=grid.columns[1:], rows=rows)


def _failure(f: Failure) -> RenderableType:
    grid = Table.grid(padding=(0, 1))
    grid.add_column(style="dim", min_width=10)
    # A long text without spaces (a question in Chinese, JSON) folds over lines, never cut.
    grid.add_column(overflow="fold")
    head = rich_text(f.id, style="cyan")
    head.append_text(rich_text(f"  {f.error_type or ''}", style="bold"))
    grid.add_row(Text(""), head)
    for label, text in (("error", f.error or ""), *f.fields()):
        grid.add_row(Text(label), rich_text(text))
    return Padding(grid, (0, 0, 1, 2))


_PIECES: dict[Piece, Callable[[Line], RenderableType]] = {
    Piece.TITLE: lambda line: rich_text(line.text, style="bold underline"),
    Piece.RUN: lambda line: Group(Text(""), rich_text(line.text, style="bold")),
    Piece.NOTE: lambda line: rich_text(line.text, style="italic"),
    Piece.CATEGORY: lambda line: rich_text(line.text, style="bold"),
    Piece.ITEM: lambda line: _failure(line.item),
}


def _failures(report: Report) -> RenderableType:
    """Failing items; with several runs, each headed by its letter and name."""
    labels = zip(run_labels(report), report.runs, strict=True)
    names = [f"{label} = {run.name}" for label, run in labels]
    lines = outline(report.failures, report.failures_per_category, names)
    return Group(*(_PIECES[line.piece](line) for line in lines), Text(""))


def table_renderable(report: Report) -> RenderableType:
    """The terminal report: legend, accuracy, errors, usage, paired test, failures.

    Each table takes the widest of its shapes that fits the console it is printed on; no
    line ends in spaces.
    """
    parts: list[RenderableType] = []
    for heading, details in legend(report):
        if details:
            parts.append(Folded(heading, style="bold"))
            parts.append(Folded(details, first="    "))
        else:
            parts.append(Folded(heading))
    parts.append(Text(""))
    parts.append(Fit(accuracy_shapes(report)))
    parts.extend(Fit(shapes) for shapes in error_shapes(report))
    usage = usage_grid(report, run_labels(report))
    if usage is not None and len(report.runs) == 1 and usage.columns:
        # One run's name may not fit beside the figures: then the legend names the run.
        parts.append(Fit([(usage,), (_unnamed(usage),)]))
    elif usage is not None:
        parts.append(_grid(usage))
    paired = paired_grid(report)
    if paired is not None:
        # The legend names A and B in full; the title need not repeat the names.
        parts.append(_grid(replace(paired, title="Paired comparison of A and B")))
    if report.failures:
        parts.append(_failures(report))
    return Trimmed(Group(*parts))


def table_text(report: Report, width: int = 140) -> str:
    """The terminal report as plain text (no colours), for files and pipes; it ends with
    one newline."""
    buffer = io.StringIO()
    console = Console(file=buffer, width=width, color_system=None, force_terminal=False)
    console.print(table_renderable(report))
    return buffer.getvalue().rstrip("\n") + "\n"
