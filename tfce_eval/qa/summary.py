"""summary.json of a scored QA run (Q6), computed from its records alone.

Per answer type: mc and tf as accuracy with a 95 % Wilson interval, parse errors and
request errors apart (both count as wrong); open as the judge's mean over graded items
(ungraded ones left out and counted) beside exact match and token F1, labelled lexical.
Then the same by difficulty and by 3GPP series, the canonical hit rate at k, and the judge
with its prompt digest.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from tfce_eval.dataset.paths import recorded
from tfce_eval.model import TaskKind
from tfce_eval.qa.items import AnswerType, QaDataset
from tfce_eval.qa.records import ErrorType, QaScore
from tfce_eval.scoring.options import MissingMode
from tfce_eval.stats import proportion_block

#: How every report names the lexical scores.
LEXICAL = "lexical: exact match and token F1 after SQuAD normalisation"


def _mean(values: Sequence[float]) -> float | None:
    return sum(values) / len(values) if values else None


def closed_block(records: Sequence[QaScore]) -> dict[str, Any]:
    """Counts of mc/tf records: total, correct, accuracy, ci95, parse and request errors."""
    block = proportion_block(sum(1 for r in records if r.correct), len(records))
    block["parse_errors"] = sum(1 for r in records if r.error_type is ErrorType.PARSE_ERROR)
    block["request_errors"] = sum(1 for r in records if r.error_type is ErrorType.REQUEST_ERROR)
    return block


def open_block(records: Sequence[QaScore], judge: str | None, prompt: str | None) -> dict[str, Any]:
    """The open items: the judge's mean and grades, ungraded apart, the lexical scores."""
    graded = [r.score for r in records if r.score is not None]
    grades = {g: sum(1 for r in records if r.grade == g) for g in ("C", "P", "I")}
    return {
        "total": len(records),
        "mean": _mean(graded) if judge else None,
        "graded": len(graded) if judge else 0,
        "ungraded": sum(1 for r in records if r.error_type is ErrorType.UNGRADED),
        "grades": grades,
        "parse_errors": sum(1 for r in records if r.error_type is ErrorType.PARSE_ERROR),
        "request_errors": sum(1 for r in records if r.error_type is ErrorType.REQUEST_ERROR),
        "judge": judge,
        "judge_prompt_sha256": prompt if judge else None,
        "exact_match": _mean([r.exact_match or 0.0 for r in records]),
        "token_f1": _mean([r.token_f1 or 0.0 for r in records]),
        "lexical": LEXICAL,
    }


def _group(records: Sequence[QaScore]) -> dict[str, Any]:
    closed = [r for r in records if r.answer_type is not AnswerType.OPEN]
    opened = [r for r in records if r.answer_type is AnswerType.OPEN]
    block = proportion_block(sum(1 for r in closed if r.correct), len(closed))
    block["items"] = len(records)
    block["open_total"] = len(opened)
    block["open_mean"] = _mean([r.score for r in opened if r.score is not None])
    block["open_token_f1"] = _mean([r.token_f1 or 0.0 for r in opened])
    return block


def by_field(records: Iterable[QaScore], field: str) -> dict[str, Any]:
    """Records grouped by `difficulty` or `series` ("unknown" for an empty value)."""
    groups: dict[str, list[QaScore]] = {}
    for r in records:
        groups.setdefault(getattr(r, field) or "unknown", []).append(r)
    return {key: _group(groups[key]) for key in sorted(groups)}


def canonical_block(records: Sequence[QaScore], k: int, chunks_comparable: bool) -> Any:
    """The canonical hit rate at k over items with retrieval and a canonical spec; None when
    no item had retrieved chunks. The chunk hit rate only when the chunking is the gold's."""
    with_retrieval = [r for r in records if r.canonical_hit is not None or r.chunk_hit is not None]
    if not with_retrieval:
        return None
    judged = [r for r in with_retrieval if r.canonical_hit is not None]
    block = proportion_block(sum(1 for r in judged if r.canonical_hit), len(judged))
    block = {"k": k, "questions": block.pop("total"), "hits": block.pop("correct"), **block}
    block["rate"] = block.pop("accuracy")
    block["no_canonical_spec"] = len(with_retrieval) - len(judged)
    block["no_retrieval"] = sum(
        1 for r in records if r.canonical_hit is None and r.chunk_hit is None and not r.error_type
    )
    chunked = [r for r in with_retrieval if r.chunk_hit is not None]
    if chunks_comparable and chunked:
        hits = sum(1 for r in chunked if r.chunk_hit)
        block["chunk_hit"] = {"questions": len(chunked), "hits": hits, "rate": hits / len(chunked)}
    else:
        block["chunk_hit"] = None
    return block


def summarise(
    records: Sequence[QaScore],
    dataset: QaDataset,
    *,
    k: int,
    judge: Mapping[str, Any] | None,
    chunks_comparable: bool,
    missing: int,
    missing_policy: MissingMode,
    warnings: Sequence[str] = (),
    extra: Mapping[str, Any] | None = None,
) -> dict[str, Any]:
    """The whole summary.json object of a scored run."""
    by_type: dict[AnswerType, list[QaScore]] = {t: [] for t in AnswerType}
    for r in records:
        by_type[r.answer_type].append(r)
    present = {i.answer_type for i in dataset.items} or {r.answer_type for r in records}
    answer_types: dict[str, Any] = {}
    for kind in (AnswerType.MC, AnswerType.TF):
        if kind in present:
            answer_types[str(kind)] = closed_block(by_type[kind])
    judge_name = None if judge is None else str(judge["model"])
    prompt = None if judge is None else str(judge["prompt_sha256"])
    if AnswerType.OPEN in present:
        answer_types["open"] = open_block(by_type[AnswerType.OPEN], judge_name, prompt)
    closed = by_type[AnswerType.MC] + by_type[AnswerType.TF]
    summary: dict[str, Any] = {
        "task": str(TaskKind.QA),
        "dataset": {
            "path": recorded(dataset.path),
            "split": dataset.split,
            "kind": dataset.kind,
            "sha256": dataset.sha256,
            "items": len(dataset.items),
        },
        "items": len(records),
        "missing": missing,
        "missing_policy": str(missing_policy),
        "answer_types": answer_types,
        "overall": closed_block(closed) if closed else None,
        "by": {
            "difficulty": by_field(records, "difficulty"),
            "series": by_field(records, "series"),
        },
        "canonical_hit": canonical_block(records, k, chunks_comparable),
        "judge": None if judge is None else dict(judge),
        "warnings": list(warnings),
    }
    if dataset.kind == "qasper":
        evidence = [r.evidence_f1 for r in records if r.evidence_f1 is not None]
        summary["qasper"] = {
            "answer_f1": _mean([r.token_f1 or 0.0 for r in records]),
            "evidence_f1": _mean(evidence) if evidence else None,
            "questions": len(records),
        }
    if extra:
        summary.update(extra)
    return summary
