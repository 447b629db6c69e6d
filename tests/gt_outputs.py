"""Turn a dataset's ground truth into a model-outputs file, for end-to-end checks.

Each expected call becomes the call a perfect model would make: the first acceptable value
of each parameter, and nothing for a parameter that may be omitted without a value.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from tfce_eval.dataset.load import Dataset
from tfce_eval.model import Item

#: BFCL's spellings of an array type, read here without the checker's type vocabulary: this
#: module is an oracle for the checker, so it shares none of its code.
_ARRAY_TYPES = {"array", "tuple", "list", "arraylist"}


def _acceptable(member: Any, schema: Any) -> list[Any]:
    """BFCL's acceptable values of a nested member: a list is a list of alternatives (`""`
    meaning "may be left out"), unless the member is declared an array and no element of
    the list is itself a list (then the list is the one value)."""
    if not isinstance(member, list):
        return [member]
    declared = schema.get("type") if isinstance(schema, Mapping) else None
    is_array = isinstance(declared, str) and declared.strip().lower() in _ARRAY_TYPES
    if is_array and all(not isinstance(v, list) for v in member):
        return [member]
    return [v for v in member if v != ""]


def _first_choice(value: Any, schema: Any) -> Any:
    """Collapse BFCL's nested alternatives ({"k": [v1, v2, ""]}) to one value per member."""
    props = schema.get("properties", {}) if isinstance(schema, Mapping) else {}
    items = schema.get("items") if isinstance(schema, Mapping) else None
    if isinstance(value, Mapping):
        out = {}
        for key, member in value.items():
            choices = _acceptable(member, props.get(key))
            if choices:
                out[key] = _first_choice(choices[0], props.get(key))
        return out
    if isinstance(value, list):
        return [_first_choice(v, items) for v in value]
    return value


def perfect_calls(item: Item) -> list[dict[str, Any]]:
    out = []
    for exp in item.expected:
        doc = item.function(exp.name)
        arguments = {}
        for name, p in exp.params.items():
            if not p.values:
                continue
            value = p.values[0]
            if p.nested_alternatives:
                value = _first_choice(value, doc.properties.get(name) if doc else None)
            arguments[name] = value
        out.append({"name": exp.name, "arguments": arguments})
    return out


def write_perfect_outputs(dataset: Dataset, path: Path, *, shape: str = "calls") -> Path:
    """Write one line per item; `shape` is calls, tool_calls (OpenAI) or content (Anthropic)."""
    with path.open("w", encoding="utf-8") as fh:
        for item in dataset.iter_items():
            calls = perfect_calls(item)
            payload: Any
            if shape == "tool_calls":
                payload = [
                    {
                        "id": f"call_{i}",
                        "type": "function",
                        "function": {
                            "name": c["name"],
                            "arguments": json.dumps(c["arguments"], ensure_ascii=False),
                        },
                    }
                    for i, c in enumerate(calls)
                ]
            elif shape == "content":
                payload = [
                    {
                        "type": "tool_use",
                        "id": f"toolu_{i}",
                        "name": c["name"],
                        "input": c["arguments"],
                    }
                    for i, c in enumerate(calls)
                ]
            else:
                payload = calls
            fh.write(json.dumps({"id": item.id, shape: payload}, ensure_ascii=False) + "\n")
    return path
