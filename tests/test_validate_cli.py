"""`tfce-eval validate` through the command line: clean data, errors, warnings, exec checks."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from click.testing import CliRunner

from tfce_eval.cli import main

DOC = {
    "name": "scale",
    "description": "Multiply.",
    "parameters": {
        "type": "dict",
        "properties": {"x": {"type": "float"}, "factor": {"type": "integer", "default": 2}},
        "required": ["x"],
    },
}


def write_dataset(root: Path, items: list[tuple[dict[str, Any], Any]]) -> Path:
    (root / "questions").mkdir(parents=True)
    (root / "answers").mkdir()
    with (
        (root / "questions" / "simple.jsonl").open("w", encoding="utf-8") as fq,
        (root / "answers" / "simple.jsonl").open("w", encoding="utf-8") as fa,
    ):
        for question, truth in items:
            fq.write(json.dumps(question, ensure_ascii=False) + "\n")
            if truth is not None:
                fa.write(json.dumps({"id": question["id"], "ground_truth": truth}) + "\n")
    return root


def question(item_id: str, doc: dict[str, Any] = DOC) -> dict[str, Any]:
    return {"id": item_id, "category": "simple", "question": "把3.5放大两倍", "function": [doc]}


def invoke(*args: str) -> Any:
    return CliRunner().invoke(main, ["validate", *args], catch_exceptions=False)


def test_builtin_dataset_is_clean() -> None:
    result = invoke()
    assert result.exit_code == 0, result.output
    assert "0 errors, 0 warnings" in result.output


def test_errors_exit_1_and_name_file_line_and_id(tmp_path: Path) -> None:
    root = write_dataset(
        tmp_path / "d",
        [
            (question("s_0"), {"scale": {"x": 3.5}}),
            (question("s_1"), {"scale": {"x": "big"}}),  # wrong type
            (question("s_2"), {"other": {"x": 1.0}}),  # names no doc
            (question("s_3"), {"scale": {"x": 1.0}, "scale2": {"x": 2.0}}),  # two calls in simple
            (question("s_4"), None),  # no answer
        ],
    )
    result = invoke("--data", str(root), "--no-exec")
    assert result.exit_code == 1
    text = result.output
    for item_id in ("s_1", "s_2", "s_3", "s_4"):
        assert item_id in text, text
    assert "simple.jsonl" in text
    assert "s_0)" not in text  # the clean item is not reported


def test_warnings_do_not_fail(tmp_path: Path) -> None:
    root = write_dataset(tmp_path / "d", [(question("s_0"), {"scale": {"x": 3}})])
    result = invoke("--data", str(root), "--no-exec", "--json")
    assert result.exit_code == 0, result.output
    report = json.loads(result.stdout)
    levels = [f["level"] for f in report["findings"]]
    assert levels == ["warning"]  # 3 stored for a float parameter


def test_exec_checks_compare_docs_with_implementations(tmp_path: Path) -> None:
    root = write_dataset(
        tmp_path / "d",
        [(question("s_0"), {"scale": {"x": 3.5}}), (question("s_1"), {"scale": {"x": -1.0}})],
    )
    functions = root / "functions"
    functions.mkdir()
    (functions / "__init__.py").write_text(
        "def scale(x: float, factor: int = 3) -> float:\n"
        "    if x < 0:\n"
        "        raise ValueError('x must be >= 0')\n"
        "    return x * factor\n",
        encoding="utf-8",
    )
    result = invoke("--data", str(root))
    assert result.exit_code == 1, result.output
    assert "factor" in result.output  # the default differs from the doc's
    assert "s_1" in result.output and "x must be >= 0" in result.output
    assert invoke("--data", str(root), "--no-exec").exit_code == 0


def test_null_for_an_optional_parameter_is_not_given(tmp_path: Path) -> None:
    root = write_dataset(
        tmp_path / "d",
        [
            (question("s_0"), {"scale": {"x": 3.5, "factor": None}}),
            (question("s_1"), {"scale": {"x": None}}),  # null for a required one is not
        ],
    )
    result = invoke("--data", str(root), "--no-exec", "--json")
    findings = json.loads(result.stdout)["findings"]
    assert [(f["id"], f["level"]) for f in findings] == [("s_1", "error")]
    assert result.exit_code == 1


def test_enum_value_equal_only_after_normalisation_is_a_warning(tmp_path: Path) -> None:
    doc = {
        "name": "pick",
        "description": "Pick a material.",
        "parameters": {
            "type": "dict",
            "properties": {"material": {"type": "string", "enum": ["Bronze", "Marble"]}},
            "required": ["material"],
        },
    }
    root = write_dataset(
        tmp_path / "d",
        [
            (question("s_0", doc), {"pick": {"material": "bronze"}}),
            (question("s_1", doc), {"pick": {"material": "Steel"}}),
        ],
    )
    result = invoke("--data", str(root), "--no-exec", "--json")
    findings = json.loads(result.stdout)["findings"]
    assert [(f["id"], f["level"]) for f in findings] == [("s_0", "warning"), ("s_1", "error")]


def test_a_parameter_expected_as_null_is_left_out_and_can_be_answered(tmp_path: Path) -> None:
    # {"factor": null} expects factor not given: leaving it out or giving null is right, a
    # value is not, and `score` does not call the item unanswerable.
    root = write_dataset(tmp_path / "d", [(question("s_0"), {"scale": {"x": 3.5, "factor": None}})])
    assert invoke("--data", str(root), "--no-exec").exit_code == 0
    verdicts = {}
    for name, arguments in (
        ("left_out", {"x": 3.5}),
        ("null", {"x": 3.5, "factor": None}),
        ("given", {"x": 3.5, "factor": 2.0}),
    ):
        outputs = tmp_path / f"{name}.jsonl"
        line = {"id": "s_0", "calls": [{"name": "scale", "arguments": arguments}]}
        outputs.write_text(json.dumps(line) + "\n", encoding="utf-8")
        out = tmp_path / f"scored-{name}"
        args = ["score", str(outputs), "--data", str(root), "--check", "ast", "--out", str(out)]
        result = CliRunner().invoke(main, args)
        assert result.exit_code == 0, result.output
        assert "cannot be answered right" not in result.output
        record = json.loads((out / "scores.jsonl").read_text(encoding="utf-8"))
        verdicts[name] = (record["valid"], record["error_type"])
    assert verdicts == {
        "left_out": (True, None),
        "null": (True, None),
        "given": (False, "value_error"),
    }


def test_a_null_member_of_an_object_is_absent_for_validate_as_for_score(
    tmp_path: Path,
) -> None:
    doc = {
        "name": "site",
        "description": "Site.",
        "parameters": {
            "type": "dict",
            "properties": {
                "loc": {
                    "type": "dict",
                    "properties": {"lat": {"type": "float"}, "name": {"type": "string"}},
                }
            },
            "required": ["loc"],
        },
    }
    truth = {"site": {"loc": {"lat": 1.0, "name": None}}}
    root = write_dataset(tmp_path / "d", [(question("s_0", doc), truth)])
    result = invoke("--data", str(root), "--no-exec", "--json")
    assert result.exit_code == 0 and json.loads(result.stdout)["findings"] == []
    outputs = tmp_path / "o.jsonl"
    line = {"id": "s_0", "calls": [{"name": "site", "arguments": {"loc": {"lat": 1.0}}}]}
    outputs.write_text(json.dumps(line) + "\n", encoding="utf-8")
    args = ["score", str(outputs), "--data", str(root), "--check", "ast", "--out"]
    scored = CliRunner().invoke(main, [*args, str(tmp_path / "s")])
    assert scored.exit_code == 0, scored.output
    assert json.loads((tmp_path / "s" / "scores.jsonl").read_text())["valid"] is True
