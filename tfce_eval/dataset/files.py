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
first. A file in UTF-16 or UTF-32 (told by its byte-order mark, or by the zero bytes of
its first character) is one problem, not one per line; a syntax error at a `]` or `}`
right after a comma is offered the fix for a trailing comma.

What could not be read may still show ids (`failure`), so that the items of the
other side (the answers of unreadable questions) are not reported one by one as orphans.
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
#: Byte-order marks of encodings other than UTF-8: (mark, encoding, codec), longest first.
_WIDE_BOMS = (
    (b"\xff\xfe\x00\x00", "UTF-32", "utf-32"),
    (b"\x00\x00\xfe\xff", "UTF-32", "utf-32"),
    (b"\xff\xfe", "UTF-16", "utf-16"),
    (b"\xfe\xff", "UTF-16", "utf-16"),
)
#: An `"id": "..."` member, as text that could not be parsed may still show it.
_ID = re.compile(r'"id"\s*:\s*"((?:[^"\\\n]|\\.)*)"')
#: How much of a line that failed is read again, for its id or its trailing comma.
_LINE_LOOK = 1 << 20


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
        self._codec = "utf-8"  # what an unreadable file is decoded with to find its ids
        try:
            self._detect()
        except OSError as exc:
            self._fatal = Record(0, 0, error=f"cannot read the file: {exc.strerror or exc}")

    @property
    def failed(self) -> bool:
        """Whether the file could not be read as a whole (its one record says why)."""
        return self._fatal is not None

    def failure(self, offset: int) -> tuple[list[str], str | None]:
        """What can be made out in a record that could not be read: its ids (every one in a
        file that failed as a whole, else the first of the JSON Lines line at byte
        `offset`), and for such a line the fix when a trailing comma broke it."""
        try:
            if self._fatal is not None:
                if self.path.stat().st_size > self.limits.max_bytes:
                    return [], None
                text = self.path.read_bytes().decode(self._codec, errors="replace")
                return [_unescaped(m) for m in _ID.findall(text)], None
            raw = self._line(offset)
        except OSError:
            return [], None
        found = _ID.search(raw.decode("utf-8", errors="replace"))
        ids = [_unescaped(found.group(1))] if found else []
        return ids, self._line_fix(raw)

    def _line_fix(self, raw: bytes) -> str | None:
        try:
            parse_json(raw, self.limits)
        except JsonRefused as exc:
            if not exc.syntax or exc.encoding:
                return None
            text = raw.decode("utf-8-sig")
            return _trailing_comma(text, _index(text, exc.line, exc.column))
        return None

    def _line(self, offset: int) -> bytes:
        """The line at byte `offset` (its first `_LINE_LOOK` bytes)."""
        with self.path.open("rb") as handle:
            handle.seek(offset)
            return handle.readline(_LINE_LOOK)

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
        if self._wide_encoding():
            return
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

    def _wide_encoding(self) -> bool:
        """Whether the file is UTF-16 or UTF-32: then that is its one error (every line of
        it would fail)."""
        with self.path.open("rb") as handle:
            found = _wide(handle.read(4))
        if found is None:
            return False
        name, how, self._codec = found
        self._fatal = Record(
            0, 0, error=f"{name} ({how}), not UTF-8", hint="save the file as UTF-8"
        )
        return True

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
            hint = exc.hint
            if exc.syntax and not exc.encoding:
                text = data.decode("utf-8-sig")
                hint = _trailing_comma(text, _index(text, exc.line, exc.column)) or hint
            self._fatal = Record(exc.line, 0, error=exc.at_line(), hint=hint)
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


def _wide(head: bytes) -> tuple[str, str, str] | None:
    """The encoding the first bytes of a file show when it is not UTF-8 but UTF-16 or
    UTF-32: (name, how it shows, codec); None otherwise."""
    for mark, name, codec in _WIDE_BOMS:
        if head.startswith(mark):
            return name, f"a byte-order mark {mark.hex(' ').upper()}", codec
    zeros = "no byte-order mark; every other byte 0"
    if head[:1] in (b"[", b"{") and head[1:2] == b"\0":
        return "UTF-16", zeros, "utf-16-le"
    if head[:1] == b"\0" and head[1:2] in (b"[", b"{"):
        return "UTF-16", zeros, "utf-16-be"
    return None


def _unescaped(member: str) -> str:
    try:
        value = json.loads(f'"{member}"')
    except ValueError:
        return member
    return value if isinstance(value, str) else member


def _index(text: str, line: int, column: int | None) -> int:
    """The index in `text` of a 1-based line and column (as `json` counts them)."""
    start = 0
    for _ in range(line - 1):
        start = text.find("\n", start) + 1
    return start + (column or 1) - 1


def _trailing_comma(text: str, pos: int) -> str | None:
    """The fix for a syntax error at `pos` that a trailing comma makes (a `]` or `}` right
    after a comma), or None."""
    if text[pos : pos + 1] not in ("]", "}"):
        return None
    before = text[:pos].rstrip()
    if not before.endswith(","):
        return None
    line = before.count("\n") + 1
    if line == text.count("\n", 0, pos) + 1:
        return f"remove the comma before the {text[pos]} (a trailing comma?)"
    return f"remove the comma that ends line {line} (a trailing comma?)"


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
