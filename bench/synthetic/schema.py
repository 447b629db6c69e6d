"""A function template (`Template`, its `Param`s) and the doc it becomes."""

from __future__ import annotations

import copy
from dataclasses import dataclass
from typing import Any

from .values import Gen


@dataclass(frozen=True)
class Param:
    name: str
    schema: dict[str, Any]
    gen: Gen
    required: bool = True

    @property
    def type(self) -> str:
        return str(self.schema["type"])

    @property
    def has_default(self) -> bool:
        return "default" in self.schema


@dataclass(frozen=True)
class Template:
    name: str
    description: str
    question: str
    params: tuple[Param, ...]

    def param(self, name: str) -> Param:
        return next(p for p in self.params if p.name == name)


def arg(
    name: str,
    type_: str,
    description: str,
    gen: Gen,
    *,
    default: Any = None,
    has_default: bool = False,
    required: bool = True,
    **extra: Any,
) -> Param:
    schema: dict[str, Any] = {"type": type_, "description": description, **extra}
    if has_default:
        schema["default"] = default
        required = False
    return Param(name, schema, gen, required)


def opt(name: str, type_: str, description: str, gen: Gen, default: Any, **extra: Any) -> Param:
    return arg(name, type_, description, gen, default=default, has_default=True, **extra)


def function_doc(template: Template, name: str) -> dict[str, Any]:
    return {
        "name": name,
        "description": template.description,
        "parameters": {
            "type": "dict",
            "properties": {p.name: copy.deepcopy(p.schema) for p in template.params},
            "required": [p.name for p in template.params if p.required],
        },
    }


def wire(name: str) -> str:
    return name.replace(".", "_")
