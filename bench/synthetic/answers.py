"""An item's model answer: a right or wrong variant of its truth, in a shape."""

from __future__ import annotations

import copy
import json
import random
from collections.abc import Callable
from typing import Any

from .items import Built, Call, question_text
from .schema import Param, wire

#: Right answers (the project's rules accept them) and wrong ones, with their weights.
RIGHT_VARIANTS: dict[str, float] = {
    "exact": 43.0,
    "int_for_float": 4.0,
    "case_space": 3.0,
    "reordered_calls": 5.0,
    "float_for_int": 2.0,
    "unicode_punct": 6.0,
    "explicit_default": 2.0,
    "greedy_order": 5.0,
}
WRONG_VARIANTS: dict[str, float] = {
    "wrong_value": 6.0,
    "wrong_string": 3.0,
    "missing_required": 3.0,
    "wrong_function": 3.0,
    "invented_param": 2.0,
    "string_for_number": 3.0,
    "wrong_count": 3.0,
    "no_call": 2.0,
    "parse_error": 2.0,
    "array_order": 2.0,
    "bool_as_string": 1.0,
    "optional_not_asked": 1.0,
}
SHAPES: dict[str, float] = {
    "openai": 25.0,
    "openai_run_record": 10.0,
    "anthropic": 25.0,
    "python_text": 25.0,
    "calls_list": 15.0,
}


def _weighted(rng: random.Random, table: dict[str, float]) -> str:
    return rng.choices(list(table), weights=list(table.values()))[0]


def _params_where(
    built: Built, calls: list[Call], test: Callable[[Param, Any], bool]
) -> list[tuple[int, str]]:
    """(call index, parameter) pairs of the answer's calls whose parameter passes `test`."""
    found: list[tuple[int, str]] = []
    for ci, (name, args) in enumerate(calls):
        template = built.templates.get(name)
        if template is None:
            continue
        for pname, value in args.items():
            if test(template.param(pname), value):
                found.append((ci, pname))
    return found


def _different(rng: random.Random, param: Param, value: Any) -> Any:
    """A value of the same type that no normalisation can mistake for `value`."""
    for _ in range(20):
        other = param.gen(rng)
        if _loose(other) != _loose(value):
            return other
    if isinstance(value, bool):
        return not value
    if isinstance(value, int | float):
        return value + 7
    if isinstance(value, str):
        return value + "X9"
    return None


def _loose(value: Any) -> Any:
    if isinstance(value, str):
        return "".join(ch for ch in value.casefold() if ch.isalnum())
    if isinstance(value, float) and value.is_integer():
        return int(value)
    return json.dumps(value, sort_keys=True)


def _apply(rng: random.Random, built: Built, variant: str) -> bool:
    """Turn the ground truth into an answer of `variant`; False if it does not apply here."""
    calls: list[Call] = [(n, copy.deepcopy(a)) for n, a in built.truth]

    def pick(test: Callable[[Param, Any], bool]) -> tuple[int, str] | None:
        found = _params_where(built, calls, test)
        return rng.choice(found) if found else None

    if variant == "exact":
        pass
    elif variant == "int_for_float":
        spot = pick(lambda p, v: p.type == "float" and isinstance(v, float) and v.is_integer())
        if spot is None:
            return False
        calls[spot[0]][1][spot[1]] = int(calls[spot[0]][1][spot[1]])
    elif variant == "float_for_int":
        spot = pick(lambda p, v: p.type == "integer" and "enum" not in p.schema)
        if spot is None:
            return False
        calls[spot[0]][1][spot[1]] = float(calls[spot[0]][1][spot[1]])
    elif variant == "case_space":
        spot = pick(lambda p, v: p.type == "string" and isinstance(v, str))
        if spot is None:
            return False
        value = calls[spot[0]][1][spot[1]]
        changed = value.lower() if value.lower() != value else value.upper()
        calls[spot[0]][1][spot[1]] = changed if changed != value else value + " "
    elif variant == "unicode_punct":
        spot = pick(
            lambda p, v: p.type == "string" and isinstance(v, str) and ("," in v or "-" in v)
        )
        if spot is None:
            return False
        value = calls[spot[0]][1][spot[1]]
        calls[spot[0]][1][spot[1]] = value.replace(",", "，").replace("-", "–")
    elif variant == "explicit_default":
        spots = [
            (ci, p.name)
            for ci, (name, args) in enumerate(calls)
            for p in built.templates[name].params
            if p.has_default and p.name not in args
        ]
        if not spots:
            return False
        ci, pname = rng.choice(spots)
        calls[ci][1][pname] = built.templates[calls[ci][0]].param(pname).schema["default"]
    elif variant == "reordered_calls":
        if len(calls) < 2 or all(c == calls[0] for c in calls):
            return False
        calls.reverse()
    elif variant == "greedy_order":
        return _greedy_order(rng, built)
    elif variant in ("wrong_value", "wrong_string"):
        want_string = variant == "wrong_string"
        spot = pick(
            lambda p, v: (
                (p.type == "string") == want_string and p.type in ("string", "integer", "float")
            )
        )
        if spot is None:
            return False
        name, args = calls[spot[0]]
        args[spot[1]] = _different(rng, built.templates[name].param(spot[1]), args[spot[1]])
    elif variant == "missing_required":
        spot = pick(lambda p, v: p.required)
        if spot is None:
            return False
        del calls[spot[0]][1][spot[1]]
    elif variant == "wrong_function":
        ci = rng.randrange(len(calls))
        name, args = calls[ci]
        others = [d["name"] for d in built.docs if d["name"] != name]
        calls[ci] = (rng.choice(others) if others else _misspell(name), args)
    elif variant == "invented_param":
        ci = rng.randrange(len(calls))
        calls[ci][1][rng.choice(("note", "unit", "vendor", "mode"))] = "auto"
    elif variant == "string_for_number":
        spot = pick(lambda p, v: p.type in ("integer", "float"))
        if spot is None:
            return False
        calls[spot[0]][1][spot[1]] = str(calls[spot[0]][1][spot[1]])
    elif variant == "wrong_count":
        if len(calls) > 1:
            del calls[rng.randrange(len(calls))]
        else:
            calls.append((calls[0][0], copy.deepcopy(calls[0][1])))
    elif variant == "no_call":
        built.prose = rng.choice(
            (
                "抱歉，问题中缺少必要的参数，请补充后再试。",
                "根据3GPP规范，这个问题可以直接回答，无需调用工具。",
                "我需要更多信息才能完成计算。",
            )
        )
        calls = []
    elif variant == "parse_error":
        built.calls = None
        built.variant = variant
        return True
    elif variant == "array_order":
        spot = pick(
            lambda p, v: p.type == "array" and isinstance(v, list) and len(v) > 1 and v != v[::-1]
        )
        if spot is None:
            return False
        calls[spot[0]][1][spot[1]].reverse()
    elif variant == "bool_as_string":
        spot = pick(lambda p, v: p.type == "boolean")
        if spot is None:
            return False
        value = calls[spot[0]][1][spot[1]]
        calls[spot[0]][1][spot[1]] = "true" if value else "false"
    elif variant == "optional_not_asked":
        candidates = [
            (ci, p)
            for ci, (name, args) in enumerate(calls)
            for p in built.templates[name].params
            if not p.required and p.name not in args and p.type != "boolean"
        ]
        if not candidates:
            return False
        ci, param = rng.choice(candidates)
        value = param.gen(rng)
        if param.has_default and _loose(value) == _loose(param.schema["default"]):
            value = _different(rng, param, value)
        calls[ci][1][param.name] = value
    else:
        raise ValueError(f"unknown variant {variant}")
    built.calls = calls
    built.variant = variant
    return True


def _misspell(name: str) -> str:
    head, _, tail = name.rpartition(".")
    parts = tail.split("_")
    if len(parts) > 1:
        parts[0], parts[1] = parts[1], parts[0]
        tail = "_".join(parts)
    else:
        tail += "s"
    # A name the model made up is sent as is: the wire form, which nothing maps back.
    return wire(f"{head}.{tail}") if head else tail


def _greedy_order(rng: random.Random, built: Built) -> bool:
    """A parallel item whose answer only a non-greedy matching accepts.

    Ground truth: f(x, opt=default) and f(x); answer: f(x) then f(x, opt=default). Every call
    satisfies the first expected call, only the first call the second; matching expected calls
    one at a time to the first call that fits leaves the second without a partner.
    """
    if built.category != "parallel":
        return False
    name = built.docs[0]["name"]
    template = built.templates[name]
    defaults = [p for p in template.params if p.has_default]
    if not defaults:
        return False
    opt = rng.choice(defaults)
    base = {k: v for k, v in built.truth[0][1].items() if k != opt.name}
    if not base:
        return False
    with_default = {**base, opt.name: opt.schema["default"]}
    rest = built.truth[2:]
    built.truth = [(name, with_default), (name, dict(base)), *rest]
    built.calls = [
        (name, dict(base)),
        (name, dict(with_default)),
        *[(n, copy.deepcopy(a)) for n, a in rest],
    ]
    built.question = "；".join(question_text(template, a) for _, a in built.truth)
    built.variant = "greedy_order"
    return True


def make_answer(rng: random.Random, built: Built) -> None:
    """Choose a variant and a shape for the item's answer."""
    table = RIGHT_VARIANTS if rng.random() < 0.70 else WRONG_VARIANTS
    variant = _weighted(rng, table)
    if not _apply(rng, built, variant):
        _apply(rng, built, "exact" if table is RIGHT_VARIANTS else "wrong_value")
        if built.calls is None and built.variant != "parse_error":
            _apply(rng, built, "missing_required")
    built.shape = _weighted(rng, SHAPES)
    if built.variant == "parse_error":
        built.shape = rng.choice(("openai", "python_text"))
    if built.variant == "no_call" and built.shape == "calls_list":
        built.shape = "python_text"
