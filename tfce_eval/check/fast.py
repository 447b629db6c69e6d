"""The yes/no form of the per-call check, for filling the matching table quickly.

`check.check_call` explains every problem of a call; pairing the calls of a parallel item
needs only "does this call satisfy that expected call", asked for many pairs, and most
answers are right. `satisfies` stops at the first problem without building a message,
settles the usual right value (the expected value itself, of a type its declaration takes
as it is) by reading the doc's raw `type` string, compares the other common scalar cases
inline, and leaves everything else (arrays of objects, `any`, coercion from strings) to the
full rules of `typecheck`. `exact_as_is` is the same shortcut for the explaining check.
Its verdict is the same as `check_call(...).ok`; the checker's tests hold both, and the
general rules with the shortcut switched off, to one verdict on thousands of generated calls.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from tfce_eval.check.quick import object_verdict, scalar_verdict
from tfce_eval.check.values import CoercionError, coerce, match_any
from tfce_eval.model import Call, ExpectedCall, ExpectedParam, FunctionDoc, OptionalParams, Policy
from tfce_eval.schema.kinds import SCALARS, Kind, MatchOptions, kind_of, spellings

_NO_SCHEMA: Mapping[str, Any] = {}
_UNDECLARED = object()

#: For a value of each plain type, the declared type names that take it as it is (no
#: coercion): `int` is an integer and also a number, `float` only a number.
_TAKEN_AS_IS: dict[type, frozenset[str]] = {
    str: spellings(Kind.STRING),
    bool: spellings(Kind.BOOLEAN),
    int: spellings(Kind.INTEGER) | spellings(Kind.NUMBER),
    float: spellings(Kind.NUMBER),
}

_OBJECT_TYPES = spellings(Kind.OBJECT)
_ARRAY_TYPES = spellings(Kind.ARRAY)


def _as_is(schema: Any, want: Any, got: Any) -> bool:
    """For an answer equal to the expected value (`want == got`, seen by the caller): whether
    both are of the same types throughout, types their declaration takes as they are.

    Then coercion changes neither side and the comparison is that equality: the usual right
    answer. The types are asked because Python's equality forgives `1 == 1.0 == True`.
    Members and elements are asked recursively; one without a declared type is left to the
    full rules.
    """
    plain = type(got)
    if type(want) is not plain:
        return False
    declared = schema.get("type") if type(schema) is dict else None
    if type(declared) is not str:
        return False
    if plain is dict:
        props = schema.get("properties")
        if declared not in _OBJECT_TYPES or type(props) is not dict:
            return False
        for key, member in got.items():
            if member is not None and not _as_is(props.get(key), want[key], member):
                return False
        return True
    if plain is list:
        items = schema.get("items")
        if declared not in _ARRAY_TYPES or type(items) is not dict:
            return False
        for w, g in zip(want, got, strict=True):  # noqa: SIM110 (no generator on the hot path)
            if not _as_is(items, w, g):
                return False
        return True
    taken = _TAKEN_AS_IS.get(plain)
    return taken is not None and declared in taken


def exact_as_is(raw: Any, exp: ExpectedParam, value: Any) -> bool:
    """Whether `value` is the one expected value, of types its declaration takes as they are.

    The usual right answer, settled without coercion or the general comparison. `satisfies`
    asks the same inline, on its hot path.
    """
    values = exp.values
    if len(values) != 1 or type(values[0]) is not type(value) or values[0] != value:
        return False
    taken = _TAKEN_AS_IS.get(type(value))
    if taken is not None:
        declared_type = raw.get("type") if type(raw) is dict else None
        return type(declared_type) is str and declared_type in taken
    return not exp.nested_alternatives and _as_is(raw, values[0], value)


def equals_default(schema: Mapping[str, Any] | None, value: Any, options: MatchOptions) -> bool:
    """True when the doc declares a default and `value` equals it (after coercion)."""
    if not isinstance(schema, Mapping) or "default" not in schema:
        return False
    default = schema["default"]
    if default is None or value is None:
        return default is None and value is None
    return match_any(schema, [default], value, "", options) is None


def declared(
    expected: ExpectedCall, doc: FunctionDoc | None
) -> tuple[Mapping[str, Any], tuple[str, ...]]:
    """The doc's parameter schemas and required names, as the checker reads them.

    Without a doc (a dataset fault) the ground truth declares the parameters, untyped.
    """
    if doc is None:
        return {name: _NO_SCHEMA for name in expected.params}, ()
    return doc.properties, doc.required


def _schema(raw: Any) -> Mapping[str, Any] | None:
    return raw if type(raw) is dict or isinstance(raw, Mapping) else None


def param_ok(
    name: str,
    exp: ExpectedParam,
    value: Any,
    schema: Mapping[str, Any] | None,
    options: MatchOptions,
) -> bool:
    """Whether a given (non-null) value of a declared parameter is acceptable."""
    kind = kind_of(schema)
    if kind in SCALARS:
        for want in exp.values:
            verdict = scalar_verdict(kind, want, value, options)
            if verdict is None:
                break
            if verdict:
                return True
        else:
            return False
    elif kind is Kind.OBJECT and not exp.nested_alternatives and type(value) is dict:
        verdict = object_verdict(schema, exp.values, value, options)
        if verdict is not None:
            return verdict
    elif kind is Kind.ARRAY and not exp.nested_alternatives and type(value) is list:
        items = _schema(schema.get("items")) if schema is not None else None
        item_kind = kind_of(items)
        if item_kind in SCALARS:
            verdict = _array(
                exp.values, value, lambda w, g: scalar_verdict(item_kind, w, g, options)
            )
        elif item_kind is Kind.OBJECT:
            verdict = _array(exp.values, value, lambda w, g: _element_object(items, w, g, options))
        else:
            verdict = None
        if verdict is not None:
            return verdict
    return (
        match_any(
            schema,
            exp.values,
            value,
            name,
            options,
            alternatives_inside=exp.nested_alternatives,
        )
        is None
    )


def _array(
    values: tuple[Any, ...], got: list[Any], same: Callable[[Any, Any], bool | None]
) -> bool | None:
    """An array against its acceptable values, element by element with `same` (a yes/no
    element comparison); None means "use the full rules"."""
    for want in values:
        if type(want) is not list:
            return None
        if len(want) != len(got):
            continue
        for w, g in zip(want, got, strict=True):
            verdict = same(w, g)
            if verdict is None:
                return None
            if not verdict:
                break
        else:
            return True
    # No alternative matched; a type problem in any element must still be a "no".
    return False


def _element_object(
    items: Mapping[str, Any] | None, want: Any, got: Any, options: MatchOptions
) -> bool | None:
    if type(got) is not dict:
        return None
    return object_verdict(items, (want,), got, options)


def satisfies(
    call: Call,
    expected: ExpectedCall,
    properties: Mapping[str, Any],
    required: tuple[str, ...],
    policy: Policy,
    options: MatchOptions,
) -> bool:
    """Whether `call` satisfies the expected call: `check_call(...).ok`, without the why."""
    if call.name != expected.name:
        return False
    args = call.arguments
    params = expected.params
    for name in required:
        if args.get(name) is None:
            return False
    given = 0  # expected parameters the call gives, to know whether any is left out
    for name, value in args.items():
        raw = properties.get(name, _UNDECLARED)
        if raw is _UNDECLARED:
            return False
        exp = params.get(name)
        if exp is None:
            if not _unasked_ok(value, raw, policy, options):
                return False
            continue
        given += 1
        if value is None:
            if not _omission_ok(name, exp, raw, required, options):
                return False
            continue
        values = exp.values
        if len(values) == 1 and type(values[0]) is type(value) and values[0] == value:
            # The exact expected value: settled from the declared type names when they
            # take it as it is, the usual right answer.
            taken = _TAKEN_AS_IS.get(type(value))
            if taken is not None:
                declared_type = raw.get("type") if type(raw) is dict else None
                if type(declared_type) is str and declared_type in taken:
                    continue
            elif not exp.nested_alternatives and _as_is(raw, values[0], value):
                continue
        if not param_ok(name, exp, value, _schema(raw), options):
            return False
    if given < len(params):
        for name, exp in params.items():
            if name in args:
                continue
            if not _omission_ok(name, exp, properties.get(name), required, options):
                return False
    return True


def _omission_ok(
    name: str, exp: ExpectedParam, raw: Any, required: tuple[str, ...], options: MatchOptions
) -> bool:
    """An expected parameter the call leaves out or sets to null (docs/checking.md 5.2.4); a
    required one
    is judged by the required check."""
    if name in required or exp.may_omit:
        return True
    schema = _schema(raw)
    return any(equals_default(schema, v, options) for v in exp.values)


def _unasked_ok(value: Any, schema: Any, policy: Policy, options: MatchOptions) -> bool:
    """A declared parameter the ground truth does not name (docs/checking.md 5.2.5)."""
    if policy.optional_params is OptionalParams.FORBID:
        return False
    if value is None:
        return True
    schema = _schema(schema)
    if policy.optional_params is OptionalParams.ANY:
        try:
            coerce(value, kind_of(schema), from_strings=options.coerce_strings)
        except CoercionError:
            return False
        return True
    return equals_default(schema, value, options)
