"""Lexical scores of open answers: exact match and token F1 after SQuAD normalisation.

These are the official SQuAD v1.1 definitions, which QASPER's evaluator also uses for its
Answer-F1: lower case, punctuation removed, the articles a/an/the removed, white space
collapsed; F1 over the multiset of tokens, 0 when nothing is shared; the maximum over the
references. They measure wording, not meaning, so every report labels them "lexical".
"""

from __future__ import annotations

import re
import string
from collections import Counter
from collections.abc import Sequence

from tfce_eval.errors import UsageError

_PUNCTUATION = str.maketrans("", "", string.punctuation)
_ARTICLES = re.compile(r"\b(a|an|the)\b")


def normalize_answer(text: str) -> str:
    """SQuAD's normalisation: lower, punctuation off, articles off, white space collapsed."""
    return " ".join(_ARTICLES.sub(" ", text.lower().translate(_PUNCTUATION)).split())


def _f1(prediction: list[str], reference: list[str]) -> float:
    common = Counter(prediction) & Counter(reference)
    same = sum(common.values())
    if same == 0:
        return 0.0
    precision = same / len(prediction)
    recall = same / len(reference)
    return 2 * precision * recall / (precision + recall)


def _references(prediction: str, references: Sequence[str]) -> Sequence[str]:
    """The references as given, checked: a lone string would be read letter by letter."""
    if isinstance(references, str | bytes):
        raise UsageError(
            f"references: give a list of answers, not the string {repr(references)[:60]}"
        )
    given = list(references)  # read once: an iterator is used up by the check
    if not isinstance(prediction, str) or not all(isinstance(r, str) for r in given):
        raise UsageError("token_f1 and exact_match compare text: a prediction and a list of str")
    return given


def exact_match(prediction: str, references: Sequence[str]) -> float:
    """1.0 when the normalised prediction equals a normalised reference, else 0.0."""
    references = _references(prediction, references)
    norm = normalize_answer(prediction)
    return 1.0 if any(norm == normalize_answer(r) for r in references) else 0.0


def token_f1(prediction: str, references: Sequence[str]) -> float:
    """The best token F1 of the prediction against any reference (0.0 with none)."""
    references = _references(prediction, references)
    tokens = normalize_answer(prediction).split()
    return max((_f1(tokens, normalize_answer(r).split()) for r in references), default=0.0)
