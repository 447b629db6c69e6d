"""The report model: every figure a report shows, computed once from the runs.

Each format (terminal table, Markdown, JSON, CSV, HTML) renders this model and nothing else,
so they cannot disagree. Figures are taken from summary.json as written; the model only
separates model errors from request errors, attaches costs, pairs two runs and picks failures.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from tfce_eval.errors import UsageError
from tfce_eval.model import CATEGORY_ORDER, ErrorCode
from tfce_eval.report.failures import RunFailures, collect_failures
from tfce_eval.report.paired import Paired, compare_runs
from tfce_eval.report.prices import Prices
from tfce_eval.report.runs import RunView
from tfce_eval.report.source import FailureSource
from tfce_eval.tasks import builtin_names
from tfce_eval.words import counted, model_shown

#: Model error codes in the order reports list them (request_error is shown apart).
MODEL_ERROR_CODES: tuple[str, ...] = tuple(str(c) for c in ErrorCode if c.is_model_error)
REQUEST_ERROR = str(ErrorCode.REQUEST_ERROR)


@dataclass(frozen=True)
class Rate:
    """A proportion with its 95 % Wilson interval, as summary.json states it."""

    correct: int
    total: int
    accuracy: float | None
    ci95: tuple[float, float] | None

    @classmethod
    def from_block(cls, block: Mapping[str, Any], total_key: str = "total") -> Rate:
        total = int(block.get(total_key) or 0)
        ci = block.get("ci95")
        accuracy = block.get("accuracy")
        return cls(
            correct=int(block.get("correct") or 0),
            total=total,
            accuracy=float(accuracy) if total and accuracy is not None else None,
            ci95=(float(ci[0]), float(ci[1])) if total and isinstance(ci, list) else None,
        )


@dataclass(frozen=True)
class CategoryFigures:
    rate: Rate
    model_errors: tuple[tuple[str, int], ...]  # (code, count), request_error excluded
    request_errors: int
    exec: Rate | None  # None when no item of the category could be executed


@dataclass(frozen=True)
class RunFigures:
    name: str
    path: str | None
    meta: tuple[tuple[str, str], ...]  # (label, value): model, mode, dataset, options
    categories: Mapping[str, CategoryFigures | None]  # None: in the dataset, not run (N/A)
    micro: Rate
    macro: float | None
    macro_categories: int
    exec: Rate | None
    tokens: Mapping[str, Any] | None
    latency_s: Mapping[str, Any] | None
    cost_usd: float | None

    def category(self, name: str) -> CategoryFigures | None:
        return self.categories.get(name)


@dataclass(frozen=True)
class Report:
    runs: tuple[RunFigures, ...]
    categories: tuple[str, ...]  # every category any run has, in display order
    paired: Paired | None  # only for exactly two runs
    failures: tuple[RunFailures, ...]  # empty unless failures were asked for
    failures_per_category: int
    prices: Prices | None
    notes: tuple[str, ...]


def _errors(block: Mapping[str, Any]) -> tuple[tuple[tuple[str, int], ...], int]:
    counts = block.get("errors") or {}
    model = tuple((c, int(counts[c])) for c in MODEL_ERROR_CODES if counts.get(c))
    request = int(block.get("request_errors", counts.get(REQUEST_ERROR, 0)) or 0)
    return model, request


def _exec(block: Any) -> Rate | None:
    if not isinstance(block, Mapping) or not block.get("covered"):
        return None
    return Rate.from_block(block, total_key="covered")


def _category(block: Any) -> CategoryFigures | None:
    if not isinstance(block, Mapping):
        return None
    model, request = _errors(block)
    return CategoryFigures(Rate.from_block(block), model, request, _exec(block.get("exec")))


def _meta(run: RunView) -> tuple[tuple[str, str], ...]:
    info = run.run_info or {}
    pairs: list[tuple[str, str]] = []
    model, provider = info.get("model"), info.get("provider")
    if model:
        pairs.append(("model", model_shown(provider, model)))
    if info.get("mode"):
        pairs.append(("mode", str(info["mode"])))
    if info.get("status") and info["status"] != "finished":
        pairs.append(("status", f"{info['status']} (not every item may have been asked)"))
    if run.dataset_path is not None:
        sha = run.dataset_sha256
        where = builtin_names(str(run.dataset_path))
        pairs.append(("dataset", where + (f" (sha256 {sha[:12]})" if sha else "")))
    if run.summary.get("check"):
        pairs.append(("check", str(run.summary["check"])))
    policy = run.summary.get("policy")
    if isinstance(policy, Mapping) and policy:
        pairs.append(("policy", ", ".join(f"{k}={v}" for k, v in policy.items())))
    missing = run.summary.get("missing")
    if isinstance(missing, Mapping) and missing.get("count"):
        how = "left out" if missing.get("mode") == "skip" else "counted as wrong (no_call)"
        pairs.append(("missing outputs", f"{counted(missing['count'], 'item')} {how}"))
    started = info.get("started_at") or info.get("start_time")
    if started:
        pairs.append(("started", str(started)))
    return tuple(pairs)


def _run_figures(run: RunView, name: str, prices: Prices | None) -> RunFigures:
    summary = run.summary
    cats = {str(c): _category(summary[str(c)]) for c in CATEGORY_ORDER if str(c) in summary}
    overall = summary.get("overall") or {}
    macro = overall.get("macro") or {}
    tokens = overall.get("tokens") if isinstance(overall.get("tokens"), Mapping) else None
    latency = overall.get("latency_s") if isinstance(overall.get("latency_s"), Mapping) else None
    return RunFigures(
        name=name,
        path=None if run.path is None else str(run.path),
        meta=_meta(run),
        categories=cats,
        micro=Rate.from_block(overall.get("micro") or {}),
        macro=macro.get("accuracy"),
        macro_categories=int(macro.get("categories") or 0),
        exec=_exec(overall.get("exec")),
        tokens=tokens,
        latency_s=latency,
        cost_usd=prices.cost(tokens) if prices else None,
    )


def _unique_names(runs: Sequence[RunView]) -> list[str]:
    names = [r.name for r in runs]
    if len(set(names)) == len(names):
        return names
    # Two directories with the same name (results/a/x, results/b/x): show the paths instead.
    return [
        str(r.path) if r.path is not None else f"{r.name} ({i + 1})" for i, r in enumerate(runs)
    ]


def _notes(runs: Sequence[RunFigures], categories: Sequence[str]) -> tuple[str, ...]:
    notes: list[str] = []
    run_sets = {tuple(c for c in categories if r.category(c) is not None) for r in runs}
    if len(run_sets) > 1:
        notes.append(
            "The runs cover different categories, so their overall figures average different "
            "items; compare them category by category."
        )
    for r in runs:
        shown = len(r.categories)
        if r.macro_categories and r.macro_categories < shown:
            notes.append(
                f"{r.name}: macro is the mean of the "
                f"{counted(r.macro_categories, 'category', 'categories')} run "
                f"(of {shown}); N/A categories are left out, not counted as 0."
            )
    return tuple(notes)


def build_report(
    runs: Sequence[RunView],
    *,
    failures: int = 0,
    prices: Prices | None = None,
    failure_source: FailureSource | None = None,
) -> Report:
    """The report model of one or more runs (one column group per run, in the given order)."""
    if not runs:
        raise UsageError("no runs to report on")
    names = _unique_names(runs)
    figures = tuple(_run_figures(r, n, prices) for r, n in zip(runs, names, strict=True))
    categories = tuple(
        str(c) for c in CATEGORY_ORDER if any(str(c) in f.categories for f in figures)
    )
    paired = compare_runs(runs[0], runs[1], names, categories) if len(runs) == 2 else None
    failing = (
        tuple(
            collect_failures(r, n, failures, failure_source)
            for r, n in zip(runs, names, strict=True)
        )
        if failures > 0
        else ()
    )
    return Report(
        runs=figures,
        categories=categories,
        paired=paired,
        failures=failing,
        failures_per_category=failures,
        prices=prices,
        notes=_notes(figures, categories),
    )
