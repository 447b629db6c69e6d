"""Safe reading of function calls written in Python syntax, such as `[f(a=1), g.h(b='x')]`.

Model text is parsed with `ast.parse` and then walked; nothing is ever evaluated, compiled to
code or imported. What is accepted (docs/decoding.md 4):

- calls with keyword arguments only, whose function is a name or a dotted name
  (`math.factorial(n=5)` is a call of "math.factorial");
- a call, a list or tuple of calls, or several such expressions separated by commas,
  semicolons or new lines; `[]` is no call;
- argument values built from constants (str, int, float, bool, None), lists, tuples (read as
  lists), dicts with string keys, sets (read as lists, duplicates dropped), the names
  `true`/`false`/`null`, unary `-`/`+` on numbers, `not` on booleans, and `+ - * / // % **` on
  numbers, folded by a bounded evaluator: integers may have at most `limits.MAX_INT_DIGITS` digits,
  the size of a power is estimated before it is computed (`9**9**9**9` is refused at once),
  and results must be finite real numbers.

Everything else raises `LiteralError`, whose message says what was refused, where, and why.
"""

from __future__ import annotations

import ast
import math
import re
import textwrap
import warnings
from collections.abc import Callable
from typing import Any

from tfce_eval.decode.brackets import check_depth, too_many_call_heads
from tfce_eval.decode.limits import MAX_INT_BITS, MAX_INT_DIGITS, int_fits, number_problem
from tfce_eval.model import Call
from tfce_eval.schema.equality import is_number

#: Most separators and openers (`, ; : = ( [ {` and new lines) a text may hold before it is
#: parsed: an upper bound on the size of its syntax tree, so that parsing stays well under a
#: second on any text.
MAX_ITEMS = 100_000
_ITEM_MARKS = ",;:=([{\n"
_SURROGATE = re.compile("[\ud800-\udfff]")
_NAMED_CONSTANTS: dict[str, Any] = {"true": True, "false": False, "null": None}

_REFUSED_KINDS: dict[type[ast.AST], str] = {
    ast.Lambda: "lambdas",
    ast.ListComp: "list comprehensions",
    ast.SetComp: "set comprehensions",
    ast.DictComp: "dict comprehensions",
    ast.GeneratorExp: "generator expressions",
    ast.JoinedStr: "f-strings",
    ast.FormattedValue: "f-strings",
    ast.Starred: "starred (*) expressions",
    ast.Subscript: "subscripts",
    ast.IfExp: "conditional expressions",
    ast.BoolOp: "and/or expressions",
    ast.Compare: "comparisons",
    ast.NamedExpr: "assignment expressions",
    ast.Await: "await",
    ast.Yield: "yield",
    ast.YieldFrom: "yield",
    ast.Slice: "slices",
}


class LiteralError(ValueError):
    """Model text that is not a call with literal keyword arguments; the message says why."""


def _at(node: ast.AST) -> str:
    line = getattr(node, "lineno", None)
    if line is None:
        return ""
    return f" at line {line}, column {getattr(node, 'col_offset', 0) + 1}"


def _snippet(source: str, node: ast.AST, limit: int = 60) -> str:
    segment = ast.get_source_segment(source, node) or type(node).__name__
    segment = " ".join(segment.split())
    return segment if len(segment) <= limit else segment[: limit - 3] + "..."


def _without_surrogates(text: str) -> str:
    """`text` with each lone surrogate written as its escape (`\\ud83d`).

    `ast.parse` cannot read them (they are not UTF-8); inside a string literal, where a model
    may well put one, the escape reads back as the same character.
    """
    if text.isascii():
        return text
    return _SURROGATE.sub(lambda m: f"\\u{ord(m.group()):04x}", text)


def _parse(text: str, max_depth: int, max_items: int) -> ast.Module:
    items = sum(text.count(mark) for mark in _ITEM_MARKS)
    if items > max_items:
        raise LiteralError(
            f"text too complex to read as Python: {items} elements, limit {max_items}"
        )
    problem = check_depth(text, max_depth)
    if problem is not None:
        raise LiteralError(problem.message)
    try:
        # Invalid escape sequences in model strings would otherwise print a warning.
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            return ast.parse(text, mode="exec")
    except SyntaxError as exc:
        where = f" at line {exc.lineno}, column {exc.offset}" if exc.lineno else ""
        message = exc.msg
        if message.startswith("Exceeds the limit"):
            message = "integer literal too long"
        raise LiteralError(f"not valid Python call syntax: {message}{where}") from None
    except (RecursionError, MemoryError):
        raise LiteralError("expression too deeply nested or too complex to read") from None
    except ValueError as exc:  # e.g. NUL characters in the text
        raise LiteralError(f"not valid Python call syntax: {exc}") from None


def parse_calls(
    text: str,
    *,
    max_depth: int = 64,
    max_calls: int | None = None,
    max_items: int = MAX_ITEMS,
) -> tuple[Call, ...]:
    """Read `[f(a=1), g.h(b='x')]`, `f(a=1)` or `f(a=1), g(b=2)` into calls.

    Raises LiteralError for anything but calls with literal keyword arguments, for nesting
    deeper than `max_depth`, for more than `max_calls` calls and for texts with more than
    `max_items` elements (see MAX_ITEMS).
    """
    source = _without_surrogates(textwrap.dedent(text).strip())
    # Every `name(` is a call or a refused call inside an argument: count before parsing.
    if max_calls is not None and too_many_call_heads(source, max_calls):
        raise LiteralError(f"more than {max_calls} calls in one answer")
    tree = _parse(source, max_depth, max_items)
    reader = _Reader(source, max_depth)
    calls: list[Call] = []
    for statement in tree.body:
        if not isinstance(statement, ast.Expr):
            raise LiteralError(
                f"expected function calls, found {_snippet(source, statement)!r}{_at(statement)}"
            )
        node = statement.value
        elements = node.elts if isinstance(node, ast.List | ast.Tuple) else [node]
        for element in elements:
            calls.append(reader.call(element))
            if max_calls is not None and len(calls) > max_calls:
                raise LiteralError(f"more than {max_calls} calls in one answer")
    return tuple(calls)


def parse_literal(text: str, *, max_depth: int = 64, max_items: int = MAX_ITEMS) -> Any:
    """Read one Python literal (such as `{'name': 'f', 'arguments': {'a': 1}}`) as JSON-like data.

    The same rules as for argument values apply; raises LiteralError.
    """
    source = _without_surrogates(text.strip())
    tree = _parse(source, max_depth, max_items)
    if len(tree.body) != 1 or not isinstance(tree.body[0], ast.Expr):
        raise LiteralError("expected a single Python literal")
    return _Reader(source, max_depth).value(tree.body[0].value, 1)


class _Reader:
    """Turns checked AST nodes into calls and JSON-like values; holds the source for messages."""

    def __init__(self, source: str, max_depth: int) -> None:
        self.source = source
        self.max_depth = max_depth

    def call(self, node: ast.expr) -> Call:
        if not isinstance(node, ast.Call):
            raise LiteralError(
                f"expected a function call, found {_snippet(self.source, node)!r}{_at(node)}"
            )
        name = self._function_name(node.func)
        if node.args:
            count = len(node.args)
            raise LiteralError(
                f"positional arguments are not accepted: {name}(...){_at(node)} has {count} "
                f"positional argument{'s' if count != 1 else ''}; write every argument as "
                f"name=value"
            )
        arguments: dict[str, Any] = {}
        for keyword in node.keywords:
            if keyword.arg is None:
                raise LiteralError(f"**kwargs are not accepted in {name}(...){_at(keyword)}")
            if keyword.arg in arguments:
                raise LiteralError(
                    f"argument '{keyword.arg}' is given twice in {name}(...){_at(keyword)}"
                )
            try:
                # The arguments are level 1, as their "(" is in the bracket scan.
                arguments[keyword.arg] = self.value(keyword.value, 2)
            except LiteralError as exc:
                raise LiteralError(f"{name}(...), argument '{keyword.arg}': {exc}") from None
        return Call(name=name, arguments=arguments)

    def _function_name(self, node: ast.expr) -> str:
        parts: list[str] = []
        while isinstance(node, ast.Attribute):
            parts.append(node.attr)
            node = node.value
        if not isinstance(node, ast.Name):
            raise LiteralError(
                f"the function must be a name or a dotted name, found "
                f"{_snippet(self.source, node)!r}{_at(node)}"
            )
        parts.append(node.id)
        return ".".join(reversed(parts))

    def value(self, node: ast.expr, depth: int) -> Any:
        """The JSON-like value of `node`; `depth` counts containers and operators."""
        if isinstance(node, ast.Constant):
            return _constant(node)
        if depth > self.max_depth:
            raise LiteralError(f"values nest deeper than {self.max_depth} levels{_at(node)}")
        if isinstance(node, ast.Name):
            if node.id in _NAMED_CONSTANTS:
                return _NAMED_CONSTANTS[node.id]
            raise LiteralError(f"name '{node.id}'{_at(node)} is not a literal value")
        if isinstance(node, ast.List | ast.Tuple):
            return [self.value(element, depth + 1) for element in node.elts]
        if isinstance(node, ast.Set):
            return _unique([self.value(element, depth + 1) for element in node.elts])
        if isinstance(node, ast.Dict):
            return self._dict(node, depth)
        if isinstance(node, ast.UnaryOp):
            return self._unary(node, depth)
        if isinstance(node, ast.BinOp):
            left = self.value(node.left, depth + 1)
            right = self.value(node.right, depth + 1)
            return _arithmetic(node, left, right)
        if isinstance(node, ast.Call):
            raise LiteralError(
                f"calls inside arguments are not accepted: "
                f"{_snippet(self.source, node)!r}{_at(node)}"
            )
        if isinstance(node, ast.Attribute):
            raise LiteralError(
                f"attribute access is not accepted in values: "
                f"{_snippet(self.source, node)!r}{_at(node)}"
            )
        kind = _REFUSED_KINDS.get(type(node), f"{type(node).__name__} expressions")
        raise LiteralError(f"{kind} are not accepted in values{_at(node)}")

    def _dict(self, node: ast.Dict, depth: int) -> dict[str, Any]:
        result: dict[str, Any] = {}
        for key, item in zip(node.keys, node.values, strict=True):
            if key is None:
                raise LiteralError(f"** unpacking is not accepted in dicts{_at(item)}")
            if not (isinstance(key, ast.Constant) and isinstance(key.value, str)):
                raise LiteralError(
                    f"dict keys must be strings, found {_snippet(self.source, key)!r}{_at(key)}"
                )
            result[key.value] = self.value(item, depth + 1)
        return result

    def _unary(self, node: ast.UnaryOp, depth: int) -> Any:
        operand = self.value(node.operand, depth + 1)
        if isinstance(node.op, ast.Not):
            if isinstance(operand, bool):
                return not operand
            raise LiteralError(f"'not' applies only to booleans{_at(node)}")
        if isinstance(node.op, ast.USub | ast.UAdd) and is_number(operand):
            return -operand if isinstance(node.op, ast.USub) else operand
        raise LiteralError(f"unary operators apply only to numbers{_at(node)}")


def _constant(node: ast.Constant) -> Any:
    value = node.value
    if value is None or isinstance(value, bool | str):
        return value
    if isinstance(value, int | float):
        problem = number_problem(value)
        if problem is not None:
            raise LiteralError(f"{problem}{_at(node)}")
        return value
    if isinstance(value, complex):
        raise LiteralError(f"complex numbers are not accepted{_at(node)}")
    if isinstance(value, bytes):
        raise LiteralError(f"bytes literals are not accepted{_at(node)}")
    raise LiteralError(f"{value!r} is not a literal value{_at(node)}")


def _unique(values: list[Any]) -> list[Any]:
    seen: set[tuple[type, Any]] = set()
    result: list[Any] = []
    for value in values:
        if isinstance(value, list | dict):
            result.append(value)
            continue
        key = (type(value), value)
        if key not in seen:
            seen.add(key)
            result.append(value)
    return result


def _power(base: int | float, exponent: int | float) -> int | float:
    if isinstance(base, int) and isinstance(exponent, int):
        # Estimate the size first: computing a huge power is what must not happen.
        if (
            exponent > 0
            and base not in (0, 1, -1)
            and ((abs(base).bit_length() - 1) * exponent > MAX_INT_BITS)
        ):
            raise LiteralError("result of ** is too large")
        if exponent < 0 and not int_fits(abs(exponent)):
            raise LiteralError("exponent of ** is too large")
    result: int | float | complex = base**exponent
    if isinstance(result, complex):
        raise LiteralError("** gives a complex number")
    return result


_OPERATIONS: dict[type[ast.operator], Callable[[Any, Any], Any]] = {
    ast.Add: lambda a, b: a + b,
    ast.Sub: lambda a, b: a - b,
    ast.Mult: lambda a, b: a * b,
    ast.Div: lambda a, b: a / b,
    ast.FloorDiv: lambda a, b: a // b,
    ast.Mod: lambda a, b: a % b,
    ast.Pow: _power,
}


def _arithmetic(node: ast.BinOp, left: Any, right: Any) -> int | float:
    operation = _OPERATIONS.get(type(node.op))
    if operation is None:
        raise LiteralError(f"operator {type(node.op).__name__} is not accepted{_at(node)}")
    if not (is_number(left) and is_number(right)):
        raise LiteralError(f"arithmetic applies only to numbers{_at(node)}")
    if (
        isinstance(node.op, ast.Mult)
        and isinstance(left, int)
        and isinstance(right, int)
        and left.bit_length() + right.bit_length() > MAX_INT_BITS + 1
    ):
        raise LiteralError(f"result of * is too large{_at(node)}")
    try:
        result: int | float = operation(left, right)
    except ZeroDivisionError:
        raise LiteralError(f"division by zero{_at(node)}") from None
    except OverflowError:
        raise LiteralError(f"number out of range{_at(node)}") from None
    except LiteralError as exc:
        raise LiteralError(f"{exc}{_at(node)}") from None
    if isinstance(result, float) and not math.isfinite(result):
        raise LiteralError(f"number out of range{_at(node)}")
    if isinstance(result, int) and not int_fits(result):
        raise LiteralError(f"integer result with more than {MAX_INT_DIGITS} digits{_at(node)}")
    return result
