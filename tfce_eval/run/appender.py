"""The single place a run writes answers: a thread appending to outputs.jsonl.

Workers hand finished records over and go on; the thread writes each as one complete line
and fsyncs. When answers arrive faster than the disk syncs, the lines waiting at that moment
are written together and synced once (group commit), so a slow disk delays the sync by one
batch instead of holding up the requests. A torn last line left by a killed run is cut off
before the first append (results.truncate_torn_tail).
"""

from __future__ import annotations

import os
import queue
import threading
from collections.abc import Mapping
from pathlib import Path
from types import TracebackType
from typing import IO, Any

from tfce_eval.scoring.rundir import dumps, truncate_torn_tail

_STOP = object()


class OutputsAppender:
    """`with OutputsAppender(path) as out: out.put(record)`; leaving the block drains and syncs."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self._queue: queue.SimpleQueue[Any] = queue.SimpleQueue()
        self._thread: threading.Thread | None = None
        self._fh: IO[str] | None = None
        self._error: BaseException | None = None
        self.written = 0

    def __enter__(self) -> OutputsAppender:
        self.path.parent.mkdir(parents=True, exist_ok=True)
        truncate_torn_tail(self.path)
        self._fh = self.path.open("a", encoding="utf-8", newline="\n")
        self._thread = threading.Thread(target=self._loop, name="tfce-outputs", daemon=True)
        self._thread.start()
        return self

    def put(self, record: Mapping[str, Any]) -> None:
        """Queue one record (serialised now, so later changes to it do not matter)."""
        if self._error is not None:
            raise OSError(f"cannot write {self.path}: {self._error}") from self._error
        self._queue.put(dumps(record) + "\n")

    def _loop(self) -> None:
        fh = self._fh
        assert fh is not None
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
                # One write per line: a kill between two leaves whole lines and at most one torn.
                for line in lines:
                    fh.write(line)
                fh.flush()
                os.fsync(fh.fileno())
                self.written += len(lines)
            except BaseException as exc:
                self._error = exc
                return

    def close(self) -> None:
        """Write everything queued, sync, close. Raises if a write failed."""
        if self._thread is not None:
            self._queue.put(_STOP)
            self._thread.join()
            self._thread = None
        if self._fh is not None:
            self._fh.close()
            self._fh = None
        if self._error is not None:
            raise OSError(f"cannot write {self.path}: {self._error}") from self._error

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.close()
