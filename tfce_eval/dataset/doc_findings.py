"""`validate`'s checks of one function doc, and of the names of an item's docs.

A doc: `parameters` (and its `properties`) are objects, each parameter schema is an object
with known type names, `required` is a list of declared names, the schemas nest at most
`MAX_SCHEMA_DEPTH` deep (deeper ones are not handed to jsonschema, whose recursion they
would exhaust), and the wire schema (`tfce_eval.schema.wire`) passes the JSON Schema
meta-schemas (2020-12 and draft 7).

An item's docs: no two names that differ only by case, width or a dash variant (`get-info`
and `get‐info`): a model cannot tell them apart, and its answer would be judged by a
character it never saw.
"""

from __future__ import annotations

import unicodedata
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from jsonschema import Draft7Validator, Draft202012Validator
from jsonschema.exceptions import SchemaError

from tfce_eval.model import FunctionDoc, Level
from tfce_eval.schema.equality import DASHES
from tfce_eval.schema.wire import canonical_kind, to_wire_schema

#: Deepest nesting of objects and arrays in a doc's `parameters` that is checked.
MAX_SCHEMA_DEPTH = 64


def nesting_depth(value: object) -> int:
    """How deeply objects and arrays nest in `value` (a scalar is 0); no recursion."""
    deepest = 0
    stack: list[tuple[object, int]] = [(value, 0)]
    while stack:
        current, depth = stack.pop()
        if isinstance(current, Mapping):
            children: Iterable[object] = current.values()
        elif isinstance(current, list | tuple):
            children = current
        else:
            continue
        deepest = max(deepest, depth + 1)
        stack.extend((child, depth + 1) for child in children)
    return deepest


def schema_too_deep(doc: FunctionDoc) -> bool:
    return nesting_depth(doc.raw.get("parameters")) > MAX_SCHEMA_DEPTH


def doc_problems(doc: FunctionDoc) -> list[tuple[Level, str]]:
    """(level, message) for each problem of one function doc."""
    problems: list[tuple[Level, str]] = []
    params = doc.raw.get("parameters")
    if params is not None and not isinstance(params, Mapping):
        problems.append((Level.ERROR, f"function {doc.name}: parameters is not an object"))
    elif isinstance(params, Mapping) and not isinstance(params.get("properties", {}), Mapping):
        problems.append(
            (Level.ERROR, f"function {doc.name}: parameters.properties is not an object")
        )
    if isinstance(params, Mapping):
        problems += _required_problems(doc.name, params.get("required", []))
    if schema_too_deep(doc):
        problems.append(
            (
                Level.ERROR,
                f"function {doc.name}: its parameters nest deeper than {MAX_SCHEMA_DEPTH} "
                "levels; they are not checked further",
            )
        )
        return problems
    for name, schema in doc.properties.items():
        if not isinstance(schema, Mapping):
            problems.append(
                (Level.ERROR, f"function {doc.name}: parameter {name} is not an object")
            )
        else:
            problems += [(Level.WARNING, m) for m in _unknown_types(schema, f"{doc.name}.{name}")]
    for name in doc.required:
        if name not in doc.properties:
            problems.append(
                (Level.WARNING, f"function {doc.name}: required parameter {name} is not declared")
            )
    wire = to_wire_schema(doc)
    for validator in (Draft202012Validator, Draft7Validator):
        try:
            validator.check_schema(wire)
        except SchemaError as exc:
            problems.append(
                (
                    Level.ERROR,
                    f"function {doc.name}: its wire schema is not valid JSON Schema "
                    f"({validator.__name__}): {exc.message}",
                )
            )
            break
        except RecursionError:  # the depth bound above should make this impossible
            problems.append((Level.ERROR, f"function {doc.name}: too deep to check"))
            break
    return problems


def _required_problems(function: str, required: object) -> list[tuple[Level, str]]:
    """`required` must be a list of names; the checker ignores anything else."""
    if isinstance(required, str):
        return [
            (
                Level.ERROR,
                f"function {function}: required is a string ({required!r}), not a list of "
                f'parameter names, so nothing is required; write ["{required}"]',
            )
        ]
    if not isinstance(required, list):
        return [(Level.ERROR, f"function {function}: required is not a list of parameter names")]
    odd = [r for r in required if not isinstance(r, str)]
    if odd:
        return [
            (
                Level.ERROR,
                f"function {function}: required holds entries that are not names (such "
                f"as {odd[0]!r}); they are ignored",
            )
        ]
    return []


def _unknown_types(schema: Mapping[str, Any], path: str) -> Iterable[str]:
    declared = schema.get("type")
    for name in declared if isinstance(declared, list) else [declared]:
        if name is not None and canonical_kind(name) is None:
            yield f"{path}: type {name!r} is not known; it is sent without a type constraint"
    properties = schema.get("properties")
    if isinstance(properties, Mapping):
        for key, sub in properties.items():
            if isinstance(sub, Mapping):
                yield from _unknown_types(sub, f"{path}.{key}")
    items = schema.get("items")
    if isinstance(items, Mapping):
        yield from _unknown_types(items, f"{path}[]")


def confusable_key(name: str) -> str:
    """What is left of a name when case, width and the kind of dash are not told apart."""
    folded = unicodedata.normalize("NFKC", name).casefold()
    return "".join("-" if ch in DASHES else ch for ch in folded)


def confusable_names(names: Sequence[str]) -> list[tuple[str, str]]:
    """Pairs of distinct names (first seen, then the other) that read as the same name."""
    first: dict[str, str] = {}
    pairs: list[tuple[str, str]] = []
    for name in dict.fromkeys(names):
        key = confusable_key(name)
        seen = first.setdefault(key, name)
        if seen != name:
            pairs.append((seen, name))
    return pairs
