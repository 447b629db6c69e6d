"""Everything a person reads fits 80 columns: every command's help, and what `score` and
`report` print to a pipe (tables included), whatever the paths involved."""

from __future__ import annotations

import json
import re
import shutil
from pathlib import Path

import pytest
from click.testing import CliRunner

from tests.messages import assert_folded, unfold
from tfce_eval.cli import COMMANDS, main
from tfce_eval.tasks import builtin, builtin_names

REPO = Path(__file__).resolve().parents[1]


def printed(*args: str) -> str:
    result = CliRunner().invoke(main, list(args), catch_exceptions=False)
    assert result.exit_code == 0, result.output
    return result.output


@pytest.mark.parametrize("command", [None, *COMMANDS])
def test_help_fits_80_columns(command: str | None) -> None:
    text = printed("--help") if command is None else printed(command, "--help")
    assert text.count("\n") > 3
    assert max(len(line) for line in text.splitlines()) <= 80


def test_tables_on_a_pipe_fit_80_columns(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("COLUMNS", raising=False)
    deep = tmp_path / ("a-rather-long-folder-name-" * 4) / "runs"
    outputs = deep / "outputs.jsonl"
    deep.mkdir(parents=True)
    shutil.copy(REPO / "examples" / "outputs.jsonl", outputs)
    scored = printed("score", str(outputs), "--out", str(deep / "one"))
    assert "Accuracy by category" in scored
    assert "one: dataset builtin:tfce (sha256 " in scored  # not the install path
    printed("score", str(outputs), "--out", str(deep / "two"), "--check", "ast")
    compared = printed("report", str(deep / "one"), str(deep / "two"))
    assert "McNemar" in compared
    for text in (scored, compared):
        assert_folded(text)


def test_retrieval_tables_on_a_pipe_fit_80_columns(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("COLUMNS", raising=False)
    deep = tmp_path / ("another-long-folder-name-" * 4)
    made = printed("retrieve", "--data", "builtin:qasper-rag", "--out", str(deep / "bm25"))
    scored = printed(
        "score",
        str(deep / "bm25" / "run.trec"),
        "--data",
        "builtin:qasper-rag",
        "--out",
        str(deep / "scored"),
    )
    assert "nDCG@10" in scored
    # A table's note folds at 80 columns, not at the (narrower) table's width.
    assert "\nCoverage: 35 of 35 gold queries answered by the run.\n" in scored
    for text in (made, scored, printed("report", str(deep / "scored"))):
        assert_folded(text)


def test_built_in_folders_are_named_as_the_user_names_them() -> None:
    qasper = str(builtin("qasper-rag").path)
    fc = str(builtin("tfce").path)
    assert (
        builtin_names(f"{qasper}/qrels/test.tsv:3: bad")
        == "builtin:qasper-rag/qrels/test.tsv:3: bad"
    )
    assert builtin_names(f"dataset {qasper}: 0 errors") == "dataset builtin:qasper-rag: 0 errors"
    assert builtin_names(fc) == "builtin:tfce"
    assert builtin_names(f"{fc}/answers/simple.jsonl") == "builtin:tfce/answers/simple.jsonl"
    # Not a longer name that begins the same, nor another folder beside the fc data.
    for other in (f"{qasper}-copy/corpus.jsonl", f"{fc}/questions-old/a.jsonl", f"{fc}/tests"):
        assert builtin_names(other) == other


def test_a_warning_folds_under_itself_as_an_error_does(tmp_path: Path) -> None:
    outputs = tmp_path / ("a-long-folder-name-" * 3) / "outputs.jsonl"
    outputs.parent.mkdir()
    lines = (REPO / "examples" / "outputs.jsonl").read_text(encoding="utf-8").splitlines()
    outputs.write_text("\n".join(lines[:-1]) + "\n" + lines[-1][:20], encoding="utf-8")
    result = CliRunner().invoke(main, ["score", str(outputs), "--out", str(tmp_path / "o")])
    assert result.exit_code == 0, result.output
    warnings = [w for w in unfold(result.stderr).splitlines() if w.startswith("warning: ")]
    assert warnings[0] == (
        f"warning: {outputs}: line {len(lines)} is incomplete (no line end, not JSON) and was "
        "ignored: a run stopped mid-write leaves this; if the file was copied or cut, the "
        "item it held counts as missing"
    )


@pytest.mark.parametrize("command", [None, *COMMANDS])
def test_help_never_cuts_a_word_at_its_hyphen(command: str | None) -> None:
    """A flag such as --enable-auto-tool-choice, or tfce-eval itself, stays whole."""
    text = printed("--help") if command is None else printed(command, "--help")
    cut = [line for line in text.splitlines() if re.search(r"\w-$", line)]
    assert not cut, cut
    if command == "doctor":
        assert "--enable-auto-tool-choice" in text


def test_a_path_with_spaces_is_quoted_and_never_split(tmp_path: Path) -> None:
    where = tmp_path / "my results" / "run 3;x with a rather long name to fold"
    where.mkdir(parents=True)
    outputs = where / "outputs.jsonl"
    outputs.write_text('{"id": "simple_0", "result": [}\n', encoding="utf-8")
    result = CliRunner().invoke(main, ["score", str(outputs), "--out", str(tmp_path / "o")])
    assert result.exit_code == 1
    assert f"error: '{outputs}', line 1: " in unfold(result.output)
    assert f"'{outputs}'" in result.output  # on one line, whatever its length
    # A command to paste is quoted as the shell reads it.
    result = CliRunner().invoke(main, ["report", str(where)])
    assert result.exit_code == 1
    said = " ".join(result.output.split())
    assert f"tfce-eval score '{outputs}' --out '{where}'" in said


@pytest.mark.parametrize("columns", ["40", "60"])
def test_task_tables_on_a_narrow_terminal_keep_their_labels(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, columns: str
) -> None:
    predictions = tmp_path / "p.jsonl"
    split = REPO / "tfce_eval" / "builtin" / "telco-qna" / "set_24.json"
    first = json.loads(split.read_text(encoding="utf-8"))["questions"][0]["question_id"]
    predictions.write_text(json.dumps({"id": first, "response": "ANSWER: A"}) + "\n")
    out = tmp_path / "s"
    printed("score", str(predictions), "--data", "builtin:telco-qna", "--out", str(out))
    monkeypatch.setenv("COLUMNS", columns)
    text = printed("report", str(out))
    # Squeezed below 80, rich drew the type column and the intervals away.
    assert "95% interval" in text and "mc+tf" in text
    assert max(len(line) for line in text.splitlines()) <= 80


@pytest.mark.parametrize("columns", ["40", "60"])
def test_the_fc_table_on_a_narrow_terminal_keeps_its_category_names(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, columns: str
) -> None:
    monkeypatch.setenv("COLUMNS", columns)
    out = tmp_path / "s"
    example = REPO / "examples" / "outputs.jsonl"
    for text in (
        printed("score", str(example), "--out", str(out)),
        printed("report", str(out)),
    ):
        # Squeezed below 80, rich wrote `parallel_multiple` three letters a line.
        for name in ("simple", "multiple", "parallel", "parallel_multiple"):
            assert re.search(rf"^{name} +\d+ +\d+ +[\d.]+% ", text, re.M), (name, text)
        assert max(len(line) for line in text.splitlines()) <= 80
