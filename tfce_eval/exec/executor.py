"""Exec checking (docs/exec.md 6): run the expected calls and the model's calls, compare the
results.

Implementations live in a functions directory (`functions/` beside the dataset by default).
Nothing is ever run in the harness's own process: an `Executor` owns a pool of worker
processes (`tfce_eval.exec.pool`), each importing the directory as a private package
(`tfce_eval.exec.worker`) in the sandbox of `tfce_eval.exec.sandbox`, and sends them only
the decoded literal arguments. A call that raises, runs out of time or memory, or kills its
worker is an outcome, never an exception; the last is marked `harness_failure`, which the
judge turns into a HarnessError rather than the model's error. An item whose ground truth
fails is not judged (a dataset problem): `ExecVerdict.skipped` says why.

An item is exec-valid when the model made as many calls as expected and each model call can
be paired with an expected call of the same function whose result equals its own (docs/checking.md
5.4's
rules, numbers within 1e-6 relative tolerance, see `tfce_eval.exec.judge`); only calls to a
function the expected calls name are run. The AST checker's pairing is used when it has
one; otherwise, or when that pairing does not hold on results, calls are paired by a maximum
bipartite matching on equal results.
"""

from __future__ import annotations

import json
import threading
from collections.abc import Sequence
from types import TracebackType
from typing import TYPE_CHECKING

from tfce_eval.errors import DataError
from tfce_eval.exec.judge import ground_truth_failure, judge_item
from tfce_eval.exec.names import Resolution, check_name
from tfce_eval.exec.records import ExecOptions, ExecOutcome, ExecVerdict
from tfce_eval.model import Call, Item

if TYPE_CHECKING:
    from tfce_eval.exec.pool import Reply, WorkerPool

#: Outcomes remembered per executor (functions are pure, so a call's result never changes).
_CACHE_LIMIT = 20_000


def _resolution(reply: Reply) -> tuple[Resolution, str]:
    """A worker's reply to `resolve` as (status, why); a reply that is no such answer is
    BROKEN (the name cannot be looked up)."""
    if reply.ok and isinstance(reply.value, dict):
        try:
            status = Resolution(reply.value.get("status", Resolution.MISSING))
        except ValueError:
            return Resolution.BROKEN, f"the worker answered {reply.value.get('status')!r}"
        return status, str(reply.value.get("message", ""))
    return Resolution.BROKEN, reply.error or "cannot be looked up"


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
        self._resolved: dict[str, tuple[Resolution, str]] = {}
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
        # Imported lazily: the pool brings subprocess and multiprocessing's connection
        # machinery, which `score --check ast` and items without functions never need.
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

    def resolution(self, name: str) -> tuple[Resolution, str]:
        """(OK | MISSING | BROKEN, why). BROKEN: the module exists but cannot be run."""
        with self._lock:
            if name not in self._resolved:
                problem = check_name(name)
                if problem is not None:
                    self._resolved[name] = (Resolution.MISSING, problem)
                else:
                    payload = json.dumps({"op": "resolve", "name": name}).encode()
                    self._resolved[name] = _resolution(self._request([payload])[0])
            return self._resolved[name]

    def implemented(self, name: str) -> bool:
        """True when the functions directory defines `name` (asked of a worker, once per name).

        A function whose module exists but fails to import counts as implemented, so that
        its calls fail loudly instead of the item being silently left out.
        """
        return self.resolution(name)[0] is not Resolution.MISSING

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
            problem = check_name(call.name)
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
                outcome = ExecOutcome(reply.ok, reply.value, reply.error, reply.harness_failure)
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
        return judge_item(self, item, calls, matching)

    def ground_truth_failure(self, item: Item) -> str | None:
        """Why `item` cannot be exec-judged whatever the answer (a ground-truth call fails, a
        dataset problem), None when it can; for answers with no call to run."""
        return ground_truth_failure(self, item)
