"""Exec checking (SPEC 6): run the expected calls and the model's calls, compare the results.

Implementations live in a functions directory (`functions/` beside the dataset by default).
Nothing is ever run in the harness's own process: an `Executor` owns a pool of worker
processes (`tfce_eval.exec.pool`), each importing the directory as a private package
(`tfce_eval.exec.worker`), and sends them only the decoded literal arguments. A call that
raises, runs out of time or memory, or kills its worker is an outcome, never an exception.

An item is exec-valid when the model made as many calls as expected and each model call can
be paired with an expected call of the same function whose result equals its own (SPEC 5.4's
rules, numbers within 1e-6 relative tolerance). The AST checker's pairing is used when it has
one; otherwise, or when that pairing does not hold on results, calls are paired by a maximum
bipartite matching on equal results.
"""

from __future__ import annotations

import json
import threading
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from enum import StrEnum
from pathlib import Path
from types import TracebackType
from typing import TYPE_CHECKING, Any

from tfce_eval.dataset.paths import builtin_data_dir
from tfce_eval.errors import DataError, UsageError
from tfce_eval.model import Call, ErrorCode

if TYPE_CHECKING:
    from tfce_eval.dataset.load import Dataset
    from tfce_eval.dataset.validate import Finding
    from tfce_eval.exec.pool import Reply, WorkerPool
    from tfce_eval.model import Item

#: Outcomes remembered per executor (functions are pure, so a call's result never changes).
_CACHE_LIMIT = 20_000


class CheckMode(StrEnum):
    """Which checks `score` and `run` apply (`--check`)."""

    AST = "ast"
    EXEC = "exec"
    BOTH = "both"


@dataclass(frozen=True)
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


@dataclass(frozen=True)
class ExecOutcome:
    """One call's result: `value` when `ok`, else `error` (a phrase such as `raised X: ...`)."""

    ok: bool
    value: Any = None
    error: str | None = None


@dataclass(frozen=True)
class ExecVerdict:
    """The exec check of one item; `valid` is None when it could not be exec-checked."""

    valid: bool | None
    error_type: ErrorCode | None = None  # EXEC_ERROR or EXEC_MISMATCH when valid is False
    error: str | None = None
    details: Mapping[str, Any] = field(default_factory=dict)


def default_functions_dir(data_dir: Path | None) -> Path | None:
    """`functions/` inside the dataset directory (the built-in one for None), if it exists."""
    base = builtin_data_dir() if data_dir is None else data_dir
    if base.is_file():
        base = base.parent
    candidate = base / "functions"
    return candidate if candidate.is_dir() else None


def render_call(name: str, arguments: Mapping[str, Any], limit: int = 120) -> str:
    """`f(a=1, b="x")` for messages, cut to `limit` characters."""
    parts = ", ".join(f"{k}={_show(v, 40)}" for k, v in arguments.items())
    text = f"{name}({parts})"
    return text if len(text) <= limit else text[: limit - 2] + "…)"


def _show(value: Any, limit: int = 200) -> str:
    try:
        text = json.dumps(value, ensure_ascii=False)
    except (TypeError, ValueError):
        text = repr(value)
    return text if len(text) <= limit else text[: limit - 1] + "…"


def _name_problem(name: str) -> str | None:
    from tfce_eval.exec.worker import check_name

    return check_name(name)


class Executor:
    """Runs calls from one functions directory in worker processes. Use it as a context manager.

    Safe to share between threads: requests are serialised, and each batch is spread over the
    workers. Workers start when the first request needs them and stop on exit.
    """

    def __init__(self, options: ExecOptions) -> None:
        directory = options.functions_dir
        if not directory.is_dir():
            raise DataError(
                "the functions directory does not exist",
                path=str(directory),
                hint="pass --functions with a directory of Python implementations",
            )
        self.options = options
        self._lock = threading.RLock()
        self._pool: WorkerPool | None = None
        self._resolved: dict[str, tuple[str, str]] = {}
        self._signatures: dict[str, ExecOutcome] = {}
        self._cache: dict[bytes, ExecOutcome] = {}

    def __enter__(self) -> Executor:
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.close()

    def close(self) -> None:
        """Kill the workers. The executor may be used again (it starts new ones)."""
        with self._lock:
            if self._pool is not None:
                self._pool.close()
                self._pool = None

    # -- asking the workers --------------------------------------------------------------

    def _request(self, payloads: Sequence[bytes]) -> list[Reply]:
        # Imported here: `score --check ast` should not pay for multiprocessing.
        from tfce_eval.exec.pool import WorkerPool

        with self._lock:
            if self._pool is None:
                self._pool = WorkerPool(
                    self.options.functions_dir,
                    timeout_s=self.options.timeout_s,
                    memory_mb=self.options.memory_mb,
                    workers=self.options.workers,
                    startup_timeout_s=self.options.startup_timeout_s,
                )
            return self._pool.request(payloads)

    def resolution(self, name: str) -> tuple[str, str]:
        """(`ok` | `missing` | `broken`, why). `broken`: the module exists but cannot be run."""
        with self._lock:
            if name not in self._resolved:
                problem = _name_problem(name)
                if problem is not None:
                    self._resolved[name] = ("missing", problem)
                else:
                    payload = json.dumps({"op": "resolve", "name": name}).encode()
                    reply = self._request([payload])[0]
                    if reply.ok and isinstance(reply.value, dict):
                        status = str(reply.value.get("status", "missing"))
                        self._resolved[name] = (status, str(reply.value.get("message", "")))
                    else:
                        self._resolved[name] = ("broken", reply.error or "cannot be looked up")
            return self._resolved[name]

    def implemented(self, name: str) -> bool:
        """True when the functions directory defines `name` (asked of a worker, once per name).

        A function whose module exists but fails to import counts as implemented, so that
        its calls fail loudly instead of the item being silently left out.
        """
        return self.resolution(name)[0] != "missing"

    def signature(self, name: str) -> ExecOutcome:
        """The implementation's parameters: `{"params": [...], "file": ..., "line": ...}`."""
        with self._lock:
            if name not in self._signatures:
                payload = json.dumps({"op": "signature", "name": name}).encode()
                reply = self._request([payload])[0]
                self._signatures[name] = ExecOutcome(reply.ok, reply.value, reply.error)
            return self._signatures[name]

    def run(self, calls: Sequence[Call]) -> list[ExecOutcome]:
        """Run each call in a worker (spread over the workers), results in call order."""
        with self._lock:
            return self._run(calls)

    def _run(self, calls: Sequence[Call]) -> list[ExecOutcome]:
        outcomes: list[ExecOutcome | None] = [None] * len(calls)
        to_send: dict[bytes, list[int]] = {}
        for index, call in enumerate(calls):
            problem = _name_problem(call.name)
            if problem is not None:
                outcomes[index] = ExecOutcome(False, error=f"is not implemented: {problem}")
                continue
            try:
                payload = json.dumps(
                    {"op": "call", "name": call.name, "arguments": dict(call.arguments)},
                    ensure_ascii=False,
                    sort_keys=True,
                ).encode("utf-8")
            except (TypeError, ValueError) as exc:
                outcomes[index] = ExecOutcome(False, error=f"has non-JSON arguments: {exc}")
                continue
            cached = self._cache.get(payload)
            if cached is not None:
                outcomes[index] = cached
            else:
                to_send.setdefault(payload, []).append(index)
        if to_send:
            payloads = list(to_send)
            replies = self._request(payloads)
            for payload, reply in zip(payloads, replies, strict=True):
                outcome = ExecOutcome(reply.ok, reply.value, reply.error)
                if reply.cacheable:
                    if len(self._cache) >= _CACHE_LIMIT:
                        del self._cache[next(iter(self._cache))]
                    self._cache[payload] = outcome
                for index in to_send[payload]:
                    outcomes[index] = outcome
        return [o if o is not None else ExecOutcome(False, error="was not run") for o in outcomes]

    # -- items ---------------------------------------------------------------------------

    def check_item(
        self,
        item: Item,
        calls: Sequence[Call],
        matching: Sequence[tuple[int, int]] | None,
    ) -> ExecVerdict:
        """Exec-check the model's `calls` for `item` (see the module docstring).

        `matching`: (model call index, expected call index) pairs from the AST checker when it
        found a perfect matching, else None.
        """
        from tfce_eval.exec.judge import judge_item

        return judge_item(self, item, calls, matching)


def call_function(text: str, options: ExecOptions) -> ExecOutcome:
    """Read one call in Python syntax (`f(a=1)`) and run it; errors name the call.

    Raises DataError when the functions directory cannot be imported at all.
    """
    from tfce_eval.decode.pyliteral import LiteralError, parse_calls

    try:
        calls = parse_calls(text)
    except LiteralError as exc:
        return ExecOutcome(False, error=f"cannot read the call: {exc}")
    if len(calls) != 1:
        return ExecOutcome(False, error=f"expected exactly one call, got {len(calls)}")
    call = calls[0]
    with Executor(options) as executor:
        outcome = executor.run([call])[0]
    if outcome.ok:
        return outcome
    return ExecOutcome(False, error=f"{render_call(call.name, call.arguments)} {outcome.error}")


def exec_findings(dataset: Dataset, options: ExecOptions) -> list[Finding]:
    """`validate`'s exec checks: each doc against its implementation, each ground-truth call run."""
    from tfce_eval.exec.validate import collect_findings

    return collect_findings(dataset, options)
