"""What a failing item's record holds besides its verdict: the problems and both sides.

Values are kept as they are unless they are large: a value of more than `MAX_DETAIL`
characters and elements is kept as its JSON text, cut to that length, so that one answer
cannot make a record of many megabytes.
"""

from __future__ import annotations

from collections.abc import Mapping
from itertools import islice
from typing import Any

from tfce_eval.check.values import Mismatch
from tfce_eval.decode.limits import MAX_MESSAGE, clip
from tfce_eval.model import ExpectedCall, show_value


def expected_json(exp: ExpectedCall) -> dict[str, Any]:
    """An expected call as a record shows it: one value, or the list of acceptable ones
    (`""` among them when the parameter may be left out)."""
    params: dict[str, Any] = {}
    for name, p in exp.params.items():
        if len(p.values) == 1 and not p.may_omit:
            params[name] = p.values[0]
        else:
            params[name] = list(p.values) + ([""] if p.may_omit else [])
    return {"name": exp.name, "arguments": params}


#: A value larger than this (characters and elements) is kept in a record's details as its
#: text, cut to this length: one answer must not make a record of many megabytes.
MAX_DETAIL = 2000


def _detail(value: Any) -> Any:
    budget = MAX_DETAIL
    stack = [value]
    while stack:  # a bounded walk: it stops as soon as the value is known to be too large
        current = stack.pop()
        budget -= len(current) + 1 if isinstance(current, str) else 1
        if budget < 0:
            return show_value(value, MAX_DETAIL)
        if isinstance(current, Mapping):
            budget -= sum(len(k) for k in islice(current, MAX_DETAIL) if isinstance(k, str))
            stack.extend(islice(current.values(), MAX_DETAIL))
        elif isinstance(current, list | tuple):
            stack.extend(islice(current, MAX_DETAIL))
    return value


def problem_json(p: Mismatch) -> dict[str, Any]:
    """One problem of a failing call as a record's details hold it, values bounded."""
    message = clip(p.message, MAX_MESSAGE)
    out: dict[str, Any] = {"code": str(p.code), "path": p.path, "message": message}
    if p.expected is not None:
        out["expected"] = _detail(p.expected)
    if p.received is not None:
        out["received"] = _detail(p.received)
    if p.order_only:
        out["order_only"] = True
    return out
