"""The depth limit of `parse_json` gives the verdicts of the plain token loop it replaced.

`_oracle` is that loop, kept as it was: every text below gets the same verdict (too deep or
not) and, when too deep, the same place (line and column) from `parse_json`.
"""

from __future__ import annotations

import random
import re
import time

import pytest

from tfce_eval.jsonl import JsonLimits, JsonRefused, parse_json

_DEPTH_TOKEN = re.compile(rb'"(?:[^"\\]++|\\.)*+"|[\[\]{}]', re.DOTALL)
_OPEN = frozenset(b"[{")


def _oracle(raw: bytes, limit: int) -> int | None:
    """Where nesting first goes deeper than `limit`, or None (the loop as it was)."""
    if raw.count(b"[") + raw.count(b"{") <= limit:
        return None
    depth = 0
    for match in _DEPTH_TOKEN.finditer(raw):
        first = raw[match.start()]
        if first in _OPEN:
            depth += 1
            if depth > limit:
                return match.start()
        elif first != 0x22:
            depth -= 1
    return None


def _place(raw: bytes, index: int) -> tuple[int, int]:
    line_start = raw.rfind(b"\n", 0, index) + 1
    return raw.count(b"\n", 0, index) + 1, index - line_start + 1


def _verdict(raw: bytes, limit: int) -> tuple[int, int] | None:
    """Where parse_json says the text nests too deep, or None when it says nothing of it."""
    try:
        parse_json(raw, JsonLimits(max_depth=limit))
    except JsonRefused as exc:
        if exc.limit == "depth":
            assert exc.column is not None
            return exc.line, exc.column
    return None


def _check(raw: bytes, limit: int) -> None:
    expected = _oracle(raw, limit)
    found = _verdict(raw, limit)
    assert found == (None if expected is None else _place(raw, expected)), (raw, limit)


_ALPHABET = b'""""\\\\[[]]{{}}a ,:\n'


def test_random_texts() -> None:
    rng = random.Random(20240611)
    for _ in range(20_000):
        size = rng.randint(0, 40)
        raw = bytes(rng.choice(_ALPHABET) for _ in range(size))
        _check(raw, rng.randint(0, 4))


def _json_like(rng: random.Random, depth: int) -> str:
    """A JSON-like text: strings with escapes and brackets inside, sometimes broken."""
    roll = rng.random()
    if depth <= 0 or roll < 0.3:
        body = "".join(
            rng.choice(["a", "[", "{", "}", "]", '\\"', "\\\\", "\\n", " "])
            for _ in range(rng.randint(0, 6))
        )
        return '"' + body + '"'
    items = [_json_like(rng, depth - 1) for _ in range(rng.randint(0, 4))]
    if roll < 0.65:
        return "[" + ",".join(items) + "]"
    return "{" + ",".join(f'"k{i}":{v}' for i, v in enumerate(items)) + "}"


def _damage(rng: random.Random, text: bytes) -> bytes:
    """Cut, drop a byte, or add a quote or backslash somewhere (or leave it as it is)."""
    if not text or rng.random() < 0.4:
        return text
    at = rng.randrange(len(text))
    kind = rng.randrange(4)
    if kind == 0:
        return text[:at]
    if kind == 1:
        return text[:at] + text[at + 1 :]
    return text[:at] + rng.choice([b'"', b"\\", b'\\"', b"["]) + text[at:]


def test_random_json_like_texts() -> None:
    rng = random.Random(7)
    for _ in range(5_000):
        text = _json_like(rng, rng.randint(1, 8)).encode()
        _check(_damage(rng, text), rng.randint(0, 6))


@pytest.mark.parametrize(
    "raw",
    [
        b"[[[",
        b"]]][[[[",
        b'"[[[["',
        b'"[[[[',
        b'["[[[["[[',
        b'[["\\"[[[["]]',
        b'[["\\\\"[[[["]]',
        b'[["\\\\\\"[[[["]]',
        b'\\"[[[["',
        b'[\\"[[["',
        b'"a"\\"[[[',
        b'"a""[[["[[[',
        b'"""[[[[[',
        b'"\\',
        b'[[[["\\',
        b'[[["\\"\\"\\"\\"[',
        b"{[{[}]}]" * 3,
        b'{"a": "[\\n[{"}' + b"[" * 5,
        b"[\n[\n  [\n [\n",
    ],
)
@pytest.mark.parametrize("limit", [0, 1, 2, 3])
def test_adversarial_texts(raw: bytes, limit: int) -> None:
    _check(raw, limit)


def test_a_long_line_keeps_its_place_and_is_fast() -> None:
    """A megabyte of calls, then nesting too deep at its end: the place is the loop's."""
    call = b'{"name": "f[", "arguments": {"a": "\\"]}", "b": [1, {}]}}, '
    body = b'{"id": "x", "calls": [' + call * 20_000
    raw = body + b"[" * 130 + b"]" * 130 + b"]}"
    start = time.perf_counter()
    found = _verdict(raw, 128)
    assert time.perf_counter() - start < 1.0
    assert found == _place(raw, len(body) + 126)  # the object and the list are 2 levels
    expected = _oracle(raw, 128)
    assert expected is not None and found == _place(raw, expected)
    assert _verdict(raw.replace(b"[" * 130, b"[" * 126), 128) is None
