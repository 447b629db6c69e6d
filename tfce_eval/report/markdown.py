r"""The Markdown report (report.md, `--format md`).

Table cells, headings and notes go through `md_cell`, which escapes whatever a Markdown
viewer would act on (`|`, backticks, `<`, `>`, `&`, link brackets) so that no text can break
a table or be taken for HTML or a link. Failure texts, printable (a CR shows as `\r`), go
into code fences longer than any run of backticks they contain, each of their lines
indented as the fence is, whatever ends it (CommonMark ends a line at a lone CR too), so
that no text can close its fence.
"""

from __future__ import annotations

import re
from collections.abc import Callable

from tfce_eval.report.document import md_cell as cell
from tfce_eval.report.document import printable
from tfce_eval.report.failures import Failure, Line, Piece, RunFailures, outline
from tfce_eval.report.layout import Grid, RowKind, grids, meta_lines
from tfce_eval.report.model import Report

#: Every line end CommonMark knows: CRLF, LF and a lone CR.
_LINE_END = re.compile(r"\r\n?|\n")


def fenced(text: str) -> str:
    """`text` as a fenced code block, one line of it per line of the text whatever ends it,
    so that an indent before each line keeps the whole text inside the block."""
    longest = max((len(m) for m in re.findall(r"`+", text)), default=0)
    fence = "`" * max(3, longest + 1)
    return "\n".join([f"{fence}text", *_LINE_END.split(text), fence])


def grid_md(grid: Grid) -> str:
    out = [f"## {cell(grid.title)}", ""]
    if grid.columns:
        headers = [cell(f"{c.group}: {c.label}" if c.group else c.label) for c in grid.columns]
        aligns = ["---:" if c.numeric else ":---" for c in grid.columns]
        out.append("| " + " | ".join(headers) + " |")
        out.append("| " + " | ".join(aligns) + " |")
        for cells, kind in grid.rows:
            shown = [cell(c) for c in cells]
            if kind is RowKind.OVERALL:
                shown = [f"**{c}**" if c else c for c in shown]
            out.append("| " + " | ".join(shown) + " |")
        out.append("")
    out.extend(f"_{cell(note)}_\n" for note in grid.notes)
    return "\n".join(out)


def _failure_md(f: Failure) -> str:
    parts = [f"- **{cell(f.id)}** `{f.error_type or ''}`: {cell(f.error or '')}", ""]
    for label, text in f.fields():
        parts.append(f"  {label}:")
        parts.append("")
        parts.extend("  " + line for line in fenced(printable(text)).split("\n"))
        parts.append("")
    return "\n".join(parts)


_PIECES: dict[Piece, Callable[[Line], str]] = {
    Piece.TITLE: lambda line: f"## {cell(line.text)}\n",
    Piece.RUN: lambda line: f"### {cell(line.text)}\n",
    Piece.NOTE: lambda line: f"_{cell(line.text)}_\n",
    Piece.CATEGORY: lambda line: f"#### {cell(line.text)}\n",
    Piece.ITEM: lambda line: _failure_md(line.item),
}


def failures_md(runs: tuple[RunFailures, ...], per_category: int) -> str:
    return "\n".join(_PIECES[line.piece](line) for line in outline(runs, per_category))


def render_markdown(report: Report) -> str:
    names = ", ".join(r.name for r in report.runs)
    out = [f"# tfce-eval report: {cell(names)}", ""]
    out.extend(f"- {cell(line)}" for line in meta_lines(report))
    out.append("")
    out.extend(grid_md(g) for g in grids(report))
    if report.failures:
        out.append(failures_md(report.failures, report.failures_per_category))
    return "\n".join(out).rstrip("\n") + "\n"
