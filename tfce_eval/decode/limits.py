"""The bounds of decoding and the error a refused answer raises (SPEC 4, "Limits").

Kept apart so that the structure decoder (`answer`) and the text decoder (`text`) both
depend on it and not on each other.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class DecodeLimits:
    """Bounds that keep decoding fast and safe on hostile or broken answers."""

    max_chars: int = 2_000_000
    max_depth: int = 64
    max_calls: int = 256


class DecodeError(Exception):
    """A parse_error; its text is the message the user sees."""


def too_many(limits: DecodeLimits) -> str:
    return f"more than {limits.max_calls} calls in one answer"


def check_size(text: str, what: str, limits: DecodeLimits) -> None:
    if len(text) > limits.max_chars:
        raise DecodeError(f"{what} too large: {len(text)} characters, limit {limits.max_chars}")
