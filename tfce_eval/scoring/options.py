"""The options of a score: which checks apply, what a missing answer counts as, and the
exec limits. Recorded in summary.json (`to_json`)."""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import StrEnum
from pathlib import Path
from typing import Any

from tfce_eval.model import Category, Policy


class CheckMode(StrEnum):
    """Which checks `score` and `run` apply (`--check`)."""

    AST = "ast"
    EXEC = "exec"
    BOTH = "both"


class MissingMode(StrEnum):
    """What an item the outputs lack counts as (`--missing`), for function calling and
    question answering alike (README "Scoring a file of outputs")."""

    COUNT = "count"  # wrong: fc as no_call, qa as a request_error
    SKIP = "skip"  # left out of the denominator (qa: of every figure)


@dataclass(frozen=True, slots=True)
class ScoreOptions:
    policy: Policy = field(default_factory=Policy)
    check: CheckMode = CheckMode.BOTH
    categories: frozenset[Category] | None = None
    ids: frozenset[str] | None = None
    missing: MissingMode = MissingMode.COUNT
    functions_dir: Path | None = None
    exec_timeout_s: float = 5.0
    exec_workers: int = 2

    def to_json(self) -> dict[str, Any]:
        return {
            "check": str(self.check),
            "policy": self.policy.to_json(),
            "missing": str(self.missing),
            "exec_timeout_s": self.exec_timeout_s,
        }
