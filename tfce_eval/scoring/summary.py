"""summary.json: per-category and overall figures computed from score records (docs/files.md 8, 10).

The summary is a plain JSON-ready dict so that it is written, read back and rendered by the
report without a second model of it. Shape:

    {
      "simple": {"total", "correct", "accuracy", "ci95": [lo, hi], "errors": {code: n},
                 "model_errors", "request_errors",
                 "exec": {"covered", "correct", "accuracy", "ci95", "items",
                          "errors": {code: n}, "dataset_problems"}},
      "multiple": ..., "parallel": null,        # null: category in the dataset but not run (N/A)
      "overall": {"micro": {"total", "correct", "accuracy", "ci95"},
                  "macro": {"accuracy", "categories": k},
                  "exec": {...}, "tokens": {...} | null, "latency_s": {...} | null},
      "categories": ["simple", ...],            # the categories run, in display order
      "check": "both", "policy": {...}, "missing": {...}
    }
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from tfce_eval.model import CATEGORY_ORDER, Category, ErrorCode, ScoreRecord
from tfce_eval.stats import proportion_block, wilson_interval

__all__ = [
    "UsageStats",
    "category_block",
    "exec_skipped",
    "percentile",
    "summarize",
    "wilson_interval",
]

_EXEC_CODES = (ErrorCode.EXEC_ERROR, ErrorCode.EXEC_MISMATCH)


class UsageStats:
    """Accumulates tokens and latency from outputs records, for the summary."""

    def __init__(self) -> None:
        self.input_tokens = 0
        self.output_tokens = 0
        self.with_usage = 0
        self.latencies: list[float] = []

    def add(self, usage: Mapping[str, Any] | None, latency_s: float | None) -> None:
        if isinstance(usage, Mapping):
            inp = usage.get("input_tokens", usage.get("prompt_tokens"))
            out = usage.get("output_tokens", usage.get("completion_tokens"))
            if isinstance(inp, int) or isinstance(out, int):
                self.with_usage += 1
                self.input_tokens += inp if isinstance(inp, int) else 0
                self.output_tokens += out if isinstance(out, int) else 0
        if isinstance(latency_s, int | float) and not isinstance(latency_s, bool):
            try:
                seconds = float(latency_s)
            except OverflowError:
                return
            if math.isfinite(seconds):  # NaN or an endless latency says nothing: left out
                self.latencies.append(seconds)

    def tokens(self) -> dict[str, int] | None:
        if not self.with_usage:
            return None
        return {
            "input": self.input_tokens,
            "output": self.output_tokens,
            "total": self.input_tokens + self.output_tokens,
            "items": self.with_usage,
        }

    def latency(self) -> dict[str, float] | None:
        if not self.latencies:
            return None
        values = sorted(self.latencies)
        return {
            "median": percentile(values, 50),
            "p95": percentile(values, 95),
            "mean": sum(values) / len(values),
            "items": len(values),
        }


def percentile(sorted_values: Sequence[float], q: float) -> float:
    """Linear-interpolated percentile of already sorted values (numpy's default method)."""
    if not sorted_values:
        raise ValueError("no values")
    pos = (len(sorted_values) - 1) * q / 100
    lo = math.floor(pos)
    hi = min(lo + 1, len(sorted_values) - 1)
    return sorted_values[lo] + (sorted_values[hi] - sorted_values[lo]) * (pos - lo)


def exec_skipped(record: ScoreRecord) -> bool:
    """True when the exec check applied to the item but was not judged: a ground-truth call
    fails (a dataset problem). Such items are left out of the exec figures."""
    exec_details = record.details.get("exec")
    return isinstance(exec_details, Mapping) and bool(exec_details.get("skipped"))


def _exec_block(records: Sequence[ScoreRecord]) -> dict[str, Any]:
    covered = [r for r in records if r.exec_valid is not None]
    correct = sum(1 for r in covered if r.exec_valid)
    errors: Counter[str] = Counter()
    for r in covered:
        code = r.details.get("exec", {}).get("error_type") if not r.exec_valid else None
        if code:
            errors[str(code)] += 1
    block = proportion_block(correct, len(covered))
    block["covered"] = block.pop("total")
    block["items"] = len(records)
    block["errors"] = dict(sorted(errors.items()))
    block["dataset_problems"] = sum(1 for r in records if exec_skipped(r))
    return block


def category_block(records: Sequence[ScoreRecord]) -> dict[str, Any]:
    correct = sum(1 for r in records if r.valid)
    block = proportion_block(correct, len(records))
    errors = Counter(str(r.error_type) for r in records if not r.valid and r.error_type)
    block["errors"] = {str(c): errors[str(c)] for c in ErrorCode if errors[str(c)]}
    block["request_errors"] = errors.get(str(ErrorCode.REQUEST_ERROR), 0)
    block["model_errors"] = sum(n for c, n in errors.items() if c != ErrorCode.REQUEST_ERROR)
    block["exec"] = _exec_block(records)
    return block


def summarize(
    records: Iterable[ScoreRecord],
    *,
    dataset_categories: Iterable[Category] = (),
    usage: UsageStats | None = None,
    extra: Mapping[str, Any] | None = None,
) -> dict[str, Any]:
    """Build summary.json from score records.

    `dataset_categories` lists the categories the dataset has; those with no records appear
    as null (N/A) rather than being dropped, so a partial run is visibly partial.
    """
    by_cat: dict[Category, list[ScoreRecord]] = {}
    for r in records:
        by_cat.setdefault(r.category, []).append(r)
    present = set(by_cat) | set(dataset_categories)
    summary: dict[str, Any] = {}
    run_cats = [c for c in CATEGORY_ORDER if c in by_cat]
    for cat in CATEGORY_ORDER:
        if cat in present:
            summary[str(cat)] = category_block(by_cat[cat]) if cat in by_cat else None
    all_records = [r for c in run_cats for r in by_cat[c]]
    micro = proportion_block(sum(1 for r in all_records if r.valid), len(all_records))
    accuracies = [summary[str(c)]["accuracy"] for c in run_cats]
    macro = {
        "accuracy": sum(accuracies) / len(accuracies) if accuracies else None,
        "categories": len(accuracies),
    }
    usage = usage or UsageStats()
    summary["overall"] = {
        "micro": micro,
        "macro": macro,
        "exec": _exec_block(all_records),
        "tokens": usage.tokens(),
        "latency_s": usage.latency(),
    }
    summary["categories"] = [str(c) for c in run_cats]
    if extra:
        summary.update(extra)
    return summary
