"""One scored item (a line of scores.jsonl, Q6) and how it is made from an output.

mc and tf items are right or wrong: the extracted label or verdict equals the reference.
Open items always get the lexical scores (exact match, token F1 after SQuAD normalisation)
and, when a judge grades them, a score of 1 / 0.5 / 0. `error_type` says why an item has no
proper answer: `parse_error` (nothing could be read: counted wrong), `request_error` (the
model was not asked or did not answer, a prediction missing from the file included:
counted wrong, reported apart), `ungraded` (the judge failed or gave no grade: left out of
the judge's mean).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from enum import StrEnum
from typing import Any

from tfce_eval.qa.extract import Extraction, extract_answer, read_answer
from tfce_eval.qa.items import AnswerType, QaItem, normalise_spec, same_spec
from tfce_eval.qa.judge import Grade
from tfce_eval.qa.lexical import exact_match, token_f1
from tfce_eval.qa.predictions import QaOutput, RetrievedChunk
from tfce_eval.qa.qasper import evidence_f1

#: What a record of a prediction the file lacks says.
MISSING = "no prediction for this item"


class ErrorType(StrEnum):
    """Why an item has no proper answer."""

    PARSE_ERROR = "parse_error"
    REQUEST_ERROR = "request_error"
    UNGRADED = "ungraded"


@dataclass(frozen=True, slots=True)
class QaScore:
    """One item's score, as scores.jsonl holds it."""

    id: str
    answer_type: AnswerType
    extracted: str | None
    correct: bool | None
    score: float | None
    error_type: ErrorType | None
    error: str | None
    difficulty: str
    series: str
    spec: str
    release: str
    reference: str
    grade: Grade | None = None
    exact_match: float | None = None
    token_f1: float | None = None
    evidence_f1: float | None = None
    canonical_hit: bool | None = None
    chunk_hit: bool | None = None
    missing: bool = False
    context: str | None = None

    def to_json(self) -> dict[str, Any]:
        """The scores.jsonl record (enums as their strings)."""
        return {
            "id": self.id,
            "answer_type": str(self.answer_type),
            "extracted": self.extracted,
            "correct": self.correct,
            "score": self.score,
            "error_type": None if self.error_type is None else str(self.error_type),
            "error": self.error,
            "difficulty": self.difficulty,
            "series": self.series,
            "spec": self.spec,
            "release": self.release,
            "reference": self.reference,
            "grade": None if self.grade is None else str(self.grade),
            "exact_match": self.exact_match,
            "token_f1": self.token_f1,
            "evidence_f1": self.evidence_f1,
            "canonical_hit": self.canonical_hit,
            "chunk_hit": self.chunk_hit,
            "missing": self.missing,
            "context": self.context,
        }


def _chunk_spec(chunk: RetrievedChunk) -> str:
    return normalise_spec(chunk.source) or normalise_spec(chunk.chunk_id)


def hits(
    item: QaItem, retrieved: Sequence[RetrievedChunk] | None, k: int
) -> tuple[bool | None, bool | None]:
    """(canonical hit, chunk hit) of the top k chunks in the order given; None where the
    item has no retrieval, or no canonical spec / gold chunk to hit."""
    if retrieved is None:
        return None, None
    top = retrieved[:k]
    canonical = any(same_spec(item.spec, _chunk_spec(c)) for c in top) if item.spec else None
    chunk = any(c.chunk_id in item.evidence for c in top) if item.evidence else None
    return canonical, chunk


def score_item(
    item: QaItem,
    output: QaOutput | None,
    *,
    k: int = 5,
    retrieved: Sequence[RetrievedChunk] | None = None,
    evidence_scored: bool = False,
) -> QaScore:
    """The item's score before any judge: extraction, right/wrong, lexical scores, hits.

    `retrieved` stands in when the output names no chunks; `evidence_scored` gives every
    QASPER item an Evidence-F1 (0 for an output citing none), as the official evaluator does.
    """
    is_open = item.answer_type is AnswerType.OPEN
    evidence = None
    if evidence_scored:
        # A request error cites nothing: its evidence is no more the model's than its answer.
        cited: Sequence[str] = ()
        if output is not None and output.error is None and output.evidence is not None:
            cited = output.evidence
        evidence = evidence_f1(cited, [item.evidence])
    extracted = error = context = None
    error_type: ErrorType | None = ErrorType.REQUEST_ERROR
    canonical = chunk = None
    if output is None or output.error is not None:
        error = MISSING if output is None else output.error
    else:
        chosen = output.retrieved if output.retrieved is not None else retrieved
        canonical, chunk = hits(item, chosen, k)
        got: Extraction
        if output.answer is not None:
            got = read_answer(item, output.answer)
        else:
            got = extract_answer(item, output.response or "")
        extracted, error, context = got.answer, got.error, output.context
        error_type = None if extracted is not None else ErrorType.PARSE_ERROR
    correct: bool | None = None
    score = em = f1 = None
    if is_open:
        # Not answered or not read: the lexical scores are 0; the judge's score comes later.
        em = exact_match(extracted, [item.reference]) if extracted is not None else 0.0
        f1 = token_f1(extracted, [item.reference]) if extracted is not None else 0.0
    else:
        correct = extracted == item.reference
        score = 1.0 if correct else 0.0
    return QaScore(
        id=item.id,
        answer_type=item.answer_type,
        extracted=extracted,
        correct=correct,
        score=score,
        error_type=error_type,
        error=error,
        difficulty=item.difficulty,
        series=item.series,
        spec=item.spec,
        release=item.release,
        reference=item.reference,
        exact_match=em,
        token_f1=f1,
        evidence_f1=evidence,
        canonical_hit=canonical,
        chunk_hit=chunk,
        missing=output is None,
        context=context,
    )
