"""How every command stops: Ctrl-C is exit 130 with one line (never click's `Aborted!`
and exit 1), and click's own usage errors fold at 80 columns like tfce-eval's."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from tfce_eval.cli import main

REPO = Path(__file__).resolve().parents[1]
OUTPUTS = str(REPO / "examples" / "outputs.jsonl")


def _ctrl_c(*args: Any, **kwargs: Any) -> Any:
    raise KeyboardInterrupt


@pytest.mark.parametrize(
    ("argv", "module", "attribute"),
    [
        (["score", OUTPUTS], "tfce_eval.scoring.score", "score_outputs"),
        (["validate"], "tfce_eval.dataset.validate", "validate_dataset"),
        (["retrieve", "--data", "builtin:qasper-rag"], "tfce_eval.retrieval", "retrieve"),
        (["report", "RUN"], "tfce_eval.report", "load_run"),
        (["datasets"], "tfce_eval.tasks.catalogue", "describe_builtins"),
    ],
)
def test_ctrl_c_in_any_command_exits_130_with_one_line(
    argv: list[str], module: str, attribute: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(f"{module}.{attribute}", _ctrl_c)
    if argv[0] == "score":
        argv = [*argv, "--out", str(tmp_path / "scored")]
    elif argv[0] == "retrieve":
        argv = [*argv, "--out", str(tmp_path / "bm25"), "--cache-dir", str(tmp_path / "cache")]
    elif argv[0] == "report":
        scored = CliRunner().invoke(main, ["score", OUTPUTS, "--out", str(tmp_path / "run")])
        assert scored.exit_code == 0, scored.output
        argv = ["report", str(tmp_path / "run")]
    result = CliRunner().invoke(main, argv, prog_name="tfce-eval")
    assert result.exit_code == 130, result.output
    assert result.stderr == "interrupted: stopped by Ctrl-C before the command finished\n"
    assert "Aborted" not in result.output


@pytest.mark.parametrize(
    "argv",
    [
        ["score", OUTPUTS, "--category", "paralel"],
        ["report", str(REPO), "--format", "pdf"],
        ["run", "--model", "openai/x", "--tool-choice", "sometimes"],
        ["retrieve", "--data", "builtin:qasper-rag", "--k", "many"],
    ],
)
def test_usage_errors_fold_at_80_columns(argv: list[str]) -> None:
    result = CliRunner().invoke(main, argv, prog_name="tfce-eval")
    assert result.exit_code == 2, result.output
    assert "Usage: tfce-eval" in result.stderr
    assert "Error: " in result.stderr
    assert max(len(line) for line in result.stderr.splitlines()) <= 80


def test_an_error_naming_a_path_shows_its_control_characters_as_escapes(tmp_path: Path) -> None:
    hostile = tmp_path / "out\x1b[2J\u202eput.jsonl"
    result = CliRunner().invoke(main, ["score", str(hostile)], prog_name="tfce-eval")
    assert result.exit_code == 1, result.output
    assert "\x1b" not in result.stderr and "\u202e" not in result.stderr
    assert "out\\x1b[2J\\u202eput.jsonl" in result.stderr
