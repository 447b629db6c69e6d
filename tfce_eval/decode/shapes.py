"""The pieces of a structured answer the decoder asks about (docs/decoding.md 4.2): SDK
objects as the dicts they serialise to, what a block's type is, which values are empty,
and the text of a Responses message item. Nothing here reads a call; `answer` does.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from tfce_eval.model import Call

#: The types of a block that holds text.
TEXT_TYPES = frozenset({"text", "output_text"})

#: The types `dump` passes as they are (by exact type first: isinstance costs more).
_PLAIN = frozenset({str, int, float, bool, list, tuple, dict, Call})


def is_map(value: object) -> bool:
    """isinstance(value, Mapping), asked cheaply of dicts and None first."""
    return type(value) is dict or (value is not None and isinstance(value, Mapping))


def dump(value: object) -> object:
    """SDK objects (pydantic models) become the dicts they serialise to."""
    if type(value) in _PLAIN or value is None:
        return value
    if isinstance(value, str | int | float | bool | list | tuple | dict | Call):
        return value
    serialise = getattr(value, "model_dump", None)
    if callable(serialise):
        try:
            return serialise(mode="json")
        except TypeError:  # a model_dump() without pydantic's keyword
            return serialise()
    return value


def block_kind(block: Mapping[str, Any]) -> str | None:
    """A block's type, when it is a string. Otherwise None: the object is then read by its
    other keys, as one without a type is (`{"type": {"a": 1}}` is BFCL's call of a function
    named `type`; anything else that holds no call is refused as an object with no call)."""
    kind = block.get("type")
    return kind if isinstance(kind, str) else None


def is_empty(value: object) -> bool:
    """Blank text, or an empty list or object: a record key holding it is passed over."""
    if isinstance(value, str):
        return not value.strip()
    return isinstance(value, list | tuple | Mapping) and not value


def message_texts(content: object) -> list[str]:
    """The texts of a message item's content: a string, or its text parts in order."""
    if isinstance(content, str):
        return [content]
    if isinstance(content, list | tuple):
        return [
            part["text"]
            for part in content
            if isinstance(part, Mapping)
            and isinstance(part.get("type"), str)
            and part["type"] in TEXT_TYPES
            and isinstance(part.get("text"), str)
        ]
    return []
