"""Power unit conversions between dBm and watts.

This module imports nothing from its package so that it also loads on its own, as a plain
module from its file path.
"""

from __future__ import annotations

import math


def _finite_number(name: str, value: object) -> float:
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise ValueError(f"{name} must be a finite number; got {type(value).__name__} {value!r}")
    try:
        number = float(value)
    except OverflowError:
        # An int beyond the float range (about 1.8e308); its digits are not printed, as there
        # may be more of them than Python converts to a string.
        exponent = round(math.log10(abs(value)))  # log10 takes an int of any size
        sign = "-" if value < 0 else ""
        raise ValueError(
            f"{name} must be a finite number; got an integer of about {sign}10^{exponent}, "
            "too large for a float"
        ) from None
    if not math.isfinite(number):
        raise ValueError(f"{name} must be a finite number; got {value!r}")
    return number


def dbm_to_watts(power_dbm: float) -> float:
    """Convert a power level in dBm to watts.

    Source: definition of the dBm (decibels relative to 1 mW): P_W = 10^((P_dBm − 30) / 10).

    Args:
        power_dbm: power in dBm (any finite value).

    Returns:
        Power in W (for example 30 dBm -> 1.0 W, 43 dBm -> about 19.95 W).
    """
    p = _finite_number("power_dbm", power_dbm)
    try:
        return math.pow(10.0, (p - 30.0) / 10.0)
    except OverflowError:
        raise ValueError(
            f"power_dbm {p!r} is too large to express in watts as a float (keep it below "
            "about 3000 dBm)"
        ) from None


def watts_to_dbm(power_w: float) -> float:
    """Convert a power in watts to dBm.

    Source: definition of the dBm: P_dBm = 10 log10(P_W) + 30.

    Args:
        power_w: power in W, > 0.

    Returns:
        Power in dBm (for example 1 W -> 30.0 dBm, 20 W -> about 43.01 dBm).
    """
    p = _finite_number("power_w", power_w)
    if p <= 0:
        raise ValueError(f"power_w must be a number > 0 W (dBm is undefined for 0); got {p!r}")
    return 10.0 * math.log10(p) + 30.0
