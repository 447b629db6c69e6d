"""Declared types: the kinds a parameter's `type` names, and the options values are matched
under (SPEC 5.3).

BFCL-style docs spell types many ways (`float`, `double`, `number`; `dict`, `object`,
`HashMap`); each spelling is read as one `Kind`. Everything that compares values under a
declaration starts here: the yes/no comparisons (`quickmatch`), the explaining ones
(`typecheck`) and the checker's shortcut for exact values (`fastcheck`).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from enum import Enum
from typing import Any, TypeGuard

from tfce_eval.schema.equality import AST_REL_TOL


class Kind(Enum):
    INTEGER = "integer"
    NUMBER = "number"
    BOOLEAN = "boolean"
    STRING = "string"
    ARRAY = "array"
    OBJECT = "object"
    ANY = "any"


_KINDS: dict[str, Kind] = {
    "integer": Kind.INTEGER,
    "int": Kind.INTEGER,
    "long": Kind.INTEGER,
    "short": Kind.INTEGER,
    "byte": Kind.INTEGER,
    "float": Kind.NUMBER,
    "number": Kind.NUMBER,
    "double": Kind.NUMBER,
    "boolean": Kind.BOOLEAN,
    "bool": Kind.BOOLEAN,
    "string": Kind.STRING,
    "str": Kind.STRING,
    "char": Kind.STRING,
    "array": Kind.ARRAY,
    "tuple": Kind.ARRAY,
    "list": Kind.ARRAY,
    "arraylist": Kind.ARRAY,
    "dict": Kind.OBJECT,
    "object": Kind.OBJECT,
    "hashmap": Kind.OBJECT,
    "any": Kind.ANY,
}


def spellings(kind: Kind) -> frozenset[str]:
    """The declared type names read as `kind` without normalising them."""
    return frozenset(name for name, k in _KINDS.items() if k is kind)


def is_mapping(value: Any) -> TypeGuard[Mapping[str, Any]]:
    """Whether a value is an object (a JSON object decodes to a dict)."""
    # Plain dicts first: the ABC check costs several times more and they are the usual case.
    return type(value) is dict or isinstance(value, Mapping)


def kind_of(schema: Mapping[str, Any] | None) -> Kind:
    """The declared kind of a parameter; unions and unknown types compare generically."""
    if schema is None or not is_mapping(schema):
        return Kind.ANY
    declared = schema.get("type")
    if isinstance(declared, str):
        kind = _KINDS.get(declared)  # the usual spelling, without the cost of normalising it
        return kind if kind is not None else _KINDS.get(declared.strip().lower(), Kind.ANY)
    return Kind.ANY


#: The kinds `scalar_verdict` compares. A tuple, not a set: membership by identity avoids
#: hashing the enum members.
SCALARS = (Kind.INTEGER, Kind.NUMBER, Kind.STRING, Kind.BOOLEAN)


@dataclass(frozen=True, slots=True)
class MatchOptions:
    """How values are compared: the policy's string switches and the number tolerance."""

    coerce_strings: bool = False
    strict_strings: bool = False
    rel_tol: float = AST_REL_TOL
    #: Whether an array mismatch is analysed for "order only"; a yes/no check skips it.
    explain: bool = True
