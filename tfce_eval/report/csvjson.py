"""Machine-readable reports: JSON (the whole report model) and CSV (one tidy table of figures).

Numbers are written unrounded (proportions in 0..1, not percentages), so they can be
recomputed and compared exactly; the CSV has one row per run and category plus the overall
rows and, for two runs, the paired rows, told apart by the `section` column.
"""

from __future__ import annotations

import csv
import dataclasses
import io
import json
from collections.abc import Iterator
from typing import Any

from tfce_eval.report.document import csv_cell
from tfce_eval.report.model import MODEL_ERROR_CODES, REQUEST_ERROR, Rate, Report, RunFigures
from tfce_eval.report.paired import PairedRow
from tfce_eval.words import counted


def _rate_json(rate: Rate | None) -> dict[str, Any] | None:
    if rate is None:
        return None
    return {
        "correct": rate.correct,
        "total": rate.total,
        "accuracy": rate.accuracy,
        "ci95": None if rate.ci95 is None else list(rate.ci95),
    }


def _run_json(run: RunFigures) -> dict[str, Any]:
    categories: dict[str, Any] = {}
    for name, f in run.categories.items():
        categories[name] = (
            None
            if f is None
            else {
                **(_rate_json(f.rate) or {}),
                "model_errors": dict(f.model_errors),
                "request_errors": f.request_errors,
                "exec": _rate_json(f.exec),
            }
        )
    return {
        "name": run.name,
        "path": run.path,
        "meta": dict(run.meta),
        "categories": categories,
        "overall": {
            "micro": _rate_json(run.micro),
            "macro": {"accuracy": run.macro, "categories": run.macro_categories},
            "exec": _rate_json(run.exec),
            "tokens": run.tokens,
            "latency_s": run.latency_s,
            "cost_usd": run.cost_usd,
        },
    }


def report_json(report: Report) -> dict[str, Any]:
    """The report model as plain JSON data; `null` marks a category not run (N/A)."""
    return {
        "runs": [_run_json(r) for r in report.runs],
        "categories": list(report.categories),
        "notes": list(report.notes),
        "prices": None if report.prices is None else dataclasses.asdict(report.prices),
        "paired": None if report.paired is None else dataclasses.asdict(report.paired),
        "failures": [dataclasses.asdict(f) for f in report.failures],
    }


def render_json(report: Report) -> str:
    return json.dumps(report_json(report), ensure_ascii=False, indent=2) + "\n"


_FIELDS = [
    "section",
    "run",
    "category",
    "n",
    "correct",
    "accuracy",
    "ci95_low",
    "ci95_high",
    "model_errors",
    *MODEL_ERROR_CODES,
    REQUEST_ERROR,
    "exec_covered",
    "exec_correct",
    "exec_accuracy",
    "input_tokens",
    "output_tokens",
    "latency_median_s",
    "latency_p95_s",
    "cost_usd",
    "only_a_right",
    "only_b_right",
    "mcnemar_p",
    "note",
    # Added after the others so that columns read by position keep their place.
    "both_right",
    "both_wrong",
]


def _rate_cells(rate: Rate) -> dict[str, Any]:
    lo, hi = rate.ci95 if rate.ci95 is not None else ("", "")
    accuracy = "" if rate.accuracy is None else rate.accuracy
    return {
        "n": rate.total,
        "correct": rate.correct,
        "accuracy": accuracy,
        "ci95_low": lo,
        "ci95_high": hi,
    }


def _exec_cells(rate: Rate | None) -> dict[str, Any]:
    if rate is None:
        return {}
    return {
        "exec_covered": rate.total,
        "exec_correct": rate.correct,
        "exec_accuracy": "" if rate.accuracy is None else rate.accuracy,
    }


def _run_rows(run: RunFigures, categories: tuple[str, ...]) -> list[dict[str, Any]]:
    rows: list[dict[str, Any]] = []
    for cat in categories:
        if cat not in run.categories:
            continue
        f = run.categories[cat]
        row: dict[str, Any] = {"section": "category", "run": run.name, "category": cat}
        if f is None:
            row["note"] = "N/A: not run"
        else:
            counts = dict(f.model_errors)
            row |= _rate_cells(f.rate) | _exec_cells(f.exec)
            row |= {c: counts.get(c, 0) for c in MODEL_ERROR_CODES}
            row |= {"model_errors": sum(counts.values()), REQUEST_ERROR: f.request_errors}
        rows.append(row)
    tokens, latency = run.tokens or {}, run.latency_s or {}
    micro: dict[str, Any] = {"section": "overall", "run": run.name, "category": "micro"}
    micro |= _rate_cells(run.micro) | _exec_cells(run.exec)
    micro |= {
        "input_tokens": tokens.get("input", ""),
        "output_tokens": tokens.get("output", ""),
        "latency_median_s": latency.get("median", ""),
        "latency_p95_s": latency.get("p95", ""),
        "cost_usd": "" if run.cost_usd is None else run.cost_usd,
        "note": "item-weighted",
    }
    macro = {
        "section": "overall",
        "run": run.name,
        "category": "macro",
        "accuracy": "" if run.macro is None else run.macro,
        "note": f"mean of {counted(run.macro_categories, 'category', 'categories')}",
    }
    return [*rows, micro, macro]


def _paired_row(a: str, b: str, row: PairedRow) -> dict[str, Any]:
    out: dict[str, Any] = {"section": "paired", "run": f"{a} vs {b}", "category": row.category}
    if row.p_value is None:
        out["note"] = row.note or ""
    else:
        out |= {
            "n": row.n,
            "both_right": row.both,
            "only_a_right": row.only_a,
            "only_b_right": row.only_b,
            "both_wrong": row.neither,
            "mcnemar_p": row.p_value,
        }
    return out


def _rows(report: Report) -> Iterator[dict[str, Any]]:
    for run in report.runs:
        yield from _run_rows(run, report.categories)
    paired = report.paired
    if paired is not None:
        rows = [*paired.rows, *([paired.overall] if paired.overall else [])]
        if paired.reason:
            yield {
                "section": "paired",
                "run": f"{paired.a} vs {paired.b}",
                "note": f"does not apply: {paired.reason}",
            }
        yield from (_paired_row(paired.a, paired.b, r) for r in rows)


def render_csv(report: Report) -> str:
    """The CSV: text printable, and never taken for a formula by a spreadsheet."""
    buffer = io.StringIO()
    writer = csv.DictWriter(buffer, fieldnames=_FIELDS, restval="", lineterminator="\n")
    writer.writeheader()
    writer.writerows({k: csv_cell(v) for k, v in row.items()} for row in _rows(report))
    return buffer.getvalue()
