"""Value equality as docs/checking.md 5.4 defines it, shared by the AST checker and the exec
checker.

Numbers are equal within a relative tolerance (an absolute one only around an expected zero,
see `numbers_equal`); strings are compared after a normalisation
that forgives case, width, dashes, spaces and most punctuation but keeps the characters that
change a number's meaning (`1.5` vs `15`, `-5` vs `5`, `3/4` vs `34`); arrays compare in order
and objects key by key, treating a key whose value is null as absent.
"""

from __future__ import annotations

import math
import re
import unicodedata
from collections.abc import Mapping
from fractions import Fraction
from functools import lru_cache
from typing import Any

#: Relative tolerance for numbers in the AST check (docs/checking.md 5.4).
AST_REL_TOL = 1e-9
#: Relative tolerance for results in the exec check (docs/exec.md 6).
EXEC_REL_TOL = 1e-6
#: The only absolute tolerance: how near zero a number must be to equal an expected 0.
ZERO_ABS_TOL = 1e-12

#: Every dash variant; string normalisation reads each as `-`.
DASHES = frozenset("\u2010\u2011\u2012\u2013\u2014\u2015\u2212\ufe58\ufe63\uff0d-")


def is_number(value: object) -> bool:
    """True for int and float, never for bool (docs/checking.md 5.3: bool is never a number)."""
    kind = type(value)
    if kind is int or kind is float:  # decoded values: the exact types, asked first
        return True
    return isinstance(value, int | float) and kind is not bool


def numbers_equal(
    expected: int | float, received: int | float, rel_tol: float = AST_REL_TOL
) -> bool:
    """Whether two numbers are equal (docs/checking.md 5.4, 6): relative only.

    Equal when they differ by at most `rel_tol` times the larger magnitude (1e-9 for the AST
    check, 1e-6 for exec results), so 1.602e-19 and 3.2e-19 differ as 1.602 and 3.2 do.
    The one absolute allowance: when `expected` is exactly zero, a received value within
    ZERO_ABS_TOL (1e-12) of zero counts as zero, because float noise (0.1 + 0.2 - 0.3 is
    5.6e-17) has no relative size against zero. Integers of any size are compared without
    converting them to floats (10**400 is judged, never an OverflowError); NaN equals nothing.
    """
    if expected == received:  # exact, for any int and float (Python compares them exactly)
        return True
    if expected == 0:
        return abs(received) <= ZERO_ABS_TOL
    try:
        return math.isclose(expected, received, rel_tol=rel_tol, abs_tol=0.0)
    except OverflowError:  # an integer beyond the float range: compare exactly
        if not all(math.isfinite(v) for v in (expected, received) if type(v) is float):
            return False
        a, b = Fraction(expected), Fraction(received)
        return abs(a - b) <= Fraction(rel_tol) * max(abs(a), abs(b))


def _is_punct(ch: str) -> bool:
    cat = unicodedata.category(ch)
    return cat[0] in ("P", "S") and ch not in DASHES


# ASCII punctuation and symbols (all of string.punctuation) not between two ASCII digits.
_ASCII_PUNCT = re.compile(r"(?<![0-9])[!-/:-@\[-`{-~]|[!-/:-@\[-`{-~](?![0-9])")


@lru_cache(maxsize=65536)
def normalize_string(text: str) -> str:
    """The default string normalisation of docs/checking.md 5.4.

    NFKC (full-width digits and punctuation, ideographic space), case folding, every dash to
    `-`, whitespace removed, punctuation and symbols removed except between two digits and a
    sign directly before a digit at the start.
    """
    text = "".join(unicodedata.normalize("NFKC", text).casefold().split())
    if text.isalnum():
        return text  # nothing to remove: the usual case, decided in C
    if text.isascii():
        # The same rule by regular expression: ASCII has one dash and no other digits.
        if len(text) > 1 and text[0] in "+-" and text[1].isdigit():
            return text[0] + _ASCII_PUNCT.sub("", text[1:])
        return _ASCII_PUNCT.sub("", text)
    chars = ["-" if ch in DASHES else ch for ch in text]
    out: list[str] = []
    last = len(chars) - 1
    for i, ch in enumerate(chars):
        if ch == "-" or _is_punct(ch):
            between_digits = 0 < i < last and chars[i - 1].isdigit() and chars[i + 1].isdigit()
            leading_sign = i == 0 and ch in "+-" and i < last and chars[i + 1].isdigit()
            if not (between_digits or leading_sign):
                continue
        out.append(ch)
    return "".join(out)


def strings_equal(a: str, b: str, *, strict: bool = False) -> bool:
    if strict:
        return unicodedata.normalize("NFC", a) == unicodedata.normalize("NFC", b)
    return a == b or normalize_string(a) == normalize_string(b)


def values_equal(
    expected: Any,
    received: Any,
    *,
    rel_tol: float = AST_REL_TOL,
    strict_strings: bool = False,
) -> bool:
    """Generic equality of two JSON-like values under docs/checking.md 5.4, with no declared type.

    Used where no doc says what the type is: exec results, `any` parameters, unions.
    An int and a float compare as numbers; a bool only equals a bool.
    """
    if isinstance(expected, bool) or isinstance(received, bool):
        return isinstance(expected, bool) and isinstance(received, bool) and expected == received
    if is_number(expected) and is_number(received):
        return numbers_equal(expected, received, rel_tol)
    if isinstance(expected, str) and isinstance(received, str):
        return strings_equal(expected, received, strict=strict_strings)
    if isinstance(expected, list | tuple) and isinstance(received, list | tuple):
        return len(expected) == len(received) and all(
            values_equal(e, r, rel_tol=rel_tol, strict_strings=strict_strings)
            for e, r in zip(expected, received, strict=True)
        )
    if isinstance(expected, Mapping) and isinstance(received, Mapping):
        exp = {k: v for k, v in expected.items() if v is not None}
        rec = {k: v for k, v in received.items() if v is not None}
        return exp.keys() == rec.keys() and all(
            values_equal(exp[k], rec[k], rel_tol=rel_tol, strict_strings=strict_strings)
            for k in exp
        )
    if expected is None or received is None:
        return expected is None and received is None
    return bool(expected == received)
