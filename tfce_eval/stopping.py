"""A stop asked by a signal (Ctrl-C's SIGINT, or SIGTERM), kept so that it is never lost.

The command line listens for the whole of a command (`listening`). The first signal stops
the command as Ctrl-C always has, by raising KeyboardInterrupt where the code is, except:

- inside `held()` (a temporary file made and known, answers flushed, run.json saved): it
  is raised when the block ends;
- while `run` runs an event loop: the coroutine's task is cancelled (as asyncio.run's own
  handler does) and KeyboardInterrupt is raised once it has unwound.

Once the stop is raised, further signals are ignored for `FORCE_AFTER_S` seconds: the
command is saving what it has and saying so, which takes milliseconds, and a second Ctrl-C
pressed at once must not cut that short. One that comes later ends the process at once by
that signal (Python's own way), so a command stuck while stopping (writing to a pipe that
nobody reads) is never left unstoppable. A stop that Python drops (raised inside a
`__del__`, which the garbage collector calls at any moment, and which Python only
reports), or one that would leave text given to exec() (after which `python -m` ends
by SIGINT whatever the command does), is raised again at once outside; and `check()`, asked
where a command's phases end, raises a stop that some code swallowed all the same. So a
stop, once asked, always ends the command with its message and exit status (`asked()`
says which signal it was).

A library caller that does not listen keeps Python's behaviour: `held` and `check` do
nothing, and `run` is asyncio.run.
"""

from __future__ import annotations

import contextlib
import os
import signal
import sys
import threading
import time
from collections.abc import Awaitable, Callable, Iterator, Sequence
from contextlib import contextmanager
from types import FrameType, TracebackType
from typing import Any, TypeVar

T = TypeVar("T")

#: The signals heard as a stop.
SIGNALS = (signal.SIGINT, signal.SIGTERM)
#: How long after the stop a further signal is ignored; later, it ends the process.
FORCE_AFTER_S = 2.0


class _State:
    """What has been heard while listening (one command at a time: the main thread's)."""

    def __init__(self) -> None:
        self.signum: int | None = None  # the first signal heard
        self.raised = False  # the stop has been raised (or the task cancelled)
        self.raised_at = 0.0  # when (time.monotonic())
        self.holding = 0  # depth of `held` blocks
        self.waiting = False  # a signal came inside a `held` block
        self.lost = False  # a raised stop that Python dropped: raise it again
        self.cancel: Callable[[], None] | None = None  # `run`'s, while its loop runs
        self.outer: FrameType | None = None  # the frame that began listening
        self.early: Sequence[int] = ()  # what the script's first handler notes

    def mark_raised(self) -> None:
        if not self.raised:
            self.raised, self.raised_at = True, time.monotonic()


_STATE = _State()


def asked() -> int | None:
    """The signal that asked the command to stop (signal.SIGINT or SIGTERM), or None."""
    return _STATE.signum


def check() -> None:
    """KeyboardInterrupt when a stop was asked: one that some code swallowed is raised
    here, where a phase of the command ends."""
    if _STATE.signum is not None and not _STATE.holding:
        _STATE.mark_raised()
        raise KeyboardInterrupt


def winding_down() -> None:
    """The command is ending (its message is being shown): signals from now on are
    ignored (for `FORCE_AFTER_S`)."""
    _STATE.mark_raised()


def _stop() -> None:
    _STATE.mark_raised()
    cancel = _STATE.cancel
    if cancel is not None:
        cancel()
        return
    raise KeyboardInterrupt


def _heard(signum: int, frame: FrameType | None) -> None:
    """The handler of SIGINT and SIGTERM while listening."""
    state = _STATE
    if state.signum is None:
        state.signum = signum
    if state.raised and not state.lost:
        if time.monotonic() - state.raised_at >= FORCE_AFTER_S:
            # Stopping has taken too long (blocked on a pipe?): die by the signal.
            signal.signal(signum, signal.SIG_DFL)
            os.kill(os.getpid(), signum)
        return  # stopping already: saving what it has
    if _finalizing(frame) or _in_exec_text(frame):
        # Python drops a KeyboardInterrupt raised in a __del__, and one raised in text
        # given to exec() makes `python -m` end by SIGINT whatever the command then
        # does: the stop is heard again from outside, until it comes outside both.
        _again(signum)
        return
    state.lost = False
    if state.holding:
        state.waiting = True
        return
    _stop()


def _again(signum: int) -> None:
    """Send `signum` to the main thread again every 10 ms (from a thread: one sent from
    the handler would come inside it) until the handler has raised the stop (`lost`
    cleared)."""
    if _STATE.lost:
        return  # already coming again
    _STATE.lost = True
    state = _STATE

    main = threading.main_thread().ident
    assert main is not None

    def again() -> None:
        while state.lost:
            time.sleep(0.01)
            if state.lost:  # a signal proper: it interrupts a sleep or a wait
                signal.pthread_kill(main, signum)

    threading.Thread(target=again, name="tfce-stop", daemon=True).start()


def _finalizing(frame: FrameType | None) -> bool:
    """Whether `frame` runs inside a `__del__` (or the hook that reports what one
    raised), where an exception is reported and dropped, never raised."""
    while frame is not None:
        if frame.f_code.co_name == "__del__" or frame.f_code is _hook.__code__:
            return True
        frame = frame.f_back
    return False


def _in_exec_text(frame: FrameType | None) -> bool:
    """Whether `frame` runs module-level code that exec() compiled from text (as
    dataclasses and namedtuple make their methods) since listening began: a
    KeyboardInterrupt leaving it sets CPython's flag of an unhandled interrupt, which
    `python -m` obeys at exit by ending itself with SIGINT even when the interrupt was
    handled. Frames outside the one that began listening are not looked at: a command
    run from exec'd text (`python -m cProfile`, `python -c`) handles the interrupt
    before it could leave that text."""
    outer = _STATE.outer
    while frame is not None and frame is not outer:
        code = frame.f_code
        if code.co_name == "<module>" and code.co_filename == "<string>":
            return True
        frame = frame.f_back
    return False


class _Held:
    def __enter__(self) -> None:
        _STATE.holding += 1

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        state = _STATE
        state.holding -= 1
        if state.holding or not state.waiting:
            return
        state.waiting = False
        if exc_type is not None:
            state.mark_raised()  # the stop leaves with that exception
            return
        _stop()


def held() -> _Held:
    """`with held():` a stop asked inside the block is raised when the block ends (when
    an exception leaves the block, the stop goes with that exception)."""
    return _Held()


def run(make: Callable[[], Awaitable[T]]) -> T:
    """`asyncio.run(make())`, where a stop cancels the task and is raised as
    KeyboardInterrupt once it has unwound, even when the coroutine absorbed the
    cancellation. The loop's garbage (the transports of its closed connections) is
    collected before this returns, signals held: never later, inside scoring, where a
    signal that met a transport's `__del__` would be dropped."""
    import asyncio
    import gc

    check()  # a stop asked and swallowed before: the requests are not sent

    async def main() -> T:
        task = asyncio.current_task()
        loop = asyncio.get_running_loop()
        assert task is not None

        def cancel() -> None:
            task.cancel()
            loop.call_soon_threadsafe(_nothing)  # wake the loop if it waits in select()

        _STATE.cancel = cancel
        try:
            return await make()
        finally:
            _STATE.cancel = None

    try:
        result = asyncio.run(main())
    except asyncio.CancelledError:
        if _STATE.signum is None:
            raise
        raise KeyboardInterrupt from None
    finally:
        with held():
            gc.collect()
    check()
    return result


def _nothing() -> None:
    pass


#: The unraisable hook that was in place when listening began.
_previous_hook: Callable[[Any], object] = sys.unraisablehook


def _hook(unraisable: Any) -> None:
    """The unraisable hook while listening: a stop dropped where Python only reports an
    exception (a weakref callback, a generator closed by the collector) is not reported
    but heard again, and raised once out of there; anything else is reported as before."""
    if (
        _STATE.signum is not None
        and issubclass(unraisable.exc_type, KeyboardInterrupt)
        and threading.current_thread() is threading.main_thread()
    ):
        _again(_STATE.signum)
        return
    _previous_hook(unraisable)


def hear_early(noted: Sequence[int]) -> None:
    """`noted` holds the signals the `tfce-eval` script's first handler heard, and hears,
    until `listening` begins: installed before the command line is imported, it notes a
    Ctrl-C that would otherwise be a KeyboardInterrupt inside an import (a traceback).
    `listening` reads it once its own handlers are in place, so that none falls between,
    and the command's first `check()` raises the first."""
    global _STATE
    _STATE = _State()
    _STATE.early = noted


@contextmanager
def listening(*, restore: bool = True) -> Iterator[None]:
    """SIGINT and SIGTERM heard as a stop (see the module's docstring) until the block
    ends. A signal set to be ignored (a background job's SIGINT) stays ignored. `restore`:
    put the handlers back at the end (else they stay, ignoring every signal: the process
    ends with the block). A signal heard since `hear_early` is asked already: the first
    `check()` raises it. Outside the main thread, which alone hears signals: nothing."""
    global _STATE, _previous_hook
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    early = _STATE.early  # what was heard while the command line loaded
    _STATE = _State()
    outer = sys._getframe(1)  # the caller of the `with`, past contextlib's own frames
    while outer.f_back is not None and outer.f_code.co_filename == contextlib.__file__:
        outer = outer.f_back
    _STATE.outer = outer
    previous = {sig: signal.getsignal(sig) for sig in SIGNALS}
    _previous_hook = hook = sys.unraisablehook
    for sig, handler in previous.items():
        if handler is not signal.SIG_IGN:
            signal.signal(sig, _heard)
    sys.unraisablehook = _hook
    if early and _STATE.signum is None:
        _STATE.signum = early[0]
    try:
        yield
    finally:
        _STATE.lost = False  # nothing is heard again once the block has ended
        _STATE.outer = None
        if restore:
            for sig, handler in previous.items():
                signal.signal(sig, signal.SIG_DFL if handler is None else handler)
            sys.unraisablehook = hook
            _STATE = _State()  # what comes next (a library call) was asked nothing
        else:
            winding_down()
