"""The exec verdict of one item: which calls to run, and how their results are paired.

Arguments are coerced to their declared numeric types first, as docs/checking.md 5.3 does for the
AST
check (28 for a float parameter is passed as 28.0, 5.0 for an integer one as 5), so that
equivalent arguments reach the implementation in the same form. A ground-truth parameter
with several acceptable values (BFCL style) gives several expected calls ("variants"); a
model result equal to any variant's result is right. Nested alternatives are not expanded.

Only functions that the expected calls name are ever looked up (so only their modules are
imported), and a model call runs only when it calls one of them: the AST check's pairing by
function name. A call to any other function is never run; it makes the item an
`exec_mismatch`.

Results are compared by `results_equal`: docs/checking.md 5.4's rules for strings, arrays and
objects,
and numbers within a relative tolerance of 1e-6 only (`EXEC_REL_TOL`), so 1.602e-19 and
3.2e-19 differ as much as 1.6 and 3.2 do. The one absolute allowance is for an expected
result of exactly zero: a received magnitude up to 1e-12 (`EXEC_ZERO_ABS_TOL`) is taken as
the floating-point noise of a zero (`sin(pi)` is 1.2e-16). Integers of any size compare
exactly, never through a float that would overflow.

A worker that died while running a call is a harness failure: the judge raises HarnessError
naming the item instead of counting it against the model. An expected call that fails (its
first acceptable values raise or time out) is a dataset problem, not the model's either: the
item is not judged (`ExecVerdict.skipped` says why), whatever the answer.
"""

from __future__ import annotations

import itertools
import json
import math
from collections.abc import Mapping, Sequence
from typing import Any, Protocol

from tfce_eval.check.matching import max_matching
from tfce_eval.check.values import CoercionError, coerce
from tfce_eval.errors import HarnessError
from tfce_eval.exec.records import ExecOutcome, ExecVerdict
from tfce_eval.model import (
    Call,
    ErrorCode,
    ExpectedCall,
    FunctionDoc,
    Item,
    render_call,
    show_value,
)
from tfce_eval.schema.equality import EXEC_REL_TOL, is_number, strings_equal
from tfce_eval.schema.kinds import Kind, kind_of
from tfce_eval.words import counted

#: The one absolute allowance: a received number this close to an expected exact zero.
EXEC_ZERO_ABS_TOL = 1e-12


class CallRunner(Protocol):
    """What the judge needs of an executor: whether a function exists, and running calls."""

    def implemented(self, name: str) -> bool: ...

    def run(self, calls: Sequence[Call]) -> list[ExecOutcome]: ...


#: At most this many combinations of acceptable values are run per expected call.
MAX_VARIANTS = 16
#: Results longer than this (as JSON) are shown cut in a record's details.
MAX_DETAIL_CHARS = 2000

_OMIT = object()


def coerce_value(value: Any, schema: Any, *, from_strings: bool) -> Any:
    """`value` in its declared form where docs/checking.md 5.3 allows it; unchanged where it does
    not."""
    kind = kind_of(schema if isinstance(schema, Mapping) else None)
    if kind is Kind.ARRAY and isinstance(value, list | tuple):
        items = schema.get("items")
        return [coerce_value(v, items, from_strings=from_strings) for v in value]
    if kind is Kind.OBJECT and isinstance(value, Mapping):
        props = schema.get("properties")
        props = props if isinstance(props, Mapping) else {}
        return {
            k: coerce_value(v, props.get(k), from_strings=from_strings) for k, v in value.items()
        }
    if kind in (Kind.INTEGER, Kind.NUMBER, Kind.BOOLEAN) and value is not None:
        try:
            return coerce(value, kind, from_strings=from_strings)
        except (CoercionError, OverflowError):
            return value  # the implementation decides what a wrong type means
    return value


def model_arguments(call: Call, doc: FunctionDoc | None) -> dict[str, Any]:
    props = doc.properties if doc is not None else {}
    return {k: coerce_value(v, props.get(k), from_strings=False) for k, v in call.arguments.items()}


def _key(value: Any) -> str:
    return json.dumps(value, sort_keys=True, default=repr)


def expected_variants(expected: ExpectedCall, doc: FunctionDoc | None) -> list[dict[str, Any]]:
    """The argument sets the ground truth accepts for one call, first alternatives first."""
    props = doc.properties if doc is not None else {}
    names: list[str] = []
    choices: list[list[Any]] = []
    for name, param in expected.params.items():
        options: list[Any] = []
        seen: set[str] = set()
        for value in param.values:
            option = (
                _OMIT if value is None else coerce_value(value, props.get(name), from_strings=True)
            )
            key = "omit" if option is _OMIT else _key(option)
            if key not in seen:
                seen.add(key)
                options.append(option)
        if (param.may_omit or not options) and "omit" not in seen:
            options.append(_OMIT)
        names.append(name)
        choices.append(options)
    return [
        {n: v for n, v in zip(names, combo, strict=True) if v is not _OMIT}
        for combo in itertools.islice(itertools.product(*choices), MAX_VARIANTS)
    ]


def numbers_close(expected: float, received: float, rel_tol: float = EXEC_REL_TOL) -> bool:
    """Exec equality of two numbers (see the module docstring); never raises."""
    if expected == received:  # exact, for ints of any size and for floats
        return True
    try:
        e, r = float(expected), float(received)
    except OverflowError:
        # Beyond a float: compare exactly, with the same relative tolerance.
        if any(isinstance(v, float) and not math.isfinite(v) for v in (expected, received)):
            return False
        # Imported lazily: fractions brings decimal, and only integers beyond 1e308 need it.
        from fractions import Fraction

        fe, fr = Fraction(expected), Fraction(received)
        return abs(fe - fr) <= Fraction(rel_tol) * max(abs(fe), abs(fr))
    if math.isnan(e) or math.isnan(r) or math.isinf(e) or math.isinf(r):
        return False  # NaN equals nothing; an infinity only itself (asked above)
    if expected == 0:
        return abs(r) <= EXEC_ZERO_ABS_TOL
    return math.isclose(e, r, rel_tol=rel_tol, abs_tol=0.0)


def results_equal(expected: Any, received: Any) -> bool:
    """Exec equality of two JSON-like results (see the module docstring)."""
    if isinstance(expected, bool) or isinstance(received, bool):
        return isinstance(expected, bool) and isinstance(received, bool) and expected == received
    if is_number(expected) and is_number(received):
        return numbers_close(expected, received)
    if isinstance(expected, str) and isinstance(received, str):
        return strings_equal(expected, received)
    if isinstance(expected, list | tuple) and isinstance(received, list | tuple):
        return len(expected) == len(received) and all(
            results_equal(e, r) for e, r in zip(expected, received, strict=True)
        )
    if isinstance(expected, Mapping) and isinstance(received, Mapping):
        exp = {k: v for k, v in expected.items() if v is not None}
        rec = {k: v for k, v in received.items() if v is not None}
        return exp.keys() == rec.keys() and all(results_equal(exp[k], rec[k]) for k in exp)
    if expected is None or received is None:
        return expected is None and received is None
    return bool(expected == received)


def _brief(value: Any) -> Any:
    """`value` for a record's details; its JSON text, cut, when that is long."""
    text = show_value(value, None)
    return value if len(text) <= MAX_DETAIL_CHARS else text[: MAX_DETAIL_CHARS - 1] + "…"


def _record(call: str, outcome: ExecOutcome) -> dict[str, Any]:
    if outcome.ok:
        return {"call": call, "result": _brief(outcome.value)}
    return {"call": call, "error": outcome.error}


#: The outcome recorded for a model call that was not run (its function is not expected).
_NOT_RUN = ExecOutcome(False, error="was not run: no expected call names this function")


def _stop_on_harness_failure(
    item: Item, batch: Sequence[Call], outcomes: Sequence[ExecOutcome]
) -> None:
    for call, outcome in zip(batch, outcomes, strict=True):
        if outcome.harness_failure:
            raise HarnessError(
                f"item {item.id}: the call {render_call(call.name, call.arguments, 80)} "
                f"{outcome.error}; that is a failure of tfce-eval or of the functions "
                "directory, not an error of the model. Run `tfce-eval call` on that call to "
                "see it alone, or score with --check ast"
            )


def _ground_truth_failure(texts: Sequence[str], firsts: Sequence[ExecOutcome]) -> str | None:
    """Why the expected calls cannot be judged against: the first one that fails, if any."""
    for j, (text, first) in enumerate(zip(texts, firsts, strict=True)):
        error = first.unusable_as_truth()
        if error is not None:
            verb = "raised" if error.startswith("raised") else "failed"
            return (
                f"the ground truth call {verb} (a dataset problem): expected call {j + 1} "
                f"{text} {error}"
            )
    return None


def ground_truth_failure(executor: CallRunner, item: Item) -> str | None:
    """Why `item` cannot be exec-judged whatever the answer, None when it can.

    Runs each expected call's first acceptable values (what `judge_item` and `validate` run
    first), for answers that have no call to compare: the items the exec check covers must
    not depend on what the model answered. None too when the item is not exec-checked.
    """
    if not item.expected or not all(executor.implemented(e.name) for e in item.expected):
        return None
    batch = [Call(e.name, expected_variants(e, item.function(e.name))[0]) for e in item.expected]
    outcomes = executor.run(batch)
    _stop_on_harness_failure(item, batch, outcomes)
    return _ground_truth_failure([render_call(c.name, c.arguments) for c in batch], outcomes)


def _perfect(pairs: Sequence[tuple[int, int]], n: int) -> bool:
    return (
        len(pairs) == n
        and sorted(i for i, _ in pairs) == list(range(n))
        and sorted(j for _, j in pairs) == list(range(n))
    )


def judge_item(
    executor: CallRunner,
    item: Item,
    calls: Sequence[Call],
    matching: Sequence[tuple[int, int]] | None,
) -> ExecVerdict:
    """The exec verdict of `item` for the model's `calls` (see tfce_eval.exec.executor)."""
    expected = item.expected
    if not expected:
        return ExecVerdict(None, None, None, {})
    missing = [n for n in dict.fromkeys(e.name for e in expected) if not executor.implemented(n)]
    if missing:
        return ExecVerdict(None, None, None, {"not_implemented": missing})

    variants = [expected_variants(e, item.function(e.name)) for e in expected]
    same_count = len(calls) == len(expected)
    model_args = [model_arguments(c, item.function(c.name)) for c in calls]
    expected_names = {e.name for e in expected}
    # Only calls to an expected function run: any other name is never looked up.
    runnable = [i for i, c in enumerate(calls) if c.name in expected_names] if same_count else []
    batch = [Call(e.name, v) for e, vs in zip(expected, variants, strict=True) for v in vs]
    batch += [Call(calls[i].name, model_args[i]) for i in runnable]
    outcomes = executor.run(batch)
    _stop_on_harness_failure(item, batch, outcomes)
    exp_outcomes: list[list[ExecOutcome]] = []
    position = 0
    for vs in variants:
        exp_outcomes.append(outcomes[position : position + len(vs)])
        position += len(vs)
    got = [_NOT_RUN] * len(calls) if same_count else []
    for i, outcome in zip(runnable, outcomes[position:], strict=True):
        got[i] = outcome

    exp_text = [render_call(e.name, vs[0]) for e, vs in zip(expected, variants, strict=True)]
    got_text = [render_call(c.name, a) for c, a in zip(calls, model_args, strict=True)]
    details: dict[str, Any] = {
        "expected": [_record(t, o[0]) for t, o in zip(exp_text, exp_outcomes, strict=True)]
    }
    if same_count:
        details["received"] = [_record(t, o) for t, o in zip(got_text, got, strict=True)]

    failure = _ground_truth_failure(exp_text, [tries[0] for tries in exp_outcomes])
    if failure is not None:
        return ExecVerdict(None, None, None, details, skipped=failure)
    if not same_count:
        made = f"{counted(len(calls), 'call')} made" if calls else "no call made"
        return ExecVerdict(
            False, ErrorCode.EXEC_MISMATCH, f"{made}, {len(expected)} expected", details
        )
    for i, call in enumerate(calls):
        if call.name not in expected_names:
            return ExecVerdict(
                False,
                ErrorCode.EXEC_MISMATCH,
                f"call {i + 1} {got_text[i]} is to a function no expected call names "
                f"({', '.join(sorted(expected_names))}); it was not run",
                details,
            )
    for i, outcome in enumerate(got):
        if not outcome.ok:
            return ExecVerdict(
                False, ErrorCode.EXEC_ERROR, f"call {i + 1} {got_text[i]} {outcome.error}", details
            )

    equal = [
        [
            any(t.ok and results_equal(t.value, mine.value) for t in exp_outcomes[j])
            for j in range(len(expected))
        ]
        for mine in got
    ]
    given = [(int(i), int(j)) for i, j in matching] if matching is not None else None
    if given is not None and not _perfect(given, len(calls)):
        given = None  # not a pairing of these calls: pair by results instead
    if given is not None and all(equal[i][j] for i, j in given):
        details["pairing"] = [list(p) for p in sorted(given)]
        details["pairing_source"] = "ast"
        return ExecVerdict(True, None, None, details)

    adjacency = [
        [calls[i].name == expected[j].name and equal[i][j] for j in range(len(expected))]
        for i in range(len(calls))
    ]
    rows = max_matching(adjacency)
    if all(j is not None for j in rows):
        details["pairing"] = [[i, j] for i, j in enumerate(rows)]
        details["pairing_source"] = "results"
        return ExecVerdict(True, None, None, details)

    def show(j: int) -> str:
        return show_value(exp_outcomes[j][0].value, 200)

    def mismatch(i: int, j: int) -> ExecVerdict:
        mine = show_value(got[i].value, 200)
        return ExecVerdict(
            False,
            ErrorCode.EXEC_MISMATCH,
            f"result {mine} != expected {show(j)} (call {i + 1}, {calls[i].name})",
            details,
        )

    if given is not None:
        i, j = next((i, j) for i, j in sorted(given) if not equal[i][j])
        return mismatch(i, j)
    taken = {j for j in rows if j is not None}
    j = next(j for j in range(len(expected)) if j not in taken)
    same_name = [i for i in range(len(calls)) if calls[i].name == expected[j].name]
    if same_name:
        unpaired = [i for i in same_name if rows[i] is None]
        return mismatch((unpaired or same_name)[0], j)
    return ExecVerdict(
        False,
        ErrorCode.EXEC_MISMATCH,
        f"no call to {expected[j].name} was made (expected call {j + 1} {exp_text[j]} "
        f"returns {show(j)})",
        details,
    )
