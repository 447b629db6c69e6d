"""Tests for the safe Python call reader: what it accepts, what it refuses, and its limits."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from tfce_eval.decode.limits import MAX_INT_DIGITS
from tfce_eval.decode.pyliteral import MAX_ITEMS, LiteralError, parse_calls, parse_literal
from tfce_eval.model import Call


def _calls(text: str, **kwargs: Any) -> list[tuple[str, dict[str, Any]]]:
    return [(c.name, dict(c.arguments)) for c in parse_calls(text, **kwargs)]


ACCEPTED: list[tuple[str, list[tuple[str, dict[str, Any]]]]] = [
    (
        "[calculate_path_loss(frequency=28, distance=200, environment='Urban')]",
        [("calculate_path_loss", {"frequency": 28, "distance": 200, "environment": "Urban"})],
    ),
    ("f(a=1)", [("f", {"a": 1})]),
    ("f()", [("f", {})]),
    ("[f(a=1), g.h(b='x')]", [("f", {"a": 1}), ("g.h", {"b": "x"})]),
    ("f(a=1), g(b=2)", [("f", {"a": 1}), ("g", {"b": 2})]),
    ("(f(a=1), g(b=2))", [("f", {"a": 1}), ("g", {"b": 2})]),
    ("f(a=1)\ng(b=2)", [("f", {"a": 1}), ("g", {"b": 2})]),
    ("f(a=1); g(b=2)", [("f", {"a": 1}), ("g", {"b": 2})]),
    ("    f(a=1)\n    g(b=2)\n", [("f", {"a": 1}), ("g", {"b": 2})]),
    ("# the call\nf(a=1)  # done", [("f", {"a": 1})]),
    ("[]", []),
    ("", []),
    ("math.factorial(n=5)", [("math.factorial", {"n": 5})]),
    ("a.b.c(x=None)", [("a.b.c", {"x": None})]),
    ("计算(频率=28)", [("计算", {"频率": 28})]),
    (
        "f(s='x', i=-3, fl=+2.5, t=True, n=None, b=False)",
        [("f", {"s": "x", "i": -3, "fl": 2.5, "t": True, "n": None, "b": False})],
    ),
    ("f(a=true, b=false, c=null)", [("f", {"a": True, "b": False, "c": None})]),
    ("f(a=not True, b=not false)", [("f", {"a": False, "b": True})]),
    ("f(a=(1, 2), b=[3, [4]])", [("f", {"a": [1, 2], "b": [3, [4]]})]),
    ("f(a={3, 1, 3})", [("f", {"a": [3, 1]})]),
    ("f(a={'k': [1, {'n': 'v'}]})", [("f", {"a": {"k": [1, {"n": "v"}]}})]),
    ("f(a='x' 'y')", [("f", {"a": "xy"})]),
    ("f(a='''multi\nline''')", [("f", {"a": "multi\nline"})]),
    ("f(a='\\d+')", [("f", {"a": "\\d+"})]),
    (
        "f(a=2*3, b=7/2, c=7//2, d=7%3, e=2**10, g=1-4, h=1.5+1, i=-(2+3)*4, j=2**-2)",
        [("f", {"a": 6, "b": 3.5, "c": 3, "d": 1, "e": 1024, "g": -3, "h": 2.5, "i": -20})],
    ),
    ("f(a=10**999)", [("f", {"a": 10**999})]),
    ("f(a=1e3)", [("f", {"a": 1000.0})]),
]


@pytest.mark.parametrize(("text", "expected"), ACCEPTED)
def test_accepted(text: str, expected: list[tuple[str, dict[str, Any]]]) -> None:
    got = _calls(text)
    if text.startswith("f(a=2*3"):
        # j=2**-2 is a float: compared apart so the table stays readable.
        assert got[0][1].pop("j") == 0.25
    assert got == expected


def test_returns_call_records() -> None:
    assert parse_calls("f(a=[1])") == (Call("f", {"a": [1]}),)


REFUSED: list[tuple[str, str]] = [
    ("[calculate_path_loss(28, 200, 'Urban')]", "positional arguments are not accepted"),
    ("f(1)", "f(...)"),
    ("f(*args)", "positional arguments are not accepted"),
    ("f(**kw)", "**kwargs"),
    ("f(a=1, a=2)", "given twice"),
    ("f(a=x)", "name 'x'"),
    ("f(a=os.environ)", "attribute access"),
    ("f(a='x'.upper)", "attribute access"),
    ("f(a=g(b=1))", "calls inside arguments"),
    ("f(x=__import__('os').system('id'))", "calls inside arguments"),
    ("f(a=lambda: 1)", "lambdas"),
    ("f(a=[i for i in range(3)])", "list comprehensions"),
    ("f(a={i: i for i in x})", "dict comprehensions"),
    ("f(a=(i for i in x))", "generator expressions"),
    ("f(a=f'{x}')", "f-strings"),
    ("f(a=[*x])", "starred"),
    ("f(a={**x})", "unpacking"),
    ("f(a=b'x')", "bytes"),
    ("f(a=1j)", "complex"),
    ("f(a=1+2j)", "complex"),
    ("f(a=1e400)", "out of range"),
    ("f(a=1/0)", "division by zero"),
    ("f(a=1//0)", "division by zero"),
    ("f(a=1%0)", "division by zero"),
    ("f(a=0**-1)", "division by zero"),
    ("f(a=9**9**9**9)", "too large"),
    ("f(a=2**100000)", "too large"),
    ("f(a=10**1000)", "more than"),
    ("f(a=(10**600)*(10**600))", "too large"),
    ("f(a=2.0**5000)", "out of range"),
    ("f(a=(-8)**0.5)", "complex"),
    ("f(a=-'x')", "numbers"),
    ("f(a=not 1)", "booleans"),
    ("f(a=True+1)", "numbers"),
    ("f(a='a'+'b')", "numbers"),
    ("f(a=~1)", "numbers"),
    ("f(a=1<2)", "comparisons"),
    ("f(a=x[0])", "subscripts"),
    ("f(a=1 if x else 2)", "conditional"),
    ("f(a={1: 'x'})", "dict keys must be strings"),
    ("f(a=...)", "not a literal"),
    ("f(a=1)(b=2)", "dotted name"),
    ("x[0](a=1)", "dotted name"),
    ("x = f(a=1)", "expected function calls"),
    ("import os", "expected function calls"),
    ("'just a string'", "expected a function call"),
    ("[f(a=1), 2]", "expected a function call"),
    ("[f(a=1)", "not valid Python call syntax"),
    ("f(a=1", "not valid Python call syntax"),
    ("我无法计算（需要更多信息）", "not valid Python call syntax"),
    ("f(a=" + "9" * 5000 + ")", "integer literal too long"),
]


@pytest.mark.parametrize(("text", "fragment"), REFUSED)
def test_refused(text: str, fragment: str) -> None:
    with pytest.raises(LiteralError) as info:
        parse_calls(text)
    assert fragment in str(info.value)


def test_positional_message_names_the_function_and_the_fix() -> None:
    with pytest.raises(LiteralError) as info:
        parse_calls("[calculate_path_loss(28, 200, 'Urban')]")
    message = str(info.value)
    assert "calculate_path_loss" in message
    assert "3 positional arguments" in message
    assert "name=value" in message


def test_error_names_argument_and_position() -> None:
    with pytest.raises(LiteralError) as info:
        parse_calls("f(a=1,\n  b=x)")
    assert "argument 'b'" in str(info.value)
    assert "line 2" in str(info.value)


def test_literal_error_is_a_value_error() -> None:
    assert issubclass(LiteralError, ValueError)


@pytest.mark.parametrize(
    "template",
    [
        "f(x=__import__('pathlib').Path({path!r}).touch())",
        "[f(x=open({path!r}, 'w').write('x'))]",
        "f(x=(lambda: __import__('pathlib').Path({path!r}).touch())())",
        "__import__('pathlib').Path({path!r}).touch()",
    ],
)
def test_payloads_never_run(tmp_path: Path, template: str) -> None:
    marker = tmp_path / "marker"
    with pytest.raises(LiteralError):
        parse_calls(template.format(path=str(marker)))
    assert not marker.exists()


def test_dunder_import_as_function_name_is_only_a_name() -> None:
    # A call whose *name* is __import__ is just data: nothing is imported or run.
    calls = parse_calls("__import__(name='os')")
    assert calls == (Call("__import__", {"name": "os"}),)


@pytest.mark.parametrize(
    "text",
    [
        "[" * 10_000 + "]" * 10_000,
        "f(a=" + "[" * 10_000 + "]" * 10_000 + ")",
        "f(a=" + "{'a':" * 10_000 + "1" + "}" * 10_000 + ")",
        "f(a=" + "(" * 10_000 + "1" + ")" * 10_000 + ")",
    ],
)
def test_deep_nesting_is_refused_before_parsing(text: str) -> None:
    with pytest.raises(LiteralError) as info:
        parse_calls(text)
    assert "deeper than 64" in str(info.value)


@pytest.mark.parametrize(
    "text",
    [
        "f(a=" + "1+" * 100_000 + "1)",
        "f(a=" + "-" * 100_000 + "1)",
        "f(a=" + "not " * 100_000 + "True)",
        "f" + ".a" * 100_000 + "(x=1)",
    ],
)
def test_long_operator_chains_are_refused(text: str) -> None:
    with pytest.raises(LiteralError):
        parse_calls(text)


def test_value_depth_limit_counts_operators() -> None:
    parse_calls("f(a=" + "1+" * 60 + "1)")
    with pytest.raises(LiteralError, match="deeper than 64"):
        parse_calls("f(a=" + "1+" * 70 + "1)")


def test_max_depth_is_a_parameter() -> None:
    assert parse_calls("f(a=[[[1]]])", max_depth=4)
    with pytest.raises(LiteralError, match="deeper than 3"):
        parse_calls("f(a=[[[1]]])", max_depth=3)


def test_nesting_exactly_the_limit_deep_is_read_however_many_brackets() -> None:
    """The bound is inclusive: four levels under max_depth=4 are read, five are not, also
    when the answer holds more brackets than the limit (so that they are counted)."""
    four = "f(a=[[[1]]], b=[[[2]]], c=(1, 2))"  # 11 brackets, none deeper than 4
    assert parse_calls(four, max_depth=4)[0].arguments["b"] == [[[2]]]
    with pytest.raises(LiteralError, match="deeper than 4"):
        parse_calls("f(a=[[[[1]]]], b=[2])", max_depth=4)
    deep = "f(a=" + "[" * 63 + "1" + "]" * 63 + ")"  # the default limit, 64, exactly
    assert parse_calls(deep)
    with pytest.raises(LiteralError, match="deeper than 64"):
        parse_calls("f(a=" + "[" * 64 + "1" + "]" * 64 + ")")


def test_max_calls() -> None:
    assert len(parse_calls("[" + "f(a=1)," * 5 + "]", max_calls=5)) == 5
    with pytest.raises(LiteralError, match="more than 5 calls"):
        parse_calls("[" + "f(a=1)," * 6 + "]", max_calls=5)


def test_many_calls_are_refused_before_parsing() -> None:
    with pytest.raises(LiteralError, match="more than 256 calls"):
        parse_calls("f(a=1)\n" * 285_000, max_calls=256)


def test_call_heads_inside_strings_do_not_count() -> None:
    text = "f(a='" + "g(" * 300 + "')"
    assert len(parse_calls(text, max_calls=1)) == 1


def test_item_budget() -> None:
    big = "f(a=[" + "1," * (MAX_ITEMS + 10) + "])"
    with pytest.raises(LiteralError, match="too complex"):
        parse_calls(big)
    assert parse_calls("f(a=[1, 2, 3])", max_items=10)
    with pytest.raises(LiteralError, match="too complex"):
        parse_calls("f(a=[1, 2, 3])", max_items=3)


def test_int_digit_limit_is_exact() -> None:
    ok = "9" * MAX_INT_DIGITS
    assert parse_calls(f"f(a={ok})")[0].arguments["a"] == int(ok)
    with pytest.raises(LiteralError, match="more than"):
        parse_calls(f"f(a={ok}9)")
    # Negative too, and at the bound itself: 10**1000 has 1001 digits.
    assert parse_calls(f"f(a=-{ok})")[0].arguments["a"] == -int(ok)
    for bound in (f"1{'0' * MAX_INT_DIGITS}", f"-1{'0' * MAX_INT_DIGITS}"):
        with pytest.raises(LiteralError, match="more than"):
            parse_calls(f"f(a={bound})")


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("{'name': 'f', 'arguments': {'a': True}}", {"name": "f", "arguments": {"a": True}}),
        ("[{'f': {'a': (1, 2)}}]", [{"f": {"a": [1, 2]}}]),
        ("  -1.5 ", -1.5),
        ("null", None),
    ],
)
def test_parse_literal(text: str, expected: Any) -> None:
    assert parse_literal(text) == expected


@pytest.mark.parametrize("text", ["f(a=1)", "x", "1; 2", "{'a': __import__('os')}"])
def test_parse_literal_refuses(text: str) -> None:
    with pytest.raises(LiteralError):
        parse_literal(text)


def test_a_set_is_read_as_a_list_without_its_duplicates_and_keeps_its_types() -> None:
    # decoding.md: sets are read as lists, duplicates dropped. 1, True and 1.0 are one
    # element to Python's set but three values to the checker (a boolean is no integer).
    assert parse_calls('f(a={"x", "x", 2})')[0].arguments["a"] == ["x", 2]
    assert parse_calls("f(a={1, True, 1.0, 1})")[0].arguments["a"] == [1, True, 1.0]
    assert [type(v) for v in parse_calls("f(a={1, True})")[0].arguments["a"]] == [int, bool]
