"""Grading open answers with the judge, its verdict cache first, counting what it did.

One `Grader` serves one scoring pass: a cached verdict grades without asking; a judge that
raises or answers without a grade leaves its item `ungraded` with the reason (the harness
goes on, and the item is reported apart, never counted as the model's wrong answer).
"""

from __future__ import annotations

import asyncio
import dataclasses
from collections.abc import Mapping
from typing import Any

from tfce_eval.qa.items import AnswerType, QaItem
from tfce_eval.qa.judge import (
    JUDGE_PROMPT_SHA256,
    Judge,
    Verdict,
    VerdictCache,
    VerdictKey,
    parse_verdict,
    response_sha256,
)
from tfce_eval.qa.records import ErrorType, QaScore


def _short(text: str, limit: int = 120) -> str:
    text = " ".join(text.split())
    return text if len(text) <= limit else text[: limit - 3] + "..."


class Grader:
    """Grades the open answers of one scoring pass, cache first, counting what it did."""

    def __init__(
        self, judge: Judge | None, name: str, cache: VerdictCache, concurrency: int
    ) -> None:
        self.judge, self.name, self.cache = judge, name, cache
        self.semaphore = asyncio.Semaphore(max(1, concurrency))
        self.counts = {"asked": 0, "cached": 0, "failed": 0, "unparseable": 0}
        self.first_failure: str | None = None  # why the judge first failed, for the warning

    async def grade(self, item: QaItem, record: QaScore) -> QaScore:
        text = record.extracted or ""
        key = VerdictKey(item.id, response_sha256(text), self.name, JUDGE_PROMPT_SHA256)
        verdict = self.cache.get(key)
        if verdict is not None:
            self.counts["cached"] += 1
        elif self.judge is None:
            return self._ungraded(record, "no judge to ask and no cached verdict")
        else:
            async with self.semaphore:
                self.counts["asked"] += 1
                try:
                    raw: object = await self.judge.grade(item, text)
                except Exception as exc:  # any failure of the judge is this item's, not ours
                    return self._failed(record, f"judge failed: {type(exc).__name__}: {exc}")
            if not isinstance(raw, str):
                return self._failed(record, f"judge returned {type(raw).__name__}, not text")
            verdict = Verdict(parse_verdict(raw), raw)
            self.cache.put(key, verdict)
        if verdict.grade is None:
            self.counts["unparseable"] += 1
            return self._ungraded(record, f"no grade in the judge's reply: {verdict.raw!r}")
        return dataclasses.replace(record, grade=verdict.grade, score=verdict.grade.score)

    def _failed(self, record: QaScore, reason: str) -> QaScore:
        self.counts["failed"] += 1
        if self.first_failure is None:
            self.first_failure = _short(reason)
        return self._ungraded(record, reason)

    @staticmethod
    def _ungraded(record: QaScore, reason: str) -> QaScore:
        return dataclasses.replace(record, error_type=ErrorType.UNGRADED, error=_short(reason))

    async def grade_open(
        self, items: Mapping[str, QaItem], records: list[QaScore]
    ) -> list[QaScore]:
        """`records` with every open answer graded (an unread one scores 0, unasked)."""
        graded = list(records)
        jobs: list[tuple[int, Any]] = []
        for index, record in enumerate(records):
            if record.answer_type is not AnswerType.OPEN:
                continue
            if record.extracted is None:  # not answered or not read: no request, scored 0
                graded[index] = dataclasses.replace(record, score=0.0)
            else:
                jobs.append((index, self.grade(items[record.id], record)))
        results = await asyncio.gather(*(job for _, job in jobs))
        for (index, _), result in zip(jobs, results, strict=True):
            graded[index] = result
        return graded
