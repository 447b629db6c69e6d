"""Argument values checked and copied: the full walk, and a lean pass for plain JSON.

`json_like` walks any argument value: it refuses what is not JSON-like (a key that is not
a string, a set, a number too long or not finite, nesting past the limit), spends the
decoder's budgets as it goes, and returns a copy made of dicts, lists and scalars.

Answers read from JSON (an outputs file, an SDK's parsed arguments) nearly always hold plain
values: dicts with string keys, lists, strings, small integers, finite floats, booleans and
null, nested a few levels. `plain_copy` copies such a value and counts what the structure
decoder's budgets count (values: the members and items of containers; characters: keys and
strings). It gives up (None) at the first thing the full walk (`json_like`)
would have to judge: another type, a key that is not a string, an integer of more than 64
bits, a number that is not finite, nesting past the limit. The caller then runs the full
walk, which says what is wrong in its own words: the lean pass changes no verdict and no
message, it only spares the full walk's bookkeeping for the usual answer.

`unwrap_parallel` reads the calls inside `multi_tool_use.parallel`, the wrapper some OpenAI
models leak around parallel calls (docs/decoding.md 4.2).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from math import isfinite
from typing import Any

from tfce_eval.decode.limits import DecodeError, clip, number_problem

#: Integers up to this many bits are accepted here; longer ones (rare) go to the full walk,
#: which counts their digits.
_SMALL_INT_BITS = 64


def plain_copy(value: Any, depth: int, max_depth: int, counts: list[int]) -> Any:
    """A copy of the dict or list `value` (at container `depth`), or None to give up.

    Adds to `counts` the values ([0]) and characters ([1]) the full walk would spend.
    """
    if depth > max_depth:
        return None
    chars = 0
    if type(value) is dict:
        counts[0] += len(value)
        out: dict[str, Any] = {}
        for key, item in value.items():
            if type(key) is not str:
                return None
            chars += len(key)
            kind = type(item)
            if kind is str:
                chars += len(item)
            elif kind is int:
                if item.bit_length() > _SMALL_INT_BITS:
                    return None
            elif kind is float:
                if not isfinite(item):
                    return None
            elif kind is dict or kind is list:
                item = plain_copy(item, depth + 1, max_depth, counts)
                if item is None:
                    return None
            elif item is not None and kind is not bool:
                return None
            out[key] = item
        counts[1] += chars
        return out
    if type(value) is not list:
        return None
    counts[0] += len(value)
    items: list[Any] = []
    for item in value:
        kind = type(item)
        if kind is str:
            chars += len(item)
        elif kind is int:
            if item.bit_length() > _SMALL_INT_BITS:
                return None
        elif kind is float:
            if not isfinite(item):
                return None
        elif kind is dict or kind is list:
            item = plain_copy(item, depth + 1, max_depth, counts)
            if item is None:
                return None
        elif item is not None and kind is not bool:
            return None
        items.append(item)
    counts[1] += chars
    return items


def json_like(
    value: Any, depth: int, where: str, max_depth: int, spend: Callable[[int, int], None]
) -> Any:
    """A checked copy of an argument value; `depth` counts containers, arguments being 1.

    `spend(values, chars)` takes from the decoder's budgets (and raises when one runs out).
    """
    if isinstance(value, Mapping | list | tuple) and depth > max_depth:
        raise DecodeError(f"{where}: values nest deeper than {max_depth} levels")
    if isinstance(value, str):
        spend(0, len(value))  # the value itself was counted with its container
        return value
    if value is None or isinstance(value, bool):
        return value
    if isinstance(value, int | float):
        problem = number_problem(value)
        if problem is not None:
            raise DecodeError(f"{where}: {problem}")
        return value
    if isinstance(value, Mapping):
        spend(len(value), 0)
        result: dict[str, Any] = {}
        for key, item in value.items():
            if not isinstance(key, str):
                raise DecodeError(f"{where}: object key {clip(repr(key))} is not a string")
            spend(0, len(key))
            result[key] = json_like(item, depth + 1, f"{where}.{clip(key)}", max_depth, spend)
        return result
    if isinstance(value, list | tuple):
        spend(len(value), 0)
        return [json_like(item, depth + 1, where, max_depth, spend) for item in value]
    raise DecodeError(f"{where}: {type(value).__name__} is not a JSON value")


#: The one call some OpenAI models wrap parallel calls in, leaked from ChatGPT's tools.
PARALLEL_WRAPPER = "multi_tool_use.parallel"


def unwrap_parallel(arguments: Mapping[str, Any]) -> list[tuple[object, object]] | None:
    """The (name, arguments) of each call inside `multi_tool_use.parallel`'s arguments,
    `{"tool_uses": [{"recipient_name": "functions.f", "parameters": {...}}, ...]}`, the
    `functions.` prefix removed; None when they are not in that shape."""
    uses = arguments.get("tool_uses")
    if not isinstance(uses, list) or not uses:
        return None
    calls: list[tuple[object, object]] = []
    for use in uses:
        if not isinstance(use, Mapping) or not isinstance(use.get("recipient_name"), str):
            return None
        name = use["recipient_name"]
        calls.append((name.removeprefix("functions."), use.get("parameters")))
    return calls
