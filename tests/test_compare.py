"""String normalisation and generic value equality (docs/checking.md 5.4)."""

from __future__ import annotations

from typing import Any

import pytest

from tfce_eval.schema.equality import (
    AST_REL_TOL,
    EXEC_REL_TOL,
    normalize_string,
    numbers_equal,
    strings_equal,
    values_equal,
)

EQUAL = [
    ("Urban", "urban"),
    ("1-6 GHz", "1–6GHz"),  # en dash, no space
    ("1-6 GHz", "1 — 6 GHz"),  # em dash with spaces
    ("北京，上海", "北京、上海"),
    ("北京,上海", "北京，上海"),
    ("asia ", "Asia"),
    ("４６０００", "46000"),  # full-width digits
    ("5G\u3000NR", "5g nr"),  # ideographic space
    ("n78", "N78"),
    ("urban_large", "Urban-Large"),
    ("3.5", "３．５"),
]
DIFFERENT = [
    ("1.5", "15"),
    ("-5", "5"),
    ("3/4", "34"),
    ("亚洲", "Asia"),
    ("1-6 GHz", "16 GHz"),
    ("+5", "5"),
    ("1,000", "1000"),
]


@pytest.mark.parametrize(("a", "b"), EQUAL)
def test_normalised_equal(a: str, b: str) -> None:
    assert strings_equal(a, b), (normalize_string(a), normalize_string(b))


@pytest.mark.parametrize(("a", "b"), DIFFERENT)
def test_normalised_different(a: str, b: str) -> None:
    assert not strings_equal(a, b), (normalize_string(a), normalize_string(b))


def test_strict_strings_compares_exactly_after_nfc() -> None:
    assert not strings_equal("Urban", "urban", strict=True)
    assert strings_equal("e\u0301", "\u00e9", strict=True)


@pytest.mark.parametrize(
    ("a", "b", "equal"),
    [
        (0.1 + 0.2, 0.3, True),
        (28, 28.0, True),
        (1, True, False),
        (0, False, False),
        (None, None, True),
        (None, 0, False),
        ([1, 2], [1, 2.0], True),
        ([1, 2], [2, 1], False),
        ({"a": 1, "b": None}, {"a": 1.0}, True),
        ({"a": 1}, {"a": 1, "b": 2}, False),
        ("X", "x", True),
        ({"mcc": "460"}, {"mcc": "４６０"}, True),
    ],
)
def test_values_equal(a: Any, b: Any, equal: bool) -> None:
    assert values_equal(a, b) is equal


def test_exec_tolerance_is_looser() -> None:
    assert not values_equal(100.0, 100.00001)
    assert values_equal(100.0, 100.00001, rel_tol=EXEC_REL_TOL)
    assert not values_equal(100.0, 100.001, rel_tol=EXEC_REL_TOL)


@pytest.mark.parametrize(
    ("expected", "received", "rel_tol", "equal"),
    [
        # Small quantities are compared relatively, as large ones are.
        (1.602e-19, 3.2e-19, AST_REL_TOL, False),
        (1.602e-19, 3.2e-19, EXEC_REL_TOL, False),
        (1.602e-19, 1.602e-19 * (1 + 1e-12), AST_REL_TOL, True),
        (1e-6, 1.000001e-6, AST_REL_TOL, False),
        (1e-6, 1.000001e-6, EXEC_REL_TOL, True),
        (1.380649e-23, 1.38e-23, AST_REL_TOL, False),
        (4e-21, 0.0, EXEC_REL_TOL, False),  # noise power in watts is not zero
        (1e-9, 2e-9, EXEC_REL_TOL, False),  # nanoseconds
        # The one absolute allowance: an expected value of exactly zero.
        (0.0, 1e-17, AST_REL_TOL, True),
        (0, 0.1 + 0.2 - 0.3, AST_REL_TOL, True),
        (0.0, 1e-11, AST_REL_TOL, False),
        (-0.0, 0, AST_REL_TOL, True),
        # Relative tolerance where it always applied.
        (0.3, 0.1 + 0.2, AST_REL_TOL, True),
        (100.0, 100.00001, AST_REL_TOL, False),
        (float("nan"), float("nan"), AST_REL_TOL, False),
    ],
)
def test_numbers_equal_is_relative(
    expected: float, received: float, rel_tol: float, equal: bool
) -> None:
    assert numbers_equal(expected, received, rel_tol) is equal
    assert values_equal(expected, received, rel_tol=rel_tol) is equal


@pytest.mark.parametrize(
    ("expected", "received", "equal"),
    [
        (10**400, 10**400, True),
        (10**400, 10**400 + 1, True),  # relatively 1e-400 apart
        (10**400, 2 * 10**400, False),
        (10**400, 1e308, False),
        (1e308, 10**400, False),
        (5.0, 10**400, False),
        (0, 10**400, False),
        (2**3321, float("inf"), False),
        (float("nan"), 10**400, False),
        ([1, 2**3321], [1.0, 2**3321], True),
        ({"a": 10**400}, {"a": 1.5}, False),
    ],
)
def test_huge_integers_are_compared_without_overflow(
    expected: Any, received: Any, equal: bool
) -> None:
    assert values_equal(expected, received) is equal
    assert values_equal(expected, received, rel_tol=EXEC_REL_TOL) is equal


def _by_character(text: str) -> str:
    """docs/checking.md 5.4's rule written out character by character, as a reference."""
    import unicodedata

    text = unicodedata.normalize("NFKC", text).casefold()
    dashes = "\u2010\u2011\u2012\u2013\u2014\u2015\u2212\ufe58\ufe63\uff0d-"
    chars = ["-" if ch in dashes else ch for ch in text if not ch.isspace()]
    out = []
    for i, ch in enumerate(chars):
        if ch == "-" or unicodedata.category(ch)[0] in "PS":
            between = 0 < i < len(chars) - 1 and chars[i - 1].isdigit() and chars[i + 1].isdigit()
            sign = i == 0 and ch in "+-" and len(chars) > 1 and chars[1].isdigit()
            if not (between or sign):
                continue
        out.append(ch)
    return "".join(out)


def test_fast_paths_of_the_normalisation_follow_the_rule() -> None:
    import random

    rng = random.Random(1)
    alphabet = "aZ09 .-_+/,:;!?()[]{}%$#@'\"\t–—，、１２Ａ　北京é"
    for _ in range(20000):
        text = "".join(rng.choice(alphabet) for _ in range(rng.randint(0, 8)))
        assert normalize_string(text) == _by_character(text), text
