"""A small pool of worker processes that run dataset functions, with a time limit per request.

One thread in the harness drives the pool: it hands requests to idle workers, waits on their
sockets with `multiprocessing.connection.wait`, and kills a worker whose request outlives
its deadline or that stops answering (a fresh one is started when needed). Workers start
lazily, only when a request needs them, and live until the pool is closed, so the start-up
cost is paid once per run.

Each worker is a fresh interpreter (`subprocess`, never a fork of the harness, which may hold
threads, an event loop and secrets) running `tfce_eval.exec.worker.main` in a session of its
own, with the minimal environment of `tfce_eval.exec.sandbox.worker_env`. It talks over a
socket pair; a second pipe, whose write end only the harness holds, tells it when the
harness is gone. Stopping a worker kills its whole process tree (`sandbox.kill_tree`).

A reply larger than the result cap is never read into memory; a worker that dies or answers
nonsense while running a call is a harness failure (`Reply.harness_failure`), which the
judge never counts against the model.
"""

from __future__ import annotations

import contextlib
import json
import os
import secrets
import signal
import socket
import subprocess
import sys
import time
from collections import deque
from collections.abc import Sequence
from dataclasses import dataclass
from enum import Enum
from multiprocessing.connection import Connection, wait
from pathlib import Path
from typing import Any, NoReturn

import tfce_eval
from tfce_eval.errors import DataError
from tfce_eval.exec.results import MAX_RESULT_BYTES
from tfce_eval.exec.sandbox import kill_tree, worker_env

#: The program a worker process runs (`tfce_eval.exec.worker.main`): argv is (socket fd,
#: lifeline fd, functions directory, package name, memory limit in MB).
BOOT = "import sys; from tfce_eval.exec.worker import main; main(sys.argv[1:])"
#: The largest reply read from a worker: the result cap and room for the envelope.
MAX_REPLY_BYTES = MAX_RESULT_BYTES + 64 * 1024
#: Without a pidfd, how often a waiting harness looks whether a worker is still there.
_POLL_S = 0.2


@dataclass(frozen=True, slots=True)
class Reply:
    """A worker's answer to one request (or the pool's account of why there is none)."""

    ok: bool
    value: Any = None
    error: str | None = None
    #: False when the outcome depends on the machine rather than the call (time, memory, crash).
    cacheable: bool = True
    #: The worker died or answered nonsense: a failure of the harness, not of the call.
    harness_failure: bool = False


class _State(Enum):
    STARTING = "starting"
    IDLE = "idle"
    BUSY = "busy"


class _Worker:
    """One worker process, the harness's end of its socket, and a descriptor that becomes
    readable when the process ends (a pidfd; None where the system has none)."""

    def __init__(self, process: subprocess.Popen[bytes], conn: Connection, deadline: float) -> None:
        self.process = process
        self.conn = conn
        self.sentinel: int | None = None
        pidfd_open = getattr(os, "pidfd_open", None)
        if pidfd_open is not None:
            try:
                self.sentinel = int(pidfd_open(process.pid))
            except OSError:
                self.sentinel = None
        self.state = _State.STARTING
        self.task: int | None = None
        self.deadline = deadline


def _format_seconds(seconds: float) -> str:
    return f"{seconds:g} s"


def _exit_text(code: int | None) -> str:
    if code is None:
        return "exit code unknown"
    if code < 0:
        try:
            return f"killed by {signal.Signals(-code).name}"
        except ValueError:
            return f"killed by signal {-code}"
    return f"exit code {code}"


class WorkerPool:
    """Runs JSON requests in up to `workers` processes; see the module docstring."""

    def __init__(
        self,
        directory: Path,
        *,
        timeout_s: float,
        memory_mb: int,
        workers: int,
        startup_timeout_s: float,
    ) -> None:
        self._directory = directory.resolve()
        self._timeout_s = timeout_s
        self._memory_mb = memory_mb
        self._max_workers = workers
        self._startup_timeout_s = startup_timeout_s
        # A private package name per pool: nothing else in a worker's sys.modules can clash.
        self._package = f"_tfce_functions_{secrets.token_hex(8)}"
        self._workers: list[_Worker] = []
        self._lifeline: tuple[int, int] | None = None  # (read, write) ends, see _spawn
        self._broken: str | None = None
        self._broken_hint: str | None = None

    def close(self) -> None:
        """Stop every worker (they may be in the middle of a call, so they are killed)."""
        for worker in list(self._workers):
            self._kill(worker)
        if self._lifeline is not None:
            for fd in self._lifeline:
                os.close(fd)
            self._lifeline = None

    def request(self, payloads: Sequence[bytes]) -> list[Reply]:
        """Send each JSON-encoded request to a worker; replies come back in request order.

        Raises DataError when the functions directory cannot be imported at all.
        """
        if self._broken is not None:
            raise DataError(self._broken, path=str(self._directory), hint=self._broken_hint)
        replies: list[Reply | None] = [None] * len(payloads)
        pending = deque(range(len(payloads)))
        try:
            while pending or any(w.state is _State.BUSY for w in self._workers):
                self._start_workers(len(pending))
                self._dispatch(pending, payloads)
                self._collect(replies)
        except BaseException:
            # Interrupted or broken: busy workers are running calls nobody will read.
            for worker in list(self._workers):
                if worker.state is not _State.IDLE:
                    self._kill(worker)
            raise
        return [r if r is not None else Reply(ok=False, error="got no reply") for r in replies]

    # -- workers -------------------------------------------------------------------------

    def _spawn(self) -> _Worker:
        if self._lifeline is None:
            # One pipe for all workers; only the harness holds its write end (never
            # inherited: os.pipe descriptors are not), so its death is their end-of-file.
            self._lifeline = os.pipe()
        lifeline_r = self._lifeline[0]
        ours, theirs = socket.socketpair()
        package_root = Path(tfce_eval.__file__).resolve().parent.parent
        try:
            process = subprocess.Popen(
                [
                    sys.executable,
                    "-c",
                    BOOT,
                    str(theirs.fileno()),
                    str(lifeline_r),
                    str(self._directory),
                    self._package,
                    str(self._memory_mb),
                ],
                stdin=subprocess.DEVNULL,
                stdout=subprocess.DEVNULL,
                stderr=subprocess.DEVNULL,
                pass_fds=(theirs.fileno(), lifeline_r),
                env=worker_env(os.environ, package_root),
                start_new_session=True,  # its own session and process group
            )
        finally:
            theirs.close()  # so the worker's death shows as end-of-file on our end
        deadline = time.monotonic() + self._startup_timeout_s
        return _Worker(process, Connection(ours.detach()), deadline)

    def _start_workers(self, n_pending: int) -> None:
        # Idle and still-starting workers will take pending requests; start only the rest.
        available = sum(1 for w in self._workers if w.state is not _State.BUSY)
        wanted = min(self._max_workers - len(self._workers), n_pending - available)
        for _ in range(max(0, wanted)):
            self._workers.append(self._spawn())

    def _kill(self, worker: _Worker) -> None:
        if worker in self._workers:
            self._workers.remove(worker)
        if worker.process.poll() is None:
            kill_tree(worker.process.pid)
        # Unkillable for now (stuck in the kernel) leaves it to the kernel: its tree is dead.
        with contextlib.suppress(subprocess.TimeoutExpired):
            worker.process.wait(timeout=5.0)
        worker.conn.close()
        if worker.sentinel is not None:
            os.close(worker.sentinel)
            worker.sentinel = None

    def _fail_start(self, message: str, hint: str | None = None) -> NoReturn:
        self._broken = message
        self._broken_hint = hint
        self.close()
        raise DataError(message, path=str(self._directory), hint=hint)

    # -- the loop ------------------------------------------------------------------------

    def _dispatch(self, pending: deque[int], payloads: Sequence[bytes]) -> None:
        for worker in list(self._workers):
            if not pending:
                return
            if worker.state is not _State.IDLE:
                continue
            index = pending.popleft()
            try:
                worker.conn.send_bytes(payloads[index])
            except OSError:
                # It died while idle; the request goes to a fresh worker.
                pending.appendleft(index)
                self._kill(worker)
                continue
            worker.state = _State.BUSY
            worker.task = index
            worker.deadline = time.monotonic() + self._timeout_s

    def _collect(self, replies: list[Reply | None]) -> None:
        active = [w for w in self._workers if w.state is not _State.IDLE]
        if not active:
            return
        by_handle: dict[Any, _Worker] = {}
        for worker in active:
            by_handle[worker.conn] = worker
            if worker.sentinel is not None:
                by_handle[worker.sentinel] = worker
        timeout = max(0.0, min(w.deadline for w in active) - time.monotonic())
        if any(w.sentinel is None for w in active):
            timeout = min(timeout, _POLL_S)  # no pidfd: look at the processes now and then
        ready = wait(list(by_handle), timeout)
        woken: list[_Worker] = []
        for handle in ready:
            worker = by_handle[handle]
            if worker not in woken:
                woken.append(worker)
        for worker in active:
            if (
                worker not in woken
                and worker.sentinel is None
                and worker.process.poll() is not None
            ):
                woken.append(worker)
        for worker in woken:
            self._read(worker, replies)
        now = time.monotonic()
        for worker in [w for w in self._workers if w.state is not _State.IDLE]:
            if now < worker.deadline:
                continue
            if worker.state is _State.STARTING:
                self._fail_start(
                    "importing the functions directory took longer than "
                    f"{_format_seconds(self._startup_timeout_s)}",
                )
            assert worker.task is not None
            replies[worker.task] = Reply(
                ok=False,
                error=f"timed out after {_format_seconds(self._timeout_s)}",
                cacheable=False,
            )
            self._kill(worker)

    def _read(self, worker: _Worker, replies: list[Reply | None]) -> None:
        message: dict[str, Any] | None = None
        try:
            if not worker.conn.poll():
                if worker.process.poll() is None:
                    return  # nothing to read yet
                raise EOFError
            data = worker.conn.recv_bytes(MAX_REPLY_BYTES)
        except (EOFError, OSError) as exc:
            if str(exc) == "bad message length":
                # multiprocessing refuses a message over the cap without reading it.
                self._lost(worker, replies, "sent a reply larger than the result cap")
                return
            try:
                code = worker.process.wait(timeout=5.0)
            except subprocess.TimeoutExpired:
                code = None
            self._lost(worker, replies, f"stopped its worker process ({_exit_text(code)})")
            return
        try:
            decoded = json.loads(data)
            message = decoded if isinstance(decoded, dict) else None
        except (ValueError, RecursionError):
            message = None
        if message is None:
            self._lost(worker, replies, "got an unreadable reply from its worker process")
            return
        if worker.state is _State.STARTING:
            if message.get("ok") is True:
                worker.state = _State.IDLE
                return
            self._fail_start(str(message.get("error", "the worker could not start")))
        assert worker.task is not None
        replies[worker.task] = Reply(
            ok=message.get("ok") is True,
            value=message.get("value"),
            error=None if message.get("ok") is True else str(message.get("error", "failed")),
            cacheable=message.get("cacheable", True) is not False,
        )
        worker.state = _State.IDLE
        worker.task = None
        if message.get("restart"):
            self._kill(worker)

    def _lost(self, worker: _Worker, replies: list[Reply | None], error: str) -> None:
        """The worker is gone or unusable: fail its request (or the start-up) and drop it."""
        if worker.state is _State.STARTING:
            why = error.removeprefix("stopped its worker process ").strip("()")
            self._fail_start(
                f"a worker process stopped before it had imported the functions directory ({why})",
                hint="check that `python -c 'import tfce_eval'` works in this environment",
            )
        assert worker.task is not None
        replies[worker.task] = Reply(ok=False, error=error, cacheable=False, harness_failure=True)
        self._kill(worker)
