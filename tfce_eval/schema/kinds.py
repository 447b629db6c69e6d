"""The one type vocabulary: what a parameter's declared `type` means (README "Data", 5.3).

BFCL-style docs spell types many ways. Every spelling the harness knows is read here, once,
as a `TypeName` (the canonical declared type, which `validate` and the wire schemas speak)
and a `Kind` (how the checker compares values of that type):

| spellings (any case)                     | TypeName  | Kind    |
|------------------------------------------|-----------|---------|
| string, str, char, character             | string    | STRING  |
| integer, int, long, short, byte          | integer   | INTEGER |
| float, double                            | float     | NUMBER  |
| number                                   | number    | NUMBER  |
| boolean, bool                            | boolean   | BOOLEAN |
| array, tuple, list, arraylist            | array     | ARRAY   |
| dict, object, map, hashmap               | object    | OBJECT  |
| null                                     | null      | NULL    |
| any                                      | any       | ANY     |

A missing type, an unknown name and a union (a list of names) compare generically (`ANY`).
`NULL` accepts only null. Everything that compares values under a declaration starts here:
the yes/no comparisons (`check.quick`), the explaining ones (`check.values`), the checker's
shortcut for exact values (`check.fast`) and the wire schemas (`schema.wire`).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from enum import Enum, StrEnum
from typing import Any, TypeGuard

from tfce_eval.schema.equality import AST_REL_TOL


class Kind(Enum):
    """How the checker compares values of a declared type."""

    INTEGER = "integer"
    NUMBER = "number"
    BOOLEAN = "boolean"
    STRING = "string"
    ARRAY = "array"
    OBJECT = "object"
    NULL = "null"
    ANY = "any"


class TypeName(StrEnum):
    """A declared type, canonical: the names `validate` reports and wire schemas start from."""

    STRING = "string"
    INTEGER = "integer"
    FLOAT = "float"
    NUMBER = "number"
    BOOLEAN = "boolean"
    ARRAY = "array"
    OBJECT = "object"
    NULL = "null"
    ANY = "any"

    @property
    def kind(self) -> Kind:
        return _KIND_OF_NAME[self]


_KIND_OF_NAME: dict[TypeName, Kind] = {
    TypeName.STRING: Kind.STRING,
    TypeName.INTEGER: Kind.INTEGER,
    TypeName.FLOAT: Kind.NUMBER,
    TypeName.NUMBER: Kind.NUMBER,
    TypeName.BOOLEAN: Kind.BOOLEAN,
    TypeName.ARRAY: Kind.ARRAY,
    TypeName.OBJECT: Kind.OBJECT,
    TypeName.NULL: Kind.NULL,
    TypeName.ANY: Kind.ANY,
}

#: Every spelling of a declared type, lower case, and its canonical name.
_SPELLINGS: dict[str, TypeName] = {
    "string": TypeName.STRING,
    "str": TypeName.STRING,
    "char": TypeName.STRING,
    "character": TypeName.STRING,
    "integer": TypeName.INTEGER,
    "int": TypeName.INTEGER,
    "long": TypeName.INTEGER,
    "short": TypeName.INTEGER,
    "byte": TypeName.INTEGER,
    "float": TypeName.FLOAT,
    "double": TypeName.FLOAT,
    "number": TypeName.NUMBER,
    "boolean": TypeName.BOOLEAN,
    "bool": TypeName.BOOLEAN,
    "array": TypeName.ARRAY,
    "tuple": TypeName.ARRAY,
    "list": TypeName.ARRAY,
    "arraylist": TypeName.ARRAY,
    "dict": TypeName.OBJECT,
    "object": TypeName.OBJECT,
    "map": TypeName.OBJECT,
    "hashmap": TypeName.OBJECT,
    "null": TypeName.NULL,
    "any": TypeName.ANY,
}

#: Spelling -> Kind, derived from the one table above (the checker's hot lookup).
_KINDS: dict[str, Kind] = {name: type_name.kind for name, type_name in _SPELLINGS.items()}


def canonical_kind(type_name: object) -> TypeName | None:
    """The canonical name of one declared type name; None for a name the harness does not know.

    Names are compared without case and surrounding spaces.
    """
    if not isinstance(type_name, str):
        return None
    found = _SPELLINGS.get(type_name)
    return found if found is not None else _SPELLINGS.get(type_name.strip().lower())


def declared_kinds(schema: object) -> frozenset[TypeName] | None:
    """The canonical types a parameter schema's `type` allows; None when it does not constrain.

    `any`, a missing type and an unknown type name leave it unconstrained; so does a union
    with such a member.
    """
    if not isinstance(schema, Mapping):
        return None
    declared = schema.get("type")
    names = declared if isinstance(declared, list) else [declared]
    kinds = {canonical_kind(name) for name in names}
    if not kinds or None in kinds or TypeName.ANY in kinds:
        return None
    return frozenset(k for k in kinds if k is not None)


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
