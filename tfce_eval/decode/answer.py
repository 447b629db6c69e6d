"""Turning any model answer into one list of calls (docs/decoding.md 4), without ever running
model text.

`decode_output(value)` accepts:

- an outputs-file record (a dict that may also hold "id", "category", "usage", "latency_s",
  "error"): the first present, non-null and non-empty of "raw", "calls", "tool_calls",
  "function_call", "content", "result", "text", "message", "choices", "output", "response"
  is decoded (a key whose value has an impossible type, such as a dict under "text", is
  passed over; under "calls", "tool_calls" or "function_call" it is a parse_error: calls
  malformed are never zero calls). An empty value is skipped so that an OpenAI message
  with `tool_calls: []` falls through to its text; when every present key is empty the
  model made no call;
- OpenAI Chat Completions messages and whole completions (first choice), with `tool_calls`
  (arguments a JSON string, a JSON string holding a JSON string of an object, "" / null for
  {}, or an object as Ollama sends it) or legacy `function_call`; tool calls win over text;
- Anthropic content blocks or Messages (`tool_use` blocks win over `text`; `thinking` and
  other block types are ignored), OpenAI Responses objects and `output` items
  (`function_call` items win over message text);
- plain lists of `{"name", "arguments"|"parameters"|"input"}` and BFCL's `[{"f": {args}}]`;
  a block typed as a call ("function", "tool_use", "function_call") that holds none is a
  parse_error, never dropped (a `type` that is not a string types nothing);
- SDK objects (anything with `model_dump()`) and `Call` records;
- text (see below).

Text answers. `<think>...</think>` reasoning (everything before the last `</think>`, or
after an unclosed `<think>`; `<seed:think>` too; gpt-oss's analysis channel) is dropped
first. Then, with the `[TOOL_CALLS]` / `<|python_tag|>` markers removed, in this order:

1. `<tool_call>` (or `<seed:tool_call>`) tags: each body must be one JSON call, Python call
   syntax, or Qwen3-Coder's or GLM's XML; all the tags together are the answer.
2. Code fences (```, with or without a language; an unclosed fence runs to the end): each
   block is decoded as a whole answer (3 and 4), but as a code part it is strict: a block
   that begins with a call or JSON and fails to parse is a parse_error, and a call in it may
   have any identifier as its name. A block that only mentions a call (`x = f(a=1)`, a
   formula like `20*log10(d)`) is an error only when no other part of the answer holds a
   call. Text outside the fences is looked at only when the blocks hold no call.
3. The whole answer: text that begins with `{`, `[{`, `[[` or `[]` is JSON (a Python literal
   such as `[{'name': 'f', 'arguments': {}}]` is read too); text that begins with `name(` or
   `[name(` is Python call syntax (`pyliteral.parse_calls`).
4. Otherwise, or when that fails, calls delimited inside prose: a bracketed list of calls or
   of JSON objects, or a JSON object that begins with "name", anywhere (e.g. after
   "调用如下："); a line that is a call or a JSON object (a list marker before and
   punctuation after are allowed); inline `code` that is a call. In prose only ASCII function
   names count, and JSON that is not call-shaped is data, not an error.
5. Before 1 to 4: a chat template's syntax, left in the text when a server's tool-call
   parser is off or fails (`templates`: Mistral's `[TOOL_CALLS]f[ARGS]{...}`, Llama's
   `<function=f>`, MiniMax, Kimi-K2, DeepSeek, gpt-oss's Harmony), from a marker anywhere
   outside code, when its calls parse and only white space and end-of-turn tokens follow
   them (the tail rule); a call followed by more prose is a mention, not a call.

The Chinese-prose rule: parentheses in prose never make a call by themselves.
"我无法计算（需要更多信息）" (full-width) is not Python at all. "我无法计算(需要更多信息)"
(ASCII) is Python syntax, but a non-ASCII name only counts as a call when the text parses as a
keyword call or sits in a code fence or tag: as a whole answer that fails to parse, or inside
prose, it is prose (zero calls); in a fence it is a parse_error (positional argument). An
answer that begins with an ASCII call head (`f(`, `[f(`) or with JSON and fails to parse is a
parse_error, as is any delimited call in prose that fails. Prose with no call attempt is zero
calls. A known tool-call marker in a template's position from which no call is read, or
whose calls do not parse, is a parse_error naming it, never zero calls, and so is a marker
in reasoning when the answer has no text (calls are never taken from reasoning).

Limits (`DecodeLimits`): a text or argument string longer than `max_chars` is refused before
anything else, and a structured answer holds at most `max_chars` characters (strings, keys
and names together) and `max_values` values (each counted when its container is reached, so
a list of millions is refused at once). Bracket nesting deeper than `max_depth` (containers;
an argument object is level 1) is refused by a linear scan before `json.loads` or
`ast.parse` runs; more than `max_calls` calls is a parse_error (Python text is checked by
counting `name(` before parsing). Python text also has an element budget
(`pyliteral.MAX_ITEMS`) so that parsing stays well under a second; integers have at most
`limits.MAX_INT_DIGITS` digits and numbers must be finite. A parse_error's message is at
most 500 characters. Argument values come out JSON-like (dicts with string keys, lists, str,
int, float, bool, None).
"""

from __future__ import annotations

from collections.abc import Mapping
from itertools import islice
from typing import TYPE_CHECKING, Any, cast

from tfce_eval.decode.limits import MAX_MESSAGE, DecodeError, DecodeLimits, clip, too_many
from tfce_eval.decode.plain import PARALLEL_WRAPPER, json_like, plain_copy, unwrap_parallel
from tfce_eval.decode.shapes import (
    TEXT_TYPES,
    block_kind,
    dump,
    is_empty,
    is_map,
    message_texts,
)
from tfce_eval.errors import HarnessError
from tfce_eval.jsonl import json_type
from tfce_eval.model import Call, DecodeResult

if TYPE_CHECKING:
    from tfce_eval.decode.text import TextDecoder

__all__ = ["DecodeError", "DecodeLimits", "decode_output"]

_RECORD_KEYS: tuple[tuple[str, tuple[type, ...]], ...] = (
    ("raw", (object,)),
    ("calls", (list, tuple)),
    ("tool_calls", (list, tuple)),
    ("function_call", (Mapping,)),
    ("content", (str, list, tuple)),
    ("result", (str, list, tuple, Mapping)),
    ("text", (str,)),
    ("message", (Mapping, str)),
    ("choices", (list, tuple)),
    ("output", (list, tuple, str)),
    ("response", (str, Mapping, list, tuple)),
)
DEFAULT_LIMITS = DecodeLimits()
_ARGUMENT_KEYS = ("arguments", "parameters", "input", "args")
_CALL_TYPES = frozenset({"tool_use", "function_call"})
#: OpenAI's tool call type: a call in a structured answer (in JSON text, where it may be
#: data in prose, only when it holds one: `maybe_call`).
_FUNCTION = "function"
#: The record keys that hold calls: a value of another type there is a malformed answer.
_CALL_KEYS = {
    "calls": "a list of calls",
    "tool_calls": "a list of calls",
    "function_call": "an object",
}


def decode_output(
    value: object,
    *,
    name_map: Mapping[str, str] | None = None,
    limits: DecodeLimits = DEFAULT_LIMITS,
    item_id: str | None = None,
) -> DecodeResult:
    """Decode one model answer into calls.

    `calls=()` means the model made no call; `calls=None` comes with an `error` that says what
    was wrong and where (the item's parse_error). Names found in `name_map` (wire name ->
    original name) are renamed.

    Raises HarnessError when the decoder itself fails (any exception other than a refusal of
    the answer): that is a bug in tfce-eval, never the model's error, so it is not turned into
    a parse_error. The message names the item (`item_id`, else the record's "id").
    """
    try:
        decoder = _Decoder(limits)
        calls = decoder.value(value, 0)
        if any(c.name == PARALLEL_WRAPPER for c in calls):
            calls = decoder.unwrapped(calls)
    except DecodeError as exc:
        return DecodeResult(calls=None, error=clip(str(exc), MAX_MESSAGE))
    except RecursionError:
        return DecodeResult(calls=None, error="answer too deeply nested to read")
    except MemoryError:
        return DecodeResult(calls=None, error="answer too large to read")
    except Exception as exc:
        raise HarnessError(_harness_message(value, item_id, exc)) from exc
    if len(calls) > limits.max_calls:
        return DecodeResult(calls=None, error=too_many(limits))
    if name_map:
        calls = [Call(name_map.get(c.name, c.name), c.arguments) for c in calls]
    return DecodeResult(calls=tuple(calls))


def _harness_message(value: object, item_id: str | None, exc: Exception) -> str:
    if item_id is None and isinstance(value, Mapping):
        found = value.get("id")
        item_id = str(found) if isinstance(found, str | int) else None
    which = f"item {item_id}" if item_id is not None else "an answer without an id"
    detail = f"{type(exc).__name__}: {exc}"
    if len(detail) > 200:
        detail = detail[:199] + "…"
    return (
        f"{which}: decoding the answer failed inside tfce-eval ({detail}); this is a bug in "
        "tfce-eval, not an error of the model: please report it with this answer"
    )


class _Decoder:
    def __init__(self, limits: DecodeLimits) -> None:
        self.limits = limits
        self._texts: TextDecoder | None = None
        #: What the structured parts of the answer may still hold (text is bounded by its
        #: length): characters of strings, keys and names, and values (each list item and
        #: member counted when its container is reached, before it is read).
        self.chars = limits.max_chars
        self.values = limits.max_values

    @property
    def texts(self) -> TextDecoder:
        """The text decoder, made (and its module imported) for the first text met: an
        answer of structured calls never needs it."""
        if self._texts is None:
            from tfce_eval.decode.text import TextDecoder

            self._texts = TextDecoder(self.limits, self.maybe_call)
        return self._texts

    def spend(self, values: int, chars: int = 0) -> None:
        self.values -= values
        self.chars -= chars
        if self.values < 0:
            raise DecodeError(
                f"answer too large: its structured parts hold more than "
                f"{self.limits.max_values} values"
            )
        if self.chars < 0:
            raise DecodeError(
                f"answer too large: its structured parts hold more than "
                f"{self.limits.max_chars} characters"
            )

    # ---- structures -------------------------------------------------------------------

    def value(self, value: object, depth: int) -> list[Call]:
        if depth > self.limits.max_depth:
            raise DecodeError(f"answer nests deeper than {self.limits.max_depth} levels")
        value = dump(value)
        if value is None:
            return []
        if type(value) is dict:  # the usual cases first; the chain below decides the rest
            return self.mapping(value, depth)
        if type(value) is list:
            return self.sequence(value, depth)
        if isinstance(value, Call):
            return [Call(value.name, self.arguments(dict(value.arguments), value.name))]
        if isinstance(value, str):
            return self.texts.text(value)
        if isinstance(value, Mapping):
            return self.mapping(value, depth)
        if isinstance(value, list | tuple):
            return self.sequence(value, depth)
        raise DecodeError(f"cannot read an answer that is {json_type(value)}")

    def mapping(self, d: Mapping[str, Any], depth: int) -> list[Call]:
        kind = block_kind(d)
        if kind in TEXT_TYPES and isinstance(d.get("text"), str):
            return self.texts.text(d["text"])
        if kind == "message":  # an Anthropic Message or a Responses message item
            return self.value(d.get("content"), depth + 1)
        if d.get("object") == "response" and isinstance(d.get("output"), list):
            return self.value(d["output"], depth + 1)
        if kind in _CALL_TYPES or kind == _FUNCTION or is_map(d.get("function")):
            return [self.call(d)]
        present = False
        for key, types in _RECORD_KEYS:
            if key not in d:
                continue
            present = True
            item = d[key]
            if item is None or is_empty(item):
                continue
            if not isinstance(item, types):
                if key in _CALL_KEYS:  # calls malformed, not calls absent: never zero calls
                    raise DecodeError(f"{key} is {json_type(item)}, not {_CALL_KEYS[key]}")
                continue
            if key == "choices":
                item = cast("list[Any]", item)[0]
            elif key == "function_call":
                return [self.call({"function": item})]
            return self.value(item, depth + 1)
        if present:
            if "reasoning_content" in d or "reasoning" in d:
                from tfce_eval.decode.templates import refuse_reasoning_calls

                refuse_reasoning_calls(d)
            return []
        call = self.maybe_call(d)
        if call is not None:
            return [call]
        if kind is not None:
            return []  # a block that holds no call: thinking, reasoning, refusal, image...
        keys = ", ".join(sorted(clip(str(k)) for k in islice(d, 1000))[:12])
        if d.get("error") is not None:
            raise DecodeError(f"the record holds no answer, only an error: {d['error']}")
        raise DecodeError(
            f"no answer found in an object with keys {keys}; expected calls, tool_calls, "
            f"content or text"
        )

    def sequence(self, items: list[Any] | tuple[Any, ...], depth: int) -> list[Call]:
        calls: list[Call] = []
        texts: list[str] = []
        native = False
        self.spend(len(items))
        for index, raw in enumerate(items, 1):
            item = dump(raw)
            if isinstance(item, Call):
                calls.extend(self.value(item, depth + 1))
                native = True
            elif isinstance(item, str):
                texts.append(item)
            elif type(item) is dict or isinstance(item, Mapping):
                kind = block_kind(item)
                if kind in TEXT_TYPES:
                    if isinstance(item.get("text"), str):
                        texts.append(item["text"])
                    continue
                if kind == "message":
                    texts.extend(message_texts(item.get("content")))
                    continue
                call = self.call(item) if kind == _FUNCTION else self.maybe_call(item)
                if call is not None:
                    calls.append(call)
                    native = True
                elif kind is None:
                    keys = ", ".join(sorted(clip(str(k)) for k in islice(item, 1000))[:12])
                    raise DecodeError(f"item {index} of the list is not a call (keys: {keys})")
            else:
                raise DecodeError(f"item {index} of the list is {json_type(item)}, not a call")
            if len(calls) > self.limits.max_calls:
                raise DecodeError(too_many(self.limits))
        if native:
            return calls
        return self.texts.text("\n".join(texts)) if texts else []

    def unwrapped(self, calls: list[Call]) -> list[Call]:
        """`calls` with each `multi_tool_use.parallel` wrapper replaced by the calls it wraps,
        in whatever form the answer came (a tool call, JSON text, a tag)."""
        out: list[Call] = []
        for call in calls:
            inner = unwrap_parallel(call.arguments) if call.name == PARALLEL_WRAPPER else None
            if inner is None:
                out.append(call)
            else:
                out.extend(self.named_call(name, args) for name, args in inner)
        return out

    def maybe_call(self, d: Mapping[str, Any]) -> Call | None:
        """The call a dict holds, or None when it has no call shape."""
        kind = block_kind(d)
        if kind in _CALL_TYPES or is_map(d.get("function")):
            return self.call(d)
        if isinstance(d.get("name"), str) and "role" not in d and kind in (None, "function"):
            return self.call(d)
        if len(d) == 1:  # BFCL: {"f": {"a": 1}}
            ((name, args),) = d.items()
            if name == "tool_call" and is_map(args) and isinstance(args.get("name"), str):
                return self.call(args)  # llama.cpp's generic format: {"tool_call": {call}}
            if is_map(args) or (isinstance(args, str) and args.lstrip().startswith("{")):
                return self.named_call(name, args)
        return None

    def call(self, d: Mapping[str, Any]) -> Call:
        function = d.get("function")
        source: Mapping[str, Any] = d["function"] if is_map(function) else d
        if source is d and not isinstance(d.get("name"), str):
            # A tool call whose function is missing or broken is malformed: dropping it
            # would turn a wrong number of calls into a right one.
            if "function" in d:
                raise DecodeError(
                    f"a tool call's function is {json_type(function)}, not an object with "
                    f"its name and arguments"
                )
            if d.get("type") == _FUNCTION:
                raise DecodeError(
                    'a tool call of type "function" has no "function" object (its name and '
                    "arguments)"
                )
        raw = None
        for key in _ARGUMENT_KEYS:
            if key in source:
                raw = source[key]
                break
        return self.named_call(source.get("name"), raw)

    def named_call(self, name: object, raw: object) -> Call:
        """The call of `name` with the arguments `raw` (an object, a JSON string, None)."""
        if not isinstance(name, str) or not name.strip():
            got = repr(name) if isinstance(name, str) else json_type(name)
            raise DecodeError(f"a call has no function name (got {got})")
        self.spend(1, len(name))
        return Call(name=name, arguments=self.arguments(raw, clip(name)))

    def arguments(self, raw: object, name: str) -> dict[str, Any]:
        raw = dump(raw)
        if isinstance(raw, str):
            if not raw.strip():
                return {}
            from tfce_eval.decode.text import load_json

            raw = load_json(raw, f"the arguments of {name}", self.limits)
            if isinstance(raw, str):  # a JSON string holding the JSON object: decode once more
                where = f"the arguments of {name}"
                raw = load_json(raw, where, self.limits) if raw.strip() else {}
        if raw is None:
            return {}
        if type(raw) is dict:  # the usual answer: plain JSON, checked and copied leanly
            counts = [0, 0]
            copied = plain_copy(raw, 1, self.limits.max_depth, counts)
            if copied is not None and counts[0] <= self.values and counts[1] <= self.chars:
                self.values -= counts[0]
                self.chars -= counts[1]
                return cast("dict[str, Any]", copied)
        if not isinstance(raw, Mapping):
            raise DecodeError(f"the arguments of {name} must be an object, not {json_type(raw)}")
        arguments: dict[str, Any] = json_like(raw, 1, name, self.limits.max_depth, self.spend)
        return arguments
