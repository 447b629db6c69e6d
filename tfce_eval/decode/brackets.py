"""Linear, string-aware bracket scanning for model text, done before any parser sees it.

Two questions are answered here without recursion and in one pass over the text:
how deeply do brackets nest (so that 10,000-deep `[[[[...` is refused before `json.loads` or
`ast.parse` is called), and where does the bracket opened at a given position close (so that a
call list can be cut out of the prose around it). Quoted strings, in Python's and JSON's
spellings, are skipped as units, so brackets inside argument values never count.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

# A quoted string (triple-quoted first). Possessive quantifiers keep scans linear even on
# megabytes of unterminated string. Single-line strings stop at a newline so that an apostrophe
# in prose cannot swallow the rest of the answer.
_STRING = (
    r'"""(?:[^"\\]++|\\.|"(?!""))*+(?:"""|\Z)'
    r"|'''(?:[^'\\]++|\\.|'(?!''))*+(?:'''|\Z)"
    r'|"(?:[^"\\\n]++|\\.)*+"?'
    r"|'(?:[^'\\\n]++|\\.)*+'?"
)
_TOKEN = re.compile(_STRING + r"|[\[\](){}]", re.DOTALL)
# `name(` only where a word starts, so that a megabyte-long word is read once.
_CALL_HEAD = re.compile(_STRING + r"|(?<!\w)[^\W\d]\w*+\s*+\(", re.DOTALL)
_OPENERS = {"[": "]", "(": ")", "{": "}"}
_CLOSERS = frozenset("])}")


@dataclass(frozen=True)
class BracketError:
    """Why a bracket scan stopped. The message is built only when asked for: finding line
    numbers costs a pass over the text, and callers often drop the error unread."""

    text: str = field(repr=False)
    position: int
    reason: str  # "deep", "unexpected", "mismatch", "unclosed" or "none"
    limit: int = 0
    opened_at: int = 0

    @property
    def message(self) -> str:
        here = where(self.text, self.position)
        token = self.text[self.position : self.position + 1]
        if self.reason == "deep":
            return f"brackets nest deeper than {self.limit} levels (at {here})"
        if self.reason == "unexpected":
            return f"unexpected '{token}' at {here}"
        if self.reason == "mismatch":
            opener = self.text[self.opened_at]
            return (
                f"'{token}' at {here} does not close '{opener}' opened at "
                f"{where(self.text, self.opened_at)}"
            )
        if self.reason == "unclosed":
            return f"'{token}' opened at {here} is never closed"
        return f"no bracket at {here}"


def line_col(text: str, position: int) -> tuple[int, int]:
    """1-based line and column of `position` in `text`."""
    line = text.count("\n", 0, position) + 1
    column = position - (text.rfind("\n", 0, position) + 1) + 1
    return line, column


def where(text: str, position: int) -> str:
    line, column = line_col(text, position)
    return f"line {line}, column {column}"


def check_depth(text: str, limit: int) -> BracketError | None:
    """Return an error when brackets outside strings nest deeper than `limit`, else None.

    Unbalanced brackets are not an error here: the parser that runs next reports them better.
    """
    if text.count("[") + text.count("(") + text.count("{") <= limit:
        return None  # cannot be too deep; skips the scan for almost every answer
    depth = 0
    for match in _TOKEN.finditer(text):
        token = match.group()
        if token in _OPENERS:
            depth += 1
            if depth > limit:
                return BracketError(text, match.start(), "deep", limit)
        elif token in _CLOSERS:
            depth = max(0, depth - 1)
    return None


def too_many_call_heads(text: str, limit: int) -> bool:
    """True when more than `limit` `name(` occur outside strings (each is a call or refused)."""
    if text.count("(") <= limit:
        return False
    count = 0
    for match in _CALL_HEAD.finditer(text):
        if match.group().endswith("("):
            count += 1
            if count > limit:
                return True
    return False


def match_end(text: str, start: int, limit: int, stop: int | None = None) -> int | BracketError:
    """Index just past the bracket that closes the one at `start`, or why there is none.

    The scan goes no further than `stop` (default: the end of the text).
    """
    stack: list[tuple[str, int]] = []
    for match in _TOKEN.finditer(text, start, len(text) if stop is None else stop):
        token = match.group()
        if token in _OPENERS:
            stack.append((token, match.start()))
            if len(stack) > limit:
                return BracketError(text, match.start(), "deep", limit)
        elif token in _CLOSERS:
            if not stack:
                return BracketError(text, match.start(), "unexpected")
            opener, at = stack.pop()
            if _OPENERS[opener] != token:
                return BracketError(text, match.start(), "mismatch", opened_at=at)
            if not stack:
                return match.end()
        elif not stack:
            # A string before the first bracket: the caller pointed at no bracket.
            break
    if stack:
        return BracketError(text, stack[-1][1], "unclosed")
    return BracketError(text, start, "none")
