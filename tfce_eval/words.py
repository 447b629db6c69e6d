"""Counts in words for every message and report: `1 id is`, `2 ids are`, `1 category`."""

from __future__ import annotations


def counted(n: int, noun: str, plural: str | None = None) -> str:
    """`n` and the noun, singular for exactly one: counted(n, "item has", "items have")."""
    return f"{n} {noun if n == 1 else plural or noun + 's'}"


def of_failing(shown: int, failing: int) -> str:
    """`1 of 1 failing item`, `2 of 5 failing items`."""
    return f"{shown} of {counted(failing, 'failing item')}"
