"""Progress of a run, shown on a stream the command line chooses.

The runner only calls a `ProgressSink`; it never prints. On a terminal the sink is a rich
progress bar (done/total, errors, rate, time left); otherwise a plain line every ~10 s or
every 10 % of the items, whichever comes first, so that logs stay short.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any, Protocol, TextIO


class ProgressSink(Protocol):
    def start(self, total: int, done: int) -> None:
        """`total` items selected, `done` of them finished by an earlier session."""

    def advance(self, *, failed: bool) -> None:
        """One more item finished; `failed`: it ended as request_error."""

    def message(self, text: str) -> None:
        """Something the user should know now (a dropped option, a resume)."""

    def stop(self) -> None:
        """The sending is over (finished, interrupted or stopped)."""


class NullProgress:
    def start(self, total: int, done: int) -> None:
        pass

    def advance(self, *, failed: bool) -> None:
        pass

    def message(self, text: str) -> None:
        pass

    def stop(self) -> None:
        pass


def _duration(seconds: float) -> str:
    seconds = max(0, round(seconds))
    hours, rest = divmod(seconds, 3600)
    minutes, secs = divmod(rest, 60)
    if hours:
        return f"{hours}h{minutes:02d}m"
    return f"{minutes}m{secs:02d}s" if minutes else f"{secs}s"


class _Counts:
    def __init__(self, clock: Callable[[], float]) -> None:
        self.clock = clock
        self.total = 0
        self.done = 0
        self.errors = 0
        self.session_done = 0
        self.started = clock()

    def line(self) -> str:
        elapsed = max(self.clock() - self.started, 1e-9)
        rate = self.session_done / elapsed
        text = f"{self.done}/{self.total} items"
        if self.total:
            text += f" ({100 * self.done / self.total:.0f}%)"
        text += f", {self.errors} failed, {rate:.1f} items/s"
        left = self.total - self.done
        if left and rate > 0:
            text += f", about {_duration(left / rate)} left"
        return text


class PlainProgress:
    """A line now and then, for logs and pipes."""

    def __init__(
        self,
        stream: TextIO,
        *,
        interval_s: float = 10.0,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.stream = stream
        self.interval_s = interval_s
        self._counts = _Counts(clock)
        self._last_time = 0.0
        self._last_step = 0
        self._last_done = -1  # the count the last line showed

    def _emit(self, text: str) -> None:
        self.stream.write(text + "\n")
        self.stream.flush()

    def start(self, total: int, done: int) -> None:
        c = self._counts
        c.total, c.done, c.started = total, done, c.clock()
        self._last_time = c.started
        self._last_step = self._step()
        if done:
            self._emit(f"resuming: {done}/{total} items already done")

    def _step(self) -> int:
        c = self._counts
        return (10 * c.done) // c.total if c.total else 0

    def advance(self, *, failed: bool) -> None:
        c = self._counts
        c.done += 1
        c.session_done += 1
        c.errors += failed
        now, step = c.clock(), self._step()
        if now - self._last_time >= self.interval_s or step > self._last_step:
            self._last_time, self._last_step, self._last_done = now, step, c.done
            self._emit("progress: " + c.line())

    def message(self, text: str) -> None:
        self._emit(text)

    def stop(self) -> None:
        c = self._counts
        # The closing line only when it says something new (not the line just printed).
        if c.session_done and c.done != self._last_done:
            self._last_done = c.done
            self._emit("sent: " + c.line())


class RichProgress:
    """A live progress bar (rich) for a terminal."""

    def __init__(self, stream: TextIO) -> None:
        from rich.console import Console

        self._console = Console(file=stream)
        self._progress: Any = None
        self._task: Any = None
        self._errors = 0

    def start(self, total: int, done: int) -> None:
        from rich.progress import (
            BarColumn,
            MofNCompleteColumn,
            Progress,
            TextColumn,
            TimeElapsedColumn,
            TimeRemainingColumn,
        )

        self._progress = Progress(
            TextColumn("[bold]asking"),
            BarColumn(),
            MofNCompleteColumn(),
            TextColumn("{task.fields[errors]} failed"),
            TextColumn("{task.fields[rate]}"),
            TimeElapsedColumn(),
            TextColumn("left"),
            TimeRemainingColumn(),
            console=self._console,
            transient=False,
        )
        self._progress.start()
        self._task = self._progress.add_task("run", total=total, completed=done, errors=0, rate="")
        self._started = time.monotonic()
        self._session_done = 0
        if done:
            self._console.print(f"resuming: {done}/{total} items already done")

    def advance(self, *, failed: bool) -> None:
        self._errors += failed
        self._session_done += 1
        rate = self._session_done / max(time.monotonic() - self._started, 1e-9)
        self._progress.update(
            self._task, advance=1, errors=self._errors, rate=f"{rate:.1f} items/s"
        )

    def message(self, text: str) -> None:
        if self._progress is not None:
            self._progress.console.print(text)
        else:
            self._console.print(text)

    def stop(self) -> None:
        if self._progress is not None:
            self._progress.stop()
            self._progress = None


def make_progress(stream: TextIO) -> ProgressSink:
    """A bar when `stream` is a terminal, plain periodic lines otherwise."""
    isatty = getattr(stream, "isatty", None)
    if callable(isatty) and isatty():
        return RichProgress(stream)
    return PlainProgress(stream)
