"""The AST checker, rule by rule and error code by error code (docs/checking.md 5)."""

from __future__ import annotations

from typing import Any

import pytest

from tfce_eval.check.item import check_call, check_item
from tfce_eval.model import (
    Call,
    Category,
    DecodeResult,
    ErrorCode,
    ExpectedCall,
    ExpectedParam,
    FunctionDoc,
    Item,
    OptionalParams,
    Policy,
)

PATH_LOSS = {
    "name": "calculate_path_loss",
    "description": "Path loss.",
    "parameters": {
        "type": "dict",
        "properties": {
            "frequency": {"type": "float"},
            "distance": {"type": "float"},
            "environment": {"type": "string", "enum": ["LOS", "NLOS", "Urban", "Rural"]},
            "rain_condition": {"type": "string", "default": "None"},
            "vehicle_speed": {"type": "float", "default": None},
        },
        "required": ["frequency", "distance", "environment"],
    },
}
PRB = {
    "name": "compute_prb_count",
    "description": "N_RB.",
    "parameters": {
        "type": "dict",
        "properties": {
            "bandwidth_mhz": {"type": "integer"},
            "scs_khz": {"type": "integer"},
            "frequency_range": {"type": "string", "default": "FR1"},
        },
        "required": ["bandwidth_mhz", "scs_khz"],
    },
}
NESTED = {
    "name": "configure_ca",
    "description": "CA.",
    "parameters": {
        "type": "dict",
        "properties": {
            "carriers": {
                "type": "array",
                "items": {
                    "type": "dict",
                    "properties": {"band": {"type": "string"}, "bw": {"type": "integer"}},
                },
            },
            "flags": {"type": "array", "items": {"type": "boolean"}},
            "meta": {"type": "any"},
        },
        "required": ["carriers"],
    },
}
FLAGS = {
    "name": "harq",
    "description": "HARQ.",
    "parameters": {
        "type": "dict",
        "properties": {"enabled": {"type": "boolean"}, "count": {"type": "integer", "default": 4}},
        "required": ["enabled"],
    },
}


SITE = {
    "name": "site",
    "description": "Site.",
    "parameters": {
        "type": "dict",
        "properties": {
            "location": {
                "type": "dict",
                "properties": {
                    "lat": {"type": "float"},
                    "lon": {"type": "float"},
                    "name": {"type": "string"},
                },
            },
            "clutter": {"type": "string", "default": "urban"},
        },
        "required": ["location"],
    },
}


def doc(raw: dict[str, Any]) -> FunctionDoc:
    return FunctionDoc(raw["name"], raw["description"], raw)


def tfce_call(name: str, **params: Any) -> ExpectedCall:
    return ExpectedCall(name, {k: ExpectedParam((v,)) for k, v in params.items()})


def make_item(
    docs: list[dict[str, Any]],
    expected: list[ExpectedCall],
    category: Category = Category.SIMPLE,
) -> Item:
    return Item("t_0", category, "问题", tuple(doc(d) for d in docs), tuple(expected))


def calls(*pairs: tuple[str, dict[str, Any]]) -> DecodeResult:
    return DecodeResult(tuple(Call(n, a) for n, a in pairs))


GT_PL = tfce_call("calculate_path_loss", frequency=28, distance=200, environment="Urban")
ITEM_PL = make_item([PATH_LOSS], [GT_PL])
ARGS = {"frequency": 28, "distance": 200, "environment": "Urban"}


def args(**changes: Any) -> dict[str, Any]:
    out = dict(ARGS)
    for k, v in changes.items():
        if v is ...:
            out.pop(k)
        else:
            out[k] = v
    return out


SIMPLE_CASES = [
    # (id, arguments, valid, code)
    ("exact", args(), True, None),
    ("int_for_float", args(distance=200.0), True, None),
    ("case_folded", args(environment="urban"), True, None),
    ("padded_string", args(environment=" Urban "), True, None),
    ("chinese_for_english", args(environment="城市"), False, ErrorCode.VALUE_ERROR),
    ("string_for_float", args(frequency="28"), False, ErrorCode.TYPE_ERROR),
    ("bool_for_float", args(frequency=True), False, ErrorCode.TYPE_ERROR),
    ("missing_required", args(distance=...), False, ErrorCode.MISSING_REQUIRED),
    ("null_required", args(distance=None), False, ErrorCode.MISSING_REQUIRED),
    ("undeclared", args(antenna_gain=3), False, ErrorCode.UNEXPECTED_PARAM),
    ("optional_default", args(rain_condition="None"), True, None),
    ("optional_default_case", args(rain_condition="none"), True, None),
    ("optional_null", args(vehicle_speed=None), True, None),
    ("optional_invented", args(rain_condition="Heavy Rain"), False, ErrorCode.UNEXPECTED_PARAM),
    ("optional_invented_null_default", args(vehicle_speed=60), False, ErrorCode.UNEXPECTED_PARAM),
    ("wrong_value", args(frequency=2.8), False, ErrorCode.VALUE_ERROR),
    ("float_tolerance", args(frequency=28.000000000001), True, None),
    ("outside_tolerance", args(frequency=28.001), False, ErrorCode.VALUE_ERROR),
]


@pytest.mark.parametrize(
    ("case", "arguments", "valid", "code"), SIMPLE_CASES, ids=[c[0] for c in SIMPLE_CASES]
)
def test_simple_rules(
    case: str, arguments: dict[str, Any], valid: bool, code: ErrorCode | None
) -> None:
    verdict = check_item(ITEM_PL, calls(("calculate_path_loss", arguments)))
    assert verdict.valid is valid, verdict.error
    assert verdict.error_type == code
    if not valid:
        assert verdict.error


def test_error_message_names_path_expected_and_received() -> None:
    verdict = check_item(ITEM_PL, calls(("calculate_path_loss", args(frequency=2.8))))
    assert verdict.error is not None
    assert "frequency" in verdict.error and "28" in verdict.error and "2.8" in verdict.error
    problem = verdict.details["problems"][0]
    assert problem["path"] == "frequency"
    assert problem["expected"] == 28.0 and problem["received"] == 2.8


def test_check_order_reports_undeclared_before_wrong_value() -> None:
    verdict = check_item(ITEM_PL, calls(("calculate_path_loss", args(frequency=3, x=1))))
    assert verdict.error_type is ErrorCode.UNEXPECTED_PARAM
    assert len(verdict.details["problems"]) == 2


def test_parse_error_no_call_and_wrong_count() -> None:
    assert check_item(ITEM_PL, DecodeResult(None, "bad")).error_type is ErrorCode.PARSE_ERROR
    assert check_item(ITEM_PL, DecodeResult(())).error_type is ErrorCode.NO_CALL
    two = calls(("calculate_path_loss", args()), ("calculate_path_loss", args()))
    verdict = check_item(ITEM_PL, two)
    assert verdict.error_type is ErrorCode.WRONG_COUNT
    # The count decides before any pairing; the message names both sides.
    assert verdict.error == (
        "expected 1 call (calculate_path_loss), received 2 (calculate_path_loss ×2)"
    )


def test_wrong_function_in_multiple() -> None:
    item = make_item([PATH_LOSS, PRB], [GT_PL], Category.MULTIPLE)
    verdict = check_item(item, calls(("compute_prb_count", {"bandwidth_mhz": 100, "scs_khz": 30})))
    assert verdict.error_type is ErrorCode.WRONG_FUNCTION


def test_irrelevance() -> None:
    item = make_item([PATH_LOSS], [], Category.IRRELEVANCE)
    assert check_item(item, DecodeResult(())).valid
    verdict = check_item(item, calls(("calculate_path_loss", args())))
    assert verdict.error_type is ErrorCode.UNEXPECTED_CALL


@pytest.mark.parametrize(
    ("value", "valid", "code"),
    [
        (100, True, None),
        (100.0, True, None),
        (100.5, False, ErrorCode.TYPE_ERROR),
        ("100", False, ErrorCode.TYPE_ERROR),
        (False, False, ErrorCode.TYPE_ERROR),
    ],
)
def test_integer_coercion(value: Any, valid: bool, code: ErrorCode | None) -> None:
    item = make_item([PRB], [tfce_call("compute_prb_count", bandwidth_mhz=100, scs_khz=30)])
    verdict = check_item(
        item, calls(("compute_prb_count", {"bandwidth_mhz": value, "scs_khz": 30}))
    )
    assert (verdict.valid, verdict.error_type) == (valid, code)


def test_coerce_strings_policy() -> None:
    item = make_item([FLAGS], [tfce_call("harq", enabled=True)])
    answer = calls(("harq", {"enabled": "true"}))
    assert check_item(item, answer).error_type is ErrorCode.TYPE_ERROR
    assert check_item(item, answer, Policy(coerce_strings=True)).valid
    prb = make_item([PRB], [tfce_call("compute_prb_count", bandwidth_mhz=100, scs_khz=30)])
    as_text = calls(("compute_prb_count", {"bandwidth_mhz": "100", "scs_khz": "30"}))
    assert check_item(prb, as_text, Policy(coerce_strings=True)).valid


@pytest.mark.parametrize(
    ("text", "value"),
    [
        ("true", True),
        (" Yes ", True),
        ("YES", True),
        ("False", False),
        (" no", False),
        ("maybe", None),
        ("1", None),
    ],
)
def test_coerce_strings_reads_the_boolean_words_of_checking_md(text: str, value: Any) -> None:
    # docs/checking.md 5.3: "true", "yes", "false", "no", any case, spaces around.
    item = make_item([FLAGS], [tfce_call("harq", enabled=True)])
    verdict = check_item(item, calls(("harq", {"enabled": text})), Policy(coerce_strings=True))
    assert verdict.valid is (value is True)
    assert verdict.error_type is {True: None, False: ErrorCode.VALUE_ERROR}.get(
        value, ErrorCode.TYPE_ERROR
    )


@pytest.mark.parametrize(("text", "valid"), [(" 100 ", True), ("100.0", True), ("1e2", True)])
def test_coerce_strings_reads_numbers_with_spaces_around(text: str, valid: bool) -> None:
    prb = make_item([PRB], [tfce_call("compute_prb_count", bandwidth_mhz=100, scs_khz=30)])
    answer = calls(("compute_prb_count", {"bandwidth_mhz": text, "scs_khz": 30}))
    assert check_item(prb, answer, Policy(coerce_strings=True)).valid is valid


def test_ground_truth_of_wrong_type_is_coerced() -> None:
    item = make_item([FLAGS], [tfce_call("harq", enabled="true")])
    assert check_item(item, calls(("harq", {"enabled": True}))).valid


def test_strict_strings_policy() -> None:
    answer = calls(("calculate_path_loss", args(environment="urban")))
    assert check_item(ITEM_PL, answer).valid
    verdict = check_item(ITEM_PL, answer, Policy(strict_strings=True))
    assert verdict.error_type is ErrorCode.VALUE_ERROR


@pytest.mark.parametrize(
    ("policy", "value", "valid", "code"),
    [
        (OptionalParams.DEFAULT, "FR1", True, None),
        (OptionalParams.DEFAULT, "FR2", False, ErrorCode.UNEXPECTED_PARAM),
        (OptionalParams.ANY, "FR2", True, None),
        (OptionalParams.ANY, 2, False, ErrorCode.TYPE_ERROR),
        (OptionalParams.FORBID, "FR1", False, ErrorCode.UNEXPECTED_PARAM),
    ],
)
def test_optional_params_policy(
    policy: OptionalParams, value: Any, valid: bool, code: ErrorCode | None
) -> None:
    item = make_item([PRB], [tfce_call("compute_prb_count", bandwidth_mhz=100, scs_khz=30)])
    answer = calls(
        ("compute_prb_count", {"bandwidth_mhz": 100, "scs_khz": 30, "frequency_range": value})
    )
    verdict = check_item(item, answer, Policy(optional_params=policy))
    assert (verdict.valid, verdict.error_type) == (valid, code)


def test_missing_param_unless_default_or_may_omit() -> None:
    gt = tfce_call("compute_prb_count", bandwidth_mhz=100, scs_khz=30, frequency_range="FR2")
    item = make_item([PRB], [gt])
    answer = calls(("compute_prb_count", {"bandwidth_mhz": 100, "scs_khz": 30}))
    assert check_item(item, answer).error_type is ErrorCode.MISSING_PARAM
    gt_default = tfce_call(
        "compute_prb_count", bandwidth_mhz=100, scs_khz=30, frequency_range="FR1"
    )
    assert check_item(make_item([PRB], [gt_default]), answer).valid
    bfcl = ExpectedCall(
        "compute_prb_count",
        {
            "bandwidth_mhz": ExpectedParam((100,)),
            "scs_khz": ExpectedParam((30,)),
            "frequency_range": ExpectedParam(("FR2",), may_omit=True),
        },
    )
    assert check_item(make_item([PRB], [bfcl]), answer).valid


NESTED_GT = tfce_call(
    "configure_ca", carriers=[{"band": "n78", "bw": 100}, {"band": "n41", "bw": 100}]
)


@pytest.mark.parametrize(
    ("carriers", "valid", "code", "path"),
    [
        ([{"band": "N78", "bw": 100}, {"band": "n41", "bw": 100.0}], True, None, None),
        (
            [{"band": "n78", "bw": 100}, {"band": "n41", "bw": 90}],
            False,
            ErrorCode.VALUE_ERROR,
            "carriers[1].bw",
        ),
        (
            [{"band": "n78", "bw": 100}, {"band": "n41", "bw": "100"}],
            False,
            ErrorCode.TYPE_ERROR,
            "carriers[1].bw",
        ),
        ([{"band": "n78", "bw": 100}], False, ErrorCode.VALUE_ERROR, "carriers"),
        (
            [{"band": "n78", "bw": 100}, {"band": "n41", "bw": 100, "x": 1}],
            False,
            ErrorCode.VALUE_ERROR,
            "carriers[1].x",
        ),
        ([{"band": "n78", "bw": 100}, {"band": "n41", "bw": 100, "x": None}], True, None, None),
    ],
)
def test_nested_paths(carriers: Any, valid: bool, code: ErrorCode | None, path: str | None) -> None:
    item = make_item([NESTED], [NESTED_GT])
    verdict = check_item(item, calls(("configure_ca", {"carriers": carriers})))
    assert (verdict.valid, verdict.error_type) == (valid, code), verdict.error
    if path:
        assert verdict.details["problems"][0]["path"] == path
        assert path in (verdict.error or "")


def test_array_order_only_is_value_error_with_detail() -> None:
    swapped = [{"band": "n41", "bw": 100}, {"band": "n78", "bw": 100}]
    verdict = check_item(
        make_item([NESTED], [NESTED_GT]), calls(("configure_ca", {"carriers": swapped}))
    )
    assert verdict.error_type is ErrorCode.VALUE_ERROR
    assert verdict.details["order_only"] is True
    assert "order only" in (verdict.error or "")


def test_array_element_type_error() -> None:
    gt = tfce_call("configure_ca", carriers=[], flags=[True, False])
    verdict = check_item(
        make_item([NESTED], [gt]), calls(("configure_ca", {"carriers": [], "flags": [True, "no"]}))
    )
    assert verdict.error_type is ErrorCode.TYPE_ERROR
    assert verdict.details["problems"][0]["path"] == "flags[1]"


def test_any_type_compares_generically() -> None:
    gt = tfce_call("configure_ca", carriers=[], meta={"a": [1, 2.0], "b": "X"})
    item = make_item([NESTED], [gt])
    good = calls(("configure_ca", {"carriers": [], "meta": {"a": [1.0, 2], "b": "x"}}))
    bad = calls(("configure_ca", {"carriers": [], "meta": {"a": [1, 3], "b": "x"}}))
    assert check_item(item, good).valid
    assert check_item(item, bad).error_type is ErrorCode.VALUE_ERROR


# -- the one type vocabulary: BFCL's character, map and null ------------------------------

TYPED = {
    "name": "typed",
    "description": "d",
    "parameters": {
        "type": "dict",
        "properties": {
            "sep": {"type": "character"},
            "table": {"type": "map", "properties": {"n": {"type": "integer"}}},
            "nothing": {"type": "null"},
            "holes": {"type": "array", "items": {"type": "null"}},
        },
        "required": [],
    },
}


@pytest.mark.parametrize(
    ("expected", "received", "code"),
    [
        ({"sep": ","}, {"sep": 7}, ErrorCode.TYPE_ERROR),
        ({"sep": ","}, {"sep": ","}, None),
        ({"table": {"n": 5}}, {"table": {"n": "5"}}, ErrorCode.TYPE_ERROR),
        ({"table": {"n": 5}}, {"table": [5]}, ErrorCode.TYPE_ERROR),
        ({"table": {"n": 5}}, {"table": {"n": 5.0, "other": None}}, None),
        ({"table": {"n": 5}}, {"table": {"n": 6}}, ErrorCode.VALUE_ERROR),
        ({"holes": [None, None]}, {"holes": [None, 0]}, ErrorCode.TYPE_ERROR),
        ({"holes": [None]}, {"holes": [None]}, None),
        ({"holes": [None]}, {"holes": [None], "nothing": 0}, ErrorCode.TYPE_ERROR),
    ],
)
def test_character_map_and_null_are_declared_types(
    expected: dict[str, Any], received: dict[str, Any], code: ErrorCode | None
) -> None:
    from tfce_eval.check.fast import declared, satisfies
    from tfce_eval.schema.kinds import MatchOptions

    gt = tfce_call("typed", **expected)
    policy = Policy(optional_params=OptionalParams.ANY)  # "nothing" may be given, well typed
    verdict = check_item(make_item([TYPED], [gt]), calls(("typed", received)), policy)
    assert verdict.error_type is code, verdict.error
    properties, required = declared(gt, doc(TYPED))
    call = Call("typed", received)
    fast = satisfies(call, gt, properties, required, policy, MatchOptions(explain=False))
    assert fast == check_call(call, gt, doc(TYPED), policy).ok


PARALLEL_GT = [
    tfce_call("compute_prb_count", bandwidth_mhz=b, scs_khz=s)
    for b, s in [(20, 15), (100, 30), (50, 30)]
]
PARALLEL_ITEM = make_item([PRB], PARALLEL_GT, Category.PARALLEL)


def prb(b: Any, s: Any) -> tuple[str, dict[str, Any]]:
    return ("compute_prb_count", {"bandwidth_mhz": b, "scs_khz": s})


@pytest.mark.parametrize(
    ("answer", "valid", "code"),
    [
        ([prb(20, 15), prb(100, 30), prb(50, 30)], True, None),
        ([prb(50, 30), prb(20, 15), prb(100, 30)], True, None),
        ([prb(50, 30), prb(20, 15)], False, ErrorCode.WRONG_COUNT),
        ([prb(50, 30), prb(20, 15), prb(100, 60)], False, ErrorCode.VALUE_ERROR),
        ([prb(50, 30), prb(20, 15), prb(20, 15)], False, ErrorCode.VALUE_ERROR),
    ],
)
def test_parallel_order_insensitive(
    answer: list[tuple[str, dict[str, Any]]], valid: bool, code: ErrorCode | None
) -> None:
    verdict = check_item(PARALLEL_ITEM, calls(*answer))
    assert (verdict.valid, verdict.error_type) == (valid, code), verdict.error


def test_wrong_count_names_the_functions_with_their_counts() -> None:
    verdict = check_item(PARALLEL_ITEM, calls(prb(50, 30), prb(20, 15)))
    assert verdict.error_type is ErrorCode.WRONG_COUNT
    assert verdict.error == (
        "expected 3 calls (compute_prb_count ×3), received 2 (compute_prb_count ×2)"
    )
    assert "matching" not in verdict.details  # the count decides; nothing is paired


def test_parallel_failure_lists_unmatched_and_names_closest() -> None:
    verdict = check_item(PARALLEL_ITEM, calls(prb(50, 30), prb(20, 15), prb(100, 60)))
    assert verdict.details["unmatched"] == [1]
    assert "expected call 2" in (verdict.error or "")
    assert verdict.details["problems"][0]["path"] == "scs_khz"


THREE_PRB = make_item(
    [PRB],
    [tfce_call("compute_prb_count", bandwidth_mhz=b, scs_khz=s) for b, s in ((10, 15), (20, 30))]
    + [tfce_call("compute_prb_count", bandwidth_mhz=40, scs_khz=60)],
    Category.PARALLEL,
)


@pytest.mark.parametrize(
    ("second", "third", "closest", "code"),
    [
        # The nearer code wins: a value_error is closer than a type_error.
        (prb("20", 30), prb(25, 30), 2, ErrorCode.VALUE_ERROR),
        (prb(25, 30), prb("20", 30), 1, ErrorCode.VALUE_ERROR),
        # The same code: fewer problems win.
        (prb(25, 45), prb(25, 30), 2, ErrorCode.VALUE_ERROR),
        # A tie: the first unpaired call.
        (prb(25, 30), prb(35, 30), 1, ErrorCode.VALUE_ERROR),
        (prb("x", 30), prb("y", 30), 1, ErrorCode.TYPE_ERROR),
    ],
)
def test_the_closest_unpaired_call_is_chosen_as_checking_md_orders(
    second: tuple[str, dict[str, Any]],
    third: tuple[str, dict[str, Any]],
    closest: int,
    code: ErrorCode,
) -> None:
    # Call 0 pairs with expected call 1; expected call 2 (20, 30) is the first unpaired.
    verdict = check_item(THREE_PRB, calls(prb(10, 15), second, third))
    assert verdict.details["unmatched"] == [1, 2]
    assert (verdict.details["closest_call"], verdict.error_type) == (closest, code)


def test_matching_is_not_greedy() -> None:
    # BFCL-style alternatives: the first call satisfies both expected calls; a greedy pass
    # that gives it to the first expected call leaves x=2 without a partner.
    f = {
        "name": "f",
        "description": "",
        "parameters": {"type": "dict", "properties": {"x": {"type": "integer"}}, "required": ["x"]},
    }
    expected = [
        ExpectedCall("f", {"x": ExpectedParam((1, 2))}),
        ExpectedCall("f", {"x": ExpectedParam((1,))}),
    ]
    item = make_item([f], expected, Category.PARALLEL)
    assert check_item(item, calls(("f", {"x": 1}), ("f", {"x": 2}))).valid
    assert check_item(item, calls(("f", {"x": 2}), ("f", {"x": 1}))).valid


def test_parallel_multiple_mixed_functions() -> None:
    gt = [GT_PL, tfce_call("compute_prb_count", bandwidth_mhz=20, scs_khz=15)]
    item = make_item([PATH_LOSS, PRB], gt, Category.PARALLEL_MULTIPLE)
    good = calls(prb(20, 15), ("calculate_path_loss", args()))
    assert check_item(item, good).valid
    bad = calls(prb(20, 15), ("compute_prb_count", {"bandwidth_mhz": 1, "scs_khz": 1}))
    assert check_item(item, bad).error_type is ErrorCode.WRONG_FUNCTION


def test_bfcl_nested_alternatives() -> None:
    gt = ExpectedCall(
        "configure_ca",
        {
            "carriers": ExpectedParam(
                ([{"band": ["n78", "N78"], "bw": [100, ""]}],), nested_alternatives=True
            )
        },
    )
    item = make_item([NESTED], [gt])
    assert check_item(item, calls(("configure_ca", {"carriers": [{"band": "n78"}]}))).valid
    verdict = check_item(item, calls(("configure_ca", {"carriers": [{"band": "n79"}]})))
    assert verdict.error_type is ErrorCode.VALUE_ERROR


def test_check_call_is_usable_alone() -> None:
    result = check_call(Call("calculate_path_loss", args()), GT_PL, doc(PATH_LOSS), Policy())
    assert result.ok
    wrong = check_call(Call("other", {}), GT_PL, doc(PATH_LOSS), Policy())
    assert wrong.problems[0].code is ErrorCode.WRONG_FUNCTION


GRID = {
    "name": "grid",
    "description": "Rows of integers.",
    "parameters": {
        "type": "dict",
        "properties": {
            "m": {
                "type": "array",
                "items": {
                    "type": "dict",
                    "properties": {
                        "a": {
                            "type": "array",
                            "items": {"type": "array", "items": {"type": "integer"}},
                        }
                    },
                },
            }
        },
        "required": ["m"],
    },
}


def _variants(rng: Any, value: Any) -> list[Any]:
    """Values near `value` that the rules treat in different ways."""
    if isinstance(value, bool):
        return [value, not value, "true", 1, None]
    if isinstance(value, int | float):
        return [value, float(value), value + 0.5, str(value), value * 10, True, None]
    if isinstance(value, str):
        return [value, value.lower(), value.upper() + " ", "其他", 5, None]
    if isinstance(value, list):
        return [value, list(reversed(value)), value[:-1], [*value, value[0]] if value else [1]]
    if isinstance(value, dict):
        changed = {k: _variants(rng, v)[rng.randint(0, 2)] for k, v in value.items()}
        return [
            value,
            {**value, "x": 1},
            {k: v for k, v in list(value.items())[1:]},
            changed,
            {**value, next(iter(value)): None},
        ]
    return [value, None]


@pytest.mark.parametrize(
    "policy",
    [
        Policy(),
        Policy(optional_params=OptionalParams.ANY),
        Policy(optional_params=OptionalParams.FORBID),
        Policy(coerce_strings=True),
        Policy(strict_strings=True),
    ],
    ids=["default", "any", "forbid", "coerce", "strict"],
)
def test_fast_yes_no_check_agrees_with_the_explaining_check(
    policy: Policy, monkeypatch: pytest.MonkeyPatch
) -> None:
    """`satisfies` and `check_call` both settle exact values by their declared type names;
    both are held to the general rules alone (the shortcut switched off) as the reference."""
    import random

    import tfce_eval.check.item as check_module
    from tfce_eval.check.fast import declared, satisfies
    from tfce_eval.schema.kinds import MatchOptions

    rng = random.Random(7)
    cases = [
        (PATH_LOSS, GT_PL, ARGS),
        (
            PRB,
            tfce_call("compute_prb_count", bandwidth_mhz=100, scs_khz=30, frequency_range="FR2"),
            {"bandwidth_mhz": 100, "scs_khz": 30, "frequency_range": "FR2"},
        ),
        (NESTED, NESTED_GT, {"carriers": NESTED_GT.params["carriers"].values[0]}),
        (FLAGS, tfce_call("harq", enabled=True), {"enabled": True, "count": 4}),
        (
            SITE,
            tfce_call("site", location={"lat": 31.2, "lon": 121.5, "name": "Pudong"}),
            {"location": {"lat": 31.2, "lon": 121.5, "name": "Pudong"}},
        ),
        # Ground truth stored with the wrong types: an answer equal to it is still judged
        # against the declaration, member by member and element by element.
        (
            SITE,
            tfce_call("site", location={"lat": 31.2, "lon": 121, "name": 7}),
            {"location": {"lat": 31.2, "lon": 121, "name": 7}},
        ),
        (
            NESTED,
            tfce_call("configure_ca", carriers=[{"band": 78, "bw": 100.5}], flags=[1, 0]),
            {"carriers": [{"band": 78, "bw": 100.5}], "flags": [1, 0]},
        ),
        # Python's equality forgives 1 == 1.0 == True; the checker does not.
        (
            NESTED,
            tfce_call("configure_ca", carriers=[{"band": "n78", "bw": True}], flags=[1, 0]),
            {"carriers": [{"band": "n78", "bw": 1}], "flags": [True, False]},
        ),
        (
            SITE,
            tfce_call("site", location={"lat": True, "lon": False, "extra": [True]}),
            {"location": {"lat": 1, "lon": 0, "extra": [1]}},
        ),
        # An integer stored as a float (100.0), or as a fraction (a broken ground truth).
        (
            PRB,
            tfce_call("compute_prb_count", bandwidth_mhz=100.0, scs_khz=30),
            {"bandwidth_mhz": 100, "scs_khz": 30},
        ),
        (
            PRB,
            tfce_call("compute_prb_count", bandwidth_mhz=100.5, scs_khz=30),
            {"bandwidth_mhz": 100.5, "scs_khz": 30},
        ),
        # Alternatives: objects (the first stored with a number as text), and arrays of
        # different lengths.
        (
            SITE,
            ExpectedCall(
                "site",
                {
                    "location": ExpectedParam(
                        ({"lat": "31.2", "lon": 121.5}, {"lat": 40.0, "lon": 116.4, "name": "BJ"})
                    )
                },
            ),
            {"location": {"lat": 31.2, "lon": 121.5}},
        ),
        (
            NESTED,
            ExpectedCall(
                "configure_ca",
                {
                    "carriers": ExpectedParam(([{"band": "n78", "bw": 100}],)),
                    "flags": ExpectedParam(([True, False], [True, False, True])),
                },
            ),
            {"carriers": [{"band": "n78", "bw": 100}], "flags": [True, False, True]},
        ),
        # BFCL's alternatives inside an object: an answer equal to the stored lists is
        # not taken as it is.
        (
            GRID,
            ExpectedCall(
                "grid",
                {"m": ExpectedParam(([{"a": [[1, 2], [3]]}],), nested_alternatives=True)},
            ),
            {"m": [{"a": [[1, 2], [3]]}]},
        ),
    ]
    options = MatchOptions(
        coerce_strings=policy.coerce_strings, strict_strings=policy.strict_strings, explain=False
    )
    compared = 0
    for raw_doc, expected, good in cases:
        names = list(raw_doc["parameters"]["properties"])
        properties, required = declared(expected, doc(raw_doc))
        for _ in range(300):
            arguments = dict(good)
            for name in rng.sample(names, k=rng.randint(0, len(names))):
                base = arguments.get(name, raw_doc["parameters"]["properties"][name].get("default"))
                arguments[name] = rng.choice(_variants(rng, base))
            if rng.random() < 0.2 and arguments:
                arguments.pop(rng.choice(list(arguments)))
            if rng.random() < 0.1:
                arguments["undeclared"] = 1
            call = Call(expected.name if rng.random() < 0.95 else "other", arguments)
            slow = check_call(call, expected, doc(raw_doc), policy).ok
            fast = satisfies(call, expected, properties, required, policy, options)
            with monkeypatch.context() as rules_only:
                rules_only.setattr(check_module, "exact_as_is", lambda *_: False)
                reference = check_call(call, expected, doc(raw_doc), policy).ok
            assert fast == slow == reference, (call, fast, slow, reference)
            compared += 1
    assert compared == 4200


# -- the oracle of the end-to-end tests shares no code with the checker ----------------------


def test_the_perfect_outputs_oracle_imports_nothing_it_checks() -> None:
    import ast
    from pathlib import Path

    source = Path(__file__).with_name("gt_outputs.py").read_text(encoding="utf-8")
    modules = {
        node.module
        for node in ast.walk(ast.parse(source))
        if isinstance(node, ast.ImportFrom) and node.module
    }
    under_test = ("tfce_eval.check", "tfce_eval.schema", "tfce_eval.decode")
    assert not [m for m in modules if m.startswith(under_test)], modules


@pytest.mark.parametrize(
    ("member", "schema", "values", "may_omit"),
    [
        (5, {"type": "integer"}, [5], False),
        ([5, 6, ""], {"type": "integer"}, [5, 6], True),
        ([1, 2], {"type": "array"}, [[1, 2]], False),
        ([1, 2], {"type": "Tuple"}, [[1, 2]], False),
        ([[1, 2], [2, 1]], {"type": "array"}, [[1, 2], [2, 1]], False),
        ([[1, 2], ""], {"type": "list"}, [[1, 2]], True),
        (["a", "b"], None, ["a", "b"], False),
        ([], {"type": "string"}, [], False),
    ],
)
def test_nested_alternatives_read_alike_by_checker_and_oracle(
    member: Any, schema: Any, values: list[Any], may_omit: bool
) -> None:
    from tests.gt_outputs import _acceptable
    from tfce_eval.check.values import expand_alternatives

    assert expand_alternatives(member, schema) == (values, may_omit)
    assert _acceptable(member, schema) == values


def test_a_value_for_a_parameter_that_may_only_be_left_out_is_a_value_error() -> None:
    """BFCL's `[""]` as the only value: the quick and the explaining checks agree."""
    from tfce_eval.check.item import check_item
    from tfce_eval.model import Call, DecodeResult, ExpectedCall, ExpectedParam, FunctionDoc

    for declared, value in (("string", "x"), ("dict", {"a": 1}), ("any", 3)):
        parameters = {
            "type": "dict",
            "properties": {"a": {"type": "integer"}, "b": {"type": declared}},
            "required": ["a"],
        }
        doc = FunctionDoc("f", "", {"name": "f", "description": "", "parameters": parameters})
        expected = ExpectedCall(
            "f", {"a": ExpectedParam(values=(1,)), "b": ExpectedParam(values=(), may_omit=True)}
        )
        item = Item("simple_1", Category.SIMPLE, "q", (doc,), (expected,))
        decoded = DecodeResult(calls=(Call("f", {"a": 1, "b": value}),))
        verdict = check_item(item, decoded)
        assert not verdict.valid and verdict.error_type == "value_error", verdict
        assert verdict.error and "left out" in verdict.error
        assert check_item(item, DecodeResult(calls=(Call("f", {"a": 1}),))).valid


FIVE = {
    "name": "f",
    "description": "Five integers.",
    "parameters": {
        "type": "dict",
        "properties": {n: {"type": "integer"} for n in ("a", "b", "c", "d", "e", "extra")},
        "required": ["a"],
    },
}


def test_a_message_names_three_problems_and_counts_the_rest() -> None:
    item = make_item([FIVE], [tfce_call("f", a=1, b=2, c=3, d=4, e=5)])
    for wrong in (3, 4, 5):
        answer = {n: 9 if i < wrong else i + 1 for i, n in enumerate("abcde")}
        verdict = check_item(item, calls(("f", answer)))
        assert verdict.error_type is ErrorCode.VALUE_ERROR
        assert verdict.error is not None and verdict.error.count("expected") == 3
        more = wrong - 3
        assert verdict.error.endswith(f"; and {more} more" if more else "received 9")
        assert len(verdict.details["problems"]) == wrong


def test_an_unasked_parameter_of_the_wrong_type_ranks_with_type_errors() -> None:
    # checking.md 5.2: missing_param comes before type_error, whichever parameter the
    # type error is on (under --optional-params any, an unasked one of the wrong type).
    item = make_item([FIVE], [tfce_call("f", a=1, b=2)])
    answer = calls(("f", {"a": 1, "extra": "x"}))
    verdict = check_item(item, answer, Policy(optional_params=OptionalParams.ANY))
    codes = [p["code"] for p in verdict.details["problems"]]
    assert codes == ["missing_param", "type_error"]
    assert verdict.error_type is ErrorCode.MISSING_PARAM


def test_the_ground_truth_as_an_answer_keeps_a_required_parameter_it_may_omit() -> None:
    # BFCL's [1, ""] for a required parameter: the answer made of the ground truth (the
    # dataset self-check) must still give it, or every such item is called unwinnable.
    from tfce_eval.check.truth import truth_as_answer

    may_omit = {"a": ExpectedParam((1,), may_omit=True), "b": ExpectedParam((2,), may_omit=True)}
    expected = ExpectedCall("f", may_omit)
    item = make_item([FIVE], [expected])
    answer = truth_as_answer(item)
    assert answer.calls == (Call("f", {"a": 1}),)  # b is optional and may be left out
    assert check_item(item, answer).valid


BANDS = {
    "name": "bands",
    "description": "Bands.",
    "parameters": {
        "type": "dict",
        "properties": {
            "bands": {"type": "array", "items": {"type": "integer"}},
            "meta": {"type": "any"},
        },
        "required": [],
    },
}


@pytest.mark.parametrize(
    ("name", "alternatives", "received", "code", "path"),
    [
        # checking.md 5.3: an element of the wrong type is the array's problem wherever
        # it sits, before a wrong value that comes earlier.
        ("bands", ([9, 2, 3],), [1, 2, "x"], ErrorCode.TYPE_ERROR, "bands[2]"),
        # 5.2.6: with alternatives, only a type error at the parameter itself overrides
        # the mismatch with the first acceptable value (an untyped parameter is compared
        # with each alternative as it is).
        ("meta", ([1, 2], [1, 2, 3]), [1, "x", 3], ErrorCode.VALUE_ERROR, "meta"),
    ],
)
def test_which_problem_an_array_reports(
    name: str, alternatives: tuple[Any, ...], received: Any, code: ErrorCode, path: str
) -> None:
    item = make_item([BANDS], [ExpectedCall("bands", {name: ExpectedParam(alternatives)})])
    verdict = check_item(item, calls(("bands", {name: received})))
    assert verdict.error_type is code
    assert verdict.details["problems"][0]["path"] == path


def test_a_nested_member_with_no_acceptable_value_is_not_asked_for() -> None:
    # BFCL's nested alternatives {"band": []}: nothing listed, nothing to expect.
    expected = ExpectedCall(
        "configure_ca",
        {"carriers": ExpectedParam(([{"band": [], "bw": [100]}],), nested_alternatives=True)},
    )
    item = make_item([NESTED], [expected])
    assert check_item(item, calls(("configure_ca", {"carriers": [{"bw": 100}]}))).valid


def test_a_failing_record_shows_a_parameter_that_may_be_left_out_with_its_blank() -> None:
    # docs/files.md: a record's expected calls list the acceptable values, "" among them
    # when leaving the parameter out is right too (BFCL's own spelling).
    expected = ExpectedCall(
        "bands", {"bands": ExpectedParam(([1, 2],)), "meta": ExpectedParam((5,), may_omit=True)}
    )
    from tfce_eval.check.truth import answer_and_truth

    shown = answer_and_truth(make_item([BANDS], [expected]), calls(("bands", {"bands": [3]})))
    assert shown["expected"] == [{"name": "bands", "arguments": {"bands": [1, 2], "meta": [5, ""]}}]


OBJECTS = {
    "name": "objs",
    "description": "Objects.",
    "parameters": {
        "type": "dict",
        "properties": {
            "l": {
                "type": "array",
                "items": {"type": "dict", "properties": {"a": {"type": "integer"}}},
            },
            "loc": {
                "type": "dict",
                "properties": {"lat": {"type": "float"}, "name": {"type": "string"}},
            },
        },
        "required": [],
    },
}


def test_a_wrong_element_type_is_reported_before_an_earlier_wrong_value() -> None:
    # checking.md 5.3: a wrong element type is a type_error at its path wherever it sits.
    item = make_item([OBJECTS], [tfce_call("objs", l=[{"a": 1}, {"a": 2}])])
    verdict = check_item(item, calls(("objs", {"l": [{"a": 5}, {"a": "x"}]})))
    assert verdict.error_type is ErrorCode.TYPE_ERROR
    assert verdict.details["problems"][0]["path"] == "l[1].a"


def test_with_alternatives_a_type_error_inside_does_not_override_the_first_mismatch() -> None:
    # 5.2.6: only a type error at the parameter itself is the answer's whatever the
    # alternative; the first alternative has no `name`, the second a string one.
    alternatives = ({"lat": [1.0]}, {"lat": [1.0], "name": ["x"]})
    expected = ExpectedCall("objs", {"loc": ExpectedParam(alternatives, nested_alternatives=True)})
    verdict = check_item(
        make_item([OBJECTS], [expected]), calls(("objs", {"loc": {"lat": 1.0, "name": 5}}))
    )
    assert verdict.error_type is ErrorCode.VALUE_ERROR
    assert verdict.details["problems"][0]["path"] == "loc.name"
