"""`validate`: a clean dataset has no findings; a broken one has every problem reported."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from tfce_eval.dataset.load import Dataset
from tfce_eval.dataset.paths import builtin_data_dir
from tfce_eval.dataset.validate import Finding, ValidationReport, validate_dataset
from tfce_eval.errors import DataError
from tfce_eval.model import AnswerStyle, Category

FIXTURES = Path(__file__).parent / "fixtures"

F = {
    "name": "f",
    "description": "One integer.",
    "parameters": {"type": "dict", "properties": {"x": {"type": "integer"}}, "required": ["x"]},
}
W = {
    "name": "w",
    "description": "Several types.",
    "parameters": {
        "type": "dict",
        "properties": {
            "freq": {"type": "float", "description": "GHz"},
            "on": {"type": "boolean"},
            "n": {"type": "integer"},
            "env": {"type": "string", "enum": ["LOS", "NLOS"]},
            "scs": {"type": "integer", "minimum": 15},
        },
        "required": ["freq", "on"],
    },
}


def q(item_id: str, *docs: Any, **extra: Any) -> str:
    return json.dumps({"id": item_id, "question": "问题", "function": list(docs), **extra})


def a(item_id: str, ground_truth: Any) -> str:
    return json.dumps({"id": item_id, "ground_truth": ground_truth})


def write(path: Path, lines: list[str]) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")


@pytest.fixture
def broken(tmp_path: Path) -> Path:
    write(
        tmp_path / "questions" / "simple.jsonl",
        [
            q("s_0", W),  # 1: coercible values only: warnings
            '{"id": "s_1", "question": ',  # 2: malformed JSON
            q("s_2", F),  # 3: two calls in a simple item
            q("s_3", F),  # 4: calls a function it does not have
            q("s_4", W),  # 5: undeclared parameter, missing required
            q("s_5", W),  # 6: wrong types, enum, minimum
            q("s_0", F),  # 7: duplicate id
            q("s_7", F),  # 8: no answer
            q("s_8", {"description": "nameless"}),  # 9: doc without a name
            q("s_9", F, category="chitchat"),  # 10: unknown category
            q("s_10", {"name": "h", "parameters": "oops"}),  # 11: parameters not an object
            "[1, 2]",  # 12: not an object
            q("s_12", F, F),  # 13: two docs with one name
        ],
    )
    write(
        tmp_path / "answers" / "simple.jsonl",
        [
            a("s_0", {"w": {"freq": 28, "on": "true", "n": 5.0, "env": "LOS"}}),  # 1
            a("s_2", [{"f": {"x": 1}}, {"f": {"x": 2}}]),  # 2
            a("s_3", {"g": {"x": 1}}),  # 3
            a("s_4", {"w": {"freq": 1.0, "bogus": 1}}),  # 4
            a("s_5", {"w": {"freq": "fast", "on": True, "n": 1.5, "env": "Urban", "scs": 5}}),  # 5
            a("ghost", {"f": {"x": 1}}),  # 6: no question
            a("s_10", {"h": {}}),  # 7
            a("s_12", {"f": {"x": 1}}),  # 8
            a("s_12", {"f": {"x": 2}}),  # 9: duplicate answer
            a("s_9", [{"f": 3}]),  # 10: malformed ground truth
            "not json",  # 11
        ],
    )
    write(tmp_path / "questions" / "multiple.jsonl", [q("m_0", F)])
    write(tmp_path / "answers" / "multiple.jsonl", [a("m_0", {"f": {"x": 1}})])
    return tmp_path


# (level, file, line, id, words): each must be found
EXPECTED = [
    ("warning", "answers/simple.jsonl", 1, "s_0", "w.freq: 28 is stored as an integer"),
    ("warning", "answers/simple.jsonl", 1, "s_0", 'w.on: "true" is stored as a string'),
    ("warning", "answers/simple.jsonl", 1, "s_0", "w.n: 5.0 is stored as a float"),
    ("error", "questions/simple.jsonl", 2, "s_1", "malformed JSON"),  # its id made out
    ("error", "answers/simple.jsonl", 2, "s_2", "a simple item, but the ground truth has 2 call"),
    ("error", "answers/simple.jsonl", 3, "s_3", "which is not among the item's functions"),
    ("error", "answers/simple.jsonl", 4, "s_4", "w.bogus: not a declared parameter"),
    ("error", "answers/simple.jsonl", 4, "s_4", "w.on: required"),
    ("error", "answers/simple.jsonl", 5, "s_5", "w.freq: a string where a number is declared"),
    ("error", "answers/simple.jsonl", 5, "s_5", "w.n: a fractional number"),
    ("error", "answers/simple.jsonl", 5, "s_5", 'w.env: "Urban" is not one of'),
    ("error", "answers/simple.jsonl", 5, "s_5", "w.scs: 5 is less than the minimum of 15"),
    ("error", "questions/simple.jsonl", 7, "s_0", "duplicate id"),
    # s_7 has no answer, and answers line 11 holds no id to read: it may be s_7's.
    ("warning", "questions/simple.jsonl", None, None, "(s_7) could not be matched"),
    ("error", "questions/simple.jsonl", 9, "s_8", "no name"),
    ("error", "questions/simple.jsonl", 10, "s_9", "unknown category 'chitchat'"),
    ("error", "questions/simple.jsonl", 11, "s_10", "parameters is not an object"),
    ("error", "questions/simple.jsonl", 12, None, "not an object"),
    ("error", "questions/simple.jsonl", 13, "s_12", "two function docs are named f"),
    ("error", "answers/simple.jsonl", 6, "ghost", "has no question"),
    ("error", "answers/simple.jsonl", 9, "s_12", "duplicate id"),
    ("error", "answers/simple.jsonl", 10, "s_9", "not an object"),
    ("error", "answers/simple.jsonl", 11, None, "malformed JSON"),
    ("error", "answers/multiple.jsonl", 1, "m_0", "a multiple item"),
]


def _matches(finding: Finding, root: Path, expected: tuple[Any, ...]) -> bool:
    level, file, line, item_id, words = expected
    return (
        finding.level == level
        and finding.path == str(root / file)
        and finding.line == line
        and finding.item_id == item_id
        and words in finding.message
    )


def test_broken_dataset_reports_every_problem(broken: Path) -> None:
    report = validate_dataset(broken)
    missing = [e for e in EXPECTED if not any(_matches(f, broken, e) for f in report.findings)]
    assert missing == [], "\n".join(str(f) for f in report.findings)
    unexpected = [f for f in report.findings if not any(_matches(f, broken, e) for e in EXPECTED)]
    assert unexpected == []
    assert all(f.hint for f in report.errors)
    assert report.items == 8  # the sound, answered items
    assert report.counts == {Category.SIMPLE: 7, Category.MULTIPLE: 1}
    assert len(report.errors) == len(EXPECTED) - 4 and len(report.warnings) == 4
    keys = [(f.path or "", f.line or 0) for f in report.findings]
    assert keys == sorted(keys)


def test_findings_render_and_serialise(broken: Path) -> None:
    report = validate_dataset(broken)
    text = str(report.errors[0])
    assert text.startswith("error: ") and "\n  fix: " in text
    data = report.to_json()
    assert data["errors"] == len(report.errors) and data["warnings"] == len(report.warnings)
    assert data["counts"] == {"simple": 7, "multiple": 1}
    assert json.loads(json.dumps(data, ensure_ascii=False))["findings"][0]["level"] in {
        "error",
        "warning",
    }
    assert str(Finding("warning", "hm")) == "warning: hm"


def test_one_finding_record_for_loading_validating_and_checking_setups(broken: Path) -> None:
    from tfce_eval import model
    from tfce_eval.dataset.load import scan_dataset

    _, problems = scan_dataset(broken)
    assert problems and all(type(p) is model.Finding for p in problems)
    assert all(type(f) is model.Finding for f in validate_dataset(broken).findings)
    assert Finding is model.Finding
    made = Finding("error", "m", "p.jsonl", 3, "s_1", "fix it")
    assert made.level is model.Level.ERROR
    assert made == Finding(model.Level.ERROR, "m", "p.jsonl", 3, "s_1", "fix it")
    assert made.to_json() == {
        "level": "error",
        "message": "m",
        "path": "p.jsonl",
        "line": 3,
        "id": "s_1",
        "hint": "fix it",
    }


def test_checker_and_validate_show_values_the_same_way(tmp_path: Path) -> None:
    """One way to show a value in a message: as JSON, cut to 80 characters."""
    from tfce_eval.check.item import check_item
    from tfce_eval.model import Call, DecodeResult, ExpectedCall, ExpectedParam, FunctionDoc, Item

    doc = {
        "name": "g",
        "parameters": {"type": "dict", "properties": {"on": {"type": "any"}}, "required": []},
    }
    item = Item(
        "s_0",
        Category.SIMPLE,
        "q",
        (FunctionDoc("g", "", doc),),
        (ExpectedCall("g", {"on": ExpectedParam(({"a": True, "b": None},))}),),
    )
    verdict = check_item(item, DecodeResult((Call("g", {"on": {"a": False}}),)))
    assert verdict.error == 'on: expected {"a": true, "b": null}, received {"a": false}'
    env = {**W["parameters"]["properties"]["env"], "enum": ["LOS", None]}
    w = {**W, "parameters": {"type": "dict", "properties": {"env": env}, "required": []}}
    write(tmp_path / "questions" / "simple.jsonl", [q("s_0", w)])
    write(tmp_path / "answers" / "simple.jsonl", [a("s_0", {"w": {"env": "UMa"}})])
    messages = [f.message for f in validate_dataset(tmp_path).findings]
    assert 'w.env: "UMa" is not one of ["LOS", null]' in messages, messages


def test_clean_fixture_has_no_findings() -> None:
    report = validate_dataset(FIXTURES / "tfce_small")
    assert report.findings == ()
    assert report.items == 10


def test_bfcl_fixture_only_lists_what_it_left_out() -> None:
    report = validate_dataset(FIXTURES / "bfcl_layout")
    (finding,) = report.findings
    assert finding.level == "warning" and "not loaded" in finding.message


def test_builtin_dataset_has_no_errors() -> None:
    assert any((builtin_data_dir() / "questions").glob("*.json*")), "no built-in dataset"
    report = validate_dataset()
    assert report.errors == (), "\n".join(str(f) for f in report.errors)


def test_bfcl_values_are_checked_through_nested_alternatives(tmp_path: Path) -> None:
    cell = {
        "name": "cell",
        "parameters": {
            "type": "dict",
            "properties": {
                "config": {
                    "type": "dict",
                    "properties": {"band": {"type": "string"}, "bw": {"type": "integer"}},
                },
                "n": {"type": "integer"},
            },
            "required": ["config"],
        },
    }
    write(tmp_path / "questions" / "simple.jsonl", [q("s_0", cell), q("s_1", cell)])
    write(
        tmp_path / "possible_answer" / "simple.jsonl",
        [
            a(
                "s_0",
                [{"cell": {"config": [{"band": ["n78", 78], "bw": [100, ""]}], "n": [1, ""]}}],
            ),
            a("s_1", [{"cell": {"config": [{"band": ["n41"]}], "n": [2, "x"]}}]),
        ],
    )
    report = validate_dataset(tmp_path)
    messages = sorted((f.item_id, f.message) for f in report.findings)
    assert messages == [
        ("s_0", "cell.config.band: an integer where a string is declared (78)"),
        ("s_1", 'cell.n: a string where an integer is declared ("x")'),
    ]


def test_required_parameter_that_may_be_omitted_is_a_warning(tmp_path: Path) -> None:
    write(tmp_path / "questions" / "simple.jsonl", [q("s_0", F)])
    write(tmp_path / "possible_answer" / "simple.jsonl", [a("s_0", [{"f": {"x": [1, ""]}}])])
    (finding,) = validate_dataset(tmp_path).findings
    assert finding.level == "warning" and "lets it be omitted" in finding.message


def test_category_shapes(tmp_path: Path) -> None:
    G = {**F, "name": "g"}
    write(
        tmp_path / "questions" / "all.jsonl",
        [
            q("ok_p", F, category="parallel"),
            q("ok_pm", F, G, category="parallel_multiple"),
            q("ok_i", F, category="irrelevance"),
            q("bad_p", F, G, category="parallel"),
            q("bad_pm", F, G, category="parallel_multiple"),
            q("bad_i", F, category="irrelevance"),
        ],
    )
    two = [{"f": {"x": 1}}, {"f": {"x": 2}}]
    write(
        tmp_path / "answers" / "all.jsonl",
        [
            a("ok_p", two),
            a("ok_pm", [{"f": {"x": 1}}, {"g": {"x": 2}}]),
            a("ok_i", []),
            a("bad_p", [{"f": {"x": 1}}, {"g": {"x": 2}}]),
            a("bad_pm", two),
            a("bad_i", {"f": {"x": 1}}),
        ],
    )
    report = validate_dataset(questions=[tmp_path / "questions"], answers=[tmp_path / "answers"])
    assert sorted(f.item_id or "" for f in report.findings) == ["bad_i", "bad_p", "bad_pm"]
    hints = {f.item_id: f.hint for f in report.findings}
    assert "parallel_multiple" in (hints["bad_p"] or "")
    assert "irrelevance" not in (hints["bad_i"] or "") and "simple" in (hints["bad_i"] or "")


def test_extra_checks_plug_in() -> None:
    seen: list[Dataset] = []

    def check(dataset: Dataset) -> list[Finding]:
        seen.append(dataset)
        return [Finding("error", "implementation missing", item_id=dataset.ids()[0])]

    report = validate_dataset(FIXTURES / "tfce_small", extra_checks=[check])
    assert len(seen) == 1 and len(seen[0]) == 10
    assert [f.message for f in report.errors] == ["implementation missing"]
    assert isinstance(report, ValidationReport)


def test_forced_style_and_missing_dataset(tmp_path: Path) -> None:
    write(tmp_path / "questions" / "simple.jsonl", [q("s_0", F)])
    write(tmp_path / "answers" / "simple.jsonl", [a("s_0", {"f": {"x": 1}})])
    (finding,) = validate_dataset(tmp_path, answer_style=AnswerStyle.BFCL).errors
    assert "not a list of acceptable values" in finding.message and finding.line == 1
    with pytest.raises(DataError):
        validate_dataset(tmp_path / "nowhere")


# -- what validate used to miss ----------------------------------------------------------------


def _one_item(root: Path, question: str, answer: str) -> list[Finding]:
    write(root / "questions" / "simple.jsonl", [question])
    write(root / "answers" / "simple.jsonl", [answer])
    return list(validate_dataset(root).findings)


NUMBERS = {
    "name": "n",
    "parameters": {
        "type": "dict",
        "properties": {"freq": {"type": "float"}, "list": {"type": "array"}},
        "required": [],
    },
}


@pytest.mark.parametrize(
    ("ground_truth", "message"),
    [
        ('{"freq": NaN}', "n.freq: nan can never be matched"),
        ('{"freq": -Infinity}', "n.freq: -inf can never be matched"),
        ('{"list": [1.0, [2, NaN]]}', "n.list[1][1]: nan can never be matched"),
    ],
)
def test_non_finite_ground_truth_is_an_error(
    tmp_path: Path, ground_truth: str, message: str
) -> None:
    answer = '{"id": "s_0", "ground_truth": {"n": ' + ground_truth + "}}"
    findings = _one_item(tmp_path, q("s_0", NUMBERS), answer)
    expected = f"{message} (an answer holds finite numbers only)"
    assert [f.level for f in findings if f.message == expected] == ["error"], findings


@pytest.mark.parametrize(
    ("names", "confused"),
    [
        (["get-info", "get\u2010info"], True),  # a hyphen and Unicode's hyphen
        (["Get_Info", "get_info"], True),
        (["ｇｅｔ", "get"], True),  # full width
        (["get_info", "get-info"], False),
        (["get_info", "get_infos"], False),
    ],
)
def test_names_told_apart_only_by_a_confusable_character(
    tmp_path: Path, names: list[str], confused: bool
) -> None:
    docs = [{**F, "name": n} for n in names]
    findings = _one_item(tmp_path, q("s_0", *docs), a("s_0", {names[0]: {"x": 1}}))
    found = [f for f in findings if "cannot tell them apart" in f.message]
    assert bool(found) is confused, findings
    if confused:
        assert found[0].level == "error" and found[0].line == 1
        assert f"{names[0]} and {names[1]}" in found[0].message


def test_a_ground_truth_name_that_differs_by_a_confusable_character_says_so(
    tmp_path: Path,
) -> None:
    findings = _one_item(tmp_path, q("s_0", F), a("s_0", {"F": {"x": 1}}))
    (error,) = [f for f in findings if "not among the item's functions" in f.message]
    assert error.hint == "write f exactly as the doc names it"


@pytest.mark.parametrize(
    ("required", "fragment"),
    [
        ("x", "required is a string ('x'), not a list of parameter names"),
        ({"x": True}, "required is not a list of parameter names"),
        (["x", 3], "required holds entries that are not names (such as 3)"),
    ],
)
def test_a_required_that_is_not_a_list_of_names(
    tmp_path: Path, required: Any, fragment: str
) -> None:
    doc = {**F, "parameters": {**F["parameters"], "required": required}}  # type: ignore[dict-item]
    findings = _one_item(tmp_path, q("s_0", doc), a("s_0", {"f": {"x": 1}}))
    assert [f for f in findings if fragment in f.message and f.level == "error"], findings


@pytest.mark.parametrize(
    ("answer", "message"),
    [
        (a("s_0", {"": {"x": 1}}), "ground_truth[0] names a function with an empty name"),
        (a("s_0", {"f": 3}), "the parameters of expected call 'f' are an integer, not an object"),
        ('{"id": "", "ground_truth": {}}', 'the record has an empty "id"'),
        (
            '{"id": 7, "ground_truth": {}}',
            'the record has an "id" that is an integer, not a string',
        ),
        ('{"ground_truth": {}}', 'the record has no "id"'),
    ],
)
def test_messages_say_what_is_wrong(tmp_path: Path, answer: str, message: str) -> None:
    findings = _one_item(tmp_path, q("s_0", F), answer)
    assert message in [f.message for f in findings], findings
