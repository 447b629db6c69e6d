"""Coercion and explaining value matching (docs/checking.md 5.3 and 5.4) for one parameter.

A parameter's declared schema (from the original BFCL-style doc, not the wire schema) decides
what a value may be and how it is coerced before comparison. Matching walks arrays and
objects recursively and reports the first problem with its path (`bands[2].scs_khz`).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Any

from tfce_eval.check.matching import complete_matching
from tfce_eval.check.quick import object_verdict, scalar_verdict
from tfce_eval.decode.limits import MAX_NAME, clip
from tfce_eval.jsonl import json_type
from tfce_eval.model import ErrorCode, show_value
from tfce_eval.schema.equality import is_number, numbers_equal, strings_equal, values_equal
from tfce_eval.schema.kinds import SCALARS, Kind, MatchOptions, is_mapping, kind_of

_TRUE = frozenset({"true", "yes"})
_FALSE = frozenset({"false", "no"})


class CoercionError(ValueError):
    """The value cannot be read as the declared type."""


def coerce(value: Any, kind: Kind, *, from_strings: bool) -> Any:
    """Coerce a value to a declared kind (docs/checking.md 5.3), or raise CoercionError.

    `from_strings` allows "5" -> 5 and "true" -> True: always for ground-truth values, for
    model values only under --coerce-strings.
    """
    if kind is Kind.INTEGER:
        if is_number(value):
            if isinstance(value, int):
                return value
            if value.is_integer():
                return int(value)
            raise CoercionError("a fractional number where an integer is declared")
        if from_strings and isinstance(value, str):
            try:
                number = float(value.strip())
            except ValueError:
                pass
            else:
                if number.is_integer():
                    return int(number)
        raise CoercionError(f"{json_type(value)} where an integer is declared")
    if kind is Kind.NUMBER:
        if is_number(value):
            try:
                return float(value)
            except OverflowError:  # an integer beyond the float range is a number all the same
                return value
        if from_strings and isinstance(value, str):
            try:
                return float(value.strip())
            except ValueError:
                pass
        raise CoercionError(f"{json_type(value)} where a number is declared")
    if kind is Kind.BOOLEAN:
        if isinstance(value, bool):
            return value
        if from_strings and isinstance(value, str):
            lowered = value.strip().lower()
            if lowered in _TRUE:
                return True
            if lowered in _FALSE:
                return False
        raise CoercionError(f"{json_type(value)} where a boolean is declared")
    if kind is Kind.STRING:
        if isinstance(value, str):
            return value
        raise CoercionError(f"{json_type(value)} where a string is declared")
    if kind is Kind.ARRAY:
        if isinstance(value, list | tuple):
            return list(value)
        raise CoercionError(f"{json_type(value)} where an array is declared")
    if kind is Kind.OBJECT:
        if is_mapping(value):
            return value
        raise CoercionError(f"{json_type(value)} where an object is declared")
    if kind is Kind.NULL:
        if value is None:
            return None
        raise CoercionError(f"{json_type(value)} where null is declared")
    return value


@dataclass(frozen=True, slots=True)
class Mismatch:
    """The first problem found when matching one value: code, path and both sides."""

    code: ErrorCode
    path: str
    message: str
    expected: Any = None
    received: Any = None
    order_only: bool = False


def match_value(
    schema: Mapping[str, Any] | None,
    expected: Any,
    received: Any,
    path: str,
    options: MatchOptions,
    *,
    alternatives_inside: bool = False,
) -> Mismatch | None:
    """Match a received value against one expected value under a declared schema.

    `alternatives_inside`: BFCL ground truth nests lists of acceptable values inside objects;
    when set, an object's expected member that is a list of alternatives is read as such.
    """
    kind = kind_of(schema)
    try:
        got = coerce(received, kind, from_strings=options.coerce_strings)
    except CoercionError as exc:
        return Mismatch(
            ErrorCode.TYPE_ERROR,
            path,
            f"{path}: {exc}, received {show_value(received)}",
            expected,
            received,
        )
    try:
        want = coerce(expected, kind, from_strings=True)
    except CoercionError:
        want = expected  # ground truth of the wrong type: compare generically (validate warns)
    if kind is Kind.ARRAY and isinstance(want, list):
        return _match_array(schema, want, got, path, options, alternatives_inside)
    if kind is Kind.OBJECT and is_mapping(want):
        return _match_object(schema, want, got, path, options, alternatives_inside)
    if kind in (Kind.INTEGER, Kind.NUMBER) and is_number(want):
        equal = numbers_equal(want, got, options.rel_tol)
    elif kind is Kind.STRING and isinstance(want, str):
        equal = strings_equal(want, got, strict=options.strict_strings)
    else:
        equal = values_equal(
            want, got, rel_tol=options.rel_tol, strict_strings=options.strict_strings
        )
    if equal:
        return None
    return Mismatch(
        ErrorCode.VALUE_ERROR,
        path,
        f"{path}: expected {show_value(want)}, received {show_value(got)}",
        want,
        got,
    )


def _items_schema(schema: Mapping[str, Any] | None) -> Mapping[str, Any] | None:
    items = schema.get("items") if is_mapping(schema) else None
    return items if is_mapping(items) else None


def _match_array(
    schema: Mapping[str, Any] | None,
    want: list[Any],
    got: list[Any],
    path: str,
    options: MatchOptions,
    alternatives_inside: bool,
) -> Mismatch | None:
    items = _items_schema(schema)
    # Element types first: a wrong element type is a type error wherever it sits.
    item_kind = kind_of(items)
    for i, element in enumerate(got):
        try:
            coerce(element, item_kind, from_strings=options.coerce_strings)
        except CoercionError as exc:
            return Mismatch(
                ErrorCode.TYPE_ERROR,
                f"{path}[{i}]",
                f"{path}[{i}]: {exc}, received {show_value(element)}",
                None,
                element,
            )
    if len(want) != len(got):
        return Mismatch(
            ErrorCode.VALUE_ERROR,
            path,
            f"{path}: expected {len(want)} elements, received {len(got)}",
            want,
            got,
        )
    first: Mismatch | None = None
    for i, (w, g) in enumerate(zip(want, got, strict=True)):
        problem = match_value(
            items, w, g, f"{path}[{i}]", options, alternatives_inside=alternatives_inside
        )
        if problem is not None:
            if problem.code is ErrorCode.TYPE_ERROR:
                return problem
            first = first or problem
    if first is None:
        return None
    if options.explain and _same_multiset(items, want, got, options, alternatives_inside):
        return Mismatch(
            ErrorCode.VALUE_ERROR,
            path,
            f"{path}: same elements in a different order (order only): "
            f"expected {show_value(want)}, received {show_value(got)}",
            want,
            got,
            order_only=True,
        )
    return first


def _same_multiset(
    items: Mapping[str, Any] | None,
    want: Sequence[Any],
    got: Sequence[Any],
    options: MatchOptions,
    alternatives_inside: bool,
) -> bool:
    kind = kind_of(items)
    quick = replace(options, explain=False)
    asked: dict[tuple[int, int], bool] = {}

    def fits(gi: int, wi: int) -> bool:
        known = asked.get((gi, wi))
        if known is not None:
            return known
        w, g = want[wi], got[gi]
        verdict = None
        if kind in SCALARS:
            verdict = scalar_verdict(kind, w, g, quick)
        elif kind is Kind.OBJECT and not alternatives_inside and type(g) is dict:
            verdict = object_verdict(items, (w,), g, quick)
        if verdict is None:
            problem = match_value(items, w, g, "", quick, alternatives_inside=alternatives_inside)
            verdict = problem is None
        asked[gi, wi] = verdict
        return verdict

    # Pairs are asked as the augmenting paths reach them, not the whole table.
    return None not in complete_matching([None] * len(got), len(want), fits)


def _properties(schema: Mapping[str, Any] | None) -> Mapping[str, Any]:
    props = schema.get("properties") if is_mapping(schema) else None
    return props if is_mapping(props) else {}


def expand_alternatives(value: Any, schema: Mapping[str, Any] | None) -> tuple[list[Any], bool]:
    """Read a BFCL nested member as (acceptable values, may be omitted).

    A list stands for alternatives unless the member is itself declared as an array and the
    list's elements are not lists (then it is one array value).
    """
    if not isinstance(value, list):
        return [value], False
    if kind_of(schema) is Kind.ARRAY and not any(isinstance(v, list) for v in value):
        return [value], False
    values = [v for v in value if v != ""]
    return values, len(values) != len(value)


def first_acceptable(
    schema: Mapping[str, Any] | None, value: Any, alternatives_inside: bool
) -> Any:
    """The first value the checker accepts for the expected `value`: as `match_value` reads
    it (coerced to the declared kind, and with `alternatives_inside`, each nested member's
    first alternative; a member that may be left out, left out)."""
    kind = kind_of(schema)
    try:
        value = coerce(value, kind, from_strings=True)
    except CoercionError:
        return value  # compared generically by the checker, so as it is
    if not alternatives_inside:
        return value
    if kind is Kind.ARRAY and isinstance(value, list):
        items = _items_schema(schema)
        return [first_acceptable(items, v, alternatives_inside) for v in value]
    if kind is Kind.OBJECT and is_mapping(value):
        props = _properties(schema)
        first = {}
        for key, member in value.items():
            sub = props.get(key)
            sub = sub if is_mapping(sub) else None
            if member is None:
                continue
            values, may_omit = expand_alternatives(member, sub)
            if values and not may_omit:  # a member that may be left out always may
                first[key] = first_acceptable(sub, values[0], alternatives_inside)
        return first
    return value


def _match_object(
    schema: Mapping[str, Any] | None,
    want: Mapping[str, Any],
    got: Mapping[str, Any],
    path: str,
    options: MatchOptions,
    alternatives_inside: bool,
) -> Mismatch | None:
    props = _properties(schema)
    want_keys = {k for k, v in want.items() if v is not None}
    got_keys = {k for k, v in got.items() if v is not None}
    for key in sorted(got_keys - want_keys):
        sub = f"{path}.{clip(key, MAX_NAME)}"
        return Mismatch(
            ErrorCode.VALUE_ERROR,
            sub,
            f"{sub}: not expected, received {show_value(got[key])}",
            None,
            got[key],
        )
    for key in sorted(want_keys):
        sub = f"{path}.{key}"
        sub_schema = props.get(key)
        if not is_mapping(sub_schema):
            sub_schema = None
        if alternatives_inside:
            values, may_omit = expand_alternatives(want[key], sub_schema)
        else:
            values, may_omit = [want[key]], False
        if key not in got_keys:
            if may_omit or not values:
                continue
            return Mismatch(
                ErrorCode.VALUE_ERROR,
                sub,
                f"{sub}: missing, expected {show_value(values[0])}",
                values[0],
                None,
            )
        problem = match_any(
            sub_schema, values, got[key], sub, options, alternatives_inside=alternatives_inside
        )
        if problem is not None:
            return problem
    return None


def match_any(
    schema: Mapping[str, Any] | None,
    acceptable: Sequence[Any],
    received: Any,
    path: str,
    options: MatchOptions,
    *,
    alternatives_inside: bool = False,
) -> Mismatch | None:
    """Valid if any acceptable value matches; otherwise the most telling mismatch.

    A type error wins over value errors (the received value is of the wrong type whatever
    the alternative); otherwise the first alternative's mismatch is reported.
    """
    if not acceptable:
        # BFCL's `[""]`: the parameter may only be left out, so any value given is wrong.
        message = f"{path}: expected to be left out, received {show_value(received)}"
        return Mismatch(ErrorCode.VALUE_ERROR, path, message, None, received)
    if len(acceptable) == 1:  # one expected value (TFCE style): its mismatch, as it is
        return match_value(
            schema, acceptable[0], received, path, options, alternatives_inside=alternatives_inside
        )
    first: Mismatch | None = None
    for value in acceptable:
        problem = match_value(
            schema, value, received, path, options, alternatives_inside=alternatives_inside
        )
        if problem is None:
            return None
        if problem.code is ErrorCode.TYPE_ERROR and problem.path == path:
            return problem
        first = first or problem
    return first
