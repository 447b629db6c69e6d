"""Calls left in the text in a chat template's own syntax (docs/decoding.md 4.3).

When a server's tool-call parser is off or fails, the model's calls stay in the message text
as the chat template writes them: Mistral's `[TOOL_CALLS]name[ARGS]{...}`, Llama's
`<function=name>{...}`, Qwen3-Coder's and MiniMax's XML, GLM's `<arg_key>`, Kimi-K2's and
DeepSeek's special tokens, gpt-oss's Harmony messages. `read` cuts such text into raw calls
(a name and the arguments as written) in time linear in the length of the text; nothing
here parses JSON, `text.TextDecoder` does that behind its bounds.
`read_tail` reads calls from a marker anywhere outside code when they end the text (the
tail rule); `read` only from a marker where a template puts it (`textparts.Places`), so
that prose which mentions a marker is not taken for a failed call.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from tfce_eval.decode import harmony
from tfce_eval.decode.brackets import BracketError, match_end
from tfce_eval.decode.limits import DecodeError, DecodeLimits, clip, too_many
from tfce_eval.decode.textparts import (
    MISTRAL,
    PYTHON_TAG,
    TAGS,
    Places,
    fenced_blocks,
    tag_bodies,
)

FUNCTION = "<function="
_KIMI_SECTIONS = ("<|tool_calls_section_begin|>", "<|tool_call_section_begin|>")
_KIMI = ("<|tool_call_begin|>", "<|tool_call_argument_begin|>", "<|tool_call_end|>")
_DEEPSEEK_SECTION = "<｜tool▁calls▁begin｜>"
_DEEPSEEK = ("<｜tool▁call▁begin｜>", "<｜tool▁sep｜>", "<｜tool▁call▁end｜>")
_MINIMAX = ("<minimax:tool_call>", "</minimax:tool_call>")
_TAG_MARKERS = tuple(opener for opener, _ in TAGS)
#: Every marker that opens calls written as text, in the order they are reported.
_MARKERS = (
    MISTRAL,
    *_TAG_MARKERS,
    _MINIMAX[0],
    FUNCTION,
    *_KIMI_SECTIONS,
    _KIMI[0],
    _DEEPSEEK_SECTION,
    _DEEPSEEK[0],
    PYTHON_TAG,
)
#: Longest function or parameter name read before its closing ">".
_MAX_NAME = 200
# After [TOOL_CALLS]: a name, an optional [CALL_ID]id, an optional [ARGS], then "{".
_MISTRAL_HEAD = re.compile(
    r"\s*+([^\s\[\]{}()<>\"',;:]++)[ \t]*+"
    r"(?:\[CALL_ID\][ \t]*+[^\s\[{]*+[ \t]*+)?(?:\[ARGS\][ \t]*+)?(?=\{)"
)
#: What may follow the last call of a template's calls: white space, end-of-turn tokens
#: and section closers (the tail rule).
_TAIL = re.compile(
    r"(?:\s++|</s>|<\|(?:im_end|eot_id|eom_id|end|return|call|endoftext|end_of_text"
    r"|tool_calls_section_end|tool_call_section_end)\|>|<｜end▁of▁sentence｜>"
    r"|<｜tool▁calls▁end｜>|</minimax:tool_call>|</function>|</tool_call>)*+"
)


@dataclass(frozen=True)
class RawCall:
    """A call as written: `arguments` is the JSON text of the arguments object, or the
    parameters of an XML syntax as (name, text) pairs in order."""

    where: str
    name: str
    arguments: str | tuple[tuple[str, str], ...]


@dataclass(frozen=True)
class Template:
    """What the markers in a template's position hold: the marker the syntax was found by,
    the calls read from it (none when nothing could be read), and, for a Harmony answer
    with no call, the text its channels other than analysis say."""

    marker: str
    calls: tuple[RawCall, ...] = ()
    rest: str | None = None


def _may_hold_markers(text: str) -> bool:
    """Whether a marker can be in the text at all: every one begins with "<", but
    Mistral's `[TOOL_CALLS]`. The one test an ordinary answer pays."""
    return "<" in text or MISTRAL in text


def marker_in(text: str) -> str | None:
    """The first known tool-call marker the text holds in a template's position, or None
    (a scan only when a marker's first character is there)."""
    if not _may_hold_markers(text):
        return None
    places = Places(text)
    for marker in _MARKERS:
        if marker in text and places.first(marker) >= 0:
            return marker
    return None


def refuse_reasoning_calls(message: Mapping[str, Any]) -> None:
    """Refuse a message with no text and no tool calls whose reasoning holds a tool-call
    marker: the server's reasoning parser took the whole output (as vLLM's does when
    `</think>` is missing), and calls are never taken from reasoning."""
    for key in ("reasoning_content", "reasoning"):
        reasoning = message.get(key)
        marker = marker_in(reasoning) if isinstance(reasoning, str) else None
        if marker is not None:
            raise DecodeError(
                f"the answer has no text and no tool calls, and its {key} holds the "
                f"tool-call marker {marker}: the calls are in the reasoning (the server's "
                f"reasoning parser took them), and calls are never taken from reasoning"
            )


def read(text: str, limits: DecodeLimits) -> Template | None:
    """The calls of the template syntax whose markers the text holds in a template's
    position, read from the first such marker on, or None when it holds none. A bare
    `<|call|>` is an end token, not a marker.

    Each syntax is looked for only when the first characters of its markers are there, so
    that an ordinary answer costs a few searches.
    """
    if not _may_hold_markers(text):
        return None
    places = Places(text)
    found = _syntax(text, places, _Reader(limits))
    if found is not None:
        return found
    # Markers whose calls the plain steps read (`<tool_call>`, `<|python_tag|>`, the older
    # `[TOOL_CALLS] [...]`): here only to say that nothing could be read from them.
    if MISTRAL in text and places.first(MISTRAL) >= 0:
        return Template(MISTRAL)
    other = places.first_of((*_TAG_MARKERS, PYTHON_TAG))
    return None if other is None else Template(other[1])


def read_tail(text: str, limits: DecodeLimits) -> Template | None:
    """The calls of a template syntax read from its first marker outside code (anywhere,
    after a space too) when they end the text: nothing but white space and end-of-turn
    tokens follows the last (the tail rule). None otherwise, and for calls that cannot be
    cut: real leaks end with their calls, mentions in prose are followed by more prose."""
    if not _may_hold_markers(text):
        return None
    reader = _Reader(limits)
    try:
        found = _syntax(text, Places(text, anywhere=True), reader)
    except DecodeError:
        return None
    if found is None or not found.calls or _TAIL.fullmatch(text, reader.end) is None:
        return None
    return found


def _syntax(text: str, places: Places, reader: _Reader) -> Template | None:
    """The template syntax whose first marker `places` finds, read from there on;
    `reader.end` is left where its last call ends."""
    if "<|" in text:
        if (kimi := places.first_of((_KIMI[0], *_KIMI_SECTIONS))) is not None:
            reader.delimited(text[kimi[0] :], _KIMI, "<|tool_calls_section_end|>")
            reader.end += kimi[0]
            return Template(kimi[1], tuple(reader.found))
        if (start := harmony.answer_start(text, places)) >= 0:
            rest = reader.harmony(text, start)
            if reader.found:
                return Template(harmony.CALL, tuple(reader.found))
            if places.first(harmony.CALL, start) >= 0:
                return Template(harmony.CALL)
            return Template(harmony.CALL, rest=rest)
    if "<｜" in text and (deepseek := places.first_of((_DEEPSEEK[0], _DEEPSEEK_SECTION))):
        reader.delimited(text[deepseek[0] :], _DEEPSEEK, "<｜tool▁calls▁end｜>")
        reader.end += deepseek[0]
        return Template(deepseek[1], tuple(reader.found))
    if _MINIMAX[0] in text and (minimax := places.first(_MINIMAX[0])) >= 0:
        reader.minimax(text[minimax:])
        reader.end += minimax
        return Template(_MINIMAX[0], tuple(reader.found))
    mistral = places.first(MISTRAL) if MISTRAL in text else -1
    if mistral >= 0 and reader.mistral(text[mistral:]):
        reader.end += mistral
        return Template(MISTRAL, tuple(reader.found))
    function = places.first(FUNCTION) if FUNCTION in text else -1
    if function >= 0 and not any(tag in text for tag in _TAG_MARKERS):
        reader.functions(text[function:], FUNCTION)
        reader.end += function
        return Template(FUNCTION, tuple(reader.found))
    return None


def tag_calls(body: str, where: str, limits: DecodeLimits) -> list[RawCall] | None:
    """The calls of a `<tool_call>` body in Qwen3-Coder's XML (`<function=name>` with
    `<parameter=p>` inside) or GLM-4.5's (`name<arg_key>p</arg_key><arg_value>v...`), or None
    for a body in neither."""
    if FUNCTION not in body and "<arg_key>" not in body:
        return None
    stripped = body.lstrip()
    reader = _Reader(limits)
    if stripped.startswith(FUNCTION):
        reader.functions(body, f"{where},")
    elif "<arg_key>" in body and stripped[:1] not in ("{", "["):
        reader.glm(body, where)
    else:
        return None
    return reader.found


def _kimi_name(head: str) -> str:
    """`functions.NAME:0` is the call of NAME."""
    name = head.strip()
    name = name.removeprefix("functions.")
    base, colon, index = name.rpartition(":")
    return base if colon and index.isdigit() else name


def _json_object(text: str, max_depth: int) -> tuple[str, int]:
    """The JSON object at the start of `text`, cut where its braces close (tokens a template
    puts after it are left out), and where it ends; the text as it is when it does not
    begin with a whole one."""
    start = len(text) - len(text.lstrip())
    end = match_end(text, start, max_depth) if text.startswith("{", start) else None
    if end is None or isinstance(end, BracketError):
        return text.strip(), len(text.rstrip())
    return text[start:end], end


def _name_before(text: str, where: str) -> tuple[str, int]:
    """The name that ends at the first ">" of `text` (quotes removed), and where it ends."""
    close = text.find(">", 0, _MAX_NAME)
    if close < 0:
        raise DecodeError(f"{where}: the name is not closed by '>' within {_MAX_NAME} characters")
    return text[:close].strip().strip("\"'"), close + 1


class _Reader:
    """Collects raw calls in `found`, refusing more than the limit at once."""

    def __init__(self, limits: DecodeLimits) -> None:
        self.limits = limits
        self.found: list[RawCall] = []
        #: Where the last call read ends, in the text given.
        self.end = 0

    def add(self, where: str, name: str, arguments: str | tuple[tuple[str, str], ...]) -> None:
        if len(self.found) >= self.limits.max_calls:
            raise DecodeError(too_many(self.limits))
        self.found.append(RawCall(where, name, arguments))

    def where(self, marker: str) -> str:
        return f"{marker} call {len(self.found) + 1}"

    def mistral(self, text: str) -> bool:
        """`[TOOL_CALLS]name[ARGS]{...}` (tokenizer v11 and later, `[CALL_ID]id` optional),
        once per call. False, with nothing read, for the older `[TOOL_CALLS] [{...}]`."""
        segments, position = [], 0
        for segment in text.split(MISTRAL)[1:]:
            position += len(MISTRAL)
            if segment.strip():
                segments.append((position, segment))
            position += len(segment)
        if not segments or _MISTRAL_HEAD.match(segments[0][1]) is None:
            return False
        for start, segment in segments:
            where = self.where(MISTRAL)
            head = _MISTRAL_HEAD.match(segment)
            if head is None:
                raise DecodeError(
                    f"{where}: expected a function name and its JSON arguments after "
                    f"{MISTRAL}, found {clip(segment.strip())!r}"
                )
            arguments, end = _json_object(segment[head.end() :], self.limits.max_depth)
            self.add(where, head.group(1), arguments)
            self.end = start + head.end() + end
        return True

    def functions(self, text: str, label: str) -> None:
        """Llama's `<function=name>{...}</function>` and Qwen3-Coder's
        `<function=name><parameter=p>value</parameter>...</function>`."""
        for part in tag_bodies(text, FUNCTION, "</function>"):
            where = self.where(label)
            name, body_start = _name_before(part.text, where)
            body = part.text[body_start:]
            start = part.end - len(body)
            # Where the call ends: its closing tag, or else its JSON or last parameter.
            closed = text.startswith("</function>", part.end)
            self.end = part.end + len("</function>") if closed else part.end
            if body.lstrip().startswith("{"):
                arguments, end = _json_object(body, self.limits.max_depth)
                self.add(where, name, arguments)
                self.end = self.end if closed else start + end
            elif "<parameter=" in body or (closed and not body.strip()):
                # An empty body is a call without arguments only when closed: an unclosed
                # `<function=name>` ending a sentence is a mention, not a call.
                self.add(where, name, self.parameters(body, "<parameter=", where))
                last = body.rfind("</parameter>")
                if not closed and last >= 0:
                    self.end = start + last + len("</parameter>")
            else:
                raise DecodeError(
                    f"{where}: <function={clip(name)}> holds neither JSON arguments nor "
                    f"<parameter=...> tags"
                )

    def parameters(self, body: str, opener: str, where: str) -> tuple[tuple[str, str], ...]:
        found: list[tuple[str, str]] = []
        for part in tag_bodies(body, opener, "</parameter>"):
            name, value_start = _name_before(part.text, where)
            found.append((name, part.text[value_start:]))
            if len(found) > self.limits.max_values:
                raise DecodeError(f"{where}: more than {self.limits.max_values} parameters")
        return tuple(found)

    def minimax(self, text: str) -> None:
        """`<minimax:tool_call><invoke name="f"><parameter name="p">v</parameter></invoke>`."""
        for block in tag_bodies(text, *_MINIMAX):
            start = block.end - len(block.text)
            for invoke in tag_bodies(block.text, "<invoke name=", "</invoke>"):
                where = self.where(_MINIMAX[0])
                name, body_start = _name_before(invoke.text, where)
                body = invoke.text[body_start:]
                self.add(where, name, self.parameters(body, "<parameter name=", where))
                self.end = start + invoke.end
                if block.text.startswith("</invoke>", invoke.end):
                    self.end += len("</invoke>")

    def glm(self, body: str, where: str) -> None:
        """`name<arg_key>p</arg_key><arg_value>v</arg_value>...` (GLM-4.5 and later)."""
        first = body.find("<arg_key>")
        name = body[:first].strip()
        pairs: list[tuple[str, str]] = []
        position = first
        while position >= 0:
            key_end = body.find("</arg_key>", position)
            value_open = body.find("<arg_value>", max(key_end, position))
            value_end = body.find("</arg_value>", max(value_open, position))
            if key_end < 0 or value_open < 0 or value_end < 0:
                raise DecodeError(
                    f"{where}: <arg_key> {len(pairs) + 1} is not followed by "
                    f"</arg_key><arg_value>...</arg_value>"
                )
            key = body[position + len("<arg_key>") : key_end].strip()
            pairs.append((key, body[value_open + len("<arg_value>") : value_end]))
            position = body.find("<arg_key>", value_end)
        self.add(where, name, tuple(pairs))

    def delimited(
        self,
        text: str,
        tokens: tuple[str, str, str],
        section_end: str,
    ) -> None:
        """Kimi-K2's `<|tool_call_begin|>functions.NAME:0<|tool_call_argument_begin|>{...}
        <|tool_call_end|>` and DeepSeek's `<｜tool▁call▁begin｜>NAME<｜tool▁sep｜>{...}
        <｜tool▁call▁end｜>` (V3.1), or `function<｜tool▁sep｜>NAME` and a ```json fence (V3)."""
        begin, separator, end = tokens
        for part in tag_bodies(text, begin, end):
            where = self.where(begin)
            body = part.text
            cut = body.find(section_end)
            if cut >= 0:
                body = body[:cut]
            head, found, arguments = body.partition(separator)
            if not found:
                raise DecodeError(f"{where}: the call has no {separator} before its arguments")
            name = _kimi_name(head) if begin == _KIMI[0] else head.strip()
            start = part.end - len(part.text)
            fenced_v3 = begin == _DEEPSEEK[0] and name == "function"
            fenced_v3 = fenced_v3 and arguments.lstrip()[:1] != "{"
            if fenced_v3:
                name, _, fenced = arguments.strip().partition("\n")
                blocks, _ = fenced_blocks(fenced)
                arguments = blocks[0].text if blocks else fenced
            raw, json_end = _json_object(arguments, self.limits.max_depth)
            self.add(where, name.strip(), raw)
            # Where the call ends: its end token, the section's end, or its JSON.
            if text.startswith(end, part.end):
                self.end = part.end + len(end)
            elif cut >= 0:
                self.end = start + cut
            elif fenced_v3:
                self.end = part.end
            else:
                self.end = start + len(head) + len(separator) + json_end

    def harmony(self, text: str, start: int) -> str:
        """gpt-oss's messages: `<|channel|>commentary to=functions.NAME <|constrain|>json
        <|message|>{...}<|call|>` is a call; the analysis channel is reasoning; what the
        other channels say is returned as the answer's text."""
        said: list[str] = []
        end = start
        for message in harmony.messages(text, start):
            if message.recipient is not None:
                name = message.recipient.removeprefix("functions.")
                where = self.where(f"to={clip(message.recipient)}")
                self.add(where, name, _json_object(message.body, self.limits.max_depth)[0])
            elif message.channel != "analysis":
                said.append(message.body)
            self.end = end = message.end  # later messages are the template's, not prose
        if (recipient := harmony.unread_recipient(text, end)) is not None:
            raise DecodeError(
                f"{self.where(f'to={clip(recipient)}')}: the header has no "
                f"{harmony.MESSAGE} after it, so the call has no arguments"
            )
        return "\n".join(said)
