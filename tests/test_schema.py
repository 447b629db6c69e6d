"""Wire names and wire schemas: what providers receive for a dataset's function docs."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest
from jsonschema import Draft7Validator, Draft202012Validator

from tfce_eval.dataset.load import load_dataset
from tfce_eval.dataset.paths import builtin_data_dir
from tfce_eval.model import FunctionDoc
from tfce_eval.schema.wire import (
    canonical_kind,
    declared_kinds,
    name_map,
    to_wire_schema,
    wire_name,
    wire_names,
    wire_tools,
)

FIXTURES = Path(__file__).parent / "fixtures"
WIRE = re.compile(r"[a-zA-Z0-9_-]{1,64}")


def doc(name: str = "f", properties: Any = None, required: Any = None, **extra: Any) -> FunctionDoc:
    params: dict[str, Any] = {"type": "dict"}
    if properties is not None:
        params["properties"] = properties
    if required is not None:
        params["required"] = required
    return FunctionDoc(name, "d", {"name": name, "description": "d", "parameters": params, **extra})


@pytest.mark.parametrize(
    ("name", "expected"),
    [
        ("get_weather", "get_weather"),
        ("get-weather-2", "get-weather-2"),
        ("math.factorial", "math_factorial"),
        ("get weather", "get_weather"),
        ("a/b:c", "a_b_c"),
    ],
)
def test_wire_name(name: str, expected: str) -> None:
    assert wire_name(name) == expected


@pytest.mark.parametrize("name", ["x" * 65, "module." + "y" * 80, "查询余额", "余额.query", "..."])
def test_wire_name_hashes_long_and_non_ascii_names(name: str) -> None:
    wire = wire_name(name)
    assert WIRE.fullmatch(wire)
    assert wire == wire_name(name)  # stable
    assert wire != wire_name(name + "z")


def test_wire_names_are_unique_within_an_item() -> None:
    docs = [doc("a.b"), doc("a_b"), doc("a b"), doc("c"), doc("a.b")]
    names = wire_names(docs)
    assert names == {"a.b": "a_b_2", "a_b": "a_b", "a b": "a_b_3", "c": "c"}
    assert name_map(docs) == {"a_b_2": "a.b", "a_b_3": "a b"}
    assert all(WIRE.fullmatch(w) for w in names.values())


def test_wire_names_collisions_stay_short() -> None:
    first, second = "n" * 63 + ".", "n" * 63 + ","
    names = wire_names([doc(first), doc(second)])
    assert names[first] == "n" * 63 + "_"
    assert names[second] == "n" * 62 + "_2"
    assert len(names[second]) == 64 and WIRE.fullmatch(names[second])


def test_wire_tools_send_each_name_once() -> None:
    docs = [doc("math.factorial", {"n": {"type": "integer"}}, ["n"]), doc("math.factorial")]
    (tool,) = wire_tools(docs)
    assert tool.name == "math_factorial" and tool.original_name == "math.factorial"
    assert tool.parameters["properties"] == {"n": {"type": "integer"}}
    assert tool.description == "d"


TRANSLATIONS: list[tuple[str, Any, Any]] = [
    ("dict", {"type": "dict"}, {"type": "object"}),
    ("float", {"type": "float"}, {"type": "number"}),
    ("double", {"type": "double"}, {"type": "number"}),
    (
        "tuple",
        {"type": "tuple", "items": {"type": "float"}},
        {"type": "array", "items": {"type": "number"}},
    ),
    ("list", {"type": "list"}, {"type": "array", "items": {}}),
    ("array without items", {"type": "array"}, {"type": "array", "items": {}}),
    ("any", {"type": "any", "description": "x"}, {"description": "x"}),
    ("no type", {"description": "x"}, {"description": "x"}),
    ("unknown type", {"type": "HashSet<Foo>"}, {}),
    ("kept", {"type": "string"}, {"type": "string"}),
    ("char", {"type": "char"}, {"type": "string"}),
    ("character", {"type": "character"}, {"type": "string"}),
    ("map", {"type": "map"}, {"type": "object"}),
    ("null", {"type": "null"}, {"type": "null"}),
    ("long", {"type": "long"}, {"type": "integer"}),
    ("boolean", {"type": "Boolean"}, {"type": "boolean"}),
    ("union", {"type": ["integer", "float"]}, {"type": ["integer", "number"]}),
    ("union to one", {"type": ["float", "number"]}, {"type": "number"}),
    ("union with any", {"type": ["string", "any"]}, {}),
    ("union with array", {"type": ["string", "array"]}, {"type": ["string", "array"], "items": {}}),
    (
        "enum and default",
        {"type": "string", "enum": ["a", "b"], "default": "a", "description": "pick"},
        {"type": "string", "enum": ["a", "b"], "default": "a", "description": "pick"},
    ),
    ("null default", {"type": "float", "default": None}, {"type": "number", "default": None}),
    (
        "nested",
        {
            "type": "dict",
            "properties": {
                "band": {"type": "string"},
                "bands": {
                    "type": "array",
                    "items": {"type": "dict", "properties": {"x": {"type": "float"}}},
                },
            },
            "required": ["band", "ghost"],
        },
        {
            "type": "object",
            "properties": {
                "band": {"type": "string"},
                "bands": {
                    "type": "array",
                    "items": {"type": "object", "properties": {"x": {"type": "number"}}},
                },
            },
            "required": ["band"],
        },
    ),
    (
        "dropped keys",
        {
            "type": "string",
            "format": "date",
            "examples": ["x"],
            "$ref": "#/x",
            "nullable": True,
            "pattern": "[",
            "minLength": -1,
            "maxLength": 3,
            "title": 5,
        },
        {"type": "string", "maxLength": 3},
    ),
    (
        "kept constraints",
        {"type": "integer", "minimum": 0, "maximum": 9},
        {"type": "integer", "minimum": 0, "maximum": 9},
    ),
    ("bool is no number", {"type": "integer", "minimum": True}, {"type": "integer"}),
    (
        "tuple form items",
        {"type": "array", "items": [{"type": "int"}, {"type": "str"}]},
        {"type": "array", "items": {"anyOf": [{"type": "integer"}, {"type": "string"}]}},
    ),
    ("not a schema", "a string", {}),
    (
        "extra properties",
        {"type": "dict", "additionalProperties": {"type": "float"}},
        {"type": "object", "additionalProperties": {"type": "number"}},
    ),
]


@pytest.mark.parametrize(
    ("schema", "expected"), [t[1:] for t in TRANSLATIONS], ids=[t[0] for t in TRANSLATIONS]
)
def test_translation(schema: Any, expected: Any) -> None:
    wire = to_wire_schema(doc(properties={"p": schema}))
    assert wire == {"type": "object", "properties": {"p": expected}, "required": []}
    Draft202012Validator.check_schema(wire)
    Draft7Validator.check_schema(wire)


def test_top_level_is_always_an_object() -> None:
    empty = FunctionDoc("f", "", {"name": "f"})
    assert to_wire_schema(empty) == {"type": "object", "properties": {}, "required": []}
    odd = FunctionDoc("f", "", {"name": "f", "parameters": {"type": "string", "properties": 3}})
    assert to_wire_schema(odd) == {"type": "object", "properties": {}, "required": []}
    required = to_wire_schema(doc(properties={"a": {}, "b": {}}, required=["b", "a", "b", "c", 1]))
    assert required["required"] == ["b", "a"]


def test_translation_is_pure() -> None:
    raw = {"type": "dict", "properties": {"a": {"type": "float", "enum": [1.0]}}}
    d = FunctionDoc("f", "", {"name": "f", "parameters": raw})
    wire = to_wire_schema(d)
    wire["properties"]["a"]["enum"].append(2.0)
    assert raw["properties"]["a"]["enum"] == [1.0]


@pytest.mark.parametrize(
    ("type_name", "kind"),
    [
        ("float", "float"),
        ("Double", "float"),
        ("dict", "object"),
        ("tuple", "array"),
        ("any", "any"),
        ("String", "string"),
        ("frob", None),
        (3, None),
    ],
)
def test_canonical_kind(type_name: Any, kind: str | None) -> None:
    assert canonical_kind(type_name) == kind


#: BFCL's whole list of declared types, with the kind the checker compares them as.
BFCL_TYPES = {
    "string": "string",
    "integer": "integer",
    "float": "number",
    "number": "number",
    "boolean": "boolean",
    "array": "array",
    "tuple": "array",
    "dict": "object",
    "object": "object",
    "map": "object",
    "character": "string",
    "any": "any",
    "null": "null",
}

#: The other spellings docs/checking.md 5.3 lists (Python's and Java's names).
OTHER_SPELLINGS = {
    "str": "string",
    "char": "string",
    "int": "integer",
    "long": "integer",
    "short": "integer",
    "byte": "integer",
    "double": "number",
    "bool": "boolean",
    "list": "array",
    "arraylist": "array",
    "hashmap": "object",
}


@pytest.mark.parametrize(("type_name", "kind"), [*BFCL_TYPES.items(), *OTHER_SPELLINGS.items()])
def test_one_vocabulary_for_checker_and_wire(type_name: str, kind: str) -> None:
    """The checker's kind and the wire schema's type come from the same reading."""
    from tfce_eval.schema.kinds import kind_of

    for spelled in (type_name, type_name.upper(), f" {type_name.title()} "):
        assert kind_of({"type": spelled}).value == kind
        canonical = canonical_kind(spelled)
        assert canonical is not None and canonical.kind.value == kind
    wire = to_wire_schema(doc(properties={"p": {"type": type_name}}))["properties"]["p"]
    # The kinds are named as JSON Schema names the types; `any` is sent without a type.
    assert wire.get("type", "any") == kind


def test_declared_kinds() -> None:
    assert declared_kinds({"type": ["integer", "float"]}) == {"integer", "float"}
    assert declared_kinds({"type": "any"}) is None
    assert declared_kinds({}) is None
    assert declared_kinds(None) is None


def _every_doc() -> list[FunctionDoc]:
    roots = [FIXTURES / "bfcl_layout", FIXTURES / "tfce_small", builtin_data_dir()]
    docs = []
    for root in roots:
        for item in load_dataset(root).iter_items():
            docs.extend(item.functions)
    return docs


def test_every_doc_translates_to_a_valid_schema() -> None:
    docs = _every_doc()
    names = {d.name for d in docs}
    assert {"math.factorial", "get weather", "plot_route", "configure_cell"} <= names
    for d in docs:
        wire = to_wire_schema(d)
        Draft202012Validator.check_schema(wire)
        Draft7Validator.check_schema(wire)
        assert wire["type"] == "object" and set(wire["required"]) <= set(wire["properties"])
    for tool in wire_tools(docs):
        assert WIRE.fullmatch(tool.name)
