"""Calls left in the text in a chat template's own syntax (docs/decoding.md 4.3).

When a server's tool-call parser is off or fails, the model's calls stay in the message text
as the chat template writes them: Mistral's `[TOOL_CALLS]name[ARGS]{...}`, Llama's
`<function=name>{...}`, Qwen3-Coder's and MiniMax's XML, GLM's `<arg_key>`, Kimi-K2's and
DeepSeek's special tokens, gpt-oss's Harmony messages. `read` cuts such text into raw calls
(a name and the arguments as written) in time linear in the length of the text; nothing
here parses JSON, `text.TextDecoder` does that behind its bounds.
A marker counts only where a template puts it (`textparts.Places`), never where prose
mentions it.
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from typing import Any

from tfce_eval.decode.brackets import BracketError, match_end
from tfce_eval.decode.limits import DecodeError, DecodeLimits, clip, too_many
from tfce_eval.decode.textparts import TAGS, Places, fenced_blocks, tag_bodies

MISTRAL = "[TOOL_CALLS]"
FUNCTION = "<function="
_PYTHON_TAG = "<|python_tag|>"
_KIMI_SECTIONS = ("<|tool_calls_section_begin|>", "<|tool_call_section_begin|>")
_KIMI = ("<|tool_call_begin|>", "<|tool_call_argument_begin|>", "<|tool_call_end|>")
_DEEPSEEK_SECTION = "<｜tool▁calls▁begin｜>"
_DEEPSEEK = ("<｜tool▁call▁begin｜>", "<｜tool▁sep｜>", "<｜tool▁call▁end｜>")
_MINIMAX = ("<minimax:tool_call>", "</minimax:tool_call>")
_TAG_MARKERS = tuple(opener for opener, _ in TAGS)
_HARMONY_MESSAGE = "<|message|>"
_HARMONY_CALL = "<|call|>"
#: What begins a Harmony message's header: a bare `<|message|>` is not Harmony.
_HARMONY_HEADS = ("<|start|>", "<|channel|>", "to=functions.")
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
    _HARMONY_CALL,
    _PYTHON_TAG,
)
#: Longest function or parameter name read before its closing ">".
_MAX_NAME = 200
# After [TOOL_CALLS]: a name, an optional [CALL_ID]id, an optional [ARGS], then "{".
_MISTRAL_HEAD = re.compile(
    r"\s*+([^\s\[\]{}()<>\"',;:]++)[ \t]*+"
    r"(?:\[CALL_ID\][ \t]*+[^\s\[{]*+[ \t]*+)?(?:\[ARGS\][ \t]*+)?(?=\{)"
)
_HARMONY_END = re.compile(r"<\|(?:end|call|return|start|channel|message)\|>")
_HARMONY_CLOSERS = frozenset({"<|end|>", "<|call|>", "<|return|>"})
_HARMONY_TO = re.compile(r"(?:^|[\s>])to=([^\s<]++)")
_HARMONY_CHANNEL = re.compile(r"<\|channel\|>\s*+(\w*+)")


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


def marker_in(text: str) -> str | None:
    """The first known tool-call marker the text holds in a template's position, or None
    (a scan only when a marker's first character is there)."""
    if MISTRAL not in text and "<" not in text:
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


def drop_analysis(text: str) -> str:
    """A Harmony answer without the messages of its analysis channel, which are reasoning;
    any other text as it is."""
    start = _harmony_start(text, Places(text)) if "<|" in text else -1
    if start < 0:
        return text
    kept = [text[:start]]
    for message in _harmony_messages(text, start):
        if message.recipient is not None or message.channel != "analysis":
            kept.append(text[message.start : message.end])
    return "".join(kept)


def read(text: str, limits: DecodeLimits) -> Template | None:
    """The calls of the template syntax whose markers the text holds in a template's
    position, read from the first such marker on, or None when it holds none.

    Each syntax is looked for only when the first characters of its markers are there, so
    that an ordinary answer costs a few searches.
    """
    if "<" not in text and MISTRAL not in text:
        return None
    places = Places(text)
    reader = _Reader(limits)
    if "<|" in text:
        if (kimi := places.first_of((_KIMI[0], *_KIMI_SECTIONS))) is not None:
            reader.delimited(text[kimi[0] :], _KIMI, "<|tool_calls_section_end|>")
            return Template(kimi[1], tuple(reader.found))
        if (start := _harmony_start(text, places)) >= 0:
            rest = reader.harmony(text, start)
            if reader.found:
                return Template(_HARMONY_CALL, tuple(reader.found))
            if places.first(_HARMONY_CALL, start) >= 0:
                return Template(_HARMONY_CALL)
            return Template(_HARMONY_CALL, rest=rest)
    if "<｜" in text and (deepseek := places.first_of((_DEEPSEEK[0], _DEEPSEEK_SECTION))):
        reader.delimited(text[deepseek[0] :], _DEEPSEEK, "<｜tool▁calls▁end｜>")
        return Template(deepseek[1], tuple(reader.found))
    if _MINIMAX[0] in text and (minimax := places.first(_MINIMAX[0])) >= 0:
        reader.minimax(text[minimax:])
        return Template(_MINIMAX[0], tuple(reader.found))
    mistral = places.first(MISTRAL) if MISTRAL in text else -1
    if mistral >= 0 and reader.mistral(text[mistral:]):
        return Template(MISTRAL, tuple(reader.found))
    function = places.first(FUNCTION) if FUNCTION in text else -1
    if function >= 0 and not any(tag in text for tag in _TAG_MARKERS):
        reader.functions(text[function:], FUNCTION)
        return Template(FUNCTION, tuple(reader.found))
    # Markers whose calls the plain steps read (`<tool_call>`, `<|python_tag|>`, the older
    # `[TOOL_CALLS] [...]`): here only to say that nothing could be read from them.
    if mistral >= 0:
        return Template(MISTRAL)
    other = places.first_of((*_TAG_MARKERS, _PYTHON_TAG, _HARMONY_CALL))
    return None if other is None else Template(other[1])


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


def _harmony_start(text: str, places: Places) -> int:
    """Where a Harmony answer begins: its first header in a template's position, when a
    `<|message|>` follows it; -1 for text that is not one."""
    head = places.first_of(_HARMONY_HEADS)
    if head is None or text.find(_HARMONY_MESSAGE, head[0]) < 0:
        return -1
    return head[0]


@dataclass(frozen=True)
class _Message:
    """One Harmony message: where it starts and ends (its closing token included), its
    recipient and channel, and its body."""

    start: int
    end: int
    recipient: str | None
    channel: str | None
    body: str


def _harmony_messages(text: str, start: int) -> Iterator[_Message]:
    """The messages from `start` on. A message ends at <|end|>, <|call|> or <|return|>;
    <|start|>, <|channel|> and <|message|> begin the next one, so no body holds a
    <|message|>. Each search starts past the last token found: the scan is linear."""
    position = start
    while (opened := text.find(_HARMONY_MESSAGE, position)) >= 0:
        header = text[position:opened]
        body_start = opened + len(_HARMONY_MESSAGE)
        token = _HARMONY_END.search(text, body_start)
        token_end = token.start() if token else len(text)
        end = token.end() if token and token.group() in _HARMONY_CLOSERS else token_end
        recipient = _HARMONY_TO.search(header)
        channel = _HARMONY_CHANNEL.search(header)
        yield _Message(
            position,
            end,
            None if recipient is None else recipient.group(1),
            None if channel is None else channel.group(1),
            text[body_start:token_end],
        )
        if token is None:
            return
        position = end


def _kimi_name(head: str) -> str:
    """`functions.NAME:0` is the call of NAME."""
    name = head.strip()
    name = name.removeprefix("functions.")
    base, colon, index = name.rpartition(":")
    return base if colon and index.isdigit() else name


def _json_object(text: str, max_depth: int) -> str:
    """The JSON object at the start of `text`, cut where its braces close (tokens a template
    puts after it are left out); the text as it is when it does not begin with a whole one."""
    start = len(text) - len(text.lstrip())
    if not text.startswith("{", start):
        return text.strip()
    end = match_end(text, start, max_depth)
    return text.strip() if isinstance(end, BracketError) else text[start:end]


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

    def add(self, where: str, name: str, arguments: str | tuple[tuple[str, str], ...]) -> None:
        if len(self.found) >= self.limits.max_calls:
            raise DecodeError(too_many(self.limits))
        self.found.append(RawCall(where, name, arguments))

    def where(self, marker: str) -> str:
        return f"{marker} call {len(self.found) + 1}"

    def mistral(self, text: str) -> bool:
        """`[TOOL_CALLS]name[ARGS]{...}` (tokenizer v11 and later, `[CALL_ID]id` optional),
        once per call. False, with nothing read, for the older `[TOOL_CALLS] [{...}]`."""
        segments = [s for s in text.split(MISTRAL)[1:] if s.strip()]
        if not segments or _MISTRAL_HEAD.match(segments[0]) is None:
            return False
        for segment in segments:
            where = self.where(MISTRAL)
            head = _MISTRAL_HEAD.match(segment)
            if head is None:
                raise DecodeError(
                    f"{where}: expected a function name and its JSON arguments after "
                    f"{MISTRAL}, found {clip(segment.strip())!r}"
                )
            arguments = _json_object(segment[head.end() :], self.limits.max_depth)
            self.add(where, head.group(1), arguments)
        return True

    def functions(self, text: str, label: str) -> None:
        """Llama's `<function=name>{...}</function>` and Qwen3-Coder's
        `<function=name><parameter=p>value</parameter>...</function>`."""
        for part in tag_bodies(text, FUNCTION, "</function>"):
            where = self.where(label)
            name, body_start = _name_before(part.text, where)
            body = part.text[body_start:]
            if body.lstrip().startswith("{"):
                self.add(where, name, _json_object(body, self.limits.max_depth))
            elif "<parameter=" in body or not body.strip():
                self.add(where, name, self.parameters(body, "<parameter=", where))
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
            for invoke in tag_bodies(block.text, "<invoke name=", "</invoke>"):
                where = self.where(_MINIMAX[0])
                name, body_start = _name_before(invoke.text, where)
                body = invoke.text[body_start:]
                self.add(where, name, self.parameters(body, "<parameter name=", where))

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
            if begin == _DEEPSEEK[0] and name == "function" and arguments.lstrip()[:1] != "{":
                name, _, fenced = arguments.strip().partition("\n")
                blocks, _ = fenced_blocks(fenced)
                arguments = blocks[0].text if blocks else fenced
            self.add(where, name.strip(), _json_object(arguments, self.limits.max_depth))

    def harmony(self, text: str, start: int) -> str:
        """gpt-oss's messages: `<|channel|>commentary to=functions.NAME <|constrain|>json
        <|message|>{...}<|call|>` is a call; the analysis channel is reasoning; what the
        other channels say is returned as the answer's text."""
        said: list[str] = []
        for message in _harmony_messages(text, start):
            if message.recipient is not None:
                name = message.recipient.removeprefix("functions.")
                where = self.where(f"to={clip(message.recipient)}")
                self.add(where, name, _json_object(message.body, self.limits.max_depth))
            elif message.channel != "analysis":
                said.append(message.body)
        return "\n".join(said)
