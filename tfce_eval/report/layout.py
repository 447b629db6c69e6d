"""The tables of a report as rows of text, shared by the terminal, Markdown and HTML renderers.

A renderer only decides how a grid looks; which columns there are, what each cell says and
how numbers are written is decided here once, so every format shows the same figures.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from enum import StrEnum
from typing import Any

from tfce_eval.report.model import (
    MODEL_ERROR_CODES,
    REQUEST_ERROR,
    CategoryFigures,
    Rate,
    Report,
    RunFigures,
)
from tfce_eval.report.paired import PairedRow
from tfce_eval.words import about_line, counted

MICRO_LABEL = "overall (micro, item-weighted)"
MACRO_LABEL = "overall (macro, mean of categories)"
NA = "N/A"
DASH = "—"
REQUEST_NOTE = (
    f"{REQUEST_ERROR}: the model could not be asked (network, server); not a model error."
)


class RowKind(StrEnum):
    CATEGORY = "category"
    NOT_RUN = "not_run"
    OVERALL = "overall"


@dataclass(frozen=True)
class Column:
    label: str
    group: str | None = None  # the run a column belongs to, in side-by-side grids
    numeric: bool = True


@dataclass(frozen=True)
class Grid:
    title: str
    columns: tuple[Column, ...]
    rows: tuple[tuple[tuple[str, ...], RowKind], ...]
    notes: tuple[str, ...] = ()


# Numbers ------------------------------------------------------------------------------------


def pct(value: float | None) -> str:
    return DASH if value is None else f"{100 * value:.1f}%"


def ci(rate: Rate | None) -> str:
    if rate is None or rate.ci95 is None:
        return DASH
    lo, hi = rate.ci95
    return f"[{100 * lo:.1f}, {100 * hi:.1f}]"


def p_value(value: float | None) -> str:
    return DASH if value is None else f"{value:.3g}"


def count_list(counts: Sequence[tuple[str, int]]) -> str:
    return ", ".join(f"{code} {n}" for code, n in counts) if counts else DASH


def exec_cell(rate: Rate | None) -> str:
    return DASH if rate is None else f"{pct(rate.accuracy)} ({rate.correct}/{rate.total})"


def seconds(value: Any) -> str:
    return DASH if not isinstance(value, int | float) else f"{value:.2f} s"


def integer(value: Any) -> str:
    return DASH if not isinstance(value, int) else f"{value:,}"


def usd(value: float | None) -> str:
    if value is None:
        return DASH
    return f"${value:,.2f}" if value >= 1 else f"${value:.4f}"


# Grids --------------------------------------------------------------------------------------


def _sum_errors(cats: Sequence[CategoryFigures]) -> tuple[tuple[str, int], ...]:
    totals: dict[str, int] = {}
    for f in cats:
        for code, n in f.model_errors:
            totals[code] = totals.get(code, 0) + n
    return tuple((c, totals[c]) for c in MODEL_ERROR_CODES if c in totals)


def _single_run_grid(report: Report) -> Grid:
    run = report.runs[0]
    columns = (
        Column("category", numeric=False),
        Column("n"),
        Column("correct"),
        Column("accuracy"),
        Column("95% CI"),
        Column("model errors", numeric=False),
        Column("request errors"),
        Column("exec accuracy (correct/covered)"),
    )
    rows: list[tuple[tuple[str, ...], RowKind]] = []
    for cat in report.categories:
        f = run.category(cat)
        if f is None:
            rows.append(((cat, DASH, DASH, NA, DASH, DASH, DASH, DASH), RowKind.NOT_RUN))
            continue
        rows.append(
            (
                (
                    cat,
                    str(f.rate.total),
                    str(f.rate.correct),
                    pct(f.rate.accuracy),
                    ci(f.rate),
                    count_list(f.model_errors),
                    str(f.request_errors),
                    exec_cell(f.exec),
                ),
                RowKind.CATEGORY,
            )
        )
    ran = [f for f in run.categories.values() if f is not None]
    rows.append(
        (
            (
                MICRO_LABEL,
                str(run.micro.total),
                str(run.micro.correct),
                pct(run.micro.accuracy),
                ci(run.micro),
                count_list(_sum_errors(ran)),
                str(sum(f.request_errors for f in ran)),
                exec_cell(run.exec),
            ),
            RowKind.OVERALL,
        )
    )
    rows.append(
        ((MACRO_LABEL, DASH, DASH, pct(run.macro), DASH, DASH, DASH, DASH), RowKind.OVERALL)
    )
    return Grid("Accuracy by category", columns, tuple(rows), report.notes)


def _side_by_side(report: Report) -> list[Grid]:
    acc_cols = [Column("category", numeric=False)]
    err_cols = [Column("category", numeric=False)]
    for run in report.runs:
        acc_cols += [
            Column("correct/n", run.name),
            Column("accuracy", run.name),
            Column("95% CI", run.name),
        ]
        err_cols += [
            # A count: each code's count is in the error breakdown, one table per run.
            Column("model errors", run.name),
            Column("request errors", run.name),
            Column("exec accuracy", run.name),
        ]
    acc: list[tuple[tuple[str, ...], RowKind]] = []
    err: list[tuple[tuple[str, ...], RowKind]] = []
    for cat in report.categories:
        figures = [run.category(cat) for run in report.runs]
        kind = RowKind.CATEGORY if any(figures) else RowKind.NOT_RUN
        a_cells, e_cells = [cat], [cat]
        for f in figures:
            if f is None:
                a_cells += [DASH, NA, DASH]
                e_cells += [DASH, DASH, DASH]
            else:
                a_cells += [f"{f.rate.correct}/{f.rate.total}", pct(f.rate.accuracy), ci(f.rate)]
                model = str(sum(n for _, n in f.model_errors))
                e_cells += [model, str(f.request_errors), exec_cell(f.exec)]
        acc.append((tuple(a_cells), kind))
        err.append((tuple(e_cells), kind))
    micro, macro, exec_row = [MICRO_LABEL], [MACRO_LABEL], [MICRO_LABEL]
    for run in report.runs:
        ran = [f for f in run.categories.values() if f is not None]
        micro += [f"{run.micro.correct}/{run.micro.total}", pct(run.micro.accuracy), ci(run.micro)]
        macro += [counted(run.macro_categories, "category", "categories"), pct(run.macro), DASH]
        exec_row += [
            str(sum(n for _, n in _sum_errors(ran))),
            str(sum(f.request_errors for f in ran)),
            exec_cell(run.exec),
        ]
    acc += [(tuple(micro), RowKind.OVERALL), (tuple(macro), RowKind.OVERALL)]
    err.append((tuple(exec_row), RowKind.OVERALL))
    return [
        Grid("Accuracy by category", tuple(acc_cols), tuple(acc), report.notes),
        Grid("Errors by category", tuple(err_cols), tuple(err)),
    ]


def accuracy_grids(report: Report) -> list[Grid]:
    """One table for one run; for several, an accuracy table and an errors table side by side."""
    return [_single_run_grid(report)] if len(report.runs) == 1 else _side_by_side(report)


def _codes(run: RunFigures) -> list[str]:
    present = {code for f in run.categories.values() if f is not None for code, _ in f.model_errors}
    return [c for c in MODEL_ERROR_CODES if c in present]


def _counts(counts: Sequence[int | None]) -> tuple[str, ...]:
    cells = [NA if n is None else str(n) for n in counts]
    return (*cells, str(sum(n for n in counts if n is not None)))


def error_matrix(report: Report, run: RunFigures, title: str) -> Grid:
    """One run's errors: codes down, categories across, every cell a count.

    As narrow as the categories, whatever the number of codes; request errors are a row of
    their own under the model errors' total.
    """
    cats = report.categories
    columns = (Column("error", numeric=False), *(Column(c) for c in cats), Column("all"))
    rows: list[tuple[tuple[str, ...], RowKind]] = []
    for code in _codes(run):
        counts = [
            None if (f := run.category(c)) is None else dict(f.model_errors).get(code, 0)
            for c in cats
        ]
        rows.append(((code, *_counts(counts)), RowKind.CATEGORY))
    totals = [
        None if (f := run.category(c)) is None else sum(n for _, n in f.model_errors) for c in cats
    ]
    rows.append((("model errors", *_counts(totals)), RowKind.OVERALL))
    requests = [None if (f := run.category(c)) is None else f.request_errors for c in cats]
    rows.append(((REQUEST_ERROR, *_counts(requests)), RowKind.CATEGORY))
    return Grid(title, columns, tuple(rows), (REQUEST_NOTE,))


def breakdown_grids(report: Report) -> list[Grid]:
    """Every error code of every category, one table per run."""
    if len(report.runs) == 1:
        return [error_matrix(report, report.runs[0], "Error breakdown")]
    return [error_matrix(report, r, f"Error breakdown: {r.name}") for r in report.runs]


def usage_grid(report: Report, names: Sequence[str] | None = None) -> Grid | None:
    """Tokens, latency and cost per run; `names`: how to call the runs (default: their names)."""
    runs = report.runs
    names = list(names or [r.name for r in runs])
    title = "Tokens and latency" if report.prices is None else "Tokens, latency and cost"
    unpriced = [n for r, n in zip(runs, names, strict=True) if r.cost_usd is None]
    # Prices were given: say why a run has no cost rather than leave it out unexplained.
    why = (
        f"Nothing to price for {', '.join(unpriced)}: no token counts were recorded "
        "(no outputs line has a `usage` with input and output tokens)."
        if report.prices is not None and unpriced
        else None
    )
    if not any(r.tokens or r.latency_s or r.cost_usd is not None for r in runs):
        return None if why is None else Grid("Cost", (), (), (why,))
    columns = [
        Column("run", numeric=False),
        Column("input tokens"),
        Column("output tokens"),
        Column("latency median"),
        Column("latency p95"),
    ]
    if report.prices is not None:
        columns.append(Column("cost (USD)"))
    rows: list[tuple[tuple[str, ...], RowKind]] = []
    for r, name in zip(runs, names, strict=True):
        tokens, latency = r.tokens or {}, r.latency_s or {}
        cells = [
            name,
            integer(tokens.get("input")),
            integer(tokens.get("output")),
            seconds(latency.get("median")),
            seconds(latency.get("p95")),
        ]
        if report.prices is not None:
            cells.append(usd(r.cost_usd))
        rows.append((tuple(cells), RowKind.CATEGORY))
    notes = []
    if report.prices is not None:
        p = report.prices
        notes.append(
            f"Cost at ${p.input_per_million:g} per million input tokens and "
            f"${p.output_per_million:g} per million output tokens."
        )
    if why is not None:
        notes.append(why)
    return Grid(title, tuple(columns), tuple(rows), tuple(notes))


def _paired_cells(row: PairedRow) -> tuple[str, ...]:
    if row.p_value is None:
        return (row.category, DASH, DASH, DASH, DASH, DASH, DASH, row.note or "")
    return (
        row.category,
        str(row.n),
        str(row.both),
        str(row.only_a),
        str(row.only_b),
        str(row.neither),
        p_value(row.p_value),
        row.note or "",
    )


def paired_grid(report: Report) -> Grid | None:
    paired = report.paired
    if paired is None:
        return None
    title = f"Paired comparison: A = {paired.a}, B = {paired.b}"
    explain = (
        "Exact two-sided McNemar test on the items only one run got right; a small p "
        "(say below 0.05) means the difference is unlikely to be noise. With several "
        "categories, one small p among them can still be chance."
    )
    if paired.reason is not None:
        return Grid(title, (), (), (f"The paired test does not apply: {paired.reason}.",))
    columns = (
        Column("category", numeric=False),
        Column("n"),
        Column("both right"),
        Column("only A right"),
        Column("only B right"),
        Column("both wrong"),
        Column("McNemar p"),
        Column("note", numeric=False),
    )
    rows: list[tuple[tuple[str, ...], RowKind]] = [
        (_paired_cells(r), RowKind.CATEGORY if r.p_value is not None else RowKind.NOT_RUN)
        for r in paired.rows
    ]
    if paired.overall is not None:
        rows.append((_paired_cells(paired.overall), RowKind.OVERALL))
    return Grid(title, columns, tuple(rows), (explain, *paired.warnings))


def meta_lines(report: Report) -> list[str]:
    return [about_line(run.name, run.meta) for run in report.runs]


def grids(report: Report, *, breakdown: bool = True) -> list[Grid]:
    """Every table of a report in order, except failures (whose cells are long texts).

    `breakdown`: add the error table with one column per code (the terminal table already
    lists the codes compactly, and a wide table wraps badly there).
    """
    out = accuracy_grids(report)
    if breakdown:
        out += breakdown_grids(report)
    for extra in (usage_grid(report), paired_grid(report)):
        if extra is not None:
            out.append(extra)
    return out
