"""The options of a score: which checks apply, what a missing answer counts as, and the
exec limits. Recorded in summary.json (`to_json`)."""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import StrEnum
from pathlib import Path
from typing import Any

from tfce_eval.errors import DataError, UsageError, check_number, check_path
from tfce_eval.model import Category, Policy, parse_choice, parse_choices


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


#: The longest time limit of an executed call (--exec-timeout): a day. The exec pool waits
#: with poll(), whose timeout in milliseconds must fit a C int (about 24 days).
EXEC_TIMEOUT_MAX_S = 86_400.0


@dataclass(frozen=True, slots=True)
class ScoreOptions:
    """How `score_outputs` scores. Closed choices may be given as their text
    (`check="ast"`, `categories={"simple"}`): they are parsed here, once."""

    policy: Policy = field(default_factory=Policy)
    check: CheckMode = CheckMode.BOTH
    categories: frozenset[Category] | None = None
    ids: frozenset[str] | None = None
    missing: MissingMode = MissingMode.COUNT
    functions_dir: Path | None = None
    exec_timeout_s: float = 5.0
    exec_workers: int = 2

    def __post_init__(self) -> None:
        if not isinstance(self.policy, Policy):
            raise UsageError(f"policy: give a Policy, not {self.policy!r}")
        set_field = object.__setattr__
        set_field(self, "check", parse_choice(CheckMode, self.check, "check"))
        set_field(self, "missing", parse_choice(MissingMode, self.missing, "missing"))
        set_field(self, "categories", parse_choices(Category, self.categories, "categories"))
        ids: object = self.ids
        if isinstance(ids, str):
            raise UsageError(f"ids: give a set of ids, not {ids!r}")
        if self.ids is not None:
            set_field(self, "ids", frozenset(self.ids))
        set_field(self, "functions_dir", check_path(self.functions_dir, "functions_dir"))
        check_number(self.exec_timeout_s, "exec_timeout_s", 0.1, EXEC_TIMEOUT_MAX_S)
        check_number(self.exec_workers, "exec_workers", 1, whole=True)

    def to_json(self) -> dict[str, Any]:
        return {
            "check": str(self.check),
            "policy": self.policy.to_json(),
            "missing": str(self.missing),
            "exec_timeout_s": self.exec_timeout_s,
        }


def check_functions_dir(
    functions_dir: Path | None, check: CheckMode, *, without: str = "use --check ast"
) -> None:
    """A DataError when `functions_dir` was given for exec checking and holds no
    functions package: a run checks it before it asks anything, `validate` before it
    checks (`without`: how to do without, in the fix)."""
    if functions_dir is None or check is CheckMode.AST:
        return
    if not (functions_dir / "__init__.py").is_file():
        raise DataError(
            "no functions package here (it needs an __init__.py)",
            path=str(functions_dir),
            hint=f"point --functions at a directory of implementations, or {without}",
        )
