"""The figures of one size, filled in by `measure` and `judge`."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any


@dataclass
class SizeResult:
    size: int
    categories: dict[str, int]
    right: int
    rows: list[dict[str, Any]] = field(default_factory=list)
    e2e: dict[str, dict[str, Any]] = field(default_factory=dict)
    ours: dict[str, Any] = field(default_factory=dict)
    bfcl: dict[str, Any] | None = None
    bfcl_skipped: str | None = None
    agreement: dict[str, Any] | None = None
    ratio: dict[str, float] | None = None
    by_category: dict[str, dict[str, float]] = field(default_factory=dict)
    by_answer: dict[str, dict[str, float]] = field(default_factory=dict)
    decoding: dict[str, Any] | None = None
    checks: list[str] = field(default_factory=list)
