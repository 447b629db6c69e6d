"""How deeply a JSON text nests, found without a Python loop over its bytes or brackets.

`too_deep(raw, limit)` is where nesting first goes deeper than `limit`, or None. Brackets
inside strings do not count; a string that never ends (what a cut line leaves) is not a
string: from its opening quote on, every bracket counts. Nothing is checked beyond that,
so text that is not JSON gets a verdict too (json then says what is wrong with it).

The work is done by bytes methods and regular expressions (C loops over the text); Python
sees each bracket only through `itertools.accumulate`, and loops over nothing:

1. a line without `\\"` (no quote after a backslash, the usual line) has every quote
   opening or closing a string, so strings are found by the parity of quotes: the text is
   cut to its quotes and brackets, empty strings (`""`) are dropped, and only strings that
   hold brackets, if any, are cut out by splitting on quotes;
2. any other text is cut where a string first fails to end (a regular expression of whole
   strings and other bytes), and the strings before that are removed by a second one;
3. the depth is the running sum of +1 per opening and -1 per closing bracket (`[` `{`
   and `]` `}` alike, and it may go below zero on text that is not JSON).

Its place, only when it is too deep, is found by a regular expression that skips that many
brackets (with the strings between them).
"""

from __future__ import annotations

import re
from itertools import accumulate, compress, count

# A JSON string as one token (possessive: linear on any input).
_STRING = rb'"(?:[^"\\]++|\\.)*+"'
_STRINGS = re.compile(_STRING, re.DOTALL)
# The text before the first string that does not end: other bytes and whole strings.
_ENDED = re.compile(rb'(?:[^"]++|' + _STRING + rb")*+", re.DOTALL)
# Between two counted brackets: other bytes and whole strings (in text whose strings end).
_BETWEEN = rb'(?:[^"\[\]{}]++|' + _STRING + rb")*+"
_SIGNS = bytes.maketrans(b"[{]}", b"\x01\x01\xff\xff")
_NOT_BRACKETS = bytes(sorted(set(range(256)) - set(b"[]{}")))
_NOT_QUOTES_OR_BRACKETS = bytes(sorted(set(range(256)) - set(b'"[]{}')))


def too_deep(raw: bytes, limit: int) -> int | None:
    """The byte offset of the first bracket that nests deeper than `limit`, or None."""
    if raw.count(b"[") + raw.count(b"{") <= limit:
        return None  # cannot nest deeper than it has brackets: the usual line
    ended, counted = _counted_brackets(raw)
    depths = accumulate(memoryview(counted.translate(_SIGNS)).cast("b"))
    if max(depths, default=0) <= limit:
        return None
    depths = accumulate(memoryview(counted.translate(_SIGNS)).cast("b"))
    nth = next(compress(count(), map(limit.__lt__, depths)))
    return _offset_of(raw, ended, nth)


def _counted_brackets(raw: bytes) -> tuple[int, bytes]:
    """Where a string first fails to end (len(raw) if none does), and the brackets that
    count, in order (those outside strings, and all of those after that point)."""
    if b'\\"' not in raw:
        ended = raw.rindex(b'"') if raw.count(b'"') % 2 else len(raw)
        head = raw if ended == len(raw) else raw[:ended]
        marks = head.translate(None, _NOT_QUOTES_OR_BRACKETS).replace(b'""', b"")
        if b'"' in marks:
            marks = b"".join(marks.split(b'"')[::2])
        return ended, marks + raw[ended:].translate(None, _NOT_BRACKETS)
    match = _ENDED.match(raw)
    ended = match.end() if match else 0
    head = raw if ended == len(raw) else raw[:ended]
    counted = _STRINGS.sub(b"", head).translate(None, _NOT_BRACKETS)
    return ended, counted + raw[ended:].translate(None, _NOT_BRACKETS)


def _offset_of(raw: bytes, ended: int, nth: int) -> int:
    """The byte offset of the `nth` (from 0) bracket that counts."""
    before = _STRINGS.sub(b"", raw[:ended]).translate(None, _NOT_BRACKETS)
    if nth < len(before):
        skip = re.compile(_BETWEEN + rb"(?:[\[\]{}]" + _BETWEEN + rb"){%d}+" % nth, re.DOTALL)
        found = skip.match(raw, 0, ended)
    else:
        left = nth - len(before)
        skip = re.compile(rb"(?:[^\[\]{}]*+[\[\]{}]){%d}+[^\[\]{}]*+" % left)
        found = skip.match(raw, ended)
    assert found is not None  # both match whatever the text: it holds those brackets
    return found.end()
