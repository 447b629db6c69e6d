"""The paired comparison of two scored QA runs over the same items (closed-book vs RAG).

Two accuracies a few points apart on a few dozen items can be noise. For mc and tf the
items exactly one run got right decide (the exact McNemar test); for open answers the
per-item scores are compared with a paired randomization test (sign flips, seeded): the
judge's scores where both runs were judged (items ungraded in either run left out), else
token F1, labelled lexical. The tests apply only when both runs hold the same items of the
same dataset; otherwise each row says why not. The shape is fc's `"paired"`.
"""

from __future__ import annotations

from typing import Any

from tfce_eval.qa.items import AnswerType
from tfce_eval.qa.runs import QaRun
from tfce_eval.stats import mcnemar_exact_p, paired_randomization_p
from tfce_eval.words import counted


def _judged(run: QaRun) -> bool:
    return isinstance(run.summary.get("judge"), dict)


def _closed_pair(kind: str, a: QaRun, b: QaRun) -> dict[str, Any]:
    va = {r.id: bool(r.correct) for r in a.records if r.answer_type == kind}
    vb = {r.id: bool(r.correct) for r in b.records if r.answer_type == kind}
    row: dict[str, Any] = {
        "category": kind,
        "n": 0,
        "both": 0,
        "only_a": 0,
        "only_b": 0,
        "neither": 0,
        "p_value": None,
        "test": "McNemar exact",
        "note": None,
    }
    if not va or not vb:
        row["note"] = "not in " + ("either run" if not va and not vb else "A" if not va else "B")
    elif va.keys() != vb.keys():
        row["note"] = (
            f"different items ({len(va.keys() - vb.keys())} only in A, "
            f"{len(vb.keys() - va.keys())} only in B): the test needs the same items"
        )
    else:
        both = sum(1 for i, ok in va.items() if ok and vb[i])
        only_a = sum(1 for i, ok in va.items() if ok and not vb[i])
        only_b = sum(1 for i, ok in va.items() if not ok and vb[i])
        row.update(
            n=len(va),
            both=both,
            only_a=only_a,
            only_b=only_b,
            neither=len(va) - both - only_a - only_b,
            p_value=mcnemar_exact_p(only_a, only_b),
        )
    return row


def _open_pair(a: QaRun, b: QaRun) -> dict[str, Any] | None:
    sa = {r.id: r for r in a.records if r.answer_type is AnswerType.OPEN}
    sb = {r.id: r for r in b.records if r.answer_type is AnswerType.OPEN}
    if not sa and not sb:
        return None
    judged = _judged(a) and _judged(b)
    measure = "judge score" if judged else "token F1 (lexical)"
    row: dict[str, Any] = {
        "category": "open",
        "n": 0,
        "both": None,
        "only_a": None,
        "only_b": None,
        "neither": None,
        "p_value": None,
        "test": "paired randomization",
        "measure": measure,
        "mean_a": None,
        "mean_b": None,
        "note": None,
    }
    if sa.keys() != sb.keys() or not sa:
        row["note"] = "different items: the test needs the same items"
        return row
    pairs: list[tuple[float, float]] = []
    for item_id, ra in sa.items():
        rb = sb[item_id]
        if judged:
            if ra.score is not None and rb.score is not None:
                pairs.append((ra.score, rb.score))
        else:
            pairs.append((ra.token_f1 or 0.0, rb.token_f1 or 0.0))
    left_out = len(sa) - len(pairs)
    if left_out:
        row["note"] = (
            f"{counted(left_out, 'item')} ungraded in a run "
            f"{'is' if left_out == 1 else 'are'} left out"
        )
    if pairs:
        xs, ys = [x for x, _ in pairs], [y for _, y in pairs]
        row.update(
            n=len(pairs),
            mean_a=sum(xs) / len(xs),
            mean_b=sum(ys) / len(ys),
            p_value=paired_randomization_p(xs, ys),
        )
    return row


def paired_data(a: QaRun, b: QaRun) -> dict[str, Any]:
    """fc's "paired" shape for two QA runs: per category the 2x2 counts and the p-value."""
    reason = None
    rows: list[dict[str, Any]] = []
    if not a.records or not b.records:
        reason = "a run has no per-item records (scores.jsonl), which the tests need"
    elif a.dataset_sha256 and b.dataset_sha256 and a.dataset_sha256 != b.dataset_sha256:
        reason = "the runs used different datasets (sha256 differ): equal ids need not match"
    else:
        kinds = {r.answer_type for r in (*a.records, *b.records)}
        rows = [_closed_pair(str(k), a, b) for k in (AnswerType.MC, AnswerType.TF) if k in kinds]
        open_row = _open_pair(a, b)
        if open_row is not None:
            rows.append(open_row)
    closed = [r for r in rows if r["test"] == "McNemar exact" and r["p_value"] is not None]
    overall = None
    if len(closed) > 1:  # mc and tf both paired: one of them alone is no pooled row
        sums = {f: sum(r[f] for r in closed) for f in ("n", "both", "only_a", "only_b", "neither")}
        overall = {
            "category": "mc+tf",
            **sums,
            "test": "McNemar exact",
            "note": None,
            "p_value": mcnemar_exact_p(sums["only_a"], sums["only_b"]),
        }
    return {
        "a": a.name,
        "b": b.name,
        "rows": rows,
        "overall": overall,
        "reason": reason,
        "warnings": [],
    }
