"""The LLM judge of open answers, without the network: its prompt, its verdicts, its cache.

A judge model grades an open answer C (correct, 1), P (partially correct, 0.5) or
I (incorrect, 0) against the reference answer, with the item's source text as evidence.
This module holds what does not need a model: the prompt and its SHA-256 (recorded in every
summary, so two runs say whether they were graded alike), `parse_verdict`, the `Judge`
protocol the provider layer implements, and the verdict cache.

The cache is a JSON Lines file in the run directory, appended to as verdicts arrive and
keyed by (item id, SHA-256 of the graded answer, judge model, SHA-256 of the prompt), so a
re-score sends no request for a verdict it already has, and a changed answer, judge or
prompt is graded afresh. A line torn by an interruption is skipped when read.
"""

from __future__ import annotations

import hashlib
import json
import re
from dataclasses import dataclass
from enum import StrEnum
from pathlib import Path
from typing import Protocol

from tfce_eval.errors import UsageError
from tfce_eval.jsonl import parse_json
from tfce_eval.qa.extract import clean_response
from tfce_eval.qa.items import QaItem

#: The cache's file name in a run directory.
CACHE_NAME = "judge_verdicts.jsonl"
#: The longest answer and evidence a judge is shown (characters); longer ones are cut.
MAX_JUDGED = 20_000
#: How much of a judge's reply the cache keeps, for a reader (the grade is kept apart).
MAX_KEPT = 2_000


class Grade(StrEnum):
    """A judge's verdict: correct, partially correct, incorrect."""

    C = "C"
    P = "P"
    I = "I"  # noqa: E741 (the grade's own letter)

    @property
    def score(self) -> float:
        return {"C": 1.0, "P": 0.5, "I": 0.0}[self.value]


JUDGE_TEMPLATE = """\
You are grading an answer to a question against its reference answer.

Question:
{question}

Reference answer:
{reference}

Evidence (the source passage the question was written from; may be empty):
{evidence}

Answer to grade:
{response}

Grade the answer against the reference answer. Use the evidence only to decide whether the
answer means the same as the reference; do not reward facts the reference does not ask for.
- C (correct): it gives the reference's key facts and contradicts none of them. Wording,
  length and extra correct detail do not matter.
- P (partially correct): it gives some of the key facts but misses or gets wrong others.
- I (incorrect): it misses the key facts, contradicts the reference, or declines to answer.

Reply with one line and nothing else: GRADE: C, GRADE: P or GRADE: I
"""

#: The digest that identifies the grading rules in summaries and cache keys.
JUDGE_PROMPT_SHA256 = hashlib.sha256(JUDGE_TEMPLATE.encode("utf-8")).hexdigest()

_FIELD = re.compile(r"\{(question|reference|evidence|response)\}")


def _cut(text: str) -> str:
    return text if len(text) <= MAX_JUDGED else text[:MAX_JUDGED] + " [cut]"


def judge_prompt(item: QaItem, response: str) -> str:
    """The judge's user message for one answer (filled in one pass: an answer holding
    `{reference}` stays as written)."""
    fields = {
        "question": item.question.strip(),
        "reference": item.reference.strip(),
        "evidence": _cut(item.source_text.strip()) or "(none)",
        "response": _cut(response.strip()),
    }
    return _FIELD.sub(lambda m: fields[m.group(1)], JUDGE_TEMPLATE)


_GRADE_LINE = re.compile(r"GRADE\s*:", re.IGNORECASE)
_GRADE_WORD = re.compile(
    r"[(\[]?(partially\s+correct|partial|incorrect|correct|[CPI])[)\]]?(?=[\s.,;:!)]|$)",
    re.IGNORECASE,
)
_WORDS = {
    "correct": Grade.C,
    "partially correct": Grade.P,
    "partial": Grade.P,
    "incorrect": Grade.I,
}
_ALTERNATIVE = re.compile(r"\s*(?:/|\bor\b|,)\s*[(\[]?(?:[CPI]|correct|incorrect)\b", re.I)


def _grade_of(text: str, *, whole: bool) -> Grade | None:
    text = text.strip()
    match = _GRADE_WORD.fullmatch(text) if whole else _GRADE_WORD.match(text)
    if match is None or _ALTERNATIVE.match(text, match.end()):
        return None
    word = " ".join(match.group(1).lower().split())
    return _WORDS.get(word) or Grade(word.upper())


def parse_verdict(text: str) -> Grade | None:
    """The grade a judge's reply gives: the last `GRADE:` line, else a reply that is only a
    grade (`C`, `Correct`, `Partially correct`); None when it gives none or two."""
    cleaned = clean_response(text)
    found = None
    for found in _GRADE_LINE.finditer(cleaned):  # noqa: B007 (the last one decides)
        pass
    if found is not None:
        return _grade_of(cleaned[found.end() :].split("\n", 1)[0], whole=False)
    return _grade_of(cleaned.strip().rstrip(".!"), whole=True)


class Judge(Protocol):
    """A judge model behind the provider layer: returns its raw reply to `judge_prompt`.

    It may raise on any failure; the scorer records the item as ungraded with the reason.
    """

    async def grade(self, item: QaItem, response: str) -> str: ...


def response_sha256(response: str) -> str:
    """The digest of an answer as the cache keys it."""
    return hashlib.sha256(response.encode("utf-8", "surrogatepass")).hexdigest()


@dataclass(frozen=True, slots=True)
class VerdictKey:
    """What a cached verdict was given for."""

    item_id: str
    response_sha256: str
    judge: str
    prompt_sha256: str = JUDGE_PROMPT_SHA256


@dataclass(frozen=True, slots=True)
class Verdict:
    """A judge's reply and the grade read from it (None: unparseable, so ungraded)."""

    grade: Grade | None
    raw: str


class VerdictCache:
    """The verdicts of one run directory: read once, appended to line by line.

    With no path the cache lives in memory only (a scorer that writes no files).
    """

    def __init__(self, path: Path | None) -> None:
        self.path = path
        self.torn = 0  # lines skipped because they were not whole JSON records
        self._verdicts: dict[VerdictKey, Verdict] = {}
        self._needs_newline = False
        if path is not None and path.is_file():
            self._read(path)

    def _read(self, path: Path) -> None:
        data = path.read_bytes()
        self._needs_newline = bool(data) and not data.endswith(b"\n")
        for line in data.split(b"\n"):
            if not line.strip():
                continue
            try:
                rec = parse_json(line)  # a JsonRefused is a ValueError
                key = VerdictKey(
                    str(rec["id"]), rec["response_sha256"], rec["judge"], rec["prompt_sha256"]
                )
                grade = Grade(rec["grade"]) if rec["grade"] is not None else None
                self._verdicts[key] = Verdict(grade, str(rec.get("raw", "")))
            except (ValueError, KeyError, TypeError):
                self.torn += 1

    def __len__(self) -> int:
        return len(self._verdicts)

    def get(self, key: VerdictKey) -> Verdict | None:
        return self._verdicts.get(key)

    def put(self, key: VerdictKey, verdict: Verdict) -> None:
        """Remember a verdict and append it to the file at once (flushed)."""
        self._verdicts[key] = verdict
        if self.path is None:
            return
        record = {
            "id": key.item_id,
            "response_sha256": key.response_sha256,
            "judge": key.judge,
            "prompt_sha256": key.prompt_sha256,
            "grade": None if verdict.grade is None else str(verdict.grade),
            "raw": verdict.raw[:MAX_KEPT],
        }
        self.path.parent.mkdir(parents=True, exist_ok=True)
        with self.path.open("a", encoding="utf-8") as out:
            if self._needs_newline:  # a torn last line stays a line of its own
                out.write("\n")
                self._needs_newline = False
            out.write(json.dumps(record, ensure_ascii=False) + "\n")


def _bare(name: str) -> str:
    return name.strip().casefold().rsplit("/", 1)[-1]


def check_judge(model: str, judge: str, *, allow_self_judge: bool = False) -> None:
    """A UsageError when the judge is the model under test (unless allowed).

    Names are compared without case and without a provider prefix (`openai/gpt-4o` and
    `gpt-4o` are one model).
    """
    if not allow_self_judge and _bare(model) == _bare(judge):
        raise UsageError(
            f"the judge {judge!r} is the model under test; a model grading its own answers "
            "is biased: choose another --judge, or pass --allow-self-judge"
        )
