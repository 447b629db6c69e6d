"""The records of exec checking: its options, one call's outcome, one item's verdict.

Kept apart from the executor so that the judge, the `call` command and validate's exec
checks speak about outcomes without importing the machinery that produces them.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from tfce_eval.dataset.paths import builtin_data_dir
from tfce_eval.errors import UsageError
from tfce_eval.model import ErrorCode


@dataclass(frozen=True, slots=True)
class ExecOptions:
    """Where the implementations are and the limits each call runs under."""

    functions_dir: Path
    timeout_s: float = 5.0
    memory_mb: int = 1024
    workers: int = 2
    #: How long a new worker may take to import the functions directory.
    startup_timeout_s: float = 20.0

    def __post_init__(self) -> None:
        if not self.timeout_s > 0 or not self.startup_timeout_s > 0:
            raise UsageError("exec time limits must be positive numbers of seconds")
        if self.memory_mb < 16:
            raise UsageError("the exec memory limit must be at least 16 MB")
        if self.workers < 1:
            raise UsageError("exec needs at least one worker")


@dataclass(frozen=True, slots=True)
class ExecOutcome:
    """One call's result: `value` when `ok`, else `error` (a phrase such as `raised X: ...`).

    `harness_failure`: the worker process died or answered nonsense while running the call.
    That is a failure of the harness (or of the functions directory), never the model's
    error: the judge stops instead of counting it against the answer.
    """

    ok: bool
    value: Any = None
    error: str | None = None
    harness_failure: bool = False

    def unusable_as_truth(self) -> str | None:
        """Why this outcome of a ground-truth call cannot be judged against (a dataset
        problem, never the model's error): it failed, or its result holds NaN, which
        equals nothing, so no answer could ever match it. None when it is usable."""
        if not self.ok:
            return self.error or "failed"
        stack = [self.value]
        while stack:  # the worker bounds a result's size and depth
            value = stack.pop()
            if isinstance(value, float) and value != value:
                return "returned NaN, which equals nothing, so no answer can match it"
            if isinstance(value, list | tuple):
                stack.extend(value)
            elif isinstance(value, dict):
                stack.extend(value.values())
        return None


@dataclass(frozen=True, slots=True)
class ExecVerdict:
    """The exec check of one item; `valid` is None when it could not be exec-checked.

    `skipped`: why the check applied but was not judged, when a ground-truth call fails (a
    dataset problem, never the model's error); `valid` is then None too.
    """

    valid: bool | None
    error_type: ErrorCode | None = None  # EXEC_ERROR or EXEC_MISMATCH when valid is False
    error: str | None = None
    details: Mapping[str, Any] = field(default_factory=dict)
    skipped: str | None = None


def default_functions_dir(data_dir: Path | None) -> Path | None:
    """`functions/` inside the dataset directory (the built-in one for None), if it exists."""
    base = builtin_data_dir() if data_dir is None else data_dir
    if base.is_file():
        base = base.parent
    candidate = base / "functions"
    return candidate if candidate.is_dir() else None
