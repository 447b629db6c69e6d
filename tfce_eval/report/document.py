"""A report as titled tables: the seam through which every task kind reaches the five formats.

Function calling has its own detailed report model (`report.model`); the question-answering
and retrieval tasks describe their reports as a `Document` (a title, notes and tables of
plain cells, plus the JSON object `--format json` prints) and this module renders it as a
terminal table, Markdown, CSV, HTML or JSON. A new task kind builds a Document; it writes no
renderer of its own.

Every text format of every report (these and function calling's own) shows text through
the functions below: `printable` makes each control character visible, and `rich_text`,
`md_cell`, `html_text` and `csv_cell` add what each format needs to show text as typed.
"""

from __future__ import annotations

import csv
import html
import io
import json
import math
import re
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from tfce_eval.model import parse_choice
from tfce_eval.report.formats import ReportFormat

if TYPE_CHECKING:  # rich loads only when a table is printed
    from rich.console import Console, ConsoleOptions, RenderableType
    from rich.segment import Segment
    from rich.text import Text


def _escape(code: int) -> str:
    if code == 0x0D:
        return "\\r"
    return f"\\x{code:02x}" if code <= 0xFF else f"\\u{code:04x}"


#: What a person's screen or viewer would act on rather than show: every C0 control but
#: newline and tab, DEL, every C1 control, and the bidi embeddings, overrides and isolates
#: (which reorder the text around them), each to its escape.
_UNPRINTABLE = {
    code: _escape(code)
    for code in (*range(0x20), *range(0x7F, 0xA0), *range(0x202A, 0x202F), *range(0x2066, 0x206A))
    if code not in (0x09, 0x0A)
}


def printable(text: str) -> str:
    r"""`text` as every text format shows it: a control character that a terminal would
    obey (ESC, CR, BEL...) or that reorders the text (U+202E) as its escape, `\x1b`,
    `\r`, `\u202e`; newline and tab kept. Data (JSON) keeps the characters themselves."""
    return text.translate(_UNPRINTABLE)


def rich_text(text: str, style: str = "") -> Text:
    """`text` for a rich console, printable and shown as typed: never read as markup."""
    from rich.text import Text

    return Text(printable(text), style=style)


_MD_ESCAPES = str.maketrans(
    {"\\": "\\\\", "`": "\\`", "|": "\\|", "<": "&lt;", ">": "&gt;", "&": "&amp;"}
)
#: `]` where it would close a link, an image, a reference or its definition.
_MD_LINK = re.compile(r"\](?=[(\[:])")


def md_cell(text: str) -> str:
    """`text` as one line of Markdown that shows it as typed: no cell, code span, link or
    HTML can come from it (`|`, backticks, `<`, `>`, `&` escaped); lines joined by `<br>`."""
    escaped = printable(text).translate(_MD_ESCAPES)
    return _MD_LINK.sub(r"\\]", escaped).replace("\n", "<br>")


def html_text(text: str) -> str:
    """`text` as HTML that shows it as typed, quotes escaped for attributes."""
    return html.escape(printable(text), quote=True)


def clip(text: str, limit: int) -> str:
    """`text` cut to `limit` characters (`…` marking the cut), lone surrogates escaped
    (`\\ud83d`) so that it can be written as UTF-8 whatever a model or a dataset put in it."""
    if not text.isascii():
        text = text.encode("utf-8", "backslashreplace").decode("utf-8")
    return text if len(text) <= limit else text[: limit - 1] + "…"


#: A number as a spreadsheet reads it, which it computes nothing from.
_NUMBER = re.compile(r"[+-]?(\d+(\.\d*)?|\.\d+)([eE][+-]?\d+)?")


def csv_cell(value: Any) -> Any:
    r"""A CSV cell: text printable and, where a spreadsheet would take it for a formula
    (it starts with `=`, `+`, `-`, `@` or a tab, a CR being `\r` by then, and is not a
    number), behind a `'` (OWASP's advice); numbers as they are."""
    if not isinstance(value, str):
        return value
    text = printable(value)
    if text[:1] in ("=", "+", "-", "@", "\t") and not _NUMBER.fullmatch(text):
        return "'" + text
    return text


@dataclass(frozen=True, slots=True)
class Interval:
    """A confidence interval in a cell: `[low, high]` in the text formats, every report's
    notation; two numbers at full precision in CSV (columns `<name> low`, `<name> high`)."""

    low: float
    high: float


#: A cell: text, a count, a figure or an interval (rendered with `digits` decimals), or
#: nothing ("-").
Cell = str | int | float | Interval | None


def _numeric(value: Cell) -> bool:
    return isinstance(value, int | float | Interval) and not isinstance(value, bool)


@dataclass(frozen=True)
class Table:
    """One table of a report. `key` names it in CSV; numbers are rendered whole."""

    key: str
    title: str
    columns: tuple[str, ...]
    rows: tuple[tuple[Cell, ...], ...]
    note: str = ""
    digits: int = 4


@dataclass(frozen=True)
class Document:
    """A whole report: what every format shows, built once by the task's report section."""

    title: str
    tables: tuple[Table, ...]
    notes: tuple[str, ...] = ()
    data: Mapping[str, Any] = field(default_factory=dict)
    #: What the report is of, a line per run (its model and settings, the dataset),
    #: shown under the title as function calling's report shows its runs.
    about: tuple[str, ...] = ()


def cell_text(value: Cell, digits: int = 4) -> str:
    """The text of one cell: `-` for nothing, floats with `digits` decimals, never cut."""
    if value is None:
        return "-"
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, Interval):
        return f"[{cell_text(value.low, digits)}, {cell_text(value.high, digits)}]"
    if isinstance(value, float):
        if math.isnan(value):
            return "-"
        if value != 0 and abs(value) < 10 ** (-digits):
            return f"{value:.{digits}g}"
        return f"{value:.{digits}f}"
    return str(value)


def _rows_text(table: Table) -> list[list[str]]:
    return [[cell_text(c, table.digits) for c in row] for row in table.rows]


class Trimmed:
    """A renderable printed with no line ending in spaces.

    rich pads a table's cells to the column's width and leaves the space it wrapped a line
    at; on a terminal they are invisible, in a pipe or a file they are trailing spaces.
    """

    def __init__(self, renderable: RenderableType) -> None:
        self.renderable = renderable

    def __rich_console__(self, console: Console, options: ConsoleOptions) -> Iterator[Segment]:
        from rich.segment import Segment

        for line in console.render_lines(self.renderable, options, pad=False):
            while line and not line[-1].control and not line[-1].text.rstrip(" "):
                line.pop()
            if line and not line[-1].control:
                text, style, control = line[-1]
                line[-1] = Segment(text.rstrip(" "), style, control)
            yield from line
            yield Segment.line()


class Folded:
    """Text folded at the console's width as the command line folds its messages: at
    spaces only, so that a run name or a path is never split, later lines indented."""

    def __init__(self, text: str, first: str = "", rest: str = "    ", style: str = "") -> None:
        self.text, self.first, self.rest, self.style = text, first, rest, style

    def __rich_console__(self, console: Console, options: ConsoleOptions) -> Iterator[Text]:
        import textwrap

        from rich.text import Text

        lines = textwrap.wrap(
            printable(self.text),
            width=options.max_width,
            initial_indent=self.first,
            subsequent_indent=self.rest,
            break_long_words=False,
            break_on_hyphens=False,
        )
        for line in lines:
            # Only a word longer than the line folds, rather than being cut.
            yield Text(line, style=self.style, overflow="fold")


def render_document_text(doc: Document, width: int = 80) -> str:
    """Plain terminal text: each table with columns sized to their widest cell."""
    from rich.console import Console

    console = Console(width=width, file=io.StringIO(), color_system=None, highlight=False)
    for renderable in document_renderables(doc):
        console.print(renderable)
    out = console.file
    assert isinstance(out, io.StringIO)
    return out.getvalue().rstrip("\n") + "\n"


def document_renderables(doc: Document) -> list[Any]:
    """The Document as rich renderables (the terminal table format), no line ending in
    spaces."""
    from rich import box
    from rich.table import Table as RichTable

    parts: list[Any] = [rich_text(doc.title, style="bold")]
    parts.extend(Folded(line) for line in doc.about)
    if doc.about and doc.tables and doc.tables[0].title:
        parts.append(rich_text(""))  # an untitled table's blank top edge is one already
    for n, table in enumerate(doc.tables):
        if n and doc.tables[n - 1].note:
            parts.append(rich_text(""))  # the note above ends its table: a line between
        if not table.rows:  # a heading and its note, not a header over nothing
            parts.append(rich_text(table.title, style="table.title"))
            if table.note:
                parts.append(rich_text(table.note))
            continue
        rich_table = RichTable(
            title=rich_text(table.title, style="table.title") if table.title else None,
            title_justify="left",
            box=box.SIMPLE_HEAD,
        )
        for i, name in enumerate(table.columns):
            # Figures only: a column that also holds text (a query, a ranked list) wraps.
            cells = [row[i] for row in table.rows if i < len(row) and row[i] is not None]
            numeric = bool(cells) and all(_numeric(c) for c in cells)
            rich_table.add_column(
                rich_text(name),
                justify="right" if numeric else "left",
                overflow="fold",
                no_wrap=numeric,
            )
        for row in _rows_text(table):
            rich_table.add_row(*map(rich_text, row))
        parts.append(rich_table)
        if table.note:  # under the table, folded at the console's width, not the table's
            parts.append(rich_text(table.note))
    if doc.notes and doc.tables and doc.tables[-1].note:
        parts.append(rich_text(""))  # the last table's note is not the report's
    parts.extend(rich_text(note) for note in doc.notes)
    return [Trimmed(part) for part in parts]


def render_document_markdown(doc: Document) -> str:
    lines = [f"# {md_cell(doc.title)}", ""]
    if doc.about:
        lines += [*(f"- {md_cell(line)}" for line in doc.about), ""]
    for table in doc.tables:
        if table.title:
            lines += [f"## {md_cell(table.title)}", ""]
        if table.rows:
            lines.append("| " + " | ".join(map(md_cell, table.columns)) + " |")
            lines.append("|" + "|".join("---" for _ in table.columns) + "|")
            for row in _rows_text(table):
                lines.append("| " + " | ".join(map(md_cell, row)) + " |")
            lines.append("")
        if table.note:
            lines += [md_cell(table.note), ""]
    for note in doc.notes:
        lines += [md_cell(note), ""]
    return "\n".join(lines).rstrip() + "\n"


def render_document_csv(doc: Document) -> str:
    """Every table's rows, each prefixed with its table's key; a header row per table.
    A column holding intervals is written as two, `<name> low` and `<name> high`. The
    about lines come first, as a table `about` (which run each label is)."""
    buf = io.StringIO()
    writer = csv.writer(buf, lineterminator="\n")
    if doc.about:
        writer.writerow(["table", "about"])
        writer.writerows(["about", csv_cell(line)] for line in doc.about)
    for table in doc.tables:
        split = {
            i
            for i in range(len(table.columns))
            if any(i < len(row) and isinstance(row[i], Interval) for row in table.rows)
        }
        header: list[str] = []
        for i, name in enumerate(table.columns):
            header += [f"{name} low", f"{name} high"] if i in split else [name]
        writer.writerow(["table", *map(csv_cell, header)])
        for row in table.rows:
            cells: list[Any] = [table.key]
            for i, c in enumerate(row):
                if i in split:
                    cells += [c.low, c.high] if isinstance(c, Interval) else ["", ""]
                else:
                    cells.append("" if c is None else csv_cell(c))
            writer.writerow(cells)
    return buf.getvalue()


def render_document_json(doc: Document) -> str:
    return json.dumps(doc.data, ensure_ascii=False, indent=2, allow_nan=False) + "\n"


_CSS = (
    "body{font-family:system-ui,'Noto Sans CJK SC',sans-serif;margin:2em;max-width:72em}"
    "table{border-collapse:collapse;margin:1em 0;max-width:100%;display:block;"
    "overflow-x:auto}th,td{border:1px solid #ccc;padding:.3em .6em;text-align:left;"
    "overflow-wrap:anywhere;white-space:pre-wrap}"
    "td.n{text-align:right;font-variant-numeric:tabular-nums}"
    "caption{text-align:left;font-weight:bold;margin:.5em 0}p.note{color:#555}"
)


def render_document_html(doc: Document) -> str:
    esc = html_text
    out = [
        "<!doctype html>",
        '<html lang="en"><head><meta charset="utf-8">',
        f"<title>{esc(doc.title)}</title><style>{_CSS}</style></head><body>",
        f"<h1>{esc(doc.title)}</h1>",
    ]
    if doc.about:
        out.append("<ul>" + "".join(f"<li>{esc(line)}</li>" for line in doc.about) + "</ul>")
    for table in doc.tables:
        if not table.rows:
            out.append(f"<h2>{esc(table.title)}</h2>")
            if table.note:
                out.append(f'<p class="note">{esc(table.note)}</p>')
            continue
        out.append("<table>")
        if table.title:
            out.append(f"<caption>{esc(table.title)}</caption>")
        out.append("<tr>" + "".join(f"<th>{esc(c)}</th>" for c in table.columns) + "</tr>")
        for raw, row in zip(table.rows, _rows_text(table), strict=True):
            cells = []
            for value, text in zip(raw, row, strict=True):
                cls = ' class="n"' if _numeric(value) else ""
                cells.append(f"<td{cls}>{esc(text)}</td>")
            out.append("<tr>" + "".join(cells) + "</tr>")
        out.append("</table>")
        if table.note:
            out.append(f'<p class="note">{esc(table.note)}</p>')
    out.extend(f'<p class="note">{esc(note)}</p>' for note in doc.notes)
    out.append("</body></html>")
    return "\n".join(out) + "\n"


def render_document(doc: Document, fmt: ReportFormat | str) -> str:
    """The Document in one of the five formats (`ReportFormat`, or its text)."""
    renderers = {
        ReportFormat.TABLE: render_document_text,
        ReportFormat.MD: render_document_markdown,
        ReportFormat.JSON: render_document_json,
        ReportFormat.CSV: render_document_csv,
        ReportFormat.HTML: render_document_html,
    }
    return renderers[parse_choice(ReportFormat, fmt, "fmt")](doc)


def run_letters(n: int) -> list[str]:
    """How reports of several runs name them: A, B, ..., Z, then R27, R28, ... (a legend
    gives each letter's full name, so names are never cut to fit)."""
    return [chr(ord("A") + i) if i < 26 else f"R{i + 1}" for i in range(n)]
