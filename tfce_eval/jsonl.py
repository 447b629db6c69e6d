"""Reading JSON from files, within limits, record by record, and never giving up early.

Every read of JSON from a file in tfce-eval goes through here, bounded by `JsonLimits`: a
line (or a whole document) of at most `max_bytes`, arrays and objects nested at most
`max_depth` deep (checked by a linear scan before `json` parses anything), integers within
Python's digit limit. Whatever breaks a limit, or is not UTF-8 or not JSON, becomes a
`Record` with an `error` and a `hint` naming the line (and column), or a `JsonRefused`
from `parse_json`; never a RecursionError or a traceback.

- `JsonLines`: one pass over a JSON Lines file, a `Record` per non-blank line with its byte
  offset and line number; optionally tolerant of a torn last line (what a writer killed in
  mid-line leaves). Read as bytes, line by line: nothing but the line at hand is in memory.
- `LineReader`: reads such a record back by its byte offset, one open handle per file.
- `parse_json`: one bounded JSON value from bytes (dataset files that are one document use
  it, see `tfce_eval.dataset.files`).

Text must be UTF-8; a byte-order mark at the start is tolerated.
"""

from __future__ import annotations

import hashlib
import json
import re
import sys
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path
from types import TracebackType
from typing import Any, BinaryIO

from tfce_eval.errors import DataError

_BOM = b"\xef\xbb\xbf"
_LINE_HINT = "write one complete JSON object per line"
# A JSON string as one token (possessive: linear on any input), or a bracket.
_DEPTH_TOKEN = re.compile(rb'"(?:[^"\\]++|\\.)*+"|[\[\]{}]', re.DOTALL)
_OPEN = frozenset(b"[{")
_CHUNK = 1 << 20


@dataclass(frozen=True, slots=True)
class JsonLimits:
    """Bounds on one JSON value read from a file."""

    #: One line of a JSON Lines file, or a whole JSON document, in bytes.
    max_bytes: int = 256 * 1024 * 1024
    #: How deeply arrays and objects may nest.
    max_depth: int = 128


DEFAULT_LIMITS = JsonLimits()


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


class JsonRefused(ValueError):
    """Bytes that are not one readable JSON value: what is wrong, where, and the fix.

    `syntax`: json itself (or UTF-8 decoding, then `encoding` too) refused the text, as
    opposed to a limit; `line` and `column` (None when unknown) count from the text's start.
    """

    def __init__(
        self,
        what: str,
        hint: str,
        line: int,
        column: int | None,
        *,
        syntax: bool,
        encoding: bool = False,
    ) -> None:
        super().__init__(what)
        self.what = what
        self.hint = hint
        self.line = line
        self.column = column
        self.syntax = syntax
        self.encoding = encoding

    def at_column(self) -> str:
        return self.what + (f" (column {self.column})" if self.column else "")

    def at_line(self) -> str:
        if not self.column:
            return f"{self.what} (line {self.line})"
        return f"{self.what} (line {self.line}, column {self.column})"


def _position(raw: bytes, index: int) -> tuple[int, int]:
    line_start = raw.rfind(b"\n", 0, index) + 1
    return raw.count(b"\n", 0, index) + 1, index - line_start + 1


def _too_deep(raw: bytes, limit: int) -> int | None:
    """Where nesting first goes deeper than `limit`, or None; linear, no recursion."""
    if raw.count(b"[") + raw.count(b"{") <= limit:
        return None  # cannot nest deeper than it has brackets: the usual line, decided in C
    depth = 0
    for match in _DEPTH_TOKEN.finditer(raw):
        first = raw[match.start()]
        if first in _OPEN:
            depth += 1
            if depth > limit:
                return match.start()
        elif first != 0x22:  # a closing bracket (0x22 is '"', a string)
            depth -= 1
    return None


def parse_json(raw: bytes, limits: JsonLimits = DEFAULT_LIMITS, hint: str = _LINE_HINT) -> Any:
    """One JSON value from UTF-8 bytes (a BOM allowed), or JsonRefused saying why not and
    where (`hint` is the fix offered for a syntax error)."""
    if len(raw) > limits.max_bytes:
        raise JsonRefused(
            f"{len(raw)} bytes, more than the limit of {limits.max_bytes}",
            "shorten it: a record this large is not something tfce-eval reads",
            1,
            None,
            syntax=False,
        )
    try:
        # Plain UTF-8 first (the utf-8-sig codec is a Python wrapper, several times slower),
        # then its one leading BOM dropped as utf-8-sig does; errors are worded from the
        # utf-8-sig decoder below, as ever.
        text = raw.decode("utf-8")
        if text[:1] == "\ufeff":
            text = text[1:]
    except UnicodeDecodeError:
        text = ""
    if not text and raw:
        text = _decode_sig(raw)
    deep = _too_deep(raw, limits.max_depth)
    if deep is not None:
        line, column = _position(raw, deep)
        raise JsonRefused(
            f"arrays and objects nest deeper than {limits.max_depth} levels",
            f"nest values at most {limits.max_depth} deep",
            line,
            column,
            syntax=False,
        )
    return _loads(text, hint)


def _decode_sig(raw: bytes) -> str:
    try:
        return raw.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        line, column = _position(raw, exc.start)
        raise JsonRefused(
            f"not UTF-8 (byte 0x{raw[exc.start]:02x})",
            "save the file as UTF-8",
            line,
            column,
            syntax=True,
            encoding=True,
        ) from None


#: `json.loads` without its checks and whitespace scans, for the usual line: a value that
#: starts at once and is followed by nothing but a line end. Anything else (and any
#: failure) goes to `json.loads` itself, which decides and words it as ever.
_RAW_DECODE = json.JSONDecoder().raw_decode
_LINE_ENDS = ("", "\n", "\r\n")


def _loads(text: str, hint: str) -> Any:
    try:
        value, end = _RAW_DECODE(text)
        if text[end:] in _LINE_ENDS:
            return value
    except (ValueError, RecursionError):
        pass
    try:
        return json.loads(text)
    except json.JSONDecodeError as exc:
        # "Invalid control character at": the position follows as "(column N)".
        msg = exc.msg.removesuffix(" at")
        raise JsonRefused(
            f"malformed JSON: {msg}", hint, exc.lineno, exc.colno, syntax=True
        ) from None
    except ValueError:  # json gives no position for an integer beyond Python's digit limit
        raise JsonRefused(
            f"an integer with more than {sys.get_int_max_str_digits()} digits",
            "write a number that long as a string",
            1,
            None,
            syntax=False,
        ) from None
    except RecursionError:  # the depth scan should have caught it; a second guard
        raise JsonRefused("nested too deeply to read", hint, 1, None, syntax=False) from None


#: A record as `JsonLines.rows` gives it: (line, offset, value, error, hint), the fields of
#: a `Record` without the making of one (a reader of many lines spares that).
Row = tuple[int, int, Any, str | None, str | None]


def _parse_row(raw: bytes, line: int, offset: int, limits: JsonLimits) -> Row:
    try:
        return (line, offset, parse_json(raw, limits), None, None)
    except JsonRefused as exc:
        what, hint = exc.at_column(), exc.hint
        if exc.syntax and b"\r" in raw.rstrip(b"\r\n"):
            what = f"{what}; the line holds carriage returns (CR)"
            hint = "save the file with LF (or CRLF) line ends: CR alone does not end a line"
        return (line, offset, None, what, hint)


class JsonLines:
    """One pass over a JSON Lines file: a `Record` per non-blank line, in file order.

    `torn_tail_ok`: a last line without its newline that is not valid JSON (what a writer
    killed in mid-line leaves) is not yielded, and `torn_line` is its number once the pass
    has ended (`torn_tail`: whether there was one). A line with carriage returns inside is
    never taken for a torn tail. DataError (naming the file) when the file cannot be opened.
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
        try:
            handle = self.path.open("rb")
        except FileNotFoundError:
            raise DataError("file not found", path=str(self.path)) from None
        except OSError as exc:
            raise DataError(
                f"cannot read the file: {exc.strerror or exc}", path=str(self.path)
            ) from None
        with handle:
            yield from self._lines(handle)

    def _lines(self, handle: BinaryIO) -> Iterator[Row]:
        limit = self.limits.max_bytes
        offset = number = 0
        while raw := handle.readline(limit + 1):
            number += 1
            start = offset
            offset += len(raw)
            self._hasher.update(raw)
            if len(raw) > limit and not raw.endswith(b"\n"):
                offset += self._skip_rest(handle)
                yield (
                    number,
                    start,
                    None,
                    f"the line is longer than the limit of {limit} bytes",
                    "shorten it: a record this large is not something tfce-eval reads",
                )
                continue
            if number == 1 and raw.startswith(_BOM):
                raw, start = raw[len(_BOM) :], start + len(_BOM)
            if not raw.strip():
                continue
            record = _parse_row(raw, number, start, self.limits)
            if (
                record[3] is not None
                and self.torn_tail_ok
                and not raw.endswith(b"\n")  # so the last line: readline stopped at the end
                and b"\r" not in raw
            ):
                self.torn_line = number
                return
            yield record

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


def json_type(value: Any) -> str:
    """How a value is named in messages: `an object`, `an array`, `an integer`, `null`..."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "a boolean"
    if isinstance(value, int):
        return "an integer"
    if isinstance(value, float):
        return "a number"
    if isinstance(value, str):
        return "a string"
    if isinstance(value, list | tuple):
        return "an array"
    if isinstance(value, Mapping):
        return "an object"
    return type(value).__name__
