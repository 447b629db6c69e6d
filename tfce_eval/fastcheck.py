"""The yes/no form of the per-call check, for filling the matching table quickly.

`check.check_call` explains every problem of a call; pairing the calls of a parallel item
needs only "does this call satisfy that expected call", asked for many pairs, and most
answers are right. `satisfies` stops at the first problem without building a message,
compares the common scalar cases inline, and leaves everything else (arrays of objects,
`any`, coercion from strings) to the full rules of `typecheck`. Its verdict is the same as
`check_call(...).ok`; the checker's tests hold both to it on thousands of generated calls.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from tfce_eval.compare import is_number, numbers_equal, strings_equal
from tfce_eval.typecheck import CoercionError, Kind, MatchOptions, coerce, kind_of, match_any
from tfce_eval.types import Call, ExpectedCall, ExpectedParam, FunctionDoc, OptionalParams, Policy

_MISSING = object()
_NO_SCHEMA: Mapping[str, Any] = {}


def equals_default(schema: Mapping[str, Any] | None, value: Any, options: MatchOptions) -> bool:
    """True when the doc declares a default and `value` equals it (after coercion)."""
    if not isinstance(schema, Mapping) or "default" not in schema:
        return False
    default = schema["default"]
    if default is None or value is None:
        return default is None and value is None
    return match_any(schema, [default], value, "", options) is None


class Kinds:
    """The declared kinds of one doc's parameters (and of their array items), worked out once
    per item and shared by every pair that asks."""

    __slots__ = ("_items", "_members", "kinds", "properties")

    def __init__(self, properties: Mapping[str, Any]) -> None:
        self.properties = properties
        self.kinds: dict[str, Kind] = {}  # filled as parameters are asked about
        self._items: dict[str, Kind] = {}
        self._members: dict[str, dict[str, Kind]] = {}

    def schema(self, name: str) -> Mapping[str, Any] | None:
        raw = self.properties.get(name)
        return raw if type(raw) is dict or isinstance(raw, Mapping) else None

    def of(self, name: str) -> Kind:
        kind = self.kinds.get(name)
        if kind is None:
            kind = self.kinds[name] = kind_of(self.schema(name))
        return kind

    def items_of(self, name: str) -> Kind:
        kind = self._items.get(name)
        if kind is None:
            schema = self.schema(name)
            items = schema.get("items") if schema is not None else None
            kind = self._items[name] = kind_of(items if isinstance(items, Mapping) else None)
        return kind

    def members_of(self, name: str) -> dict[str, Kind]:
        """The kinds of an object parameter's declared properties."""
        members = self._members.get(name)
        if members is None:
            schema = self.schema(name)
            props = schema.get("properties") if schema is not None else None
            members = self._members[name] = (
                {k: kind_of(v if isinstance(v, Mapping) else None) for k, v in props.items()}
                if isinstance(props, Mapping)
                else {}
            )
        return members


def declarations(expected: ExpectedCall, doc: FunctionDoc | None) -> tuple[Kinds, tuple[str, ...]]:
    """What the checker reads from the doc: parameter kinds and the required names.

    Without a doc (a dataset fault) the ground truth declares the parameters.
    """
    if doc is None:
        return Kinds({name: _NO_SCHEMA for name in expected.params}), ()
    return Kinds(doc.properties), doc.required


def _scalar(kind: Kind, want: Any, got: Any, options: MatchOptions) -> bool | None:
    """One expected scalar against one received value; None means "use the full rules"."""
    if kind is Kind.STRING:
        if type(want) is not str:
            return None
        if type(got) is not str:
            return None if options.coerce_strings else False
        return want == got or strings_equal(want, got, strict=options.strict_strings)
    if kind is Kind.BOOLEAN:
        if type(want) is not bool:
            return None
        if type(got) is not bool:
            return None if options.coerce_strings else False
        return want == got
    if not is_number(want):
        return None
    if not is_number(got):
        return None if options.coerce_strings else False
    if kind is Kind.INTEGER and (
        (type(got) is float and not got.is_integer()) or (type(want) is float)
    ):
        return None if type(want) is float else False
    return want == got or numbers_equal(float(want), float(got), options.rel_tol)


# A tuple, not a set: membership by identity avoids hashing the enum members.
_SCALARS = (Kind.INTEGER, Kind.NUMBER, Kind.STRING, Kind.BOOLEAN)


def param_ok(
    name: str, exp: ExpectedParam, value: Any, kinds: Kinds, options: MatchOptions
) -> bool:
    """Whether a given (non-null) value of a declared parameter is acceptable."""
    kind = kinds.of(name)
    if kind in _SCALARS:
        for want in exp.values:
            verdict = _scalar(kind, want, value, options)
            if verdict is None:
                break
            if verdict:
                return True
        else:
            return False
    elif kind is Kind.OBJECT and not exp.nested_alternatives and type(value) is dict:
        verdict = _object(kinds.members_of(name), exp.values, value, options)
        if verdict is not None:
            return verdict
    elif kind is Kind.ARRAY and not exp.nested_alternatives and type(value) is list:
        item_kind = kinds.items_of(name)
        if item_kind in _SCALARS:
            verdict = _array(item_kind, exp.values, value, options)
            if verdict is not None:
                return verdict
    return (
        match_any(
            kinds.schema(name),
            exp.values,
            value,
            name,
            options,
            alternatives_inside=exp.nested_alternatives,
        )
        is None
    )


def _object(
    members: Mapping[str, Kind], values: tuple[Any, ...], got: dict[str, Any], options: MatchOptions
) -> bool | None:
    """An object whose declared members are scalars, member by member; None: full rules."""
    present = {k for k, v in got.items() if v is not None}
    for want in values:
        if type(want) is not dict:
            return None
        if {k for k, v in want.items() if v is not None} != present:
            continue
        for key in present:
            kind = members.get(key)
            if kind is None or kind not in _SCALARS:
                return None
            verdict = _scalar(kind, want[key], got[key], options)
            if verdict is None:
                return None
            if not verdict:
                break
        else:
            return True
    return None if not values else False


def _array(
    kind: Kind, values: tuple[Any, ...], got: list[Any], options: MatchOptions
) -> bool | None:
    for want in values:
        if type(want) is not list:
            return None
        if len(want) != len(got):
            continue
        for w, g in zip(want, got, strict=True):
            verdict = _scalar(kind, w, g, options)
            if verdict is None:
                return None
            if not verdict:
                break
        else:
            return True
    # No alternative matched; a type problem in any element must still be a "no".
    return False


def satisfies(
    call: Call,
    expected: ExpectedCall,
    kinds: Kinds,
    required: tuple[str, ...],
    policy: Policy,
    options: MatchOptions,
) -> bool:
    """Whether `call` satisfies the expected call: `check_call(...).ok`, without the why."""
    if call.name != expected.name:
        return False
    args = call.arguments
    properties = kinds.properties
    params = expected.params
    for name, value in args.items():
        if name not in properties:
            return False
        if name not in params and not _unasked_ok(value, kinds.schema(name), policy, options):
            return False
    for name in required:
        if args.get(name) is None:
            return False
    known = kinds.kinds
    for name, exp in params.items():
        value = args.get(name, _MISSING)
        if value is _MISSING or value is None:
            if name in required or exp.may_omit:
                continue
            if not any(equals_default(kinds.schema(name), v, options) for v in exp.values):
                return False
            continue
        if name not in properties:
            continue
        values = exp.values
        if len(values) == 1 and type(values[0]) is type(value) and values[0] == value:
            # The exact expected value, of a type its declaration takes as it is: the usual
            # right answer, settled without the general comparison.
            kind = known.get(name) or kinds.of(name)
            plain = type(value)
            if (
                (kind is Kind.STRING and plain is str)
                or (kind is Kind.NUMBER and (plain is float or plain is int))
                or (kind is Kind.INTEGER and plain is int)
                or (kind is Kind.BOOLEAN and plain is bool)
            ):
                continue
        if not param_ok(name, exp, value, kinds, options):
            return False
    return True


def _unasked_ok(value: Any, schema: Any, policy: Policy, options: MatchOptions) -> bool:
    """A declared parameter the ground truth does not name (SPEC 5.2.5)."""
    if policy.optional_params is OptionalParams.FORBID:
        return False
    if value is None:
        return True
    if policy.optional_params is OptionalParams.ANY:
        try:
            coerce(value, kind_of(schema), from_strings=options.coerce_strings)
        except CoercionError:
            return False
        return True
    return equals_default(schema if isinstance(schema, Mapping) else None, value, options)
