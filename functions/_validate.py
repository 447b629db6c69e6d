"""Argument checks shared by the telecom functions.

Every public function validates its arguments with these helpers so that a wrong type, an
out-of-range value or a misspelt option fails the same way: a ValueError whose message names
the parameter, says what is valid and shows what was received.
"""

from __future__ import annotations

import math
from collections.abc import Sequence


def _fmt(value: float) -> str:
    # Shortest exact form: 3279165 rather than 3.27916e+06, 99999.96 rather than 1e+05.
    if float(value).is_integer():
        return str(int(value))
    return repr(float(value))


def _describe_range(low: float | None, high: float | None, low_open: bool, high_open: bool) -> str:
    if low is not None and high is not None:
        left = ">" if low_open else ">="
        right = "<" if high_open else "<="
        return f"{left} {_fmt(low)} and {right} {_fmt(high)}"
    if low is not None:
        return f"{'>' if low_open else '>='} {_fmt(low)}"
    if high is not None:
        return f"{'<' if high_open else '<='} {_fmt(high)}"
    return ""


def _wanted(name: str, what: str, bounds: str, unit: str) -> str:
    # "x must be a finite number >= 0 dB"; with no range "x must be a finite number (dB)".
    if not bounds:
        return f"{name} must be {what} ({unit})" if unit else f"{name} must be {what}"
    return f"{name} must be {what} {bounds} {unit}" if unit else f"{name} must be {what} {bounds}"


def shown(value: object) -> str:
    """`repr(value)`, except that an integer too large for a float is described, not printed:
    its repr could run to thousands of digits (and past Python's int-to-str limit)."""
    if isinstance(value, int) and not isinstance(value, bool) and value.bit_length() > 1024:
        # math.log10 takes an int of any size (float() does not).
        sign = "-" if value < 0 else ""
        return (
            f"an integer of about {sign}10^{round(math.log10(abs(value)))}, too large for a float"
        )
    return repr(value)


def real(
    name: str,
    value: object,
    *,
    low: float | None = None,
    high: float | None = None,
    low_open: bool = False,
    high_open: bool = False,
    unit: str = "",
) -> float:
    """Return `value` as a float if it is a finite int or float inside the given bounds.

    Booleans are rejected although Python treats them as ints: a `True` where a frequency is
    expected is a caller's mistake, not the number 1.
    """
    wanted = _wanted(name, "a finite number", _describe_range(low, high, low_open, high_open), unit)
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise ValueError(f"{wanted}; got {type(value).__name__} {value!r}")
    try:
        number = float(value)
    except OverflowError:
        # An int beyond the float range (about 1.8e308) is no finite float: same refusal.
        raise ValueError(f"{wanted}; got {shown(value)}") from None
    if not math.isfinite(number):
        raise ValueError(f"{wanted}; got {value!r}")
    too_low = low is not None and (number <= low if low_open else number < low)
    too_high = high is not None and (number >= high if high_open else number > high)
    if too_low or too_high:
        raise ValueError(f"{wanted}; got {shown(value)}")
    return number


def integer(
    name: str,
    value: object,
    *,
    low: int | None = None,
    high: int | None = None,
    unit: str = "",
) -> int:
    """Return `value` if it is an int (not a bool, not a float) within [low, high]."""
    wanted = _wanted(name, "an integer", _describe_range(low, high, False, False), unit)
    if isinstance(value, bool) or not isinstance(value, int):
        raise ValueError(f"{wanted}; got {type(value).__name__} {value!r}")
    if (low is not None and value < low) or (high is not None and value > high):
        raise ValueError(f"{wanted}; got {shown(value)}")
    return value


def int_choice(name: str, value: object, options: Sequence[int], *, unit: str = "") -> int:
    """Return `value` if it is an int (not a bool) equal to one of `options`."""
    suffix = f" {unit}" if unit else ""
    listed = ", ".join(str(option) for option in options)
    if isinstance(value, bool) or not isinstance(value, int) or value not in options:
        raise ValueError(f"{name} must be one of {listed}{suffix}; got {shown(value)}")
    return value


def str_choice(name: str, value: object, options: Sequence[str]) -> str:
    """Return `value` if it is exactly (case-sensitively) one of `options`."""
    if not isinstance(value, str) or value not in options:
        listed = ", ".join(repr(option) for option in options)
        raise ValueError(f"{name} must be one of {listed} (case-sensitive); got {value!r}")
    return value


def boolean(name: str, value: object) -> bool:
    """Return `value` if it is a bool; 0/1 or "true" are refused, not guessed."""
    if not isinstance(value, bool):
        raise ValueError(f"{name} must be a boolean (true or false); got {value!r}")
    return value


def hex_bytes(name: str, value: object, *, allow_empty: bool = True) -> bytes:
    """Decode an even-length string of hexadecimal digits (either case) into bytes."""
    wanted = f"{name} must be a string of hexadecimal digits with an even length"
    if not isinstance(value, str):
        raise ValueError(f"{wanted}; got {type(value).__name__} {value!r}")
    if not value and not allow_empty:
        raise ValueError(f"{wanted}, not empty")
    if len(value) % 2 or any(char not in "0123456789abcdefABCDEF" for char in value):
        raise ValueError(f"{wanted} (no prefix, spaces or separators); got {value!r}")
    return bytes.fromhex(value)
