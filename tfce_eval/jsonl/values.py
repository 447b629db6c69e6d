"""One JSON value from bytes, within `JsonLimits`, or a `JsonRefused` saying why not.

`parse_json` checks the size, then the nesting (by a linear scan, before `json` parses
anything), then parses; an integer beyond Python's digit limit is refused with its place.
`json_type` names a value in messages.
"""

from __future__ import annotations

import json
import re
import sys
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from tfce_eval.errors import DataError

_LINE_HINT = "write one complete JSON object per line"
#: The fix offered for a value (or line, or document) over `max_bytes`.
TOO_LARGE_FIX = "shorten it: a record this large is not something tfce-eval reads"
# A JSON string as one token (possessive: linear on any input), or a bracket.
_DEPTH_TOKEN = re.compile(rb'"(?:[^"\\]++|\\.)*+"|[\[\]{}]', re.DOTALL)
_OPEN = frozenset(b"[{")


@dataclass(frozen=True, slots=True)
class JsonLimits:
    """Bounds on one JSON value read from a file."""

    #: One line of a JSON Lines file, or a whole JSON document, in bytes.
    max_bytes: int = 256 * 1024 * 1024
    #: How deeply arrays and objects may nest.
    max_depth: int = 128


DEFAULT_LIMITS = JsonLimits()


class JsonRefused(ValueError):
    """Bytes that are not one readable JSON value: what is wrong, where, and the fix.

    `syntax`: json itself (or UTF-8 decoding, then `encoding` too) refused the text, as
    opposed to a limit, which `limit` names ("bytes", "depth" or "digits"); `reason` is
    json's own words for a syntax error ("Expecting value"), else `what`. `line` and
    `column` (None when unknown) count from the text's start; `note` follows the position.
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
        limit: str | None = None,
        reason: str | None = None,
    ) -> None:
        super().__init__(what)
        self.what = what
        self.hint = hint
        self.line = line
        self.column = column
        self.syntax = syntax
        self.encoding = encoding
        self.limit = limit
        self.reason = what if reason is None else reason
        self.note = ""

    def at_column(self, malformed: str = "malformed JSON") -> str:
        """What is wrong, then its column; `malformed` names what a syntax error is."""
        what = f"{malformed}: {self.reason}" if self.syntax and not self.encoding else self.what
        return what + (f" (column {self.column})" if self.column else "") + self.note

    def at_line(self) -> str:
        if not self.column:
            return f"{self.what} (line {self.line}){self.note}"
        return f"{self.what} (line {self.line}, column {self.column}){self.note}"

    def fix(self, hint: str | None) -> str:
        """`hint` for a syntax error when given, else the fix offered (a limit's own)."""
        plain = self.syntax and not self.encoding and not self.note
        return hint if hint is not None and plain else self.hint

    def error(
        self, path: str | Path, hint: str | None = None, malformed: str = "malformed JSON"
    ) -> DataError:
        """This refusal as the DataError that stops a command: the file, the line, what is
        wrong (`at_column`) and the fix (`fix`)."""
        return DataError(
            self.at_column(malformed), path=str(path), line=self.line, hint=self.fix(hint)
        )


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


def parse_json(
    raw: bytes,
    limits: JsonLimits = DEFAULT_LIMITS,
    hint: str = _LINE_HINT,
    pairs: Callable[[list[tuple[str, Any]]], Any] | None = None,
) -> Any:
    """One JSON value from UTF-8 bytes (a BOM allowed), or JsonRefused saying why not and
    where (`hint` is the fix offered for a syntax error). `pairs`, when given, makes each
    object from its key-value pairs in file order (json's object_pairs_hook): a reader
    that must see repeated keys sees them in the one parse."""
    if len(raw) > limits.max_bytes:
        raise JsonRefused(
            f"{len(raw)} bytes, more than the limit of {limits.max_bytes}",
            TOO_LARGE_FIX,
            1,
            None,
            syntax=False,
            limit="bytes",
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
            limit="depth",
        )
    return _loads(text, hint, pairs)


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


def _loads(
    text: str, hint: str, pairs: Callable[[list[tuple[str, Any]]], Any] | None = None
) -> Any:
    decode = _RAW_DECODE if pairs is None else json.JSONDecoder(object_pairs_hook=pairs).raw_decode
    try:
        value, end = decode(text)
        if text[end:] in _LINE_ENDS:
            return value
    except (ValueError, RecursionError):
        pass
    try:
        return json.loads(text, object_pairs_hook=pairs)
    except json.JSONDecodeError as exc:
        # "Invalid control character at": the position follows as "(column N)".
        msg = exc.msg.removesuffix(" at")
        raise JsonRefused(
            f"malformed JSON: {msg}", hint, exc.lineno, exc.colno, syntax=True, reason=msg
        ) from None
    except ValueError:  # json gives no position for an integer beyond Python's digit limit
        line, column = _huge_integer(text)
        raise JsonRefused(
            f"an integer with more than {sys.get_int_max_str_digits()} digits",
            "write a number that long as a string",
            line,
            column,
            syntax=False,
            limit="digits",
        ) from None
    except RecursionError:  # the depth scan should have caught it; a second guard
        raise JsonRefused(
            "nested too deeply to read", hint, 1, None, syntax=False, limit="depth"
        ) from None


def _huge_integer(text: str) -> tuple[int, int | None]:
    """Where the first integer beyond Python's digit limit starts (line, column); strings
    are skipped whole, and fractions and exponents are no integers."""
    digits = sys.get_int_max_str_digits()
    longer = "{" + str(digits + 1) + ",}+"
    token = r'"(?:[^"\\]++|\\.)*+"|(?<![\w.+-])-?[0-9]' + longer + r"(?![.eE])"
    for match in re.finditer(token, text):
        start = match.start()
        if text[start] != '"':
            return text.count("\n", 0, start) + 1, start - text.rfind("\n", 0, start)
    return 1, None


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
