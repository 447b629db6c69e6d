"""Markdown emphasis and inline code read as plain text, in one pass over the text.

A model dresses its answer in markdown (`**B**`, `_B_`, `` `B` ``): the markers go and what
they enclose stays. A `*`, `_` or backtick that is not a marker stays as written: `N*M`,
`2*3 = 6`, `snake_case`, a lone backtick. The rules are CommonMark's, simplified:

- An inline code span is a run of backticks up to the next run of the same length; the
  backticks go, the content stays as it is (no emphasis inside it).
- A run of one to three `*` or `_` opens emphasis when it follows the start, a space or
  punctuation and comes before a non-space; it closes when it follows a non-space and comes
  before the end, a space or punctuation. A marker between two letters or digits is thus
  never emphasis: CommonMark's rule for `_`, here for `*` too (in an answer, `2*3*4` is a
  product more often than emphasis).
- A closing run pairs with the nearest open run of the same marker and length on its line;
  runs left open between the two are text. A marker after a backslash is text.

Each run is looked at once, so a long line of unclosed markers takes linear time.
"""

from __future__ import annotations

import re
from bisect import bisect_right

_BACKTICKS = re.compile(r"`+")
_RUNS = re.compile(r"\\[*_]|\*+|_+|\n")


def plain_text(text: str) -> str:
    """`text` without the markers of its emphasis and inline code spans."""
    if "`" not in text and "*" not in text and "_" not in text:
        return text
    code = _code_spans(text) if "`" in text else []
    drop = [(start, end) for start, end, _, _ in code] + [(s, e) for _, _, s, e in code]
    drop += _emphasis_markers(text, code)
    if not drop:
        return text
    drop.sort()
    pieces: list[str] = []
    done = 0
    for start, end in drop:
        pieces.append(text[done:start])
        done = end
    pieces.append(text[done:])
    return "".join(pieces)


def _code_spans(text: str) -> list[tuple[int, int, int, int]]:
    """Each code span as (opening run start, its end, closing run start, its end)."""
    runs = [m.span() for m in _BACKTICKS.finditer(text)]
    by_length: dict[int, list[int]] = {}
    for index, (start, end) in enumerate(runs):
        by_length.setdefault(end - start, []).append(index)
    spans: list[tuple[int, int, int, int]] = []
    index = 0
    while index < len(runs):
        start, end = runs[index]
        same = by_length[end - start]
        after = bisect_right(same, index)
        if after == len(same):  # never closed: literal backticks
            index += 1
            continue
        close = same[after]
        spans.append((start, end, *runs[close]))
        index = close + 1
    return spans


def _emphasis_markers(text: str, code: list[tuple[int, int, int, int]]) -> list[tuple[int, int]]:
    """The spans of the `*` and `_` runs that open or close emphasis, outside code spans."""
    opened: dict[str, list[int]] = {}  # a run's text -> its open runs (indexes into runs)
    alive: list[bool] = []
    order: list[int] = []  # the open runs still unpaired, in text order
    runs: list[tuple[int, int]] = []
    drop: list[tuple[int, int]] = []
    next_code = 0
    for match in _RUNS.finditer(text):
        start, end = match.span()
        while next_code < len(code) and code[next_code][2] <= start:
            next_code += 1
        if next_code < len(code) and code[next_code][0] <= start:
            continue  # inside a code span
        token = match.group()
        if token == "\n":
            opened.clear()
            order.clear()
            continue
        if token[0] == "\\" or len(token) > 3:
            continue
        before = text[start - 1] if start else " "
        after = text[end] if end < len(text) else " "
        stack = opened.setdefault(token, [])
        while stack and not alive[stack[-1]]:
            stack.pop()
        if stack and not before.isspace() and not after.isalnum():  # closes
            opener = stack.pop()
            while order:  # runs opened between the pair stay text
                alive[order[-1]] = False
                if order.pop() == opener:
                    break
            drop += (runs[opener], (start, end))
        elif not after.isspace() and not before.isalnum():  # opens
            stack.append(len(runs))
            order.append(len(runs))
            alive.append(True)
            runs.append((start, end))
    return drop
