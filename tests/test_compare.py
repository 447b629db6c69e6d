"""String normalisation and generic value equality (SPEC 5.4)."""

from __future__ import annotations

from typing import Any

import pytest

from tfce_eval.schema.equality import EXEC_REL_TOL, normalize_string, strings_equal, values_equal

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


def _by_character(text: str) -> str:
    """SPEC 5.4's rule written out character by character, as a reference."""
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
