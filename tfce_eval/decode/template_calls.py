"""Cutting the text of a chat template's calls into raw calls, one syntax at a time.

`Reader` knows each syntax `templates` finds (Mistral's `[TOOL_CALLS]`, Llama's and
Qwen3-Coder's `<function=...>`, MiniMax's and GLM's XML, Kimi-K2's and DeepSeek's special
tokens, gpt-oss's Harmony messages): it collects each call's name and its arguments as
written, refusing more calls or parameters than the limits allow, and keeps where the last
call ends (for the tail rule). Nothing here parses JSON: `text.TextDecoder` does that.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from tfce_eval.decode import harmony
from tfce_eval.decode.brackets import BracketError, match_end
from tfce_eval.decode.limits import DecodeError, DecodeLimits, clip, too_many
from tfce_eval.decode.textparts import MISTRAL, fenced_blocks, tag_bodies

FUNCTION = "<function="
KIMI_SECTIONS = ("<|tool_calls_section_begin|>", "<|tool_call_section_begin|>")
KIMI = ("<|tool_call_begin|>", "<|tool_call_argument_begin|>", "<|tool_call_end|>")
DEEPSEEK_SECTION = "<｜tool▁calls▁begin｜>"
DEEPSEEK = ("<｜tool▁call▁begin｜>", "<｜tool▁sep｜>", "<｜tool▁call▁end｜>")
MINIMAX = ("<minimax:tool_call>", "</minimax:tool_call>")
#: Longest function or parameter name read before its closing ">".
_MAX_NAME = 200
# After [TOOL_CALLS]: a name, an optional [CALL_ID]id, an optional [ARGS], then "{".
_MISTRAL_HEAD = re.compile(
    r"\s*+([^\s\[\]{}()<>\"',;:]++)[ \t]*+"
    r"(?:\[CALL_ID\][ \t]*+[^\s\[{]*+[ \t]*+)?(?:\[ARGS\][ \t]*+)?(?=\{)"
)


@dataclass(frozen=True)
class RawCall:
    """A call as written: `arguments` is the JSON text of the arguments object, or the
    parameters of an XML syntax as (name, text) pairs in order."""

    where: str
    name: str
    arguments: str | tuple[tuple[str, str], ...]


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


class Reader:
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
        for block in tag_bodies(text, *MINIMAX):
            start = block.end - len(block.text)
            for invoke in tag_bodies(block.text, "<invoke name=", "</invoke>"):
                where = self.where(MINIMAX[0])
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
            name = _kimi_name(head) if begin == KIMI[0] else head.strip()
            start = part.end - len(part.text)
            fenced_v3 = begin == DEEPSEEK[0] and name == "function"
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
