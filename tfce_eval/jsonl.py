"""Reading dataset files record by record, whatever their shape, and never giving up early.

A dataset file is one of (decided by content, never by extension):

- JSON Lines: one JSON value per line; blank lines are skipped. Read as bytes, line by line,
  so that a line can later be found again by its byte offset (`LineReader`) and nothing but
  the line being looked at is in memory.
- a JSON array of items;
- an object that wraps the items in a list under some key (`{"data": [...]}`); the object
  must not have an `id` (then it is an item) and, when it holds several lists, the list of
  objects is taken, or the first of `data`, `items`, `questions`, `answers`, `examples`,
  `records`;
- one item written as a single (pretty-printed) JSON object.

Detection reads only the first non-blank line of a JSON Lines file: a file is JSON Lines
unless that line is not a complete JSON value on its own, or it is but nothing follows it
and it is an array or a wrapping object. In the other cases the whole file is parsed; if that
fails and the file starts with `[`, or with a line holding only `{`, it is reported as one
broken JSON document (json's message and line), else as JSON Lines, line by line.

Every problem becomes a `Record` with an `error` and a `hint` instead of an exception, so
that `validate` can report them all and the loader can raise on the first.
Text must be UTF-8; a byte-order mark at the start is tolerated.
"""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Iterator
from dataclasses import dataclass
from enum import StrEnum
from pathlib import Path
from types import TracebackType
from typing import Any, BinaryIO

from tfce_eval.errors import DataError

_BOM = b"\xef\xbb\xbf"
_WS = re.compile(r"[ \t\n\r]*")
_PREFERRED_KEYS = ("data", "items", "questions", "answers", "examples", "records")
_UTF8_HINT = "save the file as UTF-8"


class FileKind(StrEnum):
    """How a file holds its records."""

    JSON_LINES = "jsonl"
    ARRAY = "array"
    WRAPPED = "wrapped"
    OBJECT = "object"


@dataclass(frozen=True, slots=True)
class Record:
    """One record of a file: a parsed JSON value, or what kept it from being one.

    `offset` is the byte offset of the line in a JSON Lines file, and the index of the value
    in `JsonFile.held` for the other kinds. `line` is 1-based (0: the file as a whole).
    """

    line: int
    offset: int
    value: Any = None
    error: str | None = None
    hint: str | None = None


class JsonFile:
    """One dataset file, detected on construction; `records()` makes one pass over it."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self.kind = FileKind.JSON_LINES
        self.held: list[Any] = []
        self._lines: list[int] = []
        self._fatal: Record | None = None
        self._hasher = hashlib.sha256()
        try:
            self._detect()
        except OSError as exc:
            self._fatal = Record(0, 0, error=f"cannot read the file: {exc.strerror or exc}")

    def digest(self) -> str:
        """SHA-256 of the file's bytes (for JSON Lines, complete once `records()` has ended)."""
        return self._hasher.hexdigest()

    def records(self) -> Iterator[Record]:
        if self._fatal is not None:
            yield self._fatal
        elif self.kind is FileKind.JSON_LINES:
            yield from self._json_lines()
        else:
            for index, (value, line) in enumerate(zip(self.held, self._lines, strict=True)):
                yield Record(line, index, value)

    # -- detection ------------------------------------------------------------------------

    def _detect(self) -> None:
        first = _first_line(self.path)
        if first is None or first[0].lstrip()[:1] not in (b"[", b"{"):
            return
        line, rest_blank = first
        try:
            alone: Any = json.loads(line.decode("utf-8"))
        except ValueError:  # UnicodeDecodeError and JSONDecodeError are both ValueErrors
            self._whole_file(line)
            return
        if rest_blank and (
            isinstance(alone, list) or (isinstance(alone, dict) and _wrapped_key(alone))
        ):
            self._whole_file(line)

    def _whole_file(self, first_line: bytes) -> None:
        data = self.path.read_bytes()
        self._hasher.update(data)
        try:
            text = data.decode("utf-8-sig")
        except UnicodeDecodeError as exc:
            line = data.count(b"\n", 0, exc.start) + 1
            self._fatal = Record(
                line, 0, error=f"not UTF-8 (byte 0x{data[exc.start]:02x})", hint=_UTF8_HINT
            )
            self.kind = FileKind.ARRAY
            return
        try:
            whole = json.loads(text)
        except json.JSONDecodeError as exc:
            stripped = first_line.strip()
            if stripped.startswith(b"[") or stripped == b"{":
                self.kind = FileKind.ARRAY if stripped.startswith(b"[") else FileKind.WRAPPED
                self._fatal = Record(
                    exc.lineno,
                    0,
                    error=f"malformed JSON: {exc.msg} (line {exc.lineno}, column {exc.colno})",
                    hint="fix the JSON syntax at that place (a missing comma or quote?)",
                )
            else:
                self._hasher = hashlib.sha256()  # records() hashes JSON Lines itself
            return
        if isinstance(whole, list):
            self.kind = FileKind.ARRAY
            start = len(text) - len(text.lstrip())
        elif isinstance(whole, dict) and "id" in whole:
            self.kind = FileKind.OBJECT
            self.held = [whole]
            self._lines = [text.count("\n", 0, len(text) - len(text.lstrip())) + 1]
            return
        elif isinstance(whole, dict) and (key := _wrapped_key(whole)) is not None:
            self.kind = FileKind.WRAPPED
            start = _member_start(text, key)
        else:
            self.kind = FileKind.OBJECT
            self._fatal = Record(
                1,
                0,
                error="the file is one JSON value holding no list of items",
                hint="write one item per line (JSON Lines), a JSON array of items, "
                'or an object such as {"data": [...]}',
            )
            return
        self._held_array(text, start)

    def _held_array(self, text: str, start: int) -> None:
        decoder = json.JSONDecoder()
        line, counted = 1, 0
        pos = _skip_ws(text, start + 1)
        while text[pos] != "]":
            line += text.count("\n", counted, pos)
            counted = pos
            value, end = decoder.raw_decode(text, pos)
            self.held.append(value)
            self._lines.append(line)
            pos = _skip_ws(text, end)
            if text[pos] == ",":
                pos = _skip_ws(text, pos + 1)

    # -- JSON Lines -----------------------------------------------------------------------

    def _json_lines(self) -> Iterator[Record]:
        offset = 0
        with self.path.open("rb") as handle:
            for number, raw in enumerate(handle, start=1):
                start = offset
                offset += len(raw)
                self._hasher.update(raw)
                if number == 1 and raw.startswith(_BOM):
                    raw, start = raw[len(_BOM) :], start + len(_BOM)
                if not raw.strip():
                    continue
                yield _parse_line(raw, number, start)


def _parse_line(raw: bytes, line: int, offset: int) -> Record:
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        return Record(
            line,
            offset,
            error=f"not UTF-8 (byte 0x{raw[exc.start]:02x} at column {exc.start + 1})",
            hint=_UTF8_HINT,
        )
    try:
        return Record(line, offset, json.loads(text))
    except json.JSONDecodeError as exc:
        return Record(
            line,
            offset,
            error=f"malformed JSON: {exc.msg} (column {exc.colno})",
            hint="write one complete JSON object per line",
        )


def _first_line(path: Path) -> tuple[bytes, bool] | None:
    """The first non-blank line, and whether every line after it is blank."""
    with path.open("rb") as handle:
        for raw in handle:
            first = raw.removeprefix(_BOM)
            if first.strip():
                return first, all(not rest.strip() for rest in handle)
    return None


def _wrapped_key(obj: dict[str, Any]) -> str | None:
    """The key under which a wrapping object holds its items, or None if it is no wrapper."""
    if "id" in obj:
        return None
    lists = [k for k, v in obj.items() if isinstance(v, list)]
    of_objects = [k for k in lists if obj[k] and all(isinstance(e, dict) for e in obj[k])]
    for candidates in (of_objects, lists):
        if len(candidates) == 1:
            return candidates[0]
        for key in _PREFERRED_KEYS:
            if key in candidates:
                return key
    return None


def _skip_ws(text: str, pos: int) -> int:
    match = _WS.match(text, pos)
    return match.end() if match else pos


def _member_start(text: str, key: str) -> int:
    """Where the value of a top-level `key` starts in the JSON object `text` (the last one)."""
    decoder = json.JSONDecoder()
    found = -1
    pos = _skip_ws(text, text.index("{") + 1)
    while text[pos] != "}":
        name, end = decoder.raw_decode(text, pos)
        pos = _skip_ws(text, _skip_ws(text, end) + 1)  # past the ':'
        if name == key:
            found = pos
        _, end = decoder.raw_decode(text, pos)
        pos = _skip_ws(text, end)
        if text[pos] == ",":
            pos = _skip_ws(text, pos + 1)
    return found


class LineReader:
    """Reads single JSON Lines records by byte offset, keeping one handle per file open."""

    def __init__(self) -> None:
        self._handles: dict[Path, BinaryIO] = {}

    def read(self, path: Path, offset: int, line: int) -> Any:
        handle = self._handles.get(path)
        if handle is None:
            handle = self._handles[path] = path.open("rb")
        handle.seek(offset)
        record = _parse_line(handle.readline(), line, offset)
        if record.error is not None:
            raise DataError(
                f"{record.error}; the file changed after it was loaded",
                path=str(path),
                line=line,
                hint="load the dataset again",
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
    """How a JSON value is named in messages: `an object`, `a list`, `null`..."""
    if isinstance(value, bool):
        return "a boolean"
    names = {dict: "an object", list: "a list", str: "a string", type(None): "null"}
    return names.get(type(value), "a number" if isinstance(value, int | float) else "a value")
