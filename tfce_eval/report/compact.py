"""The terminal's tables: the same figures as the other formats, laid out to fit 80 columns.

A terminal cuts whatever does not fit, so the terminal report is built from small tables
and offers each in more than one shape, widest first; the renderer keeps the first shape
whose every table fits the screen, so no figure is ever cut. Runs are named by letters
(A, B, C) with a legend above the tables, so that long run names never take the columns'
room and runs whose names share a long prefix can still be told apart.
"""

from __future__ import annotations

from tfce_eval.report.document import run_letters
from tfce_eval.report.layout import (
    DASH,
    NA,
    REQUEST_NOTE,
    Column,
    Grid,
    RowKind,
    ci,
    error_matrix,
    exec_cell,
    meta_lines,
    pct,
)
from tfce_eval.report.model import REQUEST_ERROR, Report, RunFigures

MICRO = "overall (micro)"
MACRO = "overall (macro)"
LABELS_NOTE = (
    "overall (micro): every item counts once; "
    "overall (macro): the mean of the categories' accuracies."
)
#: One shape of a table set: every grid must fit for the shape to be used.
Shape = tuple[Grid, ...]
Row = tuple[tuple[str, ...], RowKind]


def run_labels(report: Report) -> tuple[str, ...]:
    """How tables name the runs: a single run by its name, several by A, B, C..."""
    if len(report.runs) == 1:
        return (report.runs[0].name,)
    return tuple(run_letters(len(report.runs)))


def legend(report: Report) -> list[tuple[str, str | None]]:
    """Each run's heading and its details (model, mode, dataset, options).

    A single run is headed by its name; several by `A = name`, the letter the tables use.
    """
    if len(report.runs) == 1:
        return [(line, None) for line in meta_lines(report)]
    out: list[tuple[str, str | None]] = []
    for label, run in zip(run_labels(report), report.runs, strict=True):
        details = "; ".join(f"{k} {v}" for k, v in run.meta)
        out.append((f"{label} = {run.name}", details or None))
    return out


# Accuracy -----------------------------------------------------------------------------------


def _rate_cells(run: RunFigures, cat: str, with_exec: bool) -> list[str]:
    f = run.category(cat)
    if f is None:
        return [DASH, NA, DASH] + ([DASH] if with_exec else [])
    cells = [f"{f.rate.correct}/{f.rate.total}", pct(f.rate.accuracy), ci(f.rate)]
    return cells + ([exec_cell(f.exec)] if with_exec else [])


def _overall_cells(run: RunFigures, with_exec: bool) -> tuple[list[str], list[str]]:
    micro = [f"{run.micro.correct}/{run.micro.total}", pct(run.micro.accuracy), ci(run.micro)]
    macro = [DASH, pct(run.macro), DASH]
    if with_exec:
        micro.append(exec_cell(run.exec))
        macro.append(DASH)
    return micro, macro


def _single(report: Report, with_exec: bool) -> Grid:
    run = report.runs[0]
    columns = [
        Column("category", numeric=False),
        Column("n"),
        Column("correct"),
        Column("accuracy"),
        Column("95% CI"),
    ]
    if with_exec:
        columns.append(Column("exec accuracy (correct/covered)"))
    rows: list[Row] = []
    for cat in report.categories:
        f = run.category(cat)
        if f is None:
            rows.append(
                ((cat, DASH, DASH, NA, DASH) + ((DASH,) if with_exec else ()), RowKind.NOT_RUN)
            )
            continue
        cells = [cat, str(f.rate.total), str(f.rate.correct), pct(f.rate.accuracy), ci(f.rate)]
        rows.append((tuple(cells + ([exec_cell(f.exec)] if with_exec else [])), RowKind.CATEGORY))
    micro = [MICRO, str(run.micro.total), str(run.micro.correct), pct(run.micro.accuracy)]
    micro.append(ci(run.micro))
    macro = [MACRO, DASH, DASH, pct(run.macro), DASH]
    if with_exec:
        micro.append(exec_cell(run.exec))
        macro.append(DASH)
    rows += [(tuple(micro), RowKind.OVERALL), (tuple(macro), RowKind.OVERALL)]
    return Grid("Accuracy by category", tuple(columns), tuple(rows), _notes(report))


def _notes(report: Report) -> tuple[str, ...]:
    return (LABELS_NOTE, *report.notes)


def _wide(report: Report, with_exec: bool) -> Grid:
    """One column group per run."""
    labels = run_labels(report)
    columns = [Column("category", numeric=False)]
    for label in labels:
        columns += [Column("correct/n", label), Column("accuracy", label), Column("95% CI", label)]
        if with_exec:
            columns.append(Column("exec", label))
    rows: list[Row] = []
    for cat in report.categories:
        kind = RowKind.CATEGORY if any(r.category(cat) for r in report.runs) else RowKind.NOT_RUN
        cells = [cat]
        for run in report.runs:
            cells += _rate_cells(run, cat, with_exec)
        rows.append((tuple(cells), kind))
    micro, macro = [MICRO], [MACRO]
    for run in report.runs:
        m, a = _overall_cells(run, with_exec)
        micro += m
        macro += a
    rows += [(tuple(micro), RowKind.OVERALL), (tuple(macro), RowKind.OVERALL)]
    return Grid("Accuracy by category", tuple(columns), tuple(rows), _notes(report))


def _long(report: Report, with_exec: bool) -> Grid:
    """One row per run within each category: as narrow as one run's table."""
    columns = [
        Column("category", numeric=False),
        Column("run", numeric=False),
        Column("correct/n"),
        Column("accuracy"),
        Column("95% CI"),
    ]
    if with_exec:
        columns.append(Column("exec accuracy (correct/covered)"))
    rows: list[Row] = []
    labels = run_labels(report)
    for cat in report.categories:
        for i, (label, run) in enumerate(zip(labels, report.runs, strict=True)):
            kind = RowKind.CATEGORY if run.category(cat) else RowKind.NOT_RUN
            rows.append(((cat if i == 0 else "", label, *_rate_cells(run, cat, with_exec)), kind))
    for which in (0, 1):
        for i, (label, run) in enumerate(zip(labels, report.runs, strict=True)):
            title = (MICRO, MACRO)[which] if i == 0 else ""
            rows.append(((title, label, *_overall_cells(run, with_exec)[which]), RowKind.OVERALL))
    return Grid("Accuracy by category", tuple(columns), tuple(rows), _notes(report))


def _exec_only(report: Report, long: bool) -> Grid:
    """Exec accuracy apart, for when it does not fit beside the AST figures."""
    labels = run_labels(report)
    rows: list[Row] = []
    title = "Exec accuracy by category (correct/covered)"
    if long or len(report.runs) == 1:
        columns: tuple[Column, ...] = (Column("category", numeric=False),)
        if len(report.runs) > 1:
            columns += (Column("run", numeric=False),)
        columns += (Column("exec accuracy"),)
        for cat in (*report.categories, MICRO):
            for i, (label, run) in enumerate(zip(labels, report.runs, strict=True)):
                f = run.category(cat)
                rate = run.exec if cat == MICRO else (None if f is None else f.exec)
                lead = (cat if i == 0 else "",) + ((label,) if len(report.runs) > 1 else ())
                kind = RowKind.OVERALL if cat == MICRO else RowKind.CATEGORY
                rows.append(((*lead, exec_cell(rate)), kind))
        return Grid(title, columns, tuple(rows))
    columns = (Column("category", numeric=False), *(Column("exec", lb) for lb in labels))
    for cat in report.categories:
        cells = [exec_cell(None if (f := r.category(cat)) is None else f.exec) for r in report.runs]
        rows.append(((cat, *cells), RowKind.CATEGORY))
    rows.append(((MICRO, *(exec_cell(r.exec) for r in report.runs)), RowKind.OVERALL))
    return Grid(title, columns, tuple(rows))


def accuracy_shapes(report: Report) -> list[Shape]:
    """The accuracy tables in every shape, widest first."""
    if len(report.runs) == 1:
        return [(_single(report, True),), (_single(report, False), _exec_only(report, True))]
    return [
        (_wide(report, True),),
        (_wide(report, False), _exec_only(report, False)),
        (_long(report, True),),
        (_long(report, False), _exec_only(report, True)),
    ]


# Errors -------------------------------------------------------------------------------------


def _listing(report: Report, run: RunFigures, title: str) -> Grid:
    """One row per category and code: for screens too narrow for the matrix."""
    columns = (Column("category", numeric=False), Column("error", numeric=False), Column("n"))
    rows: list[Row] = []
    for cat in report.categories:
        f = run.category(cat)
        if f is None:
            rows.append(((cat, NA, DASH), RowKind.NOT_RUN))
            continue
        pairs = [*f.model_errors, (REQUEST_ERROR, f.request_errors)]
        for i, (code, n) in enumerate(pairs):
            rows.append(((cat if i == 0 else "", code, str(n)), RowKind.CATEGORY))
    return Grid(title, columns, tuple(rows), (REQUEST_NOTE,))


def error_shapes(report: Report) -> list[list[Shape]]:
    """Per run, its error table in every shape, widest first."""
    out: list[list[Shape]] = []
    for label, run in zip(run_labels(report), report.runs, strict=True):
        title = "Errors by category" + (f", {label}" if len(report.runs) > 1 else "")
        out.append([(error_matrix(report, run, title),), (_listing(report, run, title),)])
    return out
