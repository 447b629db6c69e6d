"""The bounds of decoding and the error a refused answer raises (docs/decoding.md 4, "Limits").

Kept apart so that the structure decoder (`answer`) and the text decoder (`text`) both
depend on it and not on each other.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

#: Longest message kept of a refused answer (a parse_error), or of a checked one.
MAX_MESSAGE = 500
#: Longest name (of a function, a parameter, a key) a checker's message quotes from an
#: answer, as long as a value it shows (`model.show_value`).
MAX_NAME = 80
#: Largest integer accepted anywhere in an answer, in decimal digits.
MAX_INT_DIGITS = 1000
#: The bit length of the largest such integer (a cheap first test, and power estimates).
MAX_INT_BITS = math.ceil(MAX_INT_DIGITS * math.log2(10))
_INT_BOUND = 10**MAX_INT_DIGITS


@dataclass(frozen=True, slots=True)
class DecodeLimits:
    """Bounds that keep decoding fast and safe on hostile or broken answers."""

    #: Characters of a text answer, of an arguments string, and of all the strings, keys and
    #: names of a structured answer together.
    max_chars: int = 2_000_000
    #: Nesting of containers (an argument object is level 1).
    max_depth: int = 64
    #: Calls in one answer.
    max_calls: int = 256
    #: Values and list items of a structured answer together (Python text has its own
    #: element budget, `pyliteral.MAX_ITEMS`, of the same size).
    max_values: int = 100_000


class DecodeError(Exception):
    """A parse_error; its text is the message the user sees."""


def too_many(limits: DecodeLimits) -> str:
    return f"more than {limits.max_calls} calls in one answer"


def check_size(text: str, what: str, limits: DecodeLimits) -> None:
    if len(text) > limits.max_chars:
        raise DecodeError(f"{what} too large: {len(text)} characters, limit {limits.max_chars}")


def int_fits(value: int) -> bool:
    """True when `value` has at most MAX_INT_DIGITS decimal digits (checked by bit length)."""
    return value.bit_length() <= MAX_INT_BITS and -_INT_BOUND < value < _INT_BOUND


def number_problem(value: int | float) -> str | None:
    """Why a number cannot be an argument value (too many digits, not finite), or None."""
    if isinstance(value, int):
        return None if int_fits(value) else f"integer with more than {MAX_INT_DIGITS} digits"
    return None if math.isfinite(value) else f"number out of range ({value} is not finite)"


def clip(text: str, limit: int = 60) -> str:
    """A name or a message cut to `limit` characters, so that what is shown stays bounded."""
    return text if len(text) <= limit else text[: limit - 1] + "…"
