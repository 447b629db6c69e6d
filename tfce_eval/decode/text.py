"""Decoding text answers: tags, code fences, whole-answer JSON or Python, calls in prose.

The rules are stated in `tfce_eval.decode.answer`'s docstring; `textparts` finds the pieces,
`pyliteral` reads Python call syntax, and JSON objects are turned into calls by the
structure decoder passed in as `call_of`.
"""

from __future__ import annotations

import json
import math
from collections.abc import Callable, Mapping
from typing import Any

from tfce_eval.decode import harmony, templates, textparts
from tfce_eval.decode.brackets import check_depth
from tfce_eval.decode.limits import (
    MAX_INT_DIGITS,
    DecodeError,
    DecodeLimits,
    check_size,
    too_many,
)
from tfce_eval.decode.pyliteral import LiteralError, parse_calls, parse_literal
from tfce_eval.decode.template_calls import RawCall
from tfce_eval.model import Call

_CALL_LIST_KEYS = ("tool_calls", "calls", "function_calls")
#: First characters of the XML parameter values that may be JSON (numbers, true, {...}).
_JSON_FIRST = frozenset('{["-0123456789tfn')


class NotACall(DecodeError):
    """JSON that parsed but has no call shape: an error in a code part, data in prose."""


class WeakAttempt(DecodeError):
    """A code block that mentions a call but does not begin with one (`x = f(a=1)`, a formula
    such as `20*log10(d)`): an error only when no other part of the answer holds a call."""


class _JsonSyntaxError(DecodeError):
    """Text that is not JSON (as opposed to JSON refused for its size or depth)."""


def _refuse_constant(name: str) -> Any:
    raise ValueError(f"{name} is not a number JSON allows")


def _bounded_int(digits: str) -> int:
    if len(digits.lstrip("-")) > MAX_INT_DIGITS:
        raise ValueError(f"integer with more than {MAX_INT_DIGITS} digits")
    return int(digits)


def load_json(text: str, where: str, limits: DecodeLimits) -> Any:
    """`json.loads` behind the size and depth checks; NaN, Infinity and huge integers refused."""
    check_size(text, where, limits)
    problem = check_depth(text, limits.max_depth)
    if problem is not None:
        raise DecodeError(f"{where}: {problem.message}")
    try:
        return json.loads(text, parse_constant=_refuse_constant, parse_int=_bounded_int)
    except json.JSONDecodeError as exc:
        # json's own message may already end in "at" ("Unterminated string starting at").
        reason = exc.msg[: -len(" at")] if exc.msg.endswith(" at") else exc.msg
        raise _JsonSyntaxError(
            f"{where} is not valid JSON: {reason} at line {exc.lineno}, column {exc.colno}"
        ) from None
    except (ValueError, RecursionError, MemoryError) as exc:
        raise DecodeError(f"{where} is not valid JSON: {exc}") from None


def _finite(value: Any) -> bool:
    """False when a number in the JSON value is not finite (`1e999` parses as inf)."""
    if isinstance(value, float):
        return math.isfinite(value)
    if isinstance(value, dict):
        return all(_finite(item) for item in value.values())
    if isinstance(value, list):
        return all(_finite(item) for item in value)
    return True


class TextDecoder:
    """Reads one text answer; `call_of` turns a JSON object into a call or None."""

    def __init__(
        self, limits: DecodeLimits, call_of: Callable[[Mapping[str, Any]], Call | None]
    ) -> None:
        self.limits = limits
        self.call_of = call_of

    def text(self, text: str) -> list[Call]:
        """Reasoning dropped; template calls that end the text (the tail rule) are the
        answer before anything else; then the plain steps (4.3, steps 1 to 4); then, when
        those find no call, the calls of a marker in a template's position (a parse_error
        when they cannot be read); a marker that prose mentions in mid-sentence is nothing."""
        check_size(text, "answer", self.limits)
        text, unended = textparts.split_reasoning(text)
        text = harmony.drop_analysis(text)
        tail = templates.read_tail(text, self.limits)
        if tail is not None:
            try:
                return [self.raw_call(raw) for raw in tail.calls]
            except DecodeError:
                pass  # calls that do not parse: the plain steps decide
        calls, failure = self.plain_first(text)
        if calls:
            return calls
        found = templates.read(text, self.limits)
        if found is not None:
            if found.calls:
                # Calls in a template's place are the answer even when more follows (a
                # server that ran past its stop token: "</s>[INST]", "<|eot_id|>assistant").
                # One that does not parse is an error naming its marker.
                return [self.raw_call(raw) for raw in found.calls]
            elif found.rest is not None:  # a Harmony answer with no call: what it says
                calls = self.text(found.rest)
                if calls or failure is None:
                    return calls
            elif failure is None or found.marker not in str(failure):
                # A marker with no call read from it is a harness failure, never zero calls.
                detail = "" if failure is None else f": {failure}"
                raise DecodeError(
                    f"the answer holds the tool-call marker {found.marker} but no call "
                    f"could be read from it{detail}"
                )
        if failure is not None:
            raise failure
        if unended and (marker := templates.marker_in(unended)) is not None:
            raise DecodeError(
                f"the tool-call marker {marker} is in reasoning that never ends (<think> "
                f"with no </think>): the calls are in the reasoning, and calls are never "
                f"taken from reasoning"
            )
        return calls

    def plain_first(self, text: str) -> tuple[list[Call], DecodeError | None]:
        """The plain steps' calls, or their failure, with `[TOOL_CALLS]` and `<|python_tag|>`
        removed; when that fails, the text as written is read too, as the markers may be in
        a string argument (`{"name": "f", "arguments": {"s": "[TOOL_CALLS]"}}`)."""
        stripped = textparts.strip_markers(text)
        try:
            return self.plain(stripped), None
        except DecodeError as exc:
            if stripped == text:
                return [], exc
            failure = exc
        try:
            return self.plain(text), failure
        except DecodeError:
            return [], failure

    def plain(self, text: str) -> list[Call]:
        """Tags, fences, whole-answer JSON or Python, calls in prose (4.3, steps 1 to 4)."""
        for opener, closer in textparts.TAGS:
            if opener in text:
                calls: list[Call] = []
                for part in textparts.tag_bodies(text, opener, closer):
                    calls.extend(self.tag_body(part, opener))
                    if len(calls) > self.limits.max_calls:
                        raise DecodeError(too_many(self.limits))
                return calls
        blocks, outside = textparts.fenced_blocks(text)
        if not blocks:
            return self.block(text, None)
        calls = []
        weak: WeakAttempt | None = None
        for part in blocks:
            try:
                calls.extend(self.block(part.text, f"code block at line {part.line}"))
            except WeakAttempt as exc:
                weak = weak or exc
        if calls:
            return calls
        calls = self.block(outside, None)
        if calls or weak is None:
            return calls
        raise weak

    def tag_body(self, part: textparts.Part, tag: str) -> list[Call]:
        where = f"{tag} at line {part.line}"
        body = part.text
        raws = templates.tag_calls(body, where, self.limits)
        if raws is not None:
            return [self.raw_call(raw) for raw in raws]
        blocks, _ = textparts.fenced_blocks(body)
        if blocks:
            body = blocks[0].text
        body = body.strip()
        if not body:
            raise DecodeError(f"{where}: the tag is empty")
        if textparts.starts_like_json(body):
            return self.json_text(body, where)
        if textparts.call_head(body) is not None:
            return self.python(body, where)
        raise DecodeError(f"{where}: the tag holds neither a JSON call nor a call like f(a=1)")

    def raw_call(self, raw: RawCall) -> Call:
        """A call read from a template syntax: JSON arguments, or XML parameters whose
        values are JSON when they parse as JSON and strings otherwise."""
        try:
            if isinstance(raw.arguments, str):
                arguments: object = raw.arguments
            else:
                values: dict[str, Any] = {}
                for name, value in raw.arguments:
                    if name in values:
                        raise DecodeError(f"parameter {name!r} is given twice")
                    values[name] = self.parameter(value, f"parameter {name!r}")
                arguments = values
            call = self.call_of({"name": raw.name, "arguments": arguments})
        except DecodeError as exc:
            raise DecodeError(f"{raw.where}: {exc}") from None
        if call is None:  # cannot happen: a dict with a string name is a call
            raise DecodeError(f"{raw.where}: not a call")
        return call

    def parameter(self, value: str, where: str) -> Any:
        """A parameter value written as text: JSON when it parses as JSON (a number,
        true/false, null, an object, a list, a quoted string), else the text itself with
        the line breaks around it removed. JSON refused for its size, depth or numbers
        (`-Infinity`, `1e999`, an integer of 5000 digits) is text too."""
        value = value.strip("\r\n")
        stripped = value.strip()
        if stripped[:1] in _JSON_FIRST:
            try:
                parsed = load_json(stripped, where, self.limits)
            except DecodeError:
                return value
            if _finite(parsed):
                return parsed
        return value

    def block(self, text: str, where: str | None) -> list[Call]:
        """Decode a whole answer (`where` None) or a fenced code block (`where` names it)."""
        text = textparts.unwrap_inline_code(text.strip())
        if not text:
            return []
        label = where or "answer"
        failure: DecodeError | None = None
        attempt = where is not None
        if textparts.starts_like_json(text):
            attempt = True
            try:
                return self.json_text(text, label)
            except DecodeError as exc:
                failure = exc
        elif (head := textparts.call_head(text)) is not None:
            attempt = attempt or head.isascii()
            try:
                return self.python(text, label)
            except DecodeError as exc:
                failure = exc
        elif where is not None and textparts.mentions_call(text):
            try:
                return self.python(text, label)
            except DecodeError as exc:
                failure = WeakAttempt(str(exc))
        calls, found = self.prose(text, where)
        if found:
            return calls
        if failure is not None and attempt:
            raise failure
        return []

    def prose(self, text: str, where: str | None) -> tuple[list[Call], bool]:
        calls: list[Call] = []
        found = False
        prefix = f"{where}, " if where else ""
        for candidate in textparts.candidates(text, self.limits.max_depth):
            if not isinstance(candidate, textparts.Candidate):
                raise DecodeError(f"{prefix}{candidate.message}")
            label = f"{prefix}call at line {candidate.line}"
            if candidate.kind == "python":
                calls.extend(self.python(candidate.text, label))
            else:
                try:
                    calls.extend(self.json_text(candidate.text, label))
                except NotACall:
                    continue  # JSON in prose that is not a call is just data
            found = True
            if len(calls) > self.limits.max_calls:
                raise DecodeError(too_many(self.limits))
        return calls, found

    def python(self, text: str, where: str) -> list[Call]:
        try:
            calls = parse_calls(
                text, max_depth=self.limits.max_depth, max_calls=self.limits.max_calls
            )
        except LiteralError as exc:
            raise DecodeError(f"{where}: {exc}") from None
        return list(calls)

    def json_text(self, text: str, where: str) -> list[Call]:
        try:
            value = load_json(text, where, self.limits)
        except _JsonSyntaxError as json_failure:
            try:  # single quotes, True/None: a Python literal is read by the same safe rules
                value = parse_literal(text, max_depth=self.limits.max_depth)
            except LiteralError:
                raise json_failure from None
        return self.json_calls(value, where)

    def json_calls(self, value: Any, where: str) -> list[Call]:
        if isinstance(value, list):
            calls: list[Call] = []
            for index, item in enumerate(value, 1):
                call = self.call_of(item) if isinstance(item, Mapping) else None
                if call is None:
                    raise NotACall(f"{where}: item {index} of the JSON list is not a call")
                calls.append(call)
                if len(calls) > self.limits.max_calls:
                    raise DecodeError(too_many(self.limits))
            return calls
        if isinstance(value, Mapping):
            if len(value) == 1 and isinstance(value.get("response"), str):
                return self.text(value["response"])  # llama.cpp's generic format: text
            for key in _CALL_LIST_KEYS:
                if isinstance(value.get(key), list):
                    return self.json_calls(value[key], where)
            call = self.call_of(value)
            if call is not None:
                return [call]
        raise NotACall(
            f'{where}: the JSON is not a call: expected {{"name": ..., "arguments": {{...}}}} '
            f"or a list of such objects"
        )
