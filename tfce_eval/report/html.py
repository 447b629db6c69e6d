"""The HTML report: one self-contained page (inline CSS, inline SVG chart, no script).

It references nothing outside itself, so it opens the same from a run directory, a mail
attachment or an air-gapped machine. Every text that reaches the page (run names, model
answers, error messages, questions) is escaped and its control characters shown as escapes
(`html_text`): model output is untrusted data.
"""

from __future__ import annotations

from collections.abc import Callable

from tfce_eval import __version__
from tfce_eval.report.document import html_text as _e
from tfce_eval.report.failures import Failure, Line, Piece, RunFailures, outline
from tfce_eval.report.layout import Grid, RowKind, grids, meta_lines
from tfce_eval.report.model import Report
from tfce_eval.report.svg import accuracy_chart

_FONTS = (
    'system-ui, -apple-system, "Segoe UI", Roboto, "Noto Sans", "Noto Sans CJK SC", '
    '"Source Han Sans SC", "PingFang SC", "Microsoft YaHei", "WenQuanYi Micro Hei", sans-serif'
)
_MONO = '"DejaVu Sans Mono", Menlo, Consolas, "Noto Sans Mono CJK SC", monospace'

_CSS = f"""
body {{ font-family: {_FONTS}; color: #1f2328; background: #fff; margin: 0; }}
main {{ max-width: 1100px; margin: 0 auto; padding: 24px 28px 48px; }}
h1 {{ font-size: 24px; margin: 0 0 8px; }}
h2 {{ font-size: 18px; margin: 28px 0 8px; border-bottom: 1px solid #d0d7de; padding-bottom: 4px; }}
h3 {{ font-size: 16px; margin: 20px 0 6px; }}
h4 {{ font-size: 14px; margin: 16px 0 6px; }}
ul.meta {{ margin: 0; padding-left: 18px; color: #57606a; font-size: 14px; }}
h1, h2, h3, h4, ul.meta, p.note, th {{ overflow-wrap: anywhere; }}
div.scroll {{ overflow-x: auto; }}
table {{ border-collapse: collapse; font-size: 13px; margin: 4px 0 8px; }}
th, td {{ border: 1px solid #d0d7de; padding: 4px 8px; }}
th {{ background: #f6f8fa; font-weight: 600; }}
td.num {{ text-align: right; font-variant-numeric: tabular-nums; white-space: nowrap; }}
tr.overall td {{ font-weight: 600; background: #f6f8fa; }}
tr.not_run td {{ color: #8c959f; font-style: italic; }}
p.note {{ color: #57606a; font-size: 13px; margin: 4px 0; }}
svg.chart {{ max-width: 100%; height: auto; font-family: {_FONTS}; font-size: 13px; }}
div.failure {{ border: 1px solid #d0d7de; border-radius: 6px; padding: 8px 12px; margin: 8px 0; }}
div.failure .head {{ font-size: 14px; }}
div.failure code.id {{ font-weight: 600; }}
span.code {{ background: #ffebe9; color: #82071e; border-radius: 4px; padding: 0 6px; }}
dl {{ display: grid; grid-template-columns: 90px 1fr; gap: 4px 12px; margin: 8px 0 0; }}
dt {{ color: #57606a; font-size: 13px; }}
dd {{ margin: 0; }}
pre {{ font-family: {_MONO}; font-size: 12.5px; background: #f6f8fa; padding: 6px 8px;
       margin: 0; white-space: pre-wrap; overflow-wrap: anywhere; }}
footer {{ margin-top: 32px; color: #8c959f; font-size: 12px; }}
"""


def _label(text: str) -> str:
    """A column label that may break after `_`, so that wide code tables stay narrow."""
    return _e(text).replace("_", "_<wbr>")


def grid_html(grid: Grid) -> str:
    out = [f"<h2>{_e(grid.title)}</h2>"]
    if grid.columns:
        out.append('<div class="scroll"><table>')
        grouped = any(c.group for c in grid.columns)
        if grouped:
            first: list[str] = []
            i = 0
            while i < len(grid.columns):
                col = grid.columns[i]
                if col.group is None:
                    first.append(f'<th rowspan="2">{_label(col.label)}</th>')
                    i += 1
                    continue
                span = 1
                while i + span < len(grid.columns) and grid.columns[i + span].group == col.group:
                    span += 1
                first.append(f'<th colspan="{span}">{_e(col.group)}</th>')
                i += span
            second = [f"<th>{_label(c.label)}</th>" for c in grid.columns if c.group is not None]
            out.append(
                "<thead><tr>" + "".join(first) + "</tr><tr>" + "".join(second) + "</tr></thead>"
            )
        else:
            out.append(
                "<thead><tr>"
                + "".join(f"<th>{_label(c.label)}</th>" for c in grid.columns)
                + "</tr></thead>"
            )
        out.append("<tbody>")
        for cells, kind in grid.rows:
            tds = "".join(
                f'<td class="num">{_e(text)}</td>' if col.numeric else f"<td>{_e(text)}</td>"
                for col, text in zip(grid.columns, cells, strict=True)
            )
            css = "" if kind is RowKind.CATEGORY else f' class="{kind}"'
            out.append(f"<tr{css}>{tds}</tr>")
        out.append("</tbody></table></div>")
    out.extend(f'<p class="note">{_e(note)}</p>' for note in grid.notes)
    return "\n".join(out)


def _failure_html(f: Failure) -> str:
    body = "".join(
        f"<dt>{_e(label)}</dt><dd><pre>{_e(text)}</pre></dd>" for label, text in f.fields()
    )
    return (
        '<div class="failure"><div class="head">'
        f'<code class="id">{_e(f.id)}</code> <span class="code">{_e(f.error_type or "")}</span> '
        f"{_e(f.error or '')}</div><dl>{body}</dl></div>"
    )


_PIECES: dict[Piece, Callable[[Line], str]] = {
    Piece.TITLE: lambda line: f"<h2>{_e(line.text)}</h2>",
    Piece.RUN: lambda line: f"<h3>{_e(line.text)}</h3>",
    Piece.NOTE: lambda line: f'<p class="note">{_e(line.text)}</p>',
    Piece.CATEGORY: lambda line: f"<h4>{_e(line.text)}</h4>",
    Piece.ITEM: lambda line: _failure_html(line.item),
}


def failures_html(runs: tuple[RunFailures, ...], per_category: int) -> str:
    return "\n".join(_PIECES[line.piece](line) for line in outline(runs, per_category))


def render_html(report: Report) -> str:
    names = ", ".join(r.name for r in report.runs)
    parts = [
        "<!DOCTYPE html>",
        '<html lang="en"><head><meta charset="utf-8">',
        '<meta name="viewport" content="width=device-width, initial-scale=1">',
        f"<title>tfce-eval report: {_e(names)}</title>",
        f"<style>{_CSS}</style></head><body><main>",
        f"<h1>tfce-eval report: {_e(names)}</h1>",
        '<ul class="meta">'
        + "".join(f"<li>{_e(line)}</li>" for line in meta_lines(report))
        + "</ul>",
        "<h2>Accuracy chart</h2>",
        accuracy_chart(report),
    ]
    parts.extend(grid_html(g) for g in grids(report))
    if report.failures:
        parts.append(failures_html(report.failures, report.failures_per_category))
    parts.append(f"<footer>tfce-eval {_e(__version__)}</footer></main></body></html>")
    return "\n".join(parts) + "\n"
