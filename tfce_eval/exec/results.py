"""What a function may return: JSON-like data, at most MAX_RESULT_BYTES of it as JSON.

Used in the worker, where a result is converted (and refused as soon as it is too big,
before a copy of it is made), and by the pool, which never reads a larger reply.
"""

from __future__ import annotations

from typing import Any

#: How deep a result may nest before it is refused (also stops cyclic lists).
MAX_RESULT_DEPTH = 100
#: The largest result a call may return, as UTF-8 JSON: a bigger one is an error.
MAX_RESULT_BYTES = 1_000_000


class ResultTooLarge(ValueError):
    """A result larger than MAX_RESULT_BYTES (found while it is converted, not after)."""


def size_error() -> ResultTooLarge:
    return ResultTooLarge(f"returned a result larger than {MAX_RESULT_BYTES:,} bytes of JSON")


def to_json_like(value: Any, depth: int = 0, budget: list[int] | None = None) -> Any:
    """`value` as plain JSON-like data (tuples become lists); TypeError/ValueError if it is not.

    `budget`: a one-element list of the bytes still allowed; each part found is charged
    (roughly its JSON size), and ResultTooLarge is raised as soon as it runs out, so a huge
    result is refused before a copy of it is made.
    """
    if budget is None:
        budget = [MAX_RESULT_BYTES]
    if depth > MAX_RESULT_DEPTH:
        raise ValueError(f"nested deeper than {MAX_RESULT_DEPTH} levels")
    if value is None or isinstance(value, bool):
        budget[0] -= 5
        out_value: Any = value
    elif isinstance(value, int):
        budget[0] -= 2 + value.bit_length() // 3
        out_value = int(value)
    elif isinstance(value, float):
        budget[0] -= 24
        out_value = float(value)
    elif isinstance(value, str):
        budget[0] -= 2 + len(value)
        if budget[0] < 0:
            raise size_error()
        out_value = str(value)
    elif isinstance(value, list | tuple):
        budget[0] -= 2 + len(value)
        if budget[0] < 0:
            raise size_error()
        out_value = [to_json_like(v, depth + 1, budget) for v in value]
    elif isinstance(value, dict):
        budget[0] -= 2 + len(value)
        if budget[0] < 0:
            raise size_error()
        out: dict[str, Any] = {}
        for key, item in value.items():
            if not isinstance(key, str):
                raise TypeError(f"a dict key is {type(key).__name__} {key!r}, not a string")
            budget[0] -= 4 + len(key)
            out[str(key)] = to_json_like(item, depth + 1, budget)
        out_value = out
    else:
        raise TypeError(f"{type(value).__name__} is not JSON-like")
    if budget[0] < 0:
        raise size_error()
    return out_value
