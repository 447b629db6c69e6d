"""Dataset files whatever their shape, decided by content, never by extension.

A dataset file is one of:

- JSON Lines (read line by line, see `tfce_eval.jsonl.JsonLines`);
- a JSON array of items;
- an object that wraps the items in a list under some key (`{"data": [...]}`); the object
  must not have an `id` (then it is an item) and, when it holds several lists, the list of
  objects is taken, or the first of `data`, `items`, `questions`, `answers`, `examples`,
  `records`;
- one item written as a single (pretty-printed) JSON object.

Detection reads only the first non-blank line of a JSON Lines file: a file is JSON Lines
unless that line is not a complete JSON value on its own, or it is but nothing follows it
and it is an array or a wrapping object. In the other cases the whole file is parsed (within
the same limits as a line); if that fails and the file starts with `[`, or with a line
holding only `{`, it is reported as one broken JSON document (the problem and its line),
else it is read as JSON Lines, line by line. Every problem becomes a `Record` with an
`error` and a `hint`, so that `validate` can report them all and the loader raise on the
first.
"""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Iterator
from enum import StrEnum
from pathlib import Path
from typing import Any

from tfce_eval.errors import DataError
from tfce_eval.jsonl import (
    DEFAULT_LIMITS,
    JsonLimits,
    JsonLines,
    JsonRefused,
    Record,
    Row,
    parse_json,
)

_BOM = b"\xef\xbb\xbf"
_WS = re.compile(r"[ \t\n\r]*")
_PREFERRED_KEYS = ("data", "items", "questions", "answers", "examples", "records")


class FileKind(StrEnum):
    """How a file holds its records."""

    JSON_LINES = "jsonl"
    ARRAY = "array"
    WRAPPED = "wrapped"
    OBJECT = "object"


class JsonFile:
    """One dataset file, detected on construction; `records()` makes one pass over it."""

    def __init__(self, path: Path, limits: JsonLimits = DEFAULT_LIMITS) -> None:
        self.path = path
        self.limits = limits
        self.kind = FileKind.JSON_LINES
        self.held: list[Any] = []
        self._lines: list[int] = []
        self._fatal: Record | None = None
        self._digest: str | None = None
        try:
            self._detect()
        except OSError as exc:
            self._fatal = Record(0, 0, error=f"cannot read the file: {exc.strerror or exc}")

    def digest(self) -> str:
        """SHA-256 of the file's bytes (for JSON Lines, known once `records()` has ended)."""
        return self._digest or ""

    def records(self) -> Iterator[Record]:
        for row in self.rows():
            yield Record(*row)

    def rows(self) -> Iterator[Row]:
        """One pass over the file's records, as `Row` tuples (see `tfce_eval.jsonl`)."""
        if self._fatal is not None:
            fatal = self._fatal
            yield (fatal.line, fatal.offset, fatal.value, fatal.error, fatal.hint)
        elif self.kind is FileKind.JSON_LINES:
            lines = JsonLines(self.path, limits=self.limits)
            try:
                yield from lines.rows()
            except DataError as exc:  # gone since it was detected
                yield (0, 0, None, exc.message, None)
            self._digest = lines.digest()
        else:
            for index, (value, line) in enumerate(zip(self.held, self._lines, strict=True)):
                yield (line, index, value, None, None)

    # -- detection ------------------------------------------------------------------------

    def _detect(self) -> None:
        first = _first_line(self.path)
        if first is None or first[0].lstrip()[:1] not in (b"[", b"{"):
            return
        line, rest_blank = first
        try:
            alone = parse_json(line, self.limits)
        except JsonRefused as exc:
            if exc.syntax:  # not a value on its own: maybe the start of a document
                self._whole_file(line)
            return  # a value refused for its size: a line of JSON Lines, reported as such
        if rest_blank and (
            isinstance(alone, list) or (isinstance(alone, dict) and _wrapped_key(alone))
        ):
            self._whole_file(line)

    def _whole_file(self, first_line: bytes) -> None:
        size = self.path.stat().st_size
        if size > self.limits.max_bytes:
            self.kind = FileKind.ARRAY
            self._fatal = Record(
                0,
                0,
                error=f"{size} bytes, more than the limit of {self.limits.max_bytes} for a "
                "file that is one JSON document",
                hint="write it as JSON Lines (one item per line)",
            )
            return
        data = self.path.read_bytes()
        stripped = first_line.strip()
        document = stripped.startswith(b"[") or stripped == b"{"
        try:
            whole = parse_json(data, self.limits, "fix the JSON syntax there (a missing comma?)")
        except JsonRefused as exc:
            if not document and not exc.encoding:
                return  # JSON Lines after all: records() reads and reports it line by line
            self.kind = FileKind.WRAPPED if stripped == b"{" else FileKind.ARRAY
            self._fatal = Record(exc.line, 0, error=exc.at_line(), hint=exc.hint)
            self._digest = hashlib.sha256(data).hexdigest()
            return
        self._digest = hashlib.sha256(data).hexdigest()
        text = data.decode("utf-8-sig")
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
        # The whole text parsed within the limits above, so each element does too.
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
