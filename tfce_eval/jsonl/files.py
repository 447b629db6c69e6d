"""Reading JSON files record by record within `JsonLimits`, and never giving up early.

- `JsonLines`: one pass over a JSON Lines file, a `Record` per non-blank line with its byte
  offset and line number (or, from `entries`, each value or its `JsonRefused`); optionally
  tolerant of a torn last line (what a writer killed in mid-line leaves). Read as bytes,
  line by line: nothing but the line at hand is in memory.
- `LineReader`: reads such a record back by its byte offset, one open handle per file.
- `read_document` and `read_json`: a file that is one JSON document, read whole within
  `max_bytes`, as its bytes or its value.
"""

from __future__ import annotations

import errno
import hashlib
import os
import stat
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from types import TracebackType
from typing import Any, BinaryIO

from tfce_eval.errors import DataError
from tfce_eval.jsonl.values import (
    DEFAULT_LIMITS,
    TOO_LARGE_FIX,
    JsonLimits,
    JsonRefused,
    parse_json,
)

_BOM = b"\xef\xbb\xbf"
_CHUNK = 1 << 20


@dataclass(frozen=True, slots=True)
class Record:
    """One record of a file: a parsed JSON value, or what kept it from being one.

    `offset` is the byte offset of the line in a JSON Lines file (for a file that is one
    JSON document, the index of the value in it). `line` is 1-based (0: the file as a whole).
    """

    line: int
    offset: int
    value: Any = None
    error: str | None = None
    hint: str | None = None


def open_bytes(path: Path) -> BinaryIO:
    """`path` opened for reading bytes; DataError naming it when it cannot be.

    Opened without blocking, then read blocking as usual: a pipe someone writes to
    (`<(zcat outputs.jsonl.gz)`, a named pipe whose writer starts a moment later) is read
    as it comes, and a named pipe no one writes to within PIPE_WAIT_S is an error instead
    of a command that hangs in open()."""
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK)
    except FileNotFoundError:
        raise DataError("file not found", path=str(path), hint="check the path") from None
    except OSError as exc:
        raise unreadable(path, exc) from None
    try:
        mode = os.fstat(fd).st_mode
        if stat.S_ISDIR(mode):
            raise IsADirectoryError(errno.EISDIR, os.strerror(errno.EISDIR))
        if stat.S_ISFIFO(mode) and not _written_to(fd):
            os.close(fd)
            raise DataError(
                f"nothing wrote to the pipe within {PIPE_WAIT_S} s",
                path=str(path),
                hint="start the command that writes to it first, or give the file itself",
            )
        os.set_blocking(fd, True)
        return os.fdopen(fd, "rb")
    except OSError as exc:
        os.close(fd)
        raise unreadable(path, exc) from None


#: How long a named pipe may wait for its writer's first bytes (or its end).
PIPE_WAIT_S = 5


def _written_to(fd: int) -> bool:
    """Whether a pipe opened without blocking gets data, or its writer's end, in time: a
    pipe no writer has opened stays silent (Linux reports no hang-up before one has)."""
    import select

    poller = select.poll()
    poller.register(fd, select.POLLIN | select.POLLHUP)
    return bool(poller.poll(PIPE_WAIT_S * 1000))


def unreadable(path: Path, exc: OSError) -> DataError:
    """The error for a file that cannot be opened or read."""
    return DataError(
        f"cannot read the file: {exc.strerror or exc}",
        path=str(path),
        hint="check the file's permissions",
    )


#: A record as `JsonLines.rows` gives it: (line, offset, value, error, hint), the fields of
#: a `Record` without the making of one (a reader of many lines spares that).
Row = tuple[int, int, Any, str | None, str | None]


#: A line as `JsonLines.entries` gives it: (line, value, None), or (line, None, refusal).
Entry = tuple[int, Any, JsonRefused | None]


def _note_carriage_returns(exc: JsonRefused, raw: bytes) -> None:
    """A syntax error in a line with carriage returns inside: say so, and the fix."""
    if exc.syntax and b"\r" in raw.rstrip(b"\r\n"):
        exc.note = "; the line holds carriage returns (CR)"
        exc.hint = "save the file with LF (or CRLF) line ends: CR alone does not end a line"


def _parse_row(raw: bytes, line: int, offset: int, limits: JsonLimits) -> Row:
    try:
        return (line, offset, parse_json(raw, limits), None, None)
    except JsonRefused as exc:
        _note_carriage_returns(exc, raw)
        return (line, offset, None, exc.at_column(), exc.hint)


class JsonLines:
    """One pass over a JSON Lines file: a `Record` per non-blank line, in file order.

    `torn_tail_ok`: a last line without its newline that is not valid JSON (what a writer
    killed in mid-line leaves) is not yielded, and `torn_line` is its number once the pass
    has ended (`torn_tail`: whether there was one). A line with carriage returns inside is
    never taken for a torn tail. DataError (naming the file) when the file cannot be opened.
    `lines` counts the lines read (blank ones too) once the pass has ended.
    """

    def __init__(
        self,
        path: Path,
        *,
        limits: JsonLimits = DEFAULT_LIMITS,
        torn_tail_ok: bool = False,
    ) -> None:
        self.path = path
        self.limits = limits
        self.torn_tail_ok = torn_tail_ok
        self.torn_line: int | None = None
        self.lines = 0
        self._hasher = hashlib.sha256()

    @property
    def torn_tail(self) -> bool:
        """Whether a torn last line was left out (known once the pass has ended)."""
        return self.torn_line is not None

    def digest(self) -> str:
        """SHA-256 of the bytes read so far (of the file, once the pass has ended)."""
        return self._hasher.hexdigest()

    def __iter__(self) -> Iterator[Record]:
        for row in self.rows():
            yield Record(*row)

    def rows(self) -> Iterator[Row]:
        """The records as `Row` tuples, in file order (what iterating yields as Records)."""
        for number, start, raw in self._raw_lines():
            if raw is None:
                long = self._too_long(number)
                yield (number, start, None, long.what, long.hint)
                continue
            record = _parse_row(raw, number, start, self.limits)
            if record[3] is not None and self._torn(raw, number):
                return
            yield record

    def entries(self) -> Iterator[Entry]:
        """Each non-blank line's value, or the JsonRefused (its `line` the file's) saying
        why it is not one, in file order; a torn tail as `rows` leaves it out."""
        for number, _, raw in self._raw_lines():
            if raw is None:
                yield (number, None, self._too_long(number))
                continue
            try:
                value = parse_json(raw, self.limits)
            except JsonRefused as exc:
                if self._torn(raw, number):
                    return
                _note_carriage_returns(exc, raw)
                exc.line = number
                yield (number, None, exc)
                continue
            yield (number, value, None)

    def _too_long(self, number: int) -> JsonRefused:
        what = f"the line is longer than the limit of {self.limits.max_bytes} bytes"
        return JsonRefused(what, TOO_LARGE_FIX, number, None, syntax=False, limit="bytes")

    def _torn(self, raw: bytes, number: int) -> bool:
        """Whether the line that failed is a torn tail to leave out (noting its number)."""
        # No newline: readline stopped at the end, so this is the last line.
        if self.torn_tail_ok and not raw.endswith(b"\n") and b"\r" not in raw:
            self.torn_line = number
            return True
        return False

    def _raw_lines(self) -> Iterator[tuple[int, int, bytes | None]]:
        """(line, byte offset, bytes) of each non-blank line (bytes None: the line is longer
        than the limit, and was read past)."""
        with open_bytes(self.path) as handle:
            limit = self.limits.max_bytes
            offset = number = 0
            while raw := handle.readline(limit + 1):
                number += 1
                self.lines = number
                start = offset
                offset += len(raw)
                self._hasher.update(raw)
                if len(raw) > limit and not raw.endswith(b"\n"):
                    offset += self._skip_rest(handle)
                    yield (number, start, None)
                    continue
                if number == 1 and raw.startswith(_BOM):
                    raw, start = raw[len(_BOM) :], start + len(_BOM)
                if raw.strip():
                    yield (number, start, raw)

    def _skip_rest(self, handle: BinaryIO) -> int:
        """Read past the rest of an over-long line without keeping it; its length."""
        skipped = 0
        while chunk := handle.readline(_CHUNK):
            skipped += len(chunk)
            self._hasher.update(chunk)
            if chunk.endswith(b"\n"):
                break
        return skipped


class LineReader:
    """Reads records of JSON Lines files back by byte offset, one open handle per file.

    The offsets and line numbers are those of a `JsonLines` pass; the same limits apply.
    """

    def __init__(self, limits: JsonLimits = DEFAULT_LIMITS) -> None:
        self.limits = limits
        self._handles: dict[Path, BinaryIO] = {}

    def record(self, path: Path, offset: int, line: int) -> Record:
        """The record at `offset`, or what keeps it from being read; OSError if unreadable."""
        handle = self._handles.get(path)
        if handle is None:
            handle = self._handles[path] = path.open("rb")
        handle.seek(offset)
        raw = handle.readline(self.limits.max_bytes + 1)
        if len(raw) > self.limits.max_bytes and not raw.endswith(b"\n"):
            return Record(line, offset, error="the line is longer than the limit")
        return Record(*_parse_row(raw, line, offset, self.limits))

    def read(self, path: Path, offset: int, line: int) -> Any:
        """The value at `offset`; DataError (file and line) when it no longer reads."""
        try:
            record = self.record(path, offset, line)
        except OSError as exc:
            raise DataError(
                f"cannot read the file: {exc.strerror or exc}", path=str(path), line=line
            ) from None
        if record.error is not None:
            raise DataError(
                f"{record.error}; the file changed after it was loaded",
                path=str(path),
                line=line,
                hint="load it again",
            )
        return record.value

    def close(self) -> None:
        for handle in self._handles.values():
            handle.close()
        self._handles.clear()

    def __enter__(self) -> LineReader:
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.close()


def torn_line_warning(path: str | Path, line: int) -> str:
    """The warning for a torn last line that a tolerant pass left out."""
    return (
        f"{path}: line {line} is incomplete (no line end, not JSON) and was ignored: a run "
        "stopped mid-write leaves this; if the file was copied or cut, the item it held "
        "counts as missing"
    )


_DOCUMENT_HINT = "fix the JSON syntax there (a missing comma?)"


def read_document(path: Path, limits: JsonLimits = DEFAULT_LIMITS) -> bytes:
    """The bytes of a file that is one JSON document; DataError naming the file when it
    cannot be read or holds more than `limits.max_bytes` (it is parsed whole)."""
    with open_bytes(path) as handle:
        try:
            data = handle.read(limits.max_bytes + 1)
        except OSError as exc:  # a directory opens, and fails here
            raise unreadable(path, exc) from None
    if len(data) > limits.max_bytes:
        raise DataError(
            f"more than the limit of {limits.max_bytes} bytes for a file that is one JSON document",
            path=str(path),
            hint=TOO_LARGE_FIX,
        )
    return data


def read_json(
    path: Path, *, hint: str = _DOCUMENT_HINT, limits: JsonLimits = DEFAULT_LIMITS
) -> Any:
    """The value of a file that is one JSON document; DataError naming the file and the
    line of what keeps it from being read (`hint`: the fix for a syntax error)."""
    try:
        return parse_json(read_document(path, limits), limits, hint)
    except JsonRefused as exc:
        raise exc.error(path) from None
