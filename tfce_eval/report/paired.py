"""The paired comparison of two runs over the same items (exact McNemar test per category).

Two accuracies a few points apart on 88 items can be noise. When both runs answered the same
items, the items exactly one of them got right tell whether the difference is real; the
items both got right or both got wrong say nothing about it. The test applies only where the
item sets are identical; everywhere else the report says why it does not.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from tfce_eval.report.runs import RunView
from tfce_eval.stats import mcnemar_exact_p


@dataclass(frozen=True)
class PairedRow:
    """One category (or all paired items) of two runs: the 2x2 counts and the exact p-value."""

    category: str
    n: int = 0
    both: int = 0
    only_a: int = 0
    only_b: int = 0
    neither: int = 0
    p_value: float | None = None  # None: the test does not apply (see note)
    note: str | None = None


@dataclass(frozen=True)
class Paired:
    a: str
    b: str
    rows: tuple[PairedRow, ...]
    overall: PairedRow | None  # every paired item together
    reason: str | None  # why no category could be paired
    warnings: tuple[str, ...]


def paired_counts(category: str, a: Mapping[str, bool], b: Mapping[str, bool]) -> PairedRow:
    """The 2x2 table of two runs' verdicts on the same ids, with the McNemar p-value."""
    both = sum(1 for i, ok in a.items() if ok and b[i])
    only_a = sum(1 for i, ok in a.items() if ok and not b[i])
    only_b = sum(1 for i, ok in a.items() if not ok and b[i])
    neither = len(a) - both - only_a - only_b
    return PairedRow(
        category, len(a), both, only_a, only_b, neither, mcnemar_exact_p(only_a, only_b)
    )


def _verdicts(run: RunView) -> dict[str, dict[str, bool]]:
    by_cat: dict[str, dict[str, bool]] = {}
    for r in run.records:
        by_cat.setdefault(str(r.category), {})[r.id] = r.valid
    return by_cat


def _differing_options(a: RunView, b: RunView) -> list[str]:
    return [k for k in ("check", "policy") if a.summary.get(k) != b.summary.get(k)]


def compare_runs(a: RunView, b: RunView, names: Sequence[str], categories: Sequence[str]) -> Paired:
    name_a, name_b = names[0], names[1]

    def unpaired(reason: str) -> Paired:
        return Paired(name_a, name_b, (), None, reason, ())

    for run, name in ((a, name_a), (b, name_b)):
        if not run.records:
            return unpaired(f"{name} has no per-item verdicts (scores.jsonl), which the test needs")
    sha_a, sha_b = a.dataset_sha256, b.dataset_sha256
    if sha_a and sha_b and sha_a != sha_b:
        return unpaired(
            f"the runs used different datasets (sha256 {sha_a[:12]} vs {sha_b[:12]}), "
            "so equal ids need not be the same questions"
        )
    verdicts_a, verdicts_b = _verdicts(a), _verdicts(b)
    rows: list[PairedRow] = []
    for cat in categories:
        va, vb = verdicts_a.get(cat, {}), verdicts_b.get(cat, {})
        # Notes name the runs A and B, as the columns do: a run's name, which may be longer
        # than a narrow note column, is in the title (and the terminal's legend) once.
        if not va or not vb:
            missing = [n for n, v in (("A", va), ("B", vb)) if not v]
            where = "either run" if len(missing) == 2 else missing[0]
            rows.append(PairedRow(cat, note=f"not run in {where}"))
        elif va.keys() != vb.keys():
            only_in_a, only_in_b = len(va.keys() - vb.keys()), len(vb.keys() - va.keys())
            rows.append(
                PairedRow(
                    cat,
                    note=f"different items ({only_in_a} only in A, {only_in_b} only in B): "
                    "the test needs the same items",
                )
            )
        else:
            rows.append(paired_counts(cat, va, vb))
    paired = [r for r in rows if r.p_value is not None]
    overall = None
    if paired:
        only_a, only_b = sum(r.only_a for r in paired), sum(r.only_b for r in paired)
        overall = PairedRow(
            "all paired items",
            n=sum(r.n for r in paired),
            both=sum(r.both for r in paired),
            only_a=only_a,
            only_b=only_b,
            neither=sum(r.neither for r in paired),
            p_value=mcnemar_exact_p(only_a, only_b),
        )
    warnings: list[str] = []
    differing = _differing_options(a, b)
    if differing:
        warnings.append(
            f"The runs were scored with different {' and '.join(differing)} options; the test "
            "compares the verdicts as scored."
        )
    reason = None if paired else "no category has the same items in both runs"
    return Paired(name_a, name_b, tuple(rows), overall, reason, tuple(warnings))
