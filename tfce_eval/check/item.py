"""The AST checker (docs/checking.md 5): decoded calls against an item's ground truth.

Per call: the name, declared and required parameters, omitted and invented optional
parameters, then types and values recursively. Per item: the call count, then an
order-insensitive pairing of calls with expected calls by maximum bipartite matching, so the
verdict never depends on the order in which the model listed its calls.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from tfce_eval.check.details import problem_json
from tfce_eval.check.fast import declared, equals_default, exact_as_is, satisfies
from tfce_eval.check.matching import complete_matching
from tfce_eval.check.values import CoercionError, Mismatch, coerce, match_any
from tfce_eval.decode.limits import MAX_MESSAGE, MAX_NAME, clip
from tfce_eval.model import (
    Call,
    DecodeResult,
    ErrorCode,
    ExpectedCall,
    FunctionDoc,
    Item,
    OptionalParams,
    Policy,
    Verdict,
    show_value,
    writable,
)
from tfce_eval.schema.kinds import MatchOptions, kind_of
from tfce_eval.words import counted

#: How far a failed call is from its expected call, nearest first: used to name the error
#: of an unmatched expected call after the closest candidate (docs/checking.md 5.5).
_CLOSENESS = (
    ErrorCode.VALUE_ERROR,
    ErrorCode.TYPE_ERROR,
    ErrorCode.MISSING_PARAM,
    ErrorCode.UNEXPECTED_PARAM,
    ErrorCode.MISSING_REQUIRED,
    ErrorCode.WRONG_FUNCTION,
)


@dataclass(frozen=True, slots=True)
class CallCheck:
    """One call checked against one expected call: valid, or its problems in check order."""

    problems: tuple[Mismatch, ...]

    @property
    def ok(self) -> bool:
        return not self.problems

    def distance(self) -> tuple[int, int]:
        return (_CLOSENESS.index(self.problems[0].code), len(self.problems))


def _declared_default(schema: Mapping[str, Any] | None) -> tuple[bool, Any]:
    if isinstance(schema, Mapping) and "default" in schema:
        return True, schema["default"]
    return False, None


def check_call(
    call: Call,
    expected: ExpectedCall,
    doc: FunctionDoc | None,
    policy: Policy,
) -> CallCheck:
    """Check one call against one expected call (docs/checking.md 5.2), collecting every problem."""
    if call.name != expected.name:
        return CallCheck(
            (
                Mismatch(
                    ErrorCode.WRONG_FUNCTION,
                    "",
                    f"called {clip(call.name, MAX_NAME)}, expected {clip(expected.name, MAX_NAME)}",
                    expected.name,
                    call.name,
                ),
            )
        )
    options = _explaining_options(policy)
    if doc is not None:
        properties: Mapping[str, Any] = doc.properties
        required: Sequence[str] = doc.required
    else:
        # No doc for the expected function (a dataset fault): the ground truth declares.
        properties = {name: {} for name in expected.params}
        required = ()
    args = call.arguments
    # One list per code, in the check order of docs/checking.md 5.2: the first names the error.
    undeclared: list[Mismatch] = []
    unasked: list[Mismatch] = []
    missing_required: list[Mismatch] = []
    missing: list[Mismatch] = []
    wrong_type: list[Mismatch] = []
    wrong_value: list[Mismatch] = []

    params = expected.params
    for name, value in args.items():
        if name not in properties:
            key = clip(name, MAX_NAME)
            message = f"{key}: not a parameter of {clip(call.name, MAX_NAME)}"
            undeclared.append(Mismatch(ErrorCode.UNEXPECTED_PARAM, key, message, None, value))
        elif name not in params:
            problem = _check_unasked(name, value, properties.get(name), policy, options)
            if problem is not None:
                (wrong_type if problem.code is ErrorCode.TYPE_ERROR else unasked).append(problem)
    for name in required:
        if args.get(name) is None:
            missing_required.append(
                Mismatch(ErrorCode.MISSING_REQUIRED, name, f"{name}: required parameter missing")
            )
    for name, exp in params.items():
        value = args.get(name)
        raw = properties.get(name)
        if value is None:
            if name in required or exp.may_omit:
                continue  # a missing required one is reported above
            if any(equals_default(raw, v, options) for v in exp.values):
                continue
            shown = exp.values[0] if exp.values else None
            message = f"{name}: missing, expected {show_value(shown)}"
            missing.append(Mismatch(ErrorCode.MISSING_PARAM, name, message, shown, None))
            continue
        if name not in properties or exact_as_is(raw, exp, value):
            continue  # exact: the usual case; the explaining comparison is for the others
        problem = match_any(
            raw if isinstance(raw, Mapping) else None,
            exp.values,
            value,
            name,
            options,
            alternatives_inside=exp.nested_alternatives,
        )
        if problem is not None:
            (wrong_type if problem.code is ErrorCode.TYPE_ERROR else wrong_value).append(problem)
    return CallCheck(
        (*undeclared, *unasked, *missing_required, *missing, *wrong_type, *wrong_value)
    )


#: The matching options of every policy, explaining and yes/no, made once: a policy is
#: looked up for every item, and only its two string switches change the options.
_OPTIONS: dict[tuple[bool, bool, bool], MatchOptions] = {
    (coerce, strict, explain): MatchOptions(
        coerce_strings=coerce, strict_strings=strict, explain=explain
    )
    for coerce in (False, True)
    for strict in (False, True)
    for explain in (False, True)
}


def _explaining_options(policy: Policy) -> MatchOptions:
    return _OPTIONS[policy.coerce_strings, policy.strict_strings, True]


def _check_unasked(
    name: str,
    value: Any,
    schema: Mapping[str, Any] | None,
    policy: Policy,
    options: MatchOptions,
) -> Mismatch | None:
    """A declared parameter the ground truth does not mention (docs/checking.md 5.2.5)."""
    if policy.optional_params is OptionalParams.FORBID:
        return Mismatch(
            ErrorCode.UNEXPECTED_PARAM,
            name,
            f"{name}: not expected (optional parameters are forbidden)",
            None,
            value,
        )
    if value is None:
        return None
    if policy.optional_params is OptionalParams.ANY:
        try:
            coerce(value, kind_of(schema), from_strings=options.coerce_strings)
        except CoercionError as exc:
            return Mismatch(ErrorCode.TYPE_ERROR, name, f"{name}: {exc}", None, value)
        return None
    if equals_default(schema, value, options):
        return None
    has_default, default = _declared_default(schema)
    because = f"its default is {show_value(default)}" if has_default else "it has no default"
    return Mismatch(
        ErrorCode.UNEXPECTED_PARAM,
        name,
        f"{name}: set to {show_value(value)}, which nobody asked for ({because})",
        None,
        value,
    )


_DEFAULT_POLICY = Policy()
#: The verdict of every right one-call answer; details are read-only (Mapping) everywhere.
_ONE_RIGHT_CALL = Verdict(True, details={"matching": [[0, 0]]})


def _yes_no_options(policy: Policy) -> MatchOptions:
    return _OPTIONS[policy.coerce_strings, policy.strict_strings, False]


def _pair_calls(
    item: Item,
    calls: Sequence[Call],
    expected: Sequence[ExpectedCall],
    policy: Policy,
    options: MatchOptions,
) -> list[int | None]:
    """Pair calls with expected calls: a first-fit pass, then augmenting paths if it fails.

    A perfect pairing found by first fit is as good as any other (the verdict only asks
    whether one exists), and right answers, the common case, are settled after about half
    the pairs are asked. When first fit leaves a call unpaired, augmenting paths find a
    maximum matching, so the verdict never depends on the order of the calls. Only calls
    and expected calls of the same function are compared; each pair at most once.
    """
    n_expected = len(expected)
    docs: dict[str, tuple[Mapping[str, Any], tuple[str, ...]]] = {}
    for exp in expected:
        if exp.name not in docs:
            docs[exp.name] = declared(exp, item.function(exp.name))
    asked: dict[int, bool] = {}  # by call index * n_expected + expected index

    taken = [False] * n_expected
    first_fit: list[int | None] = []
    for ci, call in enumerate(calls):
        name = call.name
        for ei, exp in enumerate(expected):
            if taken[ei] or exp.name != name:
                continue
            properties, required = docs[name]
            fits = asked[ci * n_expected + ei] = satisfies(
                call, exp, properties, required, policy, options
            )
            if fits:
                taken[ei] = True
                first_fit.append(ei)
                break
        else:
            first_fit.append(None)
    if None not in first_fit:
        return first_fit

    def ask(ci: int, ei: int) -> bool:
        call, exp = calls[ci], expected[ei]
        if call.name != exp.name:
            return False
        key = ci * n_expected + ei
        known = asked.get(key)
        if known is None:
            properties, required = docs[exp.name]
            known = asked[key] = satisfies(call, exp, properties, required, policy, options)
        return known

    return complete_matching(first_fit, n_expected, ask)


def check_item(item: Item, decoded: DecodeResult, policy: Policy = _DEFAULT_POLICY) -> Verdict:
    """Judge one item's decoded answer against its ground truth (docs/checking.md 5.1).

    A valid verdict's details hold the pairing (`matching`: [call index, expected index]);
    a failing one's, when calls were compared, the pairing found, the expected calls left
    unmatched and the problems of the closest call (`answer_and_truth` gives both sides).
    """
    expected = item.expected
    if decoded.calls is None:
        return Verdict(
            False,
            ErrorCode.PARSE_ERROR,
            _message(decoded.error or "the answer could not be decoded"),
        )
    calls = decoded.calls
    if not expected:
        if calls:
            return Verdict(
                False,
                ErrorCode.UNEXPECTED_CALL,
                _message(f"no call was expected, received {len(calls)} ({_names(calls)})"),
            )
        return Verdict(True, details={"matching": []})
    if not calls:
        return Verdict(
            False,
            ErrorCode.NO_CALL,
            f"expected {counted(len(expected), 'call')}, the model made none",
        )

    if len(calls) != len(expected):
        # The count decides (docs/checking.md 5.1): no pairing is asked for; the record shows both
        # sides.
        return Verdict(
            False,
            ErrorCode.WRONG_COUNT,
            _message(
                f"expected {counted(len(expected), 'call')} ({_names(expected)}), "
                f"received {len(calls)} ({_names(calls)})"
            ),
        )
    options = _yes_no_options(policy)
    if len(calls) == 1:
        # simple and multiple: one pair, asked directly.
        exp = expected[0]
        doc = item.function(exp.name)
        properties, required = declared(exp, doc)
        if satisfies(calls[0], exp, properties, required, policy, options):
            return _ONE_RIGHT_CALL
        return _failure(expected, [], [0], 0, check_call(calls[0], exp, doc, policy))
    matching = _pair_calls(item, calls, expected, policy, options)
    if None not in matching:
        return Verdict(True, details={"matching": [[ci, ei] for ci, ei in enumerate(matching)]})
    pairs = [[ci, ei] for ci, ei in enumerate(matching) if ei is not None]
    paired = set(matching)
    unmatched = [ei for ei in range(len(expected)) if ei not in paired]
    free_calls = [ci for ci, ei in enumerate(matching) if ei is None]
    first = unmatched[0]
    doc = item.function(expected[first].name)
    ci = free_calls[0]
    closest = check_call(calls[ci], expected[first], doc, policy)
    for other in free_calls[1:]:
        candidate = check_call(calls[other], expected[first], doc, policy)
        if candidate.distance() < closest.distance():
            ci, closest = other, candidate
    return _failure(expected, pairs, unmatched, ci, closest)


def _failure(
    expected: Sequence[ExpectedCall],
    pairs: list[list[int]],
    unmatched: list[int],
    closest_call: int,
    closest: CallCheck,
) -> Verdict:
    """The verdict of an item without a perfect pairing: the closest call's problems for the
    first unmatched expected call (docs/checking.md 5.5), at most three of them in the message."""
    problems = closest.problems
    details: dict[str, Any] = {
        "matching": pairs,
        "unmatched": unmatched,
        "problems": [problem_json(p) for p in problems],
        "closest_call": closest_call,
    }
    for p in problems:
        if p.order_only:
            details["order_only"] = True
            break
    if len(problems) == 1:
        message = problems[0].message
    else:
        message = "; ".join([p.message for p in problems[:3]])
        if len(problems) > 3:
            message += f"; and {len(problems) - 3} more"
    if len(expected) > 1:
        first = unmatched[0]
        message = f"expected call {first + 1} ({clip(expected[first].name, MAX_NAME)}): {message}"
    # Names and paths come from the answer: bounded, lone surrogates escaped for the record.
    return Verdict(False, problems[0].code, _message(message), details)


def _message(text: str) -> str:
    """A verdict's message as a record keeps it: as long as a parse_error's at most, lone
    surrogates (from the answer's names and paths) escaped."""
    return clip(writable(text), MAX_MESSAGE)


def _names(calls: Sequence[Call] | Sequence[ExpectedCall]) -> str:
    """The functions called, in order of first call, with a count where one repeats."""
    counts: dict[str, int] = {}
    for c in calls:
        counts[c.name] = counts.get(c.name, 0) + 1
    return ", ".join(
        clip(name, MAX_NAME) + ("" if n == 1 else f" ×{n}") for name, n in counts.items()
    )
