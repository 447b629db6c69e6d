"""The example outputs file scores exactly as examples/README.md says, row by row."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from tfce_eval.cli import main
from tfce_eval.model import ErrorCode

REPO = Path(__file__).resolve().parents[1]
EXAMPLES = REPO / "examples"
ROW = re.compile(r"^\| (base_\w+) \| \w+ \| ([^|]+) \| ([^|]+) \|")
POLICY_ROW = re.compile(r"^\| (base_\w+) \| `([^`]+)` \| ([^|(]+)")


def expected_rows() -> dict[str, tuple[str, str]]:
    rows = {}
    for line in (EXAMPLES / "README.md").read_text(encoding="utf-8").splitlines():
        m = ROW.match(line)
        if m:
            rows[m.group(1)] = (m.group(2).strip().strip("`"), m.group(3).strip().strip("`"))
    return rows


def score(tmp_path: Path, *options: str) -> dict[str, dict[str, Any]]:
    out = tmp_path / "out"
    result = CliRunner().invoke(
        main, ["score", str(EXAMPLES / "outputs.jsonl"), "--out", str(out), *options]
    )
    assert result.exit_code == 0, result.output
    lines = (out / "scores.jsonl").read_text(encoding="utf-8").splitlines()
    return {r["id"]: r for r in map(json.loads, lines)}


def test_every_item_has_a_row() -> None:
    ids = [json.loads(x)["id"] for x in (EXAMPLES / "outputs.jsonl").read_text().splitlines()]
    assert sorted(expected_rows()) == sorted(ids)


def test_ast_verdicts(tmp_path: Path) -> None:
    scores = score(tmp_path, "--check", "ast")
    for item_id, (ast, _) in expected_rows().items():
        got = "valid" if scores[item_id]["valid"] else scores[item_id]["error_type"]
        assert got == ast, (item_id, scores[item_id]["error"])
        assert scores[item_id]["exec_valid"] is None


def test_exec_verdicts_and_the_combined_code(tmp_path: Path) -> None:
    scores = score(tmp_path)
    for item_id, (ast, exec_) in expected_rows().items():
        record = scores[item_id]
        if exec_ == "-":
            assert record["exec_valid"] is None, item_id
        elif exec_ == "valid":
            assert record["exec_valid"] is True, (item_id, record["details"].get("exec"))
        else:
            assert record["exec_valid"] is False, item_id
            assert record["details"]["exec"]["error_type"] == exec_, item_id
        if ast == "valid" and exec_ not in ("valid", "-"):
            assert record["error_type"] == exec_, item_id
        else:
            assert record["valid"] == (ast == "valid"), item_id


def test_every_model_error_code_is_exercised(tmp_path: Path) -> None:
    scores = score(tmp_path)
    seen = {r["error_type"] for r in scores.values() if r["error_type"]}
    seen |= {r["details"]["exec"]["error_type"] for r in scores.values() if "exec" in r["details"]}
    missing = {str(c) for c in ErrorCode if c.is_model_error} - seen
    assert not missing


@pytest.mark.parametrize(
    "row",
    [
        m.groups()
        for line in (EXAMPLES / "README.md").read_text(encoding="utf-8").splitlines()
        if (m := POLICY_ROW.match(line))
    ],
    ids=lambda row: f"{row[0]}{row[1]}",
)
def test_policy_options_change_only_what_they_say(tmp_path: Path, row: tuple[str, ...]) -> None:
    item_id, option, verdict = row[0], row[1], row[2].strip().strip("`")
    default = score(tmp_path / "default", "--check", "ast")[item_id]
    changed = score(tmp_path / "changed", "--check", "ast", *option.split())[item_id]
    got = "valid" if changed["valid"] else changed["error_type"]
    assert got == verdict
    assert (default["valid"], default["error_type"]) != (changed["valid"], changed["error_type"])
