"""`validate`'s checks of one ground-truth call against its function's doc.

Each call names only declared parameters and gives every required one; each value (each
acceptable value in BFCL style, through its nested alternatives) has the declared type, is a
finite number where it is a number (NaN and Infinity can never be matched: answers hold
finite numbers only), and passes the translated property schema. A value of another type
that can be read as the declared one (`28` for a float, `5.0` for an integer, `"true"` for a
boolean) is a warning: the checker coerces it.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any

from jsonschema import Draft202012Validator

from tfce_eval.check.values import CoercionError, coerce, expand_alternatives
from tfce_eval.dataset.doc_findings import schema_too_deep
from tfce_eval.model import ExpectedParam, FunctionDoc, Level, show_value
from tfce_eval.schema.equality import strings_equal
from tfce_eval.schema.kinds import Kind, kind_of
from tfce_eval.schema.wire import canonical_kind, to_wire_schema


def call_problems(doc: FunctionDoc, params: Mapping[str, ExpectedParam]) -> list[tuple[Level, str]]:
    """(level, message) for each problem of one ground-truth call to `doc`."""
    problems: list[tuple[Level, str]] = []
    deep = schema_too_deep(doc)  # reported with the doc; its values are not checked
    wire = {} if deep else to_wire_schema(doc)["properties"]
    for name in params:
        if name not in doc.properties:
            problems.append((Level.ERROR, f"{doc.name}.{name}: not a declared parameter"))
    for name in doc.required:
        if name in doc.properties and name not in params:
            problems.append(
                (Level.ERROR, f"{doc.name}.{name}: required, but not in the ground truth")
            )
        elif name in params and params[name].may_omit and not params[name].values:
            problems.append(
                (
                    Level.ERROR,
                    f"{doc.name}.{name}: required, but the ground truth gives no value "
                    '(null, or only "")',
                )
            )
        elif name in params and params[name].may_omit:
            problems.append(
                (
                    Level.WARNING,
                    f"{doc.name}.{name}: required, but the ground truth lets it be omitted",
                )
            )
    for name, expected in params.items():
        if name not in doc.properties:
            continue
        schema = doc.properties[name]
        if not expected.values and not expected.may_omit:
            problems.append((Level.ERROR, f"{doc.name}.{name}: no acceptable value"))
        for value in expected.values:
            where = f"{doc.name}.{name}"
            unmatched = _non_finite(value)
            if unmatched is not None:
                inner, number = unmatched
                problems.append(
                    (
                        Level.ERROR,
                        f"{where}{inner}: {number} can never be matched (an answer holds finite "
                        "numbers only)",
                    )
                )
                continue
            if deep:
                continue
            walk = _ValueWalk(expected.nested_alternatives)
            coerced = walk.run(value, schema, f"{doc.name}.{name}")
            problems += walk.problems
            if not walk.failed and not walk.nested:
                problems += _schema_problems(coerced, wire[name], f"{doc.name}.{name}")
    return problems


def _non_finite(value: Any) -> tuple[str, float] | None:
    """The path inside `value` and the value of its first NaN or infinity; no recursion."""
    stack: list[tuple[Any, str]] = [(value, "")]
    while stack:
        current, path = stack.pop()
        if type(current) is float and not math.isfinite(current):
            return path, current
        if isinstance(current, Mapping):
            stack.extend((v, f"{path}.{k}") for k, v in reversed(list(current.items())))
        elif isinstance(current, list):
            stack.extend((v, f"{path}[{i}]") for i, v in reversed(list(enumerate(current))))
    return None


def _schema_problems(value: Any, schema: dict[str, Any], path: str) -> list[tuple[Level, str]]:
    validator = Draft202012Validator(schema)
    return [
        (Level.ERROR, f"{path}{''.join(f'[{p!r}]' for p in error.absolute_path)}: {error.message}")
        for error in validator.iter_errors(value)
        if not _enum_after_normalisation(error.validator, error.instance, error.validator_value)
    ]


def _enum_after_normalisation(keyword: Any, instance: Any, allowed: Any) -> bool:
    """An enum miss that string normalisation forgives; _ValueWalk has warned about it."""
    return (
        keyword == "enum"
        and isinstance(instance, str)
        and isinstance(allowed, list)
        and any(isinstance(e, str) and strings_equal(instance, e) for e in allowed)
    )


class _ValueWalk:
    """One ground-truth value against its declared schema: types, coercions and enums."""

    def __init__(self, alternatives_inside: bool) -> None:
        self.alternatives_inside = alternatives_inside
        self.problems: list[tuple[Level, str]] = []
        self.failed = False
        self.nested = False  # whether nested alternatives were read (no single value remains)

    def run(self, value: Any, schema: Any, path: str) -> Any:
        schema = schema if isinstance(schema, Mapping) else None
        kind = kind_of(schema)
        try:
            coerced = coerce(value, kind, from_strings=False)
            loose = _disagrees(value, kind, schema)
        except CoercionError as exc:
            try:
                coerced, loose = coerce(value, kind, from_strings=True), True
            except CoercionError:
                self.failed = True
                self.problems.append((Level.ERROR, f"{path}: {exc} ({show_value(value)})"))
                return value
        if loose:
            declared = schema.get("type") if schema is not None else None
            self.problems.append(
                (
                    Level.WARNING,
                    f"{path}: {show_value(value)} is stored as {_describe(value)} but declared "
                    f"{declared}; it is read as {show_value(coerced)}",
                )
            )
        enum = schema.get("enum") if schema is not None else None
        if isinstance(enum, list) and not any(_same(coerced, e) for e in enum):
            if any(
                isinstance(e, str) and isinstance(coerced, str) and strings_equal(coerced, e)
                for e in enum
            ):
                # The checker compares normalised strings, so scoring is unaffected.
                self.problems.append(
                    (
                        Level.WARNING,
                        f"{path}: {show_value(value)} is one of {show_value(enum)} only "
                        "after normalisation (case, width, punctuation)",
                    )
                )
            else:
                self.failed = True
                self.problems.append(
                    (Level.ERROR, f"{path}: {show_value(value)} is not one of {show_value(enum)}")
                )
        if kind is Kind.ARRAY:
            items = schema.get("items") if schema is not None else None
            return [self.run(e, items, f"{path}[{i}]") for i, e in enumerate(coerced)]
        if kind is Kind.OBJECT:
            return self._members(coerced, schema, path)
        return coerced

    def _members(self, value: Mapping[str, Any], schema: Any, path: str) -> dict[str, Any]:
        properties = schema.get("properties") if isinstance(schema, Mapping) else None
        properties = properties if isinstance(properties, Mapping) else {}
        out: dict[str, Any] = {}
        for key, member in value.items():
            sub = properties.get(key)
            if properties and key not in properties:
                self.problems.append((Level.WARNING, f"{path}.{key}: not a declared property"))
            if member is None:  # absent, as the checker reads it (docs/checking.md 5.4)
                continue
            if not self.alternatives_inside:
                out[key] = self.run(member, sub, f"{path}.{key}")
                continue
            self.nested = True
            alternatives, _ = expand_alternatives(member, sub if isinstance(sub, Mapping) else None)
            out[key] = [self.run(a, sub, f"{path}.{key}") for a in alternatives]
        return out


def _disagrees(value: Any, kind: Kind, schema: Mapping[str, Any] | None) -> bool:
    """A value the declared type accepts only by conversion (5.0 for an integer, 28 for a float)."""
    declared = canonical_kind(schema.get("type")) if schema is not None else None
    if kind is Kind.INTEGER:
        return isinstance(value, float)
    return declared == "float" and isinstance(value, int) and not isinstance(value, bool)


def _same(a: Any, b: Any) -> bool:
    return (isinstance(a, bool) == isinstance(b, bool)) and a == b


def _describe(value: Any) -> str:
    if isinstance(value, bool):
        return "a boolean"
    if isinstance(value, int):
        return "an integer"
    if isinstance(value, float):
        return "a fractional number" if not value.is_integer() else "a float"
    return "a string" if isinstance(value, str) else type(value).__name__
