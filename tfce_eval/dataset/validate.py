"""`validate`: every problem of a dataset, each with file, line and id (SPEC 9).

It does not stop at the first problem. The files are indexed tolerantly (the same pass
`load_dataset` makes, see `tfce_eval.dataset.index`), so a malformed line is reported and the rest
is checked. Then, per item:

- category shape: simple, one expected call; multiple, one call among two or more docs;
  parallel, two or more calls of one function; parallel_multiple, two or more calls over two
  or more functions; irrelevance, no calls;
- docs: unique names within the item, parameters that are objects, known type names, and a
  wire schema (`tfce_eval.schema.wire`) that passes the JSON Schema meta-schemas (2020-12 and
  draft 7); each distinct doc is reported once;
- ground truth: each call names one of the item's docs and only its declared parameters,
  gives every required one, and each value (each acceptable value in BFCL style, through its
  nested alternatives) has the declared type and passes the translated property schema.

A ground-truth value of another type that can be read as the declared one (`28` for a
float, `5.0` for an integer, `"true"` for a boolean) is a warning: the checker coerces it.
More checks plug in through `extra_checks` (the exec checks against `functions/` do).
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from jsonschema import Draft7Validator, Draft202012Validator
from jsonschema.exceptions import SchemaError

from tfce_eval.check.values import CoercionError, coerce, expand_alternatives
from tfce_eval.dataset.load import Dataset, scan_dataset
from tfce_eval.errors import DataError
from tfce_eval.model import (
    AnswerStyle,
    Category,
    ExpectedParam,
    Finding,
    FunctionDoc,
    Item,
    Level,
    SourceRef,
    show_value,
)
from tfce_eval.schema.equality import strings_equal
from tfce_eval.schema.kinds import Kind, kind_of
from tfce_eval.schema.wire import canonical_kind, to_wire_schema

__all__ = ["Check", "Finding", "Level", "ValidationReport", "expected_shape", "validate_dataset"]


@dataclass(frozen=True)
class ValidationReport:
    """Every finding, sorted by file and line, and what was checked."""

    findings: tuple[Finding, ...]
    items: int
    counts: dict[Category, int] = field(default_factory=dict)

    @property
    def errors(self) -> tuple[Finding, ...]:
        return tuple(f for f in self.findings if f.level is Level.ERROR)

    @property
    def warnings(self) -> tuple[Finding, ...]:
        return tuple(f for f in self.findings if f.level is Level.WARNING)

    def to_json(self) -> dict[str, Any]:
        return {
            "items": self.items,
            "counts": {str(c): n for c, n in self.counts.items()},
            "errors": len(self.errors),
            "warnings": len(self.warnings),
            "findings": [f.to_json() for f in self.findings],
        }


#: A further check over the loaded dataset, run after the built-in ones.
Check = Callable[[Dataset], Iterable[Finding]]


def validate_dataset(
    data: Path | None = None,
    *,
    questions: Sequence[Path] = (),
    answers: Sequence[Path] = (),
    answer_style: AnswerStyle | None = None,
    extra_checks: Sequence[Check] = (),
) -> ValidationReport:
    """Check a dataset and report every problem. DataError only when there is no dataset."""
    dataset, problems = scan_dataset(
        data, questions=questions, answers=answers, answer_style=answer_style
    )
    findings = list(problems)
    checker = _ItemChecker()
    for item_id in dataset.ids():
        try:
            item = dataset.get(item_id)
        except DataError as exc:
            findings.append(
                Finding(Level.ERROR, exc.message, exc.path, exc.line, item_id, exc.hint)
            )
            continue
        answer = dataset.answer_source(item_id) or dataset.question_source(item_id)
        findings.extend(checker.check(item, answer))
    for check in extra_checks:
        findings.extend(check(dataset))
    findings.sort(key=lambda f: (f.path or "", f.line or 0))
    return ValidationReport(tuple(findings), len(dataset), dataset.counts())


def expected_shape(calls: int, functions: int, docs: int) -> Category:
    """The category whose shape a ground truth has: call count, distinct functions, docs."""
    if calls == 0:
        return Category.IRRELEVANCE
    if calls == 1:
        return Category.MULTIPLE if docs >= 2 else Category.SIMPLE
    return Category.PARALLEL if functions == 1 else Category.PARALLEL_MULTIPLE


def _shape_ok(category: Category, calls: int, functions: int, docs: int) -> bool:
    if category is Category.SIMPLE:
        return calls == 1
    if category is Category.MULTIPLE:
        return calls == 1 and docs >= 2
    if category is Category.PARALLEL:
        return calls >= 2 and functions == 1
    if category is Category.PARALLEL_MULTIPLE:
        return calls >= 2 and functions >= 2
    return calls == 0


class _ItemChecker:
    """Checks items one by one; remembers the docs already checked."""

    def __init__(self) -> None:
        self._docs_seen: set[str] = set()

    def check(self, item: Item, answer: SourceRef) -> list[Finding]:
        question = item.source or answer
        out: list[Finding] = []

        def add(where: SourceRef, level: Level, message: str, hint: str | None = None) -> None:
            out.append(Finding(level, message, where.path, where.line or None, item.id, hint))

        names = [c.name for c in item.expected]
        docs = len({d.name for d in item.functions})
        if not _shape_ok(item.category, len(names), len(set(names)), docs):
            shape = expected_shape(len(names), len(set(names)), docs)
            add(
                answer,
                Level.ERROR,
                f"a {item.category} item, but the ground truth has {len(names)} call(s) of "
                f"{len(set(names))} function(s) among {docs} doc(s)",
                f"that is the shape of a {shape} item: fix the ground truth or the category",
            )
        seen_names: set[str] = set()
        for doc in item.functions:
            if doc.name in seen_names:
                add(
                    question,
                    Level.ERROR,
                    f"two function docs are named {doc.name}",
                    "give each function of an item its own name",
                )
            seen_names.add(doc.name)
            key = json.dumps(doc.raw, sort_keys=True, ensure_ascii=False, default=str)
            if key not in self._docs_seen:
                self._docs_seen.add(key)
                for level, message in _doc_problems(doc):
                    add(question, level, message, "correct the function doc")
        for index, call in enumerate(item.expected, start=1):
            called = item.function(call.name)
            if called is None:
                add(
                    answer,
                    Level.ERROR,
                    f"ground-truth call {index} is to {call.name}, which is not among the "
                    f"item's functions ({', '.join(d.name for d in item.functions)})",
                    "name one of the item's functions, or add its doc to the question",
                )
                continue
            for level, message in _call_problems(called, call.params):
                add(answer, level, message, "correct the ground truth (or the doc)")
        return out


def _doc_problems(doc: FunctionDoc) -> list[tuple[Level, str]]:
    problems: list[tuple[Level, str]] = []
    params = doc.raw.get("parameters")
    if params is not None and not isinstance(params, Mapping):
        problems.append((Level.ERROR, f"function {doc.name}: parameters is not an object"))
    elif isinstance(params, Mapping) and not isinstance(params.get("properties", {}), Mapping):
        problems.append(
            (Level.ERROR, f"function {doc.name}: parameters.properties is not an object")
        )
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
    return problems


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


def _call_problems(
    doc: FunctionDoc, params: Mapping[str, ExpectedParam]
) -> list[tuple[Level, str]]:
    problems: list[tuple[Level, str]] = []
    wire = to_wire_schema(doc)["properties"]
    for name in params:
        if name not in doc.properties:
            problems.append((Level.ERROR, f"{doc.name}.{name}: not a declared parameter"))
    for name in doc.required:
        if name in doc.properties and name not in params:
            problems.append(
                (Level.ERROR, f"{doc.name}.{name}: required, but not in the ground truth")
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
            if value is None and name not in doc.required:
                continue  # null for an optional parameter means "not given" (SPEC 5.2.5)
            walk = _ValueWalk(expected.nested_alternatives)
            coerced = walk.run(value, schema, f"{doc.name}.{name}")
            problems += walk.problems
            if not walk.failed and not walk.nested:
                problems += _schema_problems(coerced, wire[name], f"{doc.name}.{name}")
    return problems


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
