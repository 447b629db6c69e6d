"""QASPER answers: its open items, and the official evaluator's Answer-F1 and Evidence-F1.

QASPER-RAG's answers arrive already read (queries, answers and qrels as mappings, from the
retrieval loader); `qasper_dataset` turns them into open items whose evidence is the qrels.

The scores follow `qasper_evaluator.py` of the QASPER release: Answer-F1 is SQuAD v1.1's
token F1 (`lexical.token_f1`), the maximum over the references; Evidence-F1 is the F1 of
the predicted evidence paragraphs against each reference's evidence, the maximum over the
references, where precision divides by the length of the predicted list (a paragraph cited
twice counts twice) and a question with no gold and no predicted evidence scores 1.0.
QASPER-RAG keeps one answer per question, so its evidence is one reference: the chunks the
qrels name.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from tfce_eval.qa.items import AnswerType, QaDataset, QaItem
from tfce_eval.qa.lexical import token_f1
from tfce_eval.words import counted, listed


def answer_f1(prediction: str, references: Sequence[str]) -> float:
    """QASPER's Answer-F1 of one prediction: the best token F1 over the references."""
    return token_f1(prediction, references)


def paragraph_f1(predicted: Sequence[str], gold: Sequence[str]) -> float:
    """QASPER's evidence F1 of one predicted list against one reference's evidence."""
    if not gold and not predicted:
        return 1.0
    same = len(set(gold) & set(predicted))
    if same == 0:
        return 0.0
    precision = same / len(predicted)
    recall = same / len(gold)
    return 2 * precision * recall / (precision + recall)


def evidence_f1(predicted: Sequence[str], references: Sequence[Sequence[str]]) -> float:
    """QASPER's Evidence-F1 of one question: the best paragraph F1 over the references."""
    return max((paragraph_f1(predicted, gold) for gold in references), default=0.0)


def qasper_dataset(
    queries: Mapping[str, str],
    answers: Mapping[str, str],
    qrels: Mapping[str, Mapping[str, int]],
    *,
    path: str = "",
    split: str = "",
    sha256: str = "",
    chunk_text: Mapping[str, str] | None = None,
) -> QaDataset:
    """QASPER-RAG's answers as open items: question, reference answer, evidence chunks.

    The evidence is every chunk the qrels judge relevant (score > 0); with `chunk_text`
    their texts, joined, become the item's `source_text` (the gold context and the judge's
    evidence). A query without an answer is left out and counted in `warnings`.
    """
    items: list[QaItem] = []
    unanswered = [qid for qid in queries if not answers.get(qid, "").strip()]
    for qid in sorted(queries):
        reference = answers.get(qid, "").strip()
        if not reference:
            continue
        evidence = tuple(sorted(d for d, rel in qrels.get(qid, {}).items() if rel > 0))
        source = ""
        if chunk_text is not None:
            source = "\n\n".join(chunk_text[d] for d in evidence if d in chunk_text)
        items.append(
            QaItem(
                id=qid,
                question=queries[qid],
                answer_type=AnswerType.OPEN,
                reference=reference,
                source_text=source,
                evidence=evidence,
            )
        )
    warnings: tuple[str, ...] = ()
    if unanswered:
        lacking = counted(len(unanswered), "query has", "queries have")
        left = "is" if len(unanswered) == 1 else "are"
        warnings = (f"{lacking} no answer and {left} left out ({listed(sorted(unanswered))})",)
    return QaDataset(path, split, tuple(items), sha256, "qasper", "QASPER-RAG answers", warnings)
