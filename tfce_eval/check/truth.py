"""The ground truth beside an answer: the two sides a failing item's record shows, and the
ground truth sent as an answer (which tells an item that no answer can win).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from tfce_eval.check.details import expected_json
from tfce_eval.check.values import first_acceptable
from tfce_eval.model import Call, DecodeResult, Item


def answer_and_truth(item: Item, decoded: DecodeResult) -> dict[str, Any]:
    """The expected and the received calls, as a failing item's record shows them.

    Kept apart from `check_item`, whose verdict says what is wrong: the record (scoring)
    puts this next to it so a reader sees both sides without the dataset at hand.
    """
    calls = decoded.calls
    return {
        "expected": [expected_json(e) for e in item.expected],
        "calls": None if calls is None else [c.to_json() for c in calls],
    }


def truth_as_answer(item: Item) -> DecodeResult:
    """The ground truth sent as an answer: each expected call with the first acceptable
    value of each parameter, as the checker reads it (coerced to its declared type; nested
    alternatives too), left out when it may be (and is not required). A dataset
    whose items fail their own check with this answer cannot be answered right."""
    calls = []
    for expected in item.expected:
        doc = item.function(expected.name)
        properties = doc.properties if doc is not None else {}
        required = doc.required if doc is not None else ()
        arguments = {}
        for name, param in expected.params.items():
            values = [v for v in param.values if v is not None]
            omit = param.may_omit or len(values) < len(param.values)
            if values and not (omit and name not in required):
                raw = properties.get(name)
                schema = raw if isinstance(raw, Mapping) else None
                arguments[name] = first_acceptable(schema, values[0], param.nested_alternatives)
        calls.append(Call(expected.name, arguments))
    return DecodeResult(calls=tuple(calls))
