"""The single place a run writes answers: a thread appending to outputs.jsonl.

Workers hand finished records over and go on; each record is turned into the bytes of one
line at once, in the worker (so nothing a model sends, not even a lone surrogate, can make
the writing thread fail: such a character is written as its JSON escape `\\ud83d`, which
reads back to the same string), and the thread writes each line whole and fsyncs. When
answers arrive faster than the disk syncs, the lines waiting at that moment are written
together and synced once (group commit), so a slow disk delays the sync by one batch
instead of holding up the requests. A torn last line left by a killed run is cut off
before the first append (results.truncate_torn_tail).
"""

from __future__ import annotations

import json
import os
import queue
import threading
from collections.abc import Mapping
from pathlib import Path
from types import TracebackType
from typing import IO, Any

from tfce_eval.scoring.rundir import truncate_torn_tail

_STOP = object()


class AppendFailed(Exception):
    """outputs.jsonl could not be written (a full disk, a lost mount): the run must stop."""

    def __init__(self, path: Path, error: BaseException) -> None:
        self.path = path
        self.reason = (error.strerror or str(error)) if isinstance(error, OSError) else repr(error)
        super().__init__(f"cannot write {path}: {self.reason}")


def encode_line(record: Mapping[str, Any]) -> bytes:
    """One outputs.jsonl line as UTF-8 bytes, Chinese readable, lone surrogates escaped."""
    text = json.dumps(record, ensure_ascii=False, separators=(",", ":"))
    # A lone surrogate (which UTF-8 cannot encode) can only be inside a JSON string here:
    # `backslashreplace` writes it as `\udXXX`, its JSON escape, and leaves the rest of
    # the line as it is, so one such character neither fails the line nor makes every
    # other non-ASCII character six bytes long.
    return text.encode("utf-8", "backslashreplace") + b"\n"


class OutputsAppender:
    """`with OutputsAppender(path) as out: out.put_line(encode_line(record))`; leaving the
    block drains and syncs."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self._queue: queue.SimpleQueue[Any] = queue.SimpleQueue()
        self._thread: threading.Thread | None = None
        self._fh: IO[bytes] | None = None
        self._error: BaseException | None = None
        self.written = 0

    def __enter__(self) -> OutputsAppender:
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            truncate_torn_tail(self.path)
            self._fh = self.path.open("ab")
        except OSError as exc:
            raise AppendFailed(self.path, exc) from None
        self._thread = threading.Thread(target=self._loop, name="tfce-outputs", daemon=True)
        self._thread.start()
        return self

    def put_line(self, line: bytes) -> None:
        """Queue one outputs line, made by `encode_line` (so later changes to its record
        do not matter)."""
        if self._error is not None:
            raise AppendFailed(self.path, self._error)
        self._queue.put(line)

    def _loop(self) -> None:
        stop = False
        while not stop:
            lines = [self._queue.get()]
            while True:
                try:
                    lines.append(self._queue.get_nowait())
                except queue.Empty:
                    break
            if lines[-1] is _STOP:
                lines.pop()
                stop = True
            if not lines:
                continue
            try:
                self._write_lines(lines)
                self.written += len(lines)
            except BaseException as exc:  # the writer thread's failure, raised in the caller
                self._error = exc
                return

    def _write_lines(self, lines: list[bytes]) -> None:
        fh = self._fh
        assert fh is not None
        # One write per line: a kill between two leaves whole lines and at most one torn.
        for line in lines:
            fh.write(line)
        fh.flush()
        os.fsync(fh.fileno())

    def close(self) -> None:
        """Write everything queued, sync, close. AppendFailed if a write failed."""
        if self._thread is not None:
            self._queue.put(_STOP)
            self._thread.join()
            self._thread = None
        fh, self._fh = self._fh, None
        if fh is not None:
            try:
                fh.close()
            except OSError as exc:  # the last buffered bytes could not be written either
                self._error = self._error or exc
        if self._error is not None:
            raise AppendFailed(self.path, self._error)

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.close()
