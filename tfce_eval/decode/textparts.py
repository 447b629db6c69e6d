"""Finding the parts of a text answer that hold calls: tags, code fences and delimited calls.

Nothing here parses a call; these functions only cut text into pieces for the decoder, in
time linear in the length of the text. See `tfce_eval.decode.answer` for the rules they implement.
"""

from __future__ import annotations

import re
from bisect import bisect_right
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Literal

from tfce_eval.decode.brackets import BracketError, match_end

_REASONING_TAGS = ("think", "thinking", "seed:think")
# Markers some chat templates put before native-style calls written as text.
MISTRAL = "[TOOL_CALLS]"
PYTHON_TAG = "<|python_tag|>"
_MARKERS = (MISTRAL, PYTHON_TAG)
#: The tags whose bodies are calls, each with its closing tag (Hermes and Qwen; Seed-OSS).
TAG_OPEN = "<tool_call>"
TAG_CLOSE = "</tool_call>"
TAGS = ((TAG_OPEN, TAG_CLOSE), ("<seed:tool_call>", "</seed:tool_call>"))
_FENCE = "```"
_TICKS = re.compile(r"`+")
_LANGUAGE = re.compile(r"[\w+#.-]*")
_MAX_LANGUAGE = 40

_ASCII_NAME = r"[A-Za-z_][A-Za-z0-9_]*+(?:\.[A-Za-z_][A-Za-z0-9_]*+)*+"
# A call head in a whole answer or a code part may use any Python identifier (CJK included).
_ANY_NAME = r"[^\W\d]\w*+(?:\.[^\W\d]\w*+)*+"
_HEAD = re.compile(rf"\[?\s*({_ANY_NAME})\(")
_ANY_CALL = re.compile(r"(?<!\w)[^\W\d]\w*+\(")
_JSON_START = re.compile(r"\{|\[\s*[{\[\]]")
_WS = "[ \\t\\r\\n]*"
# Delimited calls in prose: a bracketed list of calls or JSON objects, or a JSON object that
# begins with "name", anywhere; a line that starts with a call or a JSON object (after an
# optional list marker); inline `code`.
_CANDIDATE = re.compile(
    rf"(?P<list>\[{_WS}(?:{_ASCII_NAME}\(|\{{{_WS}[\"']))"
    rf"|(?P<object>\{{{_WS}[\"']name[\"']{_WS}:)"
    rf"|^[ \t]*(?:(?:[-*•]|\d{{1,3}}[.)])[ \t]+)?(?P<line>{_ASCII_NAME}\(|\{{{_WS}[\"'])"
    rf"|`(?P<code>{_ASCII_NAME}\()",
    re.MULTILINE,
)
#: Characters that open a quotation: a marker right after one is quoted, not emitted.
_OPENERS = frozenset("\"'([{“‘«「『")
_LINE_TAIL = re.compile(r"[ \t]*[.;,。；，]?[ \t]*(?:\r?\n|\Z)")

Kind = Literal["json", "python"]


@dataclass(frozen=True)
class Part:
    """A piece of an answer and the 1-based line of the answer it starts on."""

    text: str
    line: int
    #: Where the piece ends in the text it was cut from (set by `tag_bodies`).
    end: int = 0


@dataclass(frozen=True)
class Candidate:
    """A delimited call found in prose, with the syntax it is written in."""

    text: str
    line: int
    kind: Kind


def split_reasoning(text: str) -> tuple[str, str]:
    """The answer without its reasoning, and the reasoning that never ended.

    Everything up to the last `</think>` (or `</thinking>`, Seed-OSS's `</seed:think>`) is
    reasoning and is dropped; everything after a `<think>` that is never closed is reasoning
    too, and is returned second so that a tool-call marker in it can be reported.
    """
    unended = ""
    for tag in _REASONING_TAGS:
        close = text.rfind(f"</{tag}>")
        if close >= 0:
            text = text[close + len(tag) + 3 :]
        else:
            opened = text.find(f"<{tag}>")
            if opened >= 0:  # reasoning that never ended holds no answer
                unended = text[opened:] + unended
                text = text[:opened]
    return text, unended


def strip_markers(text: str) -> str:
    """Drop the markers some templates put before calls written as text."""
    for marker in _MARKERS:
        if marker in text:
            text = text.replace(marker, "\n")
    return text


def tag_bodies(text: str, opener: str = TAG_OPEN, closer: str = TAG_CLOSE) -> Iterator[Part]:
    """Bodies of `<tool_call>` tags (or of `opener` ... `closer`); an unclosed tag runs to the
    next tag or the end."""
    position, line, close = 0, 1, -1
    start = text.find(opener)
    while start >= 0:
        body_start = start + len(opener)
        if close < body_start:  # searched again only once passed, so the scan stays linear
            close = text.find(closer, body_start)
            if close < 0:
                close = len(text)
        next_start = text.find(opener, body_start)
        end = close if next_start < 0 else min(close, next_start)
        line += text.count("\n", position, body_start)
        yield Part(text[body_start:end], line, end)
        line += text.count("\n", body_start, end)
        position = end
        start = next_start


def _fences(text: str) -> Iterator[tuple[int, int, int, int]]:
    """Each ``` fence as (start, body start, body end, end): the language tag is left out of
    the body, and an unclosed fence runs to the end of the text."""
    position = 0
    while (start := text.find(_FENCE, position)) >= 0:
        body_start = start + len(_FENCE)
        # The language tag is a short word alone on the fence line; look no further than that.
        newline = text.find("\n", body_start, body_start + _MAX_LANGUAGE)
        if newline >= 0 and _LANGUAGE.fullmatch(text[body_start:newline].strip()):
            body_start = newline + 1
        close = text.find(_FENCE, body_start)
        body_end = len(text) if close < 0 else close
        position = min(body_end + len(_FENCE), len(text))
        yield start, body_start, body_end, position


def fenced_blocks(text: str) -> tuple[list[Part], str]:
    """Contents of ``` code fences (language tag removed) and the text outside them.

    An unclosed fence runs to the end of the text; a fence may open and close on one line.
    """
    blocks: list[Part] = []
    outside: list[str] = []
    position, line = 0, 1
    for start, body_start, body_end, end in _fences(text):
        outside.append(text[position:start])
        line += text.count("\n", position, body_start)
        blocks.append(Part(text[body_start:body_end], line))
        line += text.count("\n", body_start, body_end)
        position = end
        outside.append("\n")
    outside.append(text[position:])
    return blocks, "".join(outside)


def code_spans(text: str) -> list[tuple[int, int]]:
    """The (start, end) of each code fence and inline code span, in order. An inline span
    runs from a run of backticks to the next run of the same length on its line; a run with
    none is a backtick, not a span."""
    spans: list[tuple[int, int]] = []
    position = 0
    for start, _, _, end in _fences(text):
        _inline_spans(text, position, start, spans)
        spans.append((start, end))
        position = end
    _inline_spans(text, position, len(text), spans)
    return spans


def _inline_spans(text: str, start: int, end: int, spans: list[tuple[int, int]]) -> None:
    # Between fences a run holds one or two backticks (three open a fence). A run left
    # open scans to its line's end, but then no later run on that line has its length:
    # at most two such scans a line, so the whole stays linear.
    # The end of the line is looked up once per line, not once per run.
    position, line_end = start, -1
    while (run := _TICKS.search(text, position, end)) is not None:
        if run.end() > line_end:
            line_end = text.find("\n", run.end(), end)
            line_end = end if line_end < 0 else line_end
        close, scan = -1, run.end()
        while (other := _TICKS.search(text, scan, line_end)) is not None:
            if len(other.group()) == len(run.group()):
                close = other.end()
                break
            scan = other.end()
        if close < 0:
            position = run.end()
        else:
            spans.append((run.start(), close))
            position = close


class Places:
    """Finds markers in a template's position in one text: outside code fences and inline
    code, and at the start of a line (after white space) or glued to the text before it
    (`Sure.[TOOL_CALLS]f...`, `<|start|>assistant<|channel|>...`). A marker after a space
    in mid-sentence, right after an opening quote or bracket, or glued into a run that
    begins so in mid-sentence (`writes <|start|>assistant<|channel|>`) is one that prose
    mentions, not one a template emitted."""

    def __init__(self, text: str, *, anywhere: bool = False) -> None:
        self.text = text
        #: Any marker outside code counts, after a space or a quote too (the tail rule).
        self.anywhere = anywhere
        self._spans: list[tuple[int, int]] | None = None
        self._starts: list[int] = []
        #: The run without white space last looked at: its start, how far it is known to
        #: reach, and whether a marker glued into it is placed (None: not yet judged).
        self._run: tuple[int, int, bool | None] = (0, 0, None)

    def first(self, marker: str, start: int = 0) -> int:
        """Where the first such `marker` at or after `start` is, or -1."""
        self._run = (0, 0, None)
        at = self.text.find(marker, start)
        while at >= 0 and not self._placed(at):
            at = self.text.find(marker, at + len(marker))
        return at

    def first_of(self, markers: tuple[str, ...]) -> tuple[int, str] | None:
        """The first of `markers` in a template's position, and where it is."""
        found = [(at, m) for m in markers if m in self.text and (at := self.first(m)) >= 0]
        return min(found) if found else None

    def _placed(self, at: int) -> bool:
        if self.anywhere:
            return not self._in_code(at)
        before = self.text[at - 1] if at else "\n"
        if before in _OPENERS:
            return False
        placed = self._line_start(at) if before.isspace() else self._glued(at)
        return placed and not self._in_code(at)

    def _line_start(self, at: int) -> bool:
        """True when only white space comes before `at` on its line. Each run of white space
        is walked once per marker: it ends at the one occurrence or run it comes before."""
        text = self.text
        back = at - 1
        while back >= 0 and text[back] not in "\r\n" and text[back].isspace():
            back -= 1
        return back < 0 or text[back] in "\r\n"

    def _glued(self, at: int) -> bool:
        """A marker glued to the text before it counts unless the run without white space
        that holds it begins, in mid-sentence, with "<" or an opening quote or bracket."""
        text = self.text
        start, known, placed = self._run
        back = at - 1  # back to the run's start, or to where the last run was known to reach
        while back >= known and not text[back].isspace():
            back -= 1
        if back >= known or placed is None:
            start = back + 1 if back >= known else start
            opener = text[start]
            placed = self._line_start(start) or (opener != "<" and opener not in _OPENERS)
        self._run = (start, at, placed)
        return placed

    def _in_code(self, at: int) -> bool:
        if self._spans is None:
            self._spans = code_spans(self.text)
            self._starts = [start for start, _ in self._spans]
        index = bisect_right(self._starts, at) - 1
        return index >= 0 and at < self._spans[index][1]


def unwrap_inline_code(text: str) -> str:
    """`f(a=1)` written as one inline code span is the same as f(a=1)."""
    if len(text) > 1 and text[0] == "`" and text[-1] == "`" and "`" not in text[1:-1]:
        return text[1:-1].strip()
    return text


def starts_like_json(text: str) -> bool:
    """True for text that begins with an object or a list of objects (or `[]`)."""
    return _JSON_START.match(text) is not None


def call_head(text: str) -> str | None:
    """The function name when the text begins with `name(` or `[name(`, else None."""
    match = _HEAD.match(text)
    return match.group(1) if match else None


def mentions_call(text: str) -> bool:
    """True when `name(` occurs anywhere in the text."""
    return _ANY_CALL.search(text) is not None


def candidates(text: str, max_depth: int) -> Iterator[Candidate | BracketError]:
    """Delimited calls in prose, in order; a bracket error is a call attempt that never closes.

    Only ASCII function names count here, so that prose such as "我无法计算(需要更多信息)" is
    never taken for a call.
    """
    last_end, line, counted = 0, 1, 0
    for match in _CANDIDATE.finditer(text):
        group = match.lastgroup or "list"
        start = match.start(group)
        if start < last_end:
            continue
        # The scan starts at "[", "{" or the name; its first bracket is the one to match.
        # Inline code ends at the next backtick, which also keeps repeated scans linear.
        stop = None
        if group == "code":
            stop = text.find("`", start)
            stop = len(text) if stop < 0 else stop
            if text.find(")", start, stop) < 0:
                continue  # `name(` with no ")" before the closing backtick: a mention
        end = match_end(text, start, max_depth, stop)
        if isinstance(end, BracketError):
            if group == "code":
                continue  # a name in inline code that does not close is a mention, not a call
            yield end
            return
        last_end = end
        if group == "line" and not _LINE_TAIL.match(text, end):
            continue  # a call followed by prose on its line is not "a line that is a call"
        if group == "code" and not text.startswith("`", end):
            continue
        line += text.count("\n", counted, start)
        counted = start
        body = text[start:end]
        opening = body.lstrip("[ \t\r\n")[:1]
        kind: Kind = "json" if opening == "{" else "python"
        yield Candidate(body, line, kind)
