"""The JSON text of result files: one line per record, and strict JSON for the files other
tools read.

- `dumps` is the one JSON serialiser of result lines. A lone surrogate (`"\\ud83d"`, which a
  model can send) is written as its JSON escape, so every line is valid UTF-8 and reads back
  to the same string.
- `dumps_strict` is what scores.jsonl and summary.json are written with: strict JSON, never
  `NaN` or `Infinity` (which most JSON readers refuse). A non-finite number is written as the
  string `"NaN"`, `"Infinity"` or `"-Infinity"`; an integer too long for Python to print
  (over 4,300 digits) as `"<an integer of N digits>"`; a value nested deeper than 200
  levels as `"<nested deeper than 200 levels>"`. Ordinary values are written unchanged.
"""

from __future__ import annotations

import json
import math
from collections.abc import Mapping
from typing import Any

#: Integers with more digits than this cannot be printed by Python (sys.int_info).
_MAX_DIGITS = 4300
_MAX_DEPTH = 200


def utf8_safe(text: str) -> str:
    if text.isascii():
        return text
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        # Lone surrogates, and only they, become `\udXXX`: the JSON escape of the same string.
        return text.encode("utf-8", "backslashreplace").decode("utf-8")
    return text


def dumps(obj: Any) -> str:
    """One JSON line: UTF-8 text with Chinese kept readable."""
    return utf8_safe(json.dumps(obj, ensure_ascii=False, separators=(",", ":")))


def finite_json(value: Any, depth: int = 0) -> Any:
    """`value` with the parts strict JSON cannot hold replaced (see the module docstring)."""
    if isinstance(value, float):
        if math.isfinite(value):
            return value
        return "NaN" if math.isnan(value) else ("Infinity" if value > 0 else "-Infinity")
    if isinstance(value, int) and not isinstance(value, bool):
        if value.bit_length() > _MAX_DIGITS * 3:  # about 900 digits: check exactly
            digits = len(str(abs(value))) if value.bit_length() < 14_000 else None
            if digits is None or digits > _MAX_DIGITS:
                approx = int(value.bit_length() * math.log10(2)) + 1
                return f"<an integer of {digits or approx} digits>"
        return value
    if isinstance(value, Mapping | list | tuple) and depth >= _MAX_DEPTH:
        return f"<nested deeper than {_MAX_DEPTH} levels>"
    if isinstance(value, Mapping):
        return {str(k): finite_json(v, depth + 1) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [finite_json(v, depth + 1) for v in value]
    return value


#: One encoder for every line: json.dumps with options makes a new one per call. Records
#: are trees (nothing in them refers back to itself), so the encoder does not keep the id of
#: every container to detect cycles; a value that did nest without end would stop it with
#: a RecursionError, which dumps_strict turns into the same bounded text as ever.
_STRICT_LINE = json.JSONEncoder(
    ensure_ascii=False, allow_nan=False, separators=(",", ":"), check_circular=False
)


def dumps_strict(obj: Any, *, indent: int | None = None) -> str:
    """Strict JSON (no NaN or Infinity) for scores.jsonl and summary.json."""
    separators = None if indent is not None else (",", ":")
    try:
        if indent is None:
            text = _STRICT_LINE.encode(obj)
        else:
            text = json.dumps(obj, ensure_ascii=False, allow_nan=False, indent=indent)
    except (ValueError, RecursionError):
        # Rare: walk the value only when the fast path refused it.
        text = json.dumps(
            finite_json(obj),
            ensure_ascii=False,
            allow_nan=False,
            indent=indent,
            separators=separators,
            default=repr,
        )
    return utf8_safe(text)
