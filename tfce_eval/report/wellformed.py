"""Type checks of the run files a report reads: summary.json and scores.jsonl.

A report shows the figures as written, so a figure of the wrong type would be shown wrong
without a word (`"valid": "false"` is true to Python, `"total": "10"` a string of digits).
Each field the report reads is checked once, when the run is loaded; the first wrong one
is a DataError naming the file, the line for scores.jsonl, and the field. Fields a report
does not read are not checked, and a missing field is left to the report's defaults.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any, TypeAlias

from tfce_eval.errors import DataError
from tfce_eval.jsonl import json_type
from tfce_eval.model import CATEGORY_ORDER

#: A field's type: a kind name (see _KINDS), `?` after it allowing null, or an object's
#: fields as (kind, fields).
Spec: TypeAlias = "str | tuple[str, Fields]"
Fields: TypeAlias = Mapping[str, Spec]

_RATE: Fields = {"total": "count", "correct": "count", "accuracy": "number?", "ci95": "pair?"}
_EXEC: Fields = {
    "correct": "count",
    "accuracy": "number?",
    "ci95": "pair?",
    "covered": "count",
    "items": "count",
    "errors": "counts",
}
_CATEGORY: Fields = {
    **_RATE,
    "errors": "counts",
    "request_errors": "count",
    "model_errors": "count",
    "exec": ("object?", _EXEC),
}
_OVERALL: Fields = {
    "micro": ("object?", _RATE),
    "macro": ("object?", {"accuracy": "number?", "categories": "count"}),
    "exec": ("object?", _EXEC),
    "tokens": ("object?", {"input": "count?", "output": "count?", "total": "count?"}),
    "latency_s": ("object?", {"median": "number?", "p95": "number?", "mean": "number?"}),
}
SUMMARY_FIELDS: Fields = {
    **{str(c): ("object?", _CATEGORY) for c in CATEGORY_ORDER},
    "overall": ("object?", _OVERALL),
    "categories": "strings?",
    "check": "string?",
    "policy": "object?",
    "missing": ("object?", {"mode": "string?", "count": "count?"}),
    "dataset": ("object?", {"sha256": "string?"}),
}
SCORE_FIELDS: Fields = {
    "id": "string",
    "category": "string",
    "valid": "boolean",
    "error_type": "string?",
    "error": "string?",
    "exec_valid": "boolean?",
    "details": "object?",
}


def _finite(value: Any) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool) and math.isfinite(value)


def _count(value: Any) -> bool:
    return type(value) is int and value >= 0


def _pair(value: Any) -> bool:
    return isinstance(value, list) and len(value) == 2 and all(map(_finite, value))


def _strings(value: Any) -> bool:
    return isinstance(value, list) and all(isinstance(s, str) for s in value)


def _counts(value: Any) -> bool:
    return isinstance(value, Mapping) and all(map(_count, value.values()))


_KINDS: dict[str, tuple[str, Callable[[Any], bool]]] = {
    "count": ("a whole number of 0 or more", _count),
    "number": ("a finite number", _finite),
    "string": ("a string", lambda v: isinstance(v, str)),
    "boolean": ("true or false", lambda v: isinstance(v, bool)),
    "object": ("an object", lambda v: isinstance(v, Mapping)),
    "pair": ("two finite numbers", _pair),
    "strings": ("an array of strings", _strings),
    "counts": ("an object of whole numbers", _counts),
}


def _shown(value: Any) -> str:
    text = repr(value) if not isinstance(value, str) else f'"{value}"'
    return text if len(text) <= 40 else text[:39] + "…"


def problem(obj: Mapping[str, Any], fields: Fields, prefix: str = "") -> str | None:
    """The first field of `obj` whose value is not of its type, as a message; None if none."""
    for name, spec in fields.items():
        if name not in obj:
            continue
        kind, nested = (spec, None) if isinstance(spec, str) else spec
        value = obj[name]
        field = f"{prefix}{name}"
        if value is None and kind.endswith("?"):
            continue
        what, ok = _KINDS[kind.rstrip("?")]
        if not ok(value):
            return f"field {field} is {_shown(value)} ({json_type(value)}), not {what}"
        if nested is not None:
            found = problem(value, nested, f"{field}.")
            if found is not None:
                return found
    return None


def check_summary(summary: Any, path: Path) -> None:
    """DataError naming summary.json and the field when a figure has the wrong type."""
    if not isinstance(summary, Mapping):
        raise DataError("summary.json is not a JSON object", path=str(path), hint=_RESCORE)
    found = problem(summary, SUMMARY_FIELDS)
    if found is not None:
        raise DataError(found, path=str(path), hint=_RESCORE)


#: The exact types (as JSON is parsed) each score field may have, missing fields read as
#: null: a quick look that passes a well-formed record without wording anything (one set
#: lookup of the types of its fields in every allowed combination); `problem` words any
#: other record, and passes one whose only oddity is a missing field.
_PLAIN: dict[str, tuple[type, ...]] = {"string": (str,), "boolean": (bool,), "object": (dict,)}
_SCORE_NAMES = tuple(SCORE_FIELDS)
_SCORE_TYPES = frozenset(
    itertools.product(
        *(
            _PLAIN[spec.rstrip("?")] + ((type(None),) if spec.endswith("?") else ())
            for spec in SCORE_FIELDS.values()
            if isinstance(spec, str)
        )
    )
)


def check_score(obj: Any, line: int, path: Path) -> None:
    """DataError naming scores.jsonl, the line and the field when one record (a line's
    value) is mistyped, for a reader that checks each record as it reads it
    (`scoring.rundir.read_scores`)."""
    if type(obj) is dict and tuple(map(type, map(obj.get, _SCORE_NAMES))) in _SCORE_TYPES:
        return
    found = (
        problem(obj, SCORE_FIELDS)
        if isinstance(obj, Mapping)
        else f"a record is {json_type(obj)}, not an object"
    )
    if found is not None:
        raise DataError(found, path=str(path), line=line, hint=_RESCORE)


_RESCORE = "the file was edited or damaged; score the run again to rewrite it"
