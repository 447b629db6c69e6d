"""What a score keeps in memory of each record: what the summary and the reports need.

Records are written to scores.jsonl as they are made; in memory, only the first failures
of each category and kind (model error, request error) keep their details, for the
reports' failure lists. The others keep what the summary reads of them: the exec error
code, or why the exec check was skipped.
"""

from __future__ import annotations

from collections.abc import Mapping
from functools import lru_cache
from types import MappingProxyType
from typing import Any

from tfce_eval.model import Category, ErrorCode, ScoreRecord


class Keeper:
    """Keeps in memory what the summary and the reports need of each record, and no more.

    A run of 100,000 items would hold hundreds of MB of details (expected and received
    calls, problems); records are written to scores.jsonl as they are made, and in memory
    only the first failures of each category keep their details.
    """

    def __init__(self, keep_details: int) -> None:
        #: Failing records per category and kind whose details are kept.
        self.keep_details = keep_details
        self.records: list[ScoreRecord] = []
        self._kept: dict[tuple[Category, bool], int] = {}

    def add(self, record: ScoreRecord) -> None:
        if not record.valid:
            key = (record.category, record.error_type is ErrorCode.REQUEST_ERROR)
            if self._kept.get(key, 0) < self.keep_details:
                self._kept[key] = self._kept.get(key, 0) + 1
                self.records.append(record)
                return
        self.records.append(
            ScoreRecord(
                record.id,
                record.category,
                record.valid,
                record.error_type,
                record.error,
                record.exec_valid,
                _slim(record.details),
            )
        )


@lru_cache(maxsize=16)
def _exec_only(error_type: str | None) -> Mapping[str, Any]:
    return MappingProxyType({"exec": MappingProxyType({"error_type": error_type})})


_NO_DETAILS: Mapping[str, Any] = MappingProxyType({})


def _slim(details: Mapping[str, Any]) -> Mapping[str, Any]:
    """What the summary reads of the details: the exec error code or why it was skipped."""
    exec_details = details.get("exec")
    if isinstance(exec_details, Mapping) and exec_details.get("skipped"):
        skipped = {"valid": None, "skipped": exec_details["skipped"]}
        return MappingProxyType({"exec": MappingProxyType(skipped)})
    if isinstance(exec_details, Mapping) and not exec_details.get("valid"):
        return _exec_only(exec_details.get("error_type"))
    return _NO_DETAILS
