"""Function docs as providers receive them: wire names and JSON Schema parameters (README "Data").

The dataset's docs are kept unchanged for checking; this module derives what is sent.

Types are first read as their canonical name by the one type vocabulary
(`tfce_eval.schema.kinds`, which the checker, the loader and `validate` also use). Then
`float` becomes JSON Schema `number`, and `any` or an unknown type name becomes no
type constraint at all; a union (a list of types) maps each member and is dropped as a whole
when one member is unconstrained.

Only these JSON Schema keywords are sent, each only when its value is of the kind the
meta-schema requires (providers refuse others): `type`, `description`, `title`, `enum`,
`const`, `default`, `properties`, `required` (kept to declared properties), `items` (`{}` when
an array declares none; a list of item schemas becomes one `anyOf`), `additionalProperties`,
`anyOf`, `pattern` (when it compiles), `minimum`, `maximum`, `exclusiveMinimum`,
`exclusiveMaximum`, `multipleOf`, `minLength`, `maxLength`, `minItems`, `maxItems`,
`uniqueItems`. The top level is always `{"type": "object", "properties": ..., "required":
[...]}`.

Wire names match `^[a-zA-Z0-9_-]{1,64}$`: other characters become `_`; a name with non-ASCII
characters, or one longer than 64, gets a hash suffix so that it stays stable and distinct.
Within one item, names that are already valid keep themselves and a collision gets `_2`,
`_3`... in doc order. All functions here are pure.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from tfce_eval.model import FunctionDoc
from tfce_eval.schema.equality import is_number
from tfce_eval.schema.kinds import TypeName
from tfce_eval.schema.kinds import canonical_kind as canonical_kind
from tfce_eval.schema.kinds import declared_kinds as declared_kinds

_WIRE_OK = re.compile(r"[a-zA-Z0-9_-]{1,64}")
_WIRE_BAD = re.compile(r"[^a-zA-Z0-9_-]")
_MAX_NAME = 64

#: Canonical types that are sent under another name (`float`) or with no type at all (`any`).
_WIRE_TYPES: dict[TypeName, str | None] = {TypeName.FLOAT: "number", TypeName.ANY: None}

_STRING_KEYS = ("description", "title")
_NUMBER_KEYS = ("minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum", "multipleOf")
_COUNT_KEYS = ("minLength", "maxLength", "minItems", "maxItems")
_ANY_KEYS = ("const", "default")


def _wire_type(declared: object) -> str | list[str] | None:
    kinds = declared_kinds({"type": declared})
    if kinds is None:
        return None
    names = declared if isinstance(declared, list) else [declared]
    mapped: list[str] = []
    for name in names:
        kind = canonical_kind(name)
        wire = _WIRE_TYPES.get(kind, str(kind)) if kind is not None else None
        if wire is not None and wire not in mapped:
            mapped.append(wire)
    return mapped[0] if len(mapped) == 1 else mapped


def _pattern_ok(value: object) -> bool:
    if not isinstance(value, str):
        return False
    try:
        re.compile(value)
    except re.error:
        return False
    return True


def _translate(schema: object) -> dict[str, Any]:
    """One (nested) parameter schema, translated; anything not a mapping allows anything."""
    if not isinstance(schema, Mapping):
        return {}
    out: dict[str, Any] = {}
    wire_type = _wire_type(schema.get("type"))
    if wire_type is not None:
        out["type"] = wire_type
    for key in _STRING_KEYS:
        if isinstance(schema.get(key), str):
            out[key] = schema[key]
    for key in _NUMBER_KEYS:
        if is_number(schema.get(key)):
            out[key] = schema[key]
    for key in _COUNT_KEYS:
        value = schema.get(key)
        if isinstance(value, int) and not isinstance(value, bool) and value >= 0:
            out[key] = value
    for key in _ANY_KEYS:
        if key in schema:
            out[key] = schema[key]
    if isinstance(schema.get("uniqueItems"), bool):
        out["uniqueItems"] = schema["uniqueItems"]
    if _pattern_ok(schema.get("pattern")):
        out["pattern"] = schema["pattern"]
    enum = schema.get("enum")
    if isinstance(enum, list) and enum:
        out["enum"] = list(enum)
    properties = schema.get("properties")
    if isinstance(properties, Mapping):
        out["properties"] = {str(k): _translate(v) for k, v in properties.items()}
    required = _required(schema.get("required"), out.get("properties"))
    if required:
        out["required"] = required
    items = schema.get("items")
    if isinstance(items, list):
        out["items"] = _one_of_items([_translate(i) for i in items])
    elif isinstance(items, Mapping):
        out["items"] = _translate(items)
    elif "array" in _as_list(wire_type):
        out["items"] = {}
    extra = schema.get("additionalProperties")
    if isinstance(extra, bool):
        out["additionalProperties"] = extra
    elif isinstance(extra, Mapping):
        out["additionalProperties"] = _translate(extra)
    any_of = schema.get("anyOf")
    if isinstance(any_of, list) and any_of:
        out["anyOf"] = [_translate(s) for s in any_of]
    return out


def _as_list(value: str | list[str] | None) -> list[str]:
    if value is None:
        return []
    return [value] if isinstance(value, str) else value


def _one_of_items(schemas: list[dict[str, Any]]) -> dict[str, Any]:
    distinct = [s for i, s in enumerate(schemas) if s not in schemas[:i]]
    if not distinct:
        return {}
    return distinct[0] if len(distinct) == 1 else {"anyOf": distinct}


def _required(required: object, properties: Mapping[str, Any] | None) -> list[str]:
    if not isinstance(required, list):
        return []
    names = [r for r in dict.fromkeys(required) if isinstance(r, str)]
    return names if properties is None else [r for r in names if r in properties]


def to_wire_schema(doc: FunctionDoc) -> dict[str, Any]:
    """The JSON Schema object sent as the function's `parameters`."""
    properties = {str(k): _translate(v) for k, v in doc.properties.items()}
    required = [r for r in dict.fromkeys(doc.required) if r in properties]
    return {"type": "object", "properties": properties, "required": required}


def wire_name(name: str) -> str:
    """A name providers accept, derived from `name` alone (stable across items and runs)."""
    if _WIRE_OK.fullmatch(name):
        return name
    cleaned = _WIRE_BAD.sub("_", name)
    if not name.isascii() or len(cleaned) > _MAX_NAME or not cleaned.strip("_-"):
        # surrogatepass: a lone surrogate (JSON's "\ud83d") still hashes, to its own digest.
        digest = hashlib.sha256(name.encode("utf-8", "surrogatepass")).hexdigest()[:8]
        stem = cleaned.strip("_-")[: _MAX_NAME - len(digest) - 1] or "f"
        cleaned = f"{stem}_{digest}"
    return cleaned


def wire_names(docs: Sequence[FunctionDoc]) -> dict[str, str]:
    """Original name -> wire name for one item's docs, unique within the item, in doc order."""
    names = list(dict.fromkeys(doc.name for doc in docs))
    chosen = {name: name for name in names if _WIRE_OK.fullmatch(name)}
    used = set(chosen.values())
    for name in names:
        if name in chosen:
            continue
        base = candidate = wire_name(name)
        counter = 2
        while candidate in used:
            suffix = f"_{counter}"
            candidate = base[: _MAX_NAME - len(suffix)] + suffix
            counter += 1
        chosen[name] = candidate
        used.add(candidate)
    return {name: chosen[name] for name in names}


def name_map(docs: Sequence[FunctionDoc]) -> dict[str, str]:
    """Wire name -> original name, only for the names that had to change."""
    return {wire: name for name, wire in wire_names(docs).items() if wire != name}


@dataclass(frozen=True)
class WireTool:
    """One function as sent to a provider; `original_name` is the dataset's name for it."""

    name: str
    description: str
    parameters: dict[str, Any]
    original_name: str


def wire_tools(docs: Sequence[FunctionDoc]) -> tuple[WireTool, ...]:
    """The tools of one item; a doc whose name repeats an earlier one is sent once."""
    names = wire_names(docs)
    tools: dict[str, WireTool] = {}
    for doc in docs:
        if doc.name not in tools:
            parameters = to_wire_schema(doc)
            tools[doc.name] = WireTool(names[doc.name], doc.description, parameters, doc.name)
    return tuple(tools.values())
