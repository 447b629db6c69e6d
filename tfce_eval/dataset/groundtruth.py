"""Ground truth in its two styles (README "Data"): shape, style detection and expected calls.

Shape (both styles): `ground_truth` is an object mapping function names to parameter objects
(each key one expected call), or a list of such objects.

Styles:
- TFCE: each parameter's value is the one expected value (a list is one array value).
- BFCL: each parameter lists its acceptable values; `""` among them means the parameter may
  be left out. Objects inside an acceptable value list their members' acceptable values the
  same way (BFCL's nested alternatives): such parameters are marked `nested_alternatives`
  and the checker reads them so (`tfce_eval.check.values.expand_alternatives`).

Detection, per answers file, by the evidence of its lines against the docs of their items:
- a line votes TFCE when its ground truth is an object (BFCL always writes a list), or some
  parameter value is not a list (BFCL always lists), or a list is given for an array-typed
  parameter and some element is neither a list nor `""`;
- a line votes BFCL when some parameter of a non-array declared type holds a list, or an
  array-typed parameter holds only lists (and `""`);
- a line with both kinds of evidence, or none (parameters typed `any`, unknown parameters,
  arrays of arrays, empty lists), does not vote.
The style with more votes wins. A tie (also no votes at all) falls back to the directory:
`possible_answer/` means BFCL, anything else TFCE. A file with votes both ways is reported.
An explicit style skips detection.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from enum import StrEnum
from typing import Any

from tfce_eval.jsonl import json_type
from tfce_eval.model import AnswerStyle, ExpectedCall, ExpectedParam
from tfce_eval.schema.kinds import TypeName, declared_kinds
from tfce_eval.words import counted


class GroundTruthError(ValueError):
    """A ground truth that cannot be read: what is wrong and how to fix it."""

    def __init__(self, message: str, hint: str) -> None:
        super().__init__(message)
        self.message = message
        self.hint = hint


class Vote(StrEnum):
    """What one answers line says about its file's style."""

    NONE = "none"
    TFCE = "tfce"
    BFCL = "bfcl"


def split_calls(ground_truth: Any) -> list[tuple[str, Mapping[str, Any]]]:
    """The expected calls as (function name, parameters); GroundTruthError if malformed."""
    if isinstance(ground_truth, dict):
        objects: list[Any] = [ground_truth]
    elif isinstance(ground_truth, list):
        objects = ground_truth
    else:
        raise GroundTruthError(
            f"ground_truth is {json_type(ground_truth)}, not an object or a list",
            'write {"function": {"param": value}} or a list of such objects ([] for none)',
        )
    calls: list[tuple[str, Mapping[str, Any]]] = []
    for index, obj in enumerate(objects):
        if not isinstance(obj, dict):
            raise GroundTruthError(
                f"ground_truth[{index}] is {json_type(obj)}, not an object",
                'write each expected call as {"function": {"param": value}}',
            )
        for name, params in obj.items():
            if not name.strip():
                raise GroundTruthError(
                    f"ground_truth[{index}] names a function with an empty name",
                    'write {"function": {"param": value}} with the function\'s name',
                )
            if not isinstance(params, dict):
                raise GroundTruthError(
                    f"the parameters of expected call {name!r} are {json_type(params)}, "
                    "not an object",
                    'write {"function": {"param": value}} ({} when it takes none)',
                )
            calls.append((name, params))
    return calls


def first_single_value(calls: Sequence[tuple[str, Mapping[str, Any]]]) -> str | None:
    """`function.param` of the first parameter whose value is not a list (impossible in BFCL)."""
    for name, params in calls:
        for param, value in params.items():
            if not isinstance(value, list):
                return f"{name}.{param}"
    return None


def vote_without_docs(
    ground_truth: Any, calls: Sequence[tuple[str, Mapping[str, Any]]], single: str | None
) -> Vote:
    """The evidence that needs no docs: TFCE for an object or a single value, else NONE.

    `single` is `first_single_value(calls)`, which the caller needs too.
    """
    if single is not None or (isinstance(ground_truth, dict) and calls):
        return Vote.TFCE
    return Vote.NONE


def vote_with_docs(
    calls: Sequence[tuple[str, Mapping[str, Any]]], docs: Mapping[str, Mapping[str, Any]]
) -> Vote:
    """The line's vote given its item's docs: function name -> declared properties."""
    votes: set[Vote] = set()
    for name, params in calls:
        properties = docs.get(name, {})
        for param, value in params.items():
            if param in properties:
                votes.add(_param_vote(value, properties[param]))
    votes.discard(Vote.NONE)
    return votes.pop() if len(votes) == 1 else Vote.NONE


#: Declared kinds by the `type` string of a schema: a file names a few types many times.
_KINDS_OF_TYPE: dict[str, frozenset[TypeName] | None] = {}


def _kinds(schema: Any) -> frozenset[TypeName] | None:
    """`declared_kinds(schema)`, remembered for schemas whose `type` is a string."""
    declared = schema.get("type") if type(schema) is dict else None
    if type(declared) is not str:
        return declared_kinds(schema)
    try:
        return _KINDS_OF_TYPE[declared]
    except KeyError:
        if len(_KINDS_OF_TYPE) >= 1_000:
            _KINDS_OF_TYPE.clear()
        found = _KINDS_OF_TYPE[declared] = declared_kinds(schema)
        return found


def _param_vote(value: Any, schema: Any) -> Vote:
    if not isinstance(value, list):
        return Vote.TFCE
    kinds = _kinds(schema)
    if kinds is None:
        return Vote.NONE
    if "array" not in kinds:
        return Vote.BFCL
    if len(kinds) > 1 or "array" in (_kinds(schema.get("items")) or ()):
        return Vote.NONE
    elements = [e for e in value if e != ""]
    if not elements:
        return Vote.NONE
    return Vote.BFCL if all(isinstance(e, list) for e in elements) else Vote.TFCE


@dataclass
class StyleEvidence:
    """The votes of one answers file, and where the first of each kind was cast."""

    tfce: int = 0
    bfcl: int = 0
    first_tfce: int | None = None
    first_bfcl: int | None = None

    def add(self, vote: Vote, line: int) -> None:
        if vote is Vote.TFCE:
            self.tfce += 1
            if self.first_tfce is None:
                self.first_tfce = line
        elif vote is Vote.BFCL:
            self.bfcl += 1
            if self.first_bfcl is None:
                self.first_bfcl = line

    def decide(self, directory: str) -> AnswerStyle:
        if self.tfce != self.bfcl:
            return AnswerStyle.TFCE if self.tfce > self.bfcl else AnswerStyle.BFCL
        return AnswerStyle.BFCL if directory == "possible_answer" else AnswerStyle.TFCE

    def conflict(self, chosen: AnswerStyle) -> str | None:
        """A sentence about votes against the chosen style, or None when there were none."""
        if not (self.tfce and self.bfcl):
            return None
        other, count, line = (
            ("BFCL", self.bfcl, self.first_bfcl)
            if chosen is AnswerStyle.TFCE
            else ("TFCE", self.tfce, self.first_tfce)
        )
        return (
            f"answers in both styles: read as {chosen.value.upper()} "
            f"({counted(max(self.tfce, self.bfcl), 'line')}), but "
            f"{counted(count, 'line looks', 'lines look')} {other}-style (first: line {line})"
        )


def expected_calls(ground_truth: Any, style: AnswerStyle) -> tuple[ExpectedCall, ...]:
    """The ground truth as expected calls; GroundTruthError if it cannot be read in `style`."""
    return calls_expected(split_calls(ground_truth), style)


def calls_expected(
    calls: Sequence[tuple[str, Mapping[str, Any]]], style: AnswerStyle
) -> tuple[ExpectedCall, ...]:
    """`expected_calls` of a ground truth already split (`split_calls`)."""
    return tuple(
        ExpectedCall(name, {p: _expected_param(name, p, v, style) for p, v in params.items()})
        for name, params in calls
    )


def _expected_param(function: str, param: str, value: Any, style: AnswerStyle) -> ExpectedParam:
    if style is AnswerStyle.TFCE:
        # null expected is "not given" (docs/checking.md 5.2): to be left out, as BFCL's [""].
        return ExpectedParam((), True) if value is None else ExpectedParam((value,))
    if not isinstance(value, list):
        raise GroundTruthError(
            f"parameter {function}.{param} holds {value!r}, not a list of acceptable values",
            "BFCL-style answers list every acceptable value ([value]); if the whole file "
            "gives one value per parameter, read it as TFCE style (--answer-style tfce)",
        )
    if "" in value or None in value:  # null among the alternatives: as "", left out
        return ExpectedParam(tuple([v for v in value if v != "" and v is not None]), True, True)
    return ExpectedParam(tuple(value), False, True)
