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
from tfce_eval.decode.limits import DecodeError, DecodeLimits
from tfce_eval.decode.template_calls import (
    DEEPSEEK,
    DEEPSEEK_SECTION,
    FUNCTION,
    KIMI,
    KIMI_SECTIONS,
    MINIMAX,
    RawCall,
    Reader,
)
from tfce_eval.decode.textparts import MISTRAL, PYTHON_TAG, TAGS, Places

_TAG_MARKERS = tuple(opener for opener, _ in TAGS)
#: Every marker that opens calls written as text, in the order they are reported.
_MARKERS = (
    MISTRAL,
    *_TAG_MARKERS,
    MINIMAX[0],
    FUNCTION,
    *KIMI_SECTIONS,
    KIMI[0],
    DEEPSEEK_SECTION,
    DEEPSEEK[0],
    PYTHON_TAG,
)
#: What may follow the last call of a template's calls: white space, end-of-turn tokens
#: and section closers (the tail rule).
_TAIL = re.compile(
    r"(?:\s++|</s>|<\|(?:im_end|eot_id|eom_id|end|return|call|endoftext|end_of_text"
    r"|tool_calls_section_end|tool_call_section_end)\|>|<｜end▁of▁sentence｜>"
    r"|<｜tool▁calls▁end｜>|</minimax:tool_call>|</function>|</tool_call>)*+"
)


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
    found = _syntax(text, places, Reader(limits))
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
    reader = Reader(limits)
    try:
        found = _syntax(text, Places(text, anywhere=True), reader)
    except DecodeError:
        return None
    if found is None or not found.calls or _TAIL.fullmatch(text, reader.end) is None:
        return None
    return found


def _syntax(text: str, places: Places, reader: Reader) -> Template | None:
    """The template syntax whose first marker `places` finds, read from there on;
    `reader.end` is left where its last call ends."""
    if "<|" in text:
        if (kimi := places.first_of((KIMI[0], *KIMI_SECTIONS))) is not None:
            reader.delimited(text[kimi[0] :], KIMI, "<|tool_calls_section_end|>")
            reader.end += kimi[0]
            return Template(kimi[1], tuple(reader.found))
        if (start := harmony.answer_start(text, places)) >= 0:
            rest = reader.harmony(text, start)
            if reader.found:
                return Template(harmony.CALL, tuple(reader.found))
            if places.first(harmony.CALL, start) >= 0:
                return Template(harmony.CALL)
            return Template(harmony.CALL, rest=rest)
    if "<｜" in text and (deepseek := places.first_of((DEEPSEEK[0], DEEPSEEK_SECTION))):
        reader.delimited(text[deepseek[0] :], DEEPSEEK, "<｜tool▁calls▁end｜>")
        reader.end += deepseek[0]
        return Template(deepseek[1], tuple(reader.found))
    if MINIMAX[0] in text and (minimax := places.first(MINIMAX[0])) >= 0:
        reader.minimax(text[minimax:])
        reader.end += minimax
        return Template(MINIMAX[0], tuple(reader.found))
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
    reader = Reader(limits)
    if stripped.startswith(FUNCTION):
        reader.functions(body, f"{where},")
    elif "<arg_key>" in body and stripped[:1] not in ("{", "["):
        reader.glm(body, where)
    else:
        return None
    return reader.found
