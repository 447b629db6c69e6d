"""Hostile answers and data: each is judged or reported in one line, never a traceback.

Answers go through the decoder and the checker as scoring sends them (`decode_output`, then
`check_item`); data files through `load_dataset` and `validate_dataset`.
"""

from __future__ import annotations

import json
import time
from pathlib import Path
from typing import Any

import pytest

from tfce_eval.check.item import check_item
from tfce_eval.check.truth import answer_and_truth
from tfce_eval.decode.answer import decode_output
from tfce_eval.model import (
    Category,
    ErrorCode,
    ExpectedCall,
    ExpectedParam,
    FunctionDoc,
    Item,
    Verdict,
    show_value,
)

CHARGE = {
    "name": "coulomb_force",
    "description": "Force between two charges.",
    "parameters": {
        "type": "dict",
        "properties": {
            "q1": {"type": "float", "description": "C"},
            "q2": {"type": "number", "description": "C"},
            "n": {"type": "integer"},
            "label": {"type": "string"},
            "values": {"type": "array", "items": {"type": "float"}},
            "anything": {"type": "any"},
        },
        "required": ["q1"],
    },
}


def item(**expected: Any) -> Item:
    params = {name: ExpectedParam((value,)) for name, value in expected.items()}
    return Item(
        "simple_7",
        Category.SIMPLE,
        "问题",
        (FunctionDoc(CHARGE["name"], "", CHARGE),),
        (ExpectedCall("coulomb_force", params),),
    )


def judge(target: Item, answer: Any) -> Verdict:
    """The verdict of one outputs record, as scoring makes it."""
    decoded = decode_output({"id": target.id, **answer})
    verdict = check_item(target, decoded)
    json.dumps(answer_and_truth(target, decoded), ensure_ascii=False)  # the record's sides
    return verdict


# -- a wrong verdict: small numbers ------------------------------------------------------------


@pytest.mark.parametrize(
    ("expected", "received", "code"),
    [
        (1.602e-19, 3.2e-19, ErrorCode.VALUE_ERROR),
        (1e-6, 1.000001e-6, ErrorCode.VALUE_ERROR),
        (1.602e-19, 1.602e-19, None),
        (0.0, 1e-17, None),
    ],
)
def test_small_numbers_are_compared_relatively(
    expected: float, received: float, code: ErrorCode | None
) -> None:
    calls = [{"name": "coulomb_force", "arguments": {"q1": received}}]
    verdict = judge(item(q1=expected), {"calls": calls})
    assert verdict.error_type is code, verdict.error
    text = f"coulomb_force(q1={received!r})"
    assert judge(item(q1=expected), {"text": text}).error_type is code


# -- huge integers ---------------------------------------------------------------------------


HUGE = "1" + "0" * 400
#: Each parameter's expected value, and the code a huge integer in its place gets.
HUGE_VERDICTS = {
    "q1": (1.5, ErrorCode.VALUE_ERROR),
    "q2": (2.5, ErrorCode.VALUE_ERROR),
    "n": (3, ErrorCode.VALUE_ERROR),
    "anything": (3, ErrorCode.VALUE_ERROR),
    "values": ([1.5], ErrorCode.TYPE_ERROR),
    "label": ("x", ErrorCode.TYPE_ERROR),
}


def _huge_answer(shape: str, param: str) -> dict[str, Any]:
    other = "" if param == "q1" else "q1=1.5, "
    python = {"text": f"coulomb_force({other}{param}={HUGE})"}
    json_args = ('{"q1": 1.5, ' if param != "q1" else "{") + f'"{param}": {HUGE}}}'
    return {
        "calls": {"calls": [{"name": "coulomb_force", "arguments": json.loads(json_args)}]},
        "tool_calls": {
            "tool_calls": [{"function": {"name": "coulomb_force", "arguments": json_args}}]
        },
        "text": python,
        "power": {"text": python["text"].replace(HUGE, "10**400")},
        "2**3321": {"text": python["text"].replace(HUGE, "2**3321")},
        "json-text": {"text": f'[{{"name": "coulomb_force", "arguments": {json_args}}}]'},
    }[shape]


@pytest.mark.parametrize("shape", ["calls", "tool_calls", "text", "power", "2**3321", "json-text"])
@pytest.mark.parametrize("param", list(HUGE_VERDICTS))
def test_huge_integers_are_judged(shape: str, param: str) -> None:
    expected, code = HUGE_VERDICTS[param]
    wanted = {"q1": 1.5, param: expected}
    verdict = judge(item(**wanted), _huge_answer(shape, param))
    assert verdict.error_type is code, verdict.error
    assert verdict.error is not None and len(verdict.error) < 400


def test_a_huge_integer_equal_to_a_huge_expected_value_is_right() -> None:
    target = item(q1=1.5, n=2**3321, anything=10**400)
    calls = [{"name": "coulomb_force", "arguments": {"q1": 1.5, "n": 2**3321, "anything": 10**400}}]
    assert judge(target, {"calls": calls}).valid
    assert judge(target, {"text": "coulomb_force(q1=1.5, n=2**3321, anything=10**400)"}).valid


def test_an_integer_beyond_the_limit_is_a_bounded_parse_error() -> None:
    for answer in (
        {"text": "coulomb_force(q1=10**1001)"},
        {"calls": [{"name": "coulomb_force", "arguments": {"q1": 10**1200}}]},
        {"text": "coulomb_force(q1=" + "9" * 5000 + ")"},
    ):
        verdict = judge(item(q1=1.5), answer)
        assert verdict.error_type is ErrorCode.PARSE_ERROR
        assert verdict.error is not None and len(verdict.error) < 300


def test_show_value_of_a_huge_integer_is_short() -> None:
    assert show_value(10**5000) == "<an integer of about 5001 digits>"


# -- lone surrogates --------------------------------------------------------------------------

LONE = "\ud83d"  # half of an emoji, as a model or a JSON escape can produce it

SURROGATE_ANSWERS = {
    "python": {"text": f"coulomb_force(q1=1.5, label='{LONE}')"},
    "python-list": {"text": f'[coulomb_force(q1=1.5, label="{LONE}")]'},
    "fenced": {"content": f"```python\ncoulomb_force(q1=1.5, label='{LONE}')\n```"},
    "json-text": {
        "text": '[{"name": "coulomb_force", "arguments": {"q1": 1.5, "label": "\\ud83d"}}]'
    },
    "json-raw": {
        "text": f'[{{"name": "coulomb_force", "arguments": {{"q1": 1.5, "label": "{LONE}"}}}}]'
    },
    "tag": {
        "text": "<tool_call>"
        + f'{{"name": "coulomb_force", "arguments": {{"q1": 1.5, "label": "{LONE}"}}}}'
        + "</tool_call>"
    },
    "tool_calls": {
        "tool_calls": [
            {"function": {"name": "coulomb_force", "arguments": '{"q1": 1.5, "label": "\\ud83d"}'}}
        ]
    },
    "calls": {"calls": [{"name": "coulomb_force", "arguments": {"q1": 1.5, "label": LONE}}]},
}


@pytest.mark.parametrize("shape", list(SURROGATE_ANSWERS))
def test_a_lone_surrogate_in_arguments_is_judged(shape: str) -> None:
    answer = SURROGATE_ANSWERS[shape]
    assert judge(item(q1=1.5, label=LONE), answer).valid
    wrong = judge(item(q1=1.5, label="x"), answer)
    assert wrong.error_type is ErrorCode.VALUE_ERROR
    assert wrong.error == 'label: expected "x", received "\\ud83d"'


@pytest.mark.parametrize(
    "answer",
    [
        {"calls": [{"name": f"coulomb{LONE}", "arguments": {"q1": 1.5}}]},
        {"text": f"coulomb{LONE}(q1=1.5)"},
        {"calls": [{"name": "coulomb_force", "arguments": {"q1": 1.5, LONE: 1}}]},
        {"calls": [{"name": f"f{LONE}", "arguments": {}}] * 2},
        {"text": f"我{LONE}无法计算"},
        {"text": f"coulomb_force(q1=1.5, label={LONE})"},
    ],
    ids=["name", "python-name", "key", "count", "prose", "bare"],
)
def test_a_lone_surrogate_anywhere_gives_a_verdict_that_can_be_written(
    answer: dict[str, Any],
) -> None:
    verdict = judge(item(q1=1.5), answer)
    assert not verdict.valid
    assert verdict.error is not None
    verdict.error.encode("utf-8")  # escaped, not raw: the record can be written


def test_findings_and_wire_names_with_lone_surrogates_can_be_written() -> None:
    from tfce_eval.model import Finding
    from tfce_eval.schema.wire import wire_name

    finding = Finding("error", f"two docs are named f{LONE}", item_id=f"s{LONE}")
    str(finding).encode("utf-8")
    assert finding.item_id == "s\\ud83d"
    name = wire_name(f"f{LONE}")
    assert name.startswith("f_") and name == wire_name(f"f{LONE}") != wire_name("f\ud83e")


# -- JSON without limits, in dataset files -----------------------------------------------------

DOC = {
    "name": "f",
    "description": "d",
    "parameters": {"type": "dict", "properties": {"x": {"type": "integer"}}, "required": ["x"]},
}


def _dataset(root: Path, question_lines: list[str], answer_lines: list[str]) -> Path:
    (root / "questions").mkdir(parents=True)
    (root / "answers").mkdir()
    (root / "questions" / "simple.jsonl").write_text("\n".join(question_lines) + "\n")
    (root / "answers" / "simple.jsonl").write_text("\n".join(answer_lines) + "\n")
    return root


def _question(item_id: str, doc: Any = DOC) -> str:
    return json.dumps({"id": item_id, "question": "q", "function": [doc]})


def _answer(item_id: str, value: str = "1") -> str:
    return '{"id": "' + item_id + '", "ground_truth": {"f": {"x": ' + value + "}}}"


DEEP = "[" * 100_000 + "]" * 100_000
LONG_INT = "7" * 5000


@pytest.mark.parametrize(
    ("where", "line", "fragment"),
    [
        ("questions", DEEP, "nest deeper than 128 levels (column 129)"),
        ("answers", _answer("s_1", DEEP), "nest deeper than 128 levels"),
        ("questions", '{"id": "s_1", "n": ' + LONG_INT + "}", "more than 4300 digits"),
        ("answers", _answer("s_1", LONG_INT), "more than 4300 digits"),
    ],
    ids=["deep-question", "deep-answer", "long-int-question", "long-int-answer"],
)
def test_json_beyond_the_limits_is_one_data_error_line(
    tmp_path: Path, where: str, line: str, fragment: str
) -> None:
    from tfce_eval.dataset.load import load_dataset
    from tfce_eval.dataset.validate import validate_dataset
    from tfce_eval.errors import DataError

    questions = [_question("s_0"), _question("s_1")]
    answers = [_answer("s_0"), _answer("s_1")]
    (questions if where == "questions" else answers)[1] = line
    root = _dataset(tmp_path, questions, answers)
    path = str(root / where / "simple.jsonl")
    start = time.monotonic()
    with pytest.raises(DataError) as caught:
        load_dataset(root)
    assert caught.value.path == path and caught.value.line == 2
    assert fragment in caught.value.message
    message = str(caught.value)
    assert len(message.splitlines()[0]) < 200
    report = validate_dataset(root)
    errors = [f for f in report.errors if f.line == 2 and f.path == path]
    assert errors and fragment in errors[0].message, report.findings
    assert time.monotonic() - start < 10


@pytest.mark.parametrize("shape", ["array", "wrapped"])
def test_a_whole_json_document_beyond_the_limits_is_one_finding(tmp_path: Path, shape: str) -> None:
    from tfce_eval.dataset.validate import validate_dataset

    items = [json.loads(_question("s_0")), {"id": "s_1", "deep": json.loads("[" * 200 + "]" * 200)}]
    text = json.dumps(items if shape == "array" else {"data": items}, indent=1)
    root = _dataset(tmp_path, [], [_answer("s_0")])
    (root / "questions" / "simple.jsonl").unlink()
    (root / "questions" / "simple.json").write_text(text)
    path = str(root / "questions" / "simple.json")
    (finding,) = [f for f in validate_dataset(root).errors if f.path == path]
    assert "nest deeper than 128 levels" in finding.message and finding.line


def test_a_schema_500_items_deep_does_not_reach_jsonschema(tmp_path: Path) -> None:
    from tfce_eval.dataset.validate import validate_dataset

    def nested(depth: int) -> dict[str, Any]:
        schema: dict[str, Any] = {"type": "integer"}
        for _ in range(depth):
            schema = {"type": "array", "items": schema}
        return {
            "name": "f",
            "parameters": {"type": "dict", "properties": {"x": schema}, "required": ["x"]},
        }

    deep, deeper = nested(100), nested(500)
    value = "1"
    for _ in range(100):
        value = f"[{value}]"
    root = _dataset(
        tmp_path,
        [_question("s_0", deep), _question("s_1", deeper)],
        [_answer("s_0", value), _answer("s_1")],
    )
    report = validate_dataset(root)
    by_line = {(f.path, f.line): f.message for f in report.errors}
    questions = str(root / "questions" / "simple.jsonl")
    assert "parameters nest deeper than 64 levels" in by_line[questions, 1]
    assert "nest deeper than 128 levels" in by_line[questions, 2]


# -- structured answers are bounded like text ---------------------------------------------------


def _outputs_line(tmp_path: Path, text: str) -> dict[str, Any]:
    """One outputs line as scoring reads it: through the JSON Lines reader."""
    from tfce_eval.jsonl import JsonLines

    path = tmp_path / "outputs.jsonl"
    path.write_text(text + "\n", encoding="utf-8")
    (record,) = JsonLines(path)
    assert record.error is None, record.error
    value: dict[str, Any] = record.value
    return value


FIFTY_MB = 50 * 1024 * 1024


@pytest.mark.parametrize(
    ("make", "fragment"),
    [
        (
            lambda: (
                '{"calls": [{"name": "coulomb_force", "arguments": {"label": "'
                + "x" * FIFTY_MB
                + '"}}]}'
            ),
            "answer too large",
        ),
        (
            lambda: (
                '{"calls": [{"name": "coulomb_force", "arguments": {"values": ['
                + "0," * (FIFTY_MB // 8)
                + "0]}}]}"
            ),
            "answer too large",
        ),
        (
            lambda: '{"calls": [' + '{"name": "f", "arguments": {}},' * 200_000 + "{}]}",
            "more than 100000 values",
        ),
        (
            lambda: '{"calls": [' + '{"name": "f", "arguments": {}},' * 1000 + "{}]}",
            "more than 256 calls",
        ),
        (
            lambda: '{"calls": [{"name": "' + "n" * FIFTY_MB + '", "arguments": {}}]}',
            "answer too large",
        ),
        (
            lambda: '{"calls": [{"name": "f", "arguments": {"' + "k" * FIFTY_MB + '": 1}}]}',
            "answer too large",
        ),
        (
            lambda: '{"content": [' + '{"type": "thinking"},' * 300_000 + '{"type": "x"}]}',
            "answer too large",
        ),
    ],
    ids=["string", "list", "many-calls", "calls", "name", "key", "blocks"],
)
def test_a_huge_structured_answer_is_a_quick_bounded_parse_error(
    tmp_path: Path, make: Any, fragment: str
) -> None:
    answer = _outputs_line(tmp_path, make())
    start = time.monotonic()
    decoded = decode_output(answer)
    verdict = check_item(item(q1=1.5), decoded)
    details = json.dumps({**verdict.details, **answer_and_truth(item(q1=1.5), decoded)})
    assert time.monotonic() - start < 5
    assert verdict.error_type is ErrorCode.PARSE_ERROR
    assert verdict.error is not None and fragment in verdict.error
    assert len(verdict.error) <= 500 and len(details) < 1000


def test_a_large_wrong_value_is_kept_cut_in_the_details() -> None:
    calls = [{"name": "coulomb_force", "arguments": {"q1": 1.5, "label": "y" * 1_500_000}}]
    target = item(q1=1.5, label="x")
    verdict = judge(target, {"calls": calls})
    assert verdict.error_type is ErrorCode.VALUE_ERROR
    (problem,) = verdict.details["problems"]
    assert problem["expected"] == "x" and len(problem["received"]) == 2000
    assert len(json.dumps(verdict.details)) < 5000
