"""The records and closed sets every other module speaks in.

Everything here is a frozen dataclass or a StrEnum: data passed between the loader, the
decoder, the checker, the executor, the runner and the report. Nothing here does I/O.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any, TypeVar

from tfce_eval.errors import DataError, UsageError

_E = TypeVar("_E", bound=StrEnum)


def parse_choice(kind: type[_E], value: object, name: str) -> _E:
    """`value` as a member of `kind`: the member itself, or its text (`"ast"` for
    `CheckMode.AST`), so a library caller may write either; a UsageError naming the field
    `name` and the choices otherwise. Records parse their fields with it once, in
    `__post_init__`, so that every `is` comparison downstream holds."""
    if isinstance(value, kind):
        return value
    if isinstance(value, str):
        try:
            return kind(value)
        except ValueError:
            pass
    choices = ", ".join(member.value for member in kind)
    raise UsageError(f"{name}: {value!r} is not one of {choices}")


def parse_choices(kind: type[_E], values: object, name: str) -> frozenset[_E] | None:
    """A set of `kind` given as members or their text; None for None or an empty
    collection (none given: all of them, as `--category ""`). A lone string is refused
    rather than read letter by letter."""
    if values is None:
        return None
    if isinstance(values, str) or not isinstance(values, Iterable):
        raise UsageError(f"{name}: give a set of names, not {values!r}")
    return frozenset(parse_choice(kind, value, name) for value in values) or None


class TaskKind(StrEnum):
    """The three kinds of evaluation: function calling, question answering, retrieval."""

    FC = "fc"
    QA = "qa"
    RETRIEVAL = "retrieval"


class Category(StrEnum):
    """A TFCE / BFCL item category. Parsed once when an item is loaded."""

    SIMPLE = "simple"
    MULTIPLE = "multiple"
    PARALLEL = "parallel"
    PARALLEL_MULTIPLE = "parallel_multiple"
    IRRELEVANCE = "irrelevance"

    @property
    def is_parallel(self) -> bool:
        return self in (Category.PARALLEL, Category.PARALLEL_MULTIPLE)


#: The order categories are shown in, everywhere.
CATEGORY_ORDER: tuple[Category, ...] = tuple(Category)


class ErrorCode(StrEnum):
    """Why an item is not valid. Stable strings: they are written to files."""

    PARSE_ERROR = "parse_error"
    NO_CALL = "no_call"
    UNEXPECTED_CALL = "unexpected_call"
    WRONG_COUNT = "wrong_count"
    WRONG_FUNCTION = "wrong_function"
    MISSING_REQUIRED = "missing_required"
    MISSING_PARAM = "missing_param"
    UNEXPECTED_PARAM = "unexpected_param"
    TYPE_ERROR = "type_error"
    VALUE_ERROR = "value_error"
    EXEC_ERROR = "exec_error"
    EXEC_MISMATCH = "exec_mismatch"
    REQUEST_ERROR = "request_error"

    @property
    def is_model_error(self) -> bool:
        """True for mistakes of the model; False for `request_error` (the model was not asked)."""
        return self is not ErrorCode.REQUEST_ERROR


class AnswerStyle(StrEnum):
    """How a ground-truth file states expected values (README "Data")."""

    TFCE = "tfce"  # one expected value per parameter
    BFCL = "bfcl"  # a list of acceptable values per parameter, "" meaning "may be omitted"


class OptionalParams(StrEnum):
    """What to do with an optional parameter the ground truth does not mention (docs/checking.md
    5.2.5)."""

    DEFAULT = "default"  # allowed when null or equal to the declared default
    ANY = "any"  # any well-typed value is allowed
    FORBID = "forbid"  # never allowed (BFCL's rule)


@dataclass(frozen=True, slots=True)
class Policy:
    """Checker options. Each changes only what docs/checking.md 5 says it changes; recorded in
    run.json."""

    optional_params: OptionalParams = OptionalParams.DEFAULT
    coerce_strings: bool = False
    strict_strings: bool = False

    def __post_init__(self) -> None:
        params = parse_choice(OptionalParams, self.optional_params, "optional_params")
        object.__setattr__(self, "optional_params", params)

    def to_json(self) -> dict[str, Any]:
        return {
            "optional_params": str(self.optional_params),
            "coerce_strings": self.coerce_strings,
            "strict_strings": self.strict_strings,
        }


@dataclass(frozen=True, slots=True)
class SourceRef:
    """Where a record came from: a file and a 1-based line (0 when the file is one JSON value)."""

    path: str
    line: int

    def __str__(self) -> str:
        return f"{self.path}:{self.line}" if self.line else self.path


@dataclass(frozen=True, slots=True)
class FunctionDoc:
    """One function doc exactly as the dataset gives it; `raw` is kept for checking and prompts.

    `parameters`, `properties` and `required` are read from `raw` once, when the doc is made:
    the checker reads them for every call it compares with the doc.
    """

    name: str
    description: str
    raw: Mapping[str, Any]
    parameters: Mapping[str, Any] = field(init=False, repr=False, compare=False)
    properties: Mapping[str, Any] = field(init=False, repr=False, compare=False)
    required: tuple[str, ...] = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        params = self.raw.get("parameters")
        params = params if isinstance(params, Mapping) else {}
        props = params.get("properties")
        req = params.get("required")
        # Frozen: the derived fields are set once, here, the way dataclasses do it.
        object.__setattr__(self, "parameters", params)
        object.__setattr__(self, "properties", props if isinstance(props, Mapping) else {})
        object.__setattr__(
            self,
            "required",
            tuple(r for r in req if isinstance(r, str)) if isinstance(req, list) else (),
        )


@dataclass(frozen=True, slots=True)
class ExpectedParam:
    """The acceptable values of one parameter, and whether leaving it out is also right."""

    values: tuple[Any, ...]
    may_omit: bool = False
    #: BFCL ground truth also lists alternatives inside nested objects ({"k": [v1, v2]}).
    nested_alternatives: bool = False


@dataclass(frozen=True, slots=True)
class ExpectedCall:
    """One call the ground truth expects."""

    name: str
    params: Mapping[str, ExpectedParam]


@dataclass(frozen=True, slots=True)
class Item:
    """A question, its function docs and its ground truth, joined by id."""

    id: str
    category: Category
    question: str | list[Any]
    functions: tuple[FunctionDoc, ...]
    expected: tuple[ExpectedCall, ...]
    source: SourceRef | None = None

    def function(self, name: str) -> FunctionDoc | None:
        for doc in self.functions:
            if doc.name == name:
                return doc
        return None


@dataclass(frozen=True, slots=True)
class Call:
    """One decoded function call: a name and keyword arguments (JSON-like values only)."""

    name: str
    arguments: Mapping[str, Any]

    def to_json(self) -> dict[str, Any]:
        return {"name": self.name, "arguments": dict(self.arguments)}


def _show_value(value: Any, limit: int | None) -> str:
    try:
        text = json.dumps(value, ensure_ascii=False)
    except (TypeError, ValueError, RecursionError):
        # Not JSON (a set, a cycle) or an integer too long to print: a bounded stand-in.
        if isinstance(value, int):
            text = f"<an integer of about {int(value.bit_length() * 0.30103) + 1} digits>"
        else:
            try:
                text = repr(value)
            except Exception:  # a hostile __repr__ must not break a message
                text = f"<{type(value).__name__}>"
    return text if limit is None or len(text) <= limit else text[: limit - 1] + "…"


def writable(text: str) -> str:
    """`text` with lone surrogates escaped (`\\ud83d`), so it can be written as UTF-8."""
    if text.isascii():
        return text
    return text.encode("utf-8", "backslashreplace").decode("utf-8")


def show_value(value: Any, limit: int | None = 80) -> str:
    """One value as JSON text for a message, cut to `limit` characters (None: uncut).

    The one way messages show a value (the checker's, `validate`'s). Never raises, whatever
    the value is; lone surrogates are escaped (`\\ud83d`) so the text can be written as UTF-8.
    """
    return writable(_show_value(value, limit))


def render_call(
    name: str,
    arguments: Mapping[str, Any],
    limit: int | None = 120,
    *,
    value_limit: int | None = 40,
) -> str:
    """A call as text for messages and reports: `f(a=1, b="x")`, values as JSON.

    Each value is cut to `value_limit` characters and the whole to `limit` (None: uncut).
    Never raises, whatever the values are (huge integers, sets, lone surrogates: those are
    escaped as `\\ud83d`, so the text can always be written as UTF-8).
    """
    parts = ", ".join(f"{k}={_show_value(v, value_limit)}" for k, v in arguments.items())
    text = writable(f"{name}({parts})")
    return text if limit is None or len(text) <= limit else text[: limit - 2] + "…)"


@dataclass(frozen=True, slots=True)
class DecodeResult:
    """What the decoder made of one model answer: calls, or the reason it could not."""

    calls: tuple[Call, ...] | None
    error: str | None = None

    @property
    def ok(self) -> bool:
        return self.calls is not None


@dataclass(frozen=True, slots=True)
class Verdict:
    """The checker's judgement of one item (AST, and exec where it ran)."""

    valid: bool
    error_type: ErrorCode | None = None
    error: str | None = None
    details: Mapping[str, Any] = field(default_factory=dict)


@dataclass(frozen=True, slots=True)
class ScoreRecord:
    """One line of scores.jsonl (docs/files.md 8)."""

    id: str
    category: Category
    valid: bool
    error_type: ErrorCode | None
    error: str | None
    exec_valid: bool | None
    details: Mapping[str, Any] = field(default_factory=dict)

    def to_json(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "category": str(self.category),
            "valid": self.valid,
            "error_type": None if self.error_type is None else str(self.error_type),
            "error": self.error,
            "exec_valid": self.exec_valid,
            "details": dict(self.details),
        }


class Level(StrEnum):
    """How much a finding matters. Stable strings: `validate --json` writes them."""

    ERROR = "error"  # must be fixed: the data (or the setup) cannot be used as it is
    WARNING = "warning"  # worth knowing; stops nothing
    OK = "ok"  # a check that passed, reported for the record (`doctor`)


@dataclass(frozen=True, slots=True)
class Finding:
    """One thing found about a dataset, a file or a setup: where it is and how to fix it.

    The one problem record of every task's loading and `validate`, and of `doctor`. `level`
    may be given as its string ("error"); it is kept as a `Level`. A place in a file that
    is not a line (a record of a JSON document, a parquet row) is part of `path`:
    `"set_2.json, record 2"`, `"test.parquet, row 5"`.
    """

    level: Level
    message: str
    path: str | None = None
    line: int | None = None
    item_id: str | None = None
    hint: str | None = None

    def __post_init__(self) -> None:
        object.__setattr__(self, "level", parse_choice(Level, self.level, "level"))
        # A finding is printed and written: names from the data may hold lone surrogates.
        for name in ("message", "path", "item_id", "hint"):
            text = getattr(self, name)
            if text is not None and not text.isascii():
                object.__setattr__(self, name, writable(text))

    @classmethod
    def from_error(
        cls, error: DataError, *, path: str | None = None, level: Level = Level.ERROR
    ) -> Finding:
        """The finding a `DataError` reports (validate lists what loading would raise);
        `path` names the file when the error names none."""
        where = error.path or path
        return cls(level, error.message, where, error.line, error.item_id, error.hint)

    @property
    def where(self) -> str:
        """`path:line (id)`, or as much of it as is known; "" when nothing is."""
        where = (self.path or "") + (f":{self.line}" if self.path and self.line else "")
        if self.item_id:
            where = f"{where} ({self.item_id})" if where else self.item_id
        return where

    def __str__(self) -> str:
        where = self.where
        text = f"{self.level}: {where + ': ' if where else ''}{self.message}"
        return text + (f"\n  fix: {self.hint}" if self.hint else "")

    def to_error(self) -> DataError:
        """This finding as the `DataError` that stops loading."""
        return DataError(
            self.message, path=self.path, line=self.line, item_id=self.item_id, hint=self.hint
        )

    def to_json(self) -> dict[str, Any]:
        return {
            "level": str(self.level),
            "message": self.message,
            "path": self.path,
            "line": self.line,
            "id": self.item_id,
            "hint": self.hint,
        }


_NATURAL = re.compile(r"(\d+)")


def natural_key(item_id: str) -> tuple[Any, ...]:
    """Sort key that puts `simple_2` before `simple_10`."""
    return tuple(int(p) if p.isdigit() else p for p in _NATURAL.split(item_id))
