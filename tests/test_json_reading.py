"""JSON that breaks a limit, through the command line, wherever QA and retrieval read it:
an integer of more digits than Python converts is one error naming the file and the line
(exit 1), never a traceback; and a QA run's outputs cut short mid-line score as fc's do."""

from __future__ import annotations

import json
import shutil
import sys
from pathlib import Path

import pytest
from click.testing import Result

from tests.test_score_messages import run_cli, said
from tfce_eval.qa import load_telco
from tfce_eval.qa.detect import builtin_telco_dir, is_telco_dataset

BUILTIN = Path(__file__).resolve().parent.parent / "tfce_eval" / "builtin"
REPO = Path(__file__).resolve().parents[1]
QNA = ("--data", "builtin:telco-qna")
QASPER = ("--data", "builtin:qasper-rag")
DIGITS = sys.get_int_max_str_digits()
HUGE = "9" * (DIGITS + 700)
TOO_MANY = f"an integer with more than {DIGITS} digits"
WRITE_IT = "  fix: write a number that long as a string"


def spoil(path: Path, line: int) -> str:
    """Line `line` of a JSON Lines file given an integer too long to convert; that line."""
    lines = path.read_text(encoding="utf-8").splitlines()
    lines[line - 1] = with_huge(lines[line - 1])
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return lines[line - 1]


def assert_refused(result: Result, where: str) -> None:
    """Exit 1 with one error at `where` (the file, and its line) about a huge integer."""
    assert result.exit_code == 1, result.output
    (error, fix) = said(result)
    assert error.startswith(f"error: {where}: {TOO_MANY} (column "), error
    assert fix == WRITE_IT


def record(question_id: str, **extra: object) -> str:
    fields = {
        "question_id": question_id,
        "question": "Which timer guards RRC connection setup?",
        "answer_type": "open",
        "reference_answer": "T300",
        "canonical_source": "TS 38.331 (Rel-17)",
    }
    return json.dumps({**fields, **extra})


def with_huge(line: str) -> str:
    """`line` (a JSON object) with a last member whose integer is too long to convert."""
    return line[:-1] + f', "n": {HUGE}}}'


# -- QA datasets --------------------------------------------------------------------------


@pytest.fixture
def split_dir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """An empty dataset directory `qa`, named relative to the working directory."""
    monkeypatch.chdir(tmp_path)
    Path("qa").mkdir()
    return Path("qa")


def test_a_huge_integer_in_a_json_lines_split_is_an_error_naming_its_line(
    split_dir: Path,
) -> None:
    (split_dir / "set_1.jsonl").write_text(
        record("a") + "\n" + with_huge(record("b")) + "\n", encoding="utf-8"
    )
    result = run_cli("validate", "--data", split_dir)
    assert result.exit_code == 1, result.output
    column = with_huge(record("b")).index(HUGE) + 1
    assert said(result) == [
        f"error: qa/set_1.jsonl:2: {TOO_MANY} (column {column})",
        WRITE_IT,
    ]


def test_a_split_whose_first_line_holds_a_huge_integer_is_still_a_qa_dataset(
    split_dir: Path,
) -> None:
    (split_dir / "set_1.jsonl").write_text(with_huge(record("b")) + "\n", encoding="utf-8")
    assert_refused(run_cli("validate", "--data", split_dir), "qa/set_1.jsonl:1")


def test_a_huge_integer_in_a_json_split_document_names_its_line(split_dir: Path) -> None:
    text = '{"questions": [\n  ' + record("a") + ",\n  " + with_huge(record("b")) + "\n]}\n"
    (split_dir / "set_2.json").write_text(text, encoding="utf-8")
    result = run_cli("validate", "--data", split_dir)
    assert result.exit_code == 1, result.output
    column = text.splitlines()[2].index(HUGE) + 1
    assert said(result) == [f"error: qa/set_2.json:3: {TOO_MANY} (column {column})", WRITE_IT]


def test_a_telco_split_starting_with_a_huge_integer_is_told_apart(tmp_path: Path) -> None:
    # is_telco_dataset never raises: the record's keys are still there to be seen.
    (tmp_path / "set_1.jsonl").write_text(with_huge(record("b")) + "\n", encoding="utf-8")
    assert is_telco_dataset(tmp_path)


# -- QA predictions, outputs and scored runs ---------------------------------------------


def _outputs(path: Path) -> list[str]:
    """A perfect outputs file for the built-in split, one line per item; its lines."""
    dataset = load_telco(builtin_telco_dir())
    lines = [json.dumps({"id": item.id, "answer": item.reference}) for item in dataset.items]
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return lines


def test_a_huge_integer_in_predictions_is_an_error_naming_its_line(tmp_path: Path) -> None:
    preds = tmp_path / "preds.jsonl"
    _outputs(preds)
    spoil(preds, 2)
    assert_refused(run_cli("score", preds, *QNA, "--out", tmp_path / "o"), f"{preds}, line 2")
    assert not (tmp_path / "o").exists()


def _score_torn(folder: Path) -> tuple[Result, Path, int, str]:
    """Score a QA run's outputs whose last line was cut mid-write: the result, the file,
    the torn line and the id it held."""
    outputs = folder / "outputs.jsonl"
    lines = _outputs(outputs)
    outputs.write_text("\n".join(lines[:-1]) + "\n" + lines[-1][:25], encoding="utf-8")
    result = run_cli("score", outputs, *QNA)
    assert result.exit_code == 0, result.output
    return result, outputs, len(lines), json.loads(lines[-1])["id"]


def test_a_qa_run_cut_short_mid_line_scores_with_its_last_item_missing(tmp_path: Path) -> None:
    result, _, torn_line, torn_id = _score_torn(tmp_path)
    missing = f"warning: 1 item has no output and counts as a request error ({torn_id})"
    assert missing in said(result)
    summary = json.loads((tmp_path / "summary.json").read_text(encoding="utf-8"))
    assert summary["missing"] == 1 and summary["predictions"]["lines"] == torn_line


def test_a_qa_run_cut_short_mid_line_warns_as_fc_does(tmp_path: Path) -> None:
    result, outputs, torn_line, torn_id = _score_torn(tmp_path)
    assert said(result) == [
        f"warning: {outputs}: line {torn_line} is incomplete (no line end, not JSON) and "
        "was ignored: a run stopped mid-write leaves this; if the file was copied or cut, "
        "the item it held counts as missing",
        f"warning: 1 item has no output and counts as a request error ({torn_id})",
    ]


@pytest.fixture
def qa_run(tmp_path: Path) -> Path:
    """A scored QA run directory."""
    run = tmp_path / "run"
    run.mkdir()
    _outputs(run / "outputs.jsonl")
    assert run_cli("score", run / "outputs.jsonl", *QNA).exit_code == 0
    return run


def test_a_huge_integer_in_a_qa_runs_scores_names_its_line(qa_run: Path) -> None:
    scores = qa_run / "scores.jsonl"
    spoil(scores, 3)
    assert_refused(run_cli("report", qa_run), f"{scores}, line 3")


@pytest.mark.parametrize(
    ("spoilt", "error"),
    [
        ("[" * 200 + "]" * 200, "arrays and objects nest deeper than 128 levels (column 129)"),
        ('{"id": "x",', "malformed JSON: Expecting property name enclosed in double quotes"),
    ],
)
def test_a_qa_runs_scores_line_past_a_limit_or_broken_names_it(
    qa_run: Path, spoilt: str, error: str
) -> None:
    scores = qa_run / "scores.jsonl"
    lines = scores.read_text(encoding="utf-8").splitlines()
    scores.write_text("\n".join([*lines[:1], spoilt, *lines[1:]]) + "\n", encoding="utf-8")
    result = run_cli("report", qa_run)
    assert result.exit_code == 1, result.output
    assert said(result)[0].startswith(f"error: {scores}, line 2: {error}")


def test_a_run_json_with_a_huge_integer_names_no_model(qa_run: Path) -> None:
    (qa_run / "run.json").write_text(f'{{"model": "m", "n": {HUGE}}}', encoding="utf-8")
    result = run_cli("report", qa_run, "--format", "json")
    assert result.exit_code == 0, result.output
    assert said(result) == []


# -- retrieval ----------------------------------------------------------------------------


def test_a_huge_integer_in_a_retrieval_dataset_line_names_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    data = Path("qasper")
    shutil.copytree(BUILTIN / "qasper-rag", data)
    queries = data / "queries" / "test.jsonl"
    spoilt = spoil(queries, 2)
    result = run_cli("validate", "--data", data)
    assert result.exit_code == 1, result.output
    column = spoilt.index(HUGE) + 1
    assert f"error: {queries}:2: {TOO_MANY} (column {column})" in said(result)


def test_a_json_lines_run_starting_with_a_huge_integer_names_its_line(tmp_path: Path) -> None:
    run = tmp_path / "run.jsonl"
    run.write_text(
        with_huge(json.dumps({"query_id": "paper01-q1", "corpus_id": "paper01_abs"})) + "\n",
        encoding="utf-8",
    )
    assert_refused(run_cli("score", run, *QASPER, "--out", tmp_path / "o"), f"{run}, line 1")


def test_a_huge_integer_in_a_json_run_document_names_its_line(tmp_path: Path) -> None:
    run = tmp_path / "run.json"
    run.write_text('{\n  "paper01-q1": {\n    "paper01_abs": ' + HUGE + "\n  }\n}\n")
    result = run_cli("score", run, *QASPER, "--out", tmp_path / "o")
    assert result.exit_code == 1, result.output
    assert said(result) == [f"error: {run}, line 3: {TOO_MANY} (column 20)", WRITE_IT]


def test_a_huge_integer_in_a_scored_retrieval_run_names_its_line(tmp_path: Path) -> None:
    out = tmp_path / "scored"
    assert run_cli("score", "dataset", *QASPER, "--out", out).exit_code == 0
    scores = out / "scores.jsonl"
    spoil(scores, 2)
    assert_refused(run_cli("report", out), f"{scores}, line 2")


@pytest.mark.parametrize("name", ["run.json", "summary.json"])
def test_a_huge_integer_in_a_function_calling_runs_files_names_its_line(
    tmp_path: Path, name: str
) -> None:
    run = tmp_path / "fc"
    outputs = REPO / "examples" / "outputs.jsonl"
    assert run_cli("score", outputs, "--out", run).exit_code == 0
    (run / name).write_text('{"task": "fc", "n": ' + "9" * 5000 + "}\n", encoding="utf-8")
    result = run_cli("report", run)
    assert result.exit_code == 1, result.output
    assert said(result)[0].startswith(
        f"error: {run / name}, line 1: an integer with more than 4300 digits"
    )
