"""What `tfce-eval score` says about odd input, through the command line: a torn last
line, a directory that cannot be written, a run directory given for a file, another
task's file, and counts in words. Every message fits 80 columns once folded."""

from __future__ import annotations

import errno
import json
import os
import sys
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner, Result

import tfce_eval.scoring.writing as writing
from tests.gt_outputs import write_perfect_outputs
from tests.messages import assert_folded, unfold
from tests.ports import dead_url
from tfce_eval.cli import main
from tfce_eval.dataset.load import load_dataset
from tfce_eval.qa.predictions import read_predictions

REPO = Path(__file__).resolve().parents[1]
EXAMPLE = REPO / "examples" / "outputs.jsonl"
QNA = ("--data", "builtin:telco-qna")
QASPER = ("--data", "builtin:qasper-rag")


def run_cli(*args: str | Path) -> Result:
    return CliRunner().invoke(main, [str(a) for a in args], catch_exceptions=False)


def said(result: Result) -> list[str]:
    """Each warning, error and fix on stderr on one line, its folds joined."""
    assert_folded(result.stderr)
    assert "Traceback" not in result.stderr
    out: list[str] = []
    for line in result.stderr.splitlines():
        if line.startswith(("warning: ", "error: ", "  fix: ")):
            out.append(line)
        else:
            out[-1] += " " + line.strip()
    return out


def error_and_fix(result: Result) -> tuple[str, str]:
    assert result.exit_code == 1, result.output
    error, fix = said(result)
    assert error.startswith("error: ") and fix.startswith("  fix: ")
    return error, fix


@pytest.fixture
def perfect(tmp_path: Path) -> Path:
    return write_perfect_outputs(load_dataset(), tmp_path / "gt.jsonl", shape="calls")


@pytest.fixture
def telco_id() -> str:
    split = REPO / "tfce_eval" / "builtin" / "telco-qna" / "set_24.json"
    return str(json.loads(split.read_text(encoding="utf-8"))["questions"][0]["question_id"])


# -- 1. a torn last line -----------------------------------------------------------------


def test_a_torn_last_line_is_a_warning_naming_the_line_and_the_missing_item(
    tmp_path: Path, perfect: Path
) -> None:
    lines = perfect.read_text(encoding="utf-8").splitlines()
    torn_id = json.loads(lines[-1])["id"]
    perfect.write_text("\n".join(lines[:-1]) + "\n" + lines[-1][:25], encoding="utf-8")
    result = run_cli("score", perfect, "--check", "ast", "--out", tmp_path / "o")
    assert result.exit_code == 0, result.output
    assert said(result) == [
        f"warning: {perfect}: line {len(lines)} is incomplete (no line end, not JSON) and "
        "was ignored: a run stopped mid-write leaves this; if the file was copied or cut, "
        "the item it held counts as missing",
        f"warning: 1 item has no output and counts as wrong (no_call): {torn_id}; "
        "--missing skip leaves it out",
    ]


def test_a_bad_last_line_with_its_line_end_is_an_error_naming_file_and_line(
    tmp_path: Path, perfect: Path
) -> None:
    lines = perfect.read_text(encoding="utf-8").splitlines()
    # Cut inside the id's string: json calls it "Invalid control character at".
    cut = lines[-1][: lines[-1].index('"id": "') + 9]
    perfect.write_text("\n".join(lines[:-1]) + "\n" + cut + "\n", encoding="utf-8")
    error, fix = error_and_fix(run_cli("score", perfect, "--out", tmp_path / "o"))
    assert error == (
        f"error: {perfect}, line {len(lines)}: malformed JSON: Invalid control character "
        f"(column {len(cut) + 1})"
    )
    assert fix == "  fix: write one complete JSON object per line"
    assert not (tmp_path / "o").exists()


# -- 2. a directory that cannot be written -----------------------------------------------


@pytest.mark.parametrize(
    ("code", "cause", "fix"),
    [
        (errno.ENOSPC, "", "free some disk space, or give a directory on another disk"),
        (errno.EDQUOT, "", "free some disk space, or give a directory on another disk"),
        (errno.EACCES, ": no permission to write here", "give a directory you can write to"),
        (errno.EPERM, ": no permission to write here", "give a directory you can write to"),
        (errno.EROFS, "", "give a directory on a file system you can write to"),
        (
            errno.ENOTDIR,
            ": a part of the path is a file, or no directory can be made there",
            "give a directory that exists, or one inside a directory you can write to",
        ),
        (errno.EIO, "", "check the directory, or give another one you can write to"),
    ],
)
def test_a_write_error_gives_the_fix_that_suits_its_cause(
    tmp_path: Path,
    perfect: Path,
    telco_id: str,
    monkeypatch: pytest.MonkeyPatch,
    code: int,
    cause: str,
    fix: str,
) -> None:
    def refused(path: Path) -> Any:
        raise OSError(code, os.strerror(code))

    monkeypatch.setattr(writing, "_new_file", refused)
    out = tmp_path / "o"
    expected = (
        f"error: {out}: cannot write the result files here ({os.strerror(code)}){cause}",
        f"  fix: {fix}",
    )
    assert error_and_fix(run_cli("score", perfect, "--out", out)) == expected
    if code == errno.ENOSPC:  # QA and retrieval scores write through the same code
        qa = tmp_path / "qa.jsonl"
        qa.write_text(json.dumps({"id": telco_id, "answer": "B"}) + "\n", encoding="utf-8")
        assert error_and_fix(run_cli("score", qa, *QNA, "--out", out)) == expected
        assert error_and_fix(run_cli("score", "dataset", *QASPER, "--out", out)) == expected


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="/proc is Linux's")
def test_an_out_where_no_directory_can_be_made_is_not_called_a_full_disk(perfect: Path) -> None:
    error, fix = error_and_fix(run_cli("score", perfect, "--out", "/proc/tfce-eval-out"))
    assert error.startswith("error: /proc/tfce-eval-out: cannot write the result files here")
    assert "disk space" not in fix


def test_an_out_inside_a_file_says_so(tmp_path: Path, perfect: Path) -> None:
    out = perfect / "o"
    assert error_and_fix(run_cli("score", perfect, "--out", out)) == (
        f"error: {out}: cannot write the result files here (Not a directory): a part of "
        "the path is a file, or no directory can be made there",
        "  fix: give a directory that exists, or one inside a directory you can write to",
    )


# -- 3. a run directory given for a file --------------------------------------------------


@pytest.mark.parametrize(
    ("name", "data"),
    [("outputs.jsonl", ()), ("outputs.jsonl", QNA), ("run.trec", QASPER)],
)
def test_a_run_directory_names_the_file_to_give(
    tmp_path: Path, name: str, data: tuple[str, ...]
) -> None:
    run = tmp_path / "results" / "some-run"
    run.mkdir(parents=True)
    (run / name).write_text("", encoding="utf-8")
    assert error_and_fix(run_cli("score", run, *data)) == (
        f"error: {run}: is a directory, not a file",
        f"  fix: give {run / name}, the file of the run in this directory",
    )


def test_a_directory_without_a_run_file_asks_for_a_file(tmp_path: Path) -> None:
    (tmp_path / "run.trec").write_text("", encoding="utf-8")  # a retrieval run: not fc's
    assert error_and_fix(run_cli("score", tmp_path)) == (
        f"error: {tmp_path}: is a directory, not a file",
        "  fix: give the file of outputs, predictions or the run to score",
    )


# -- 4. another task's file ----------------------------------------------------------------

FC_OUTPUTS = "function-calling outputs (JSON Lines of items with an id and calls)"
QA_PREDICTIONS = "QA predictions (JSON Lines of items with an id and a response or answer)"
RUN_FORMS = "a run of its queries (TREC `qid Q0 docid rank score tag`, JSON Lines or JSON)"
PREDICTION_FORM = 'predictions for its questions (JSON Lines with "id" and "response" or "answer")'
OR_DATA = "or give --data the dataset this file was made for"


@pytest.mark.parametrize(
    ("content", "data", "error", "fix"),
    [
        (
            None,  # examples/outputs.jsonl
            QASPER,
            f"{FC_OUTPUTS}, not a retrieval run: builtin:qasper-rag is a retrieval dataset",
            f"score {RUN_FORMS}, {OR_DATA}",
        ),
        (
            None,
            QNA,
            f"{FC_OUTPUTS}, not QA predictions: builtin:telco-qna is a question-answering dataset",
            f"score {PREDICTION_FORM}, {OR_DATA}",
        ),
        (
            '\n{"id": "q1", "response": "ANSWER: B"}\n',
            (),
            f"{QA_PREDICTIONS}, not function-calling outputs",
            "name its question-answering dataset: --data DIR or --data builtin:NAME",
        ),
        (
            '{"question_id": "q1", "answer": "B"}\n',
            ("--data", "builtin:conditionalqa"),  # QASPER-RAG has answers: read as QA
            f"{QA_PREDICTIONS}, not a retrieval run: builtin:conditionalqa is a retrieval dataset",
            f"score {RUN_FORMS}, {OR_DATA}",
        ),
        (
            "q1 Q0 d1 1 2.5 bm25\n",
            QNA,
            "a TREC run, not QA predictions: builtin:telco-qna is a question-answering dataset",
            f"score {PREDICTION_FORM}, {OR_DATA}",
        ),
        (
            '{"query_id": "q1", "corpus_id": "d1", "rank": 1, "retrieval_score": 2.5}\n',
            (),
            "a retrieval run (JSON Lines), not function-calling outputs",
            "name its retrieval dataset: --data DIR or --data builtin:NAME",
        ),
    ],
)
def test_another_tasks_file_is_named_with_what_the_dataset_wants(
    tmp_path: Path, content: str | None, data: tuple[str, ...], error: str, fix: str
) -> None:
    file = EXAMPLE
    if content is not None:
        file = tmp_path / "file.jsonl"
        file.write_text(content, encoding="utf-8")
    line = 2 if content and content.startswith("\n") else 1
    result = run_cli("score", file, *data, "--out", tmp_path / "o")
    assert error_and_fix(result) == (f"error: {file}, line {line}: {error}", f"  fix: {fix}")
    assert not (tmp_path / "o").exists()


def test_a_files_own_task_is_not_refused(tmp_path: Path, telco_id: str) -> None:
    # A QA run's outputs.jsonl holds "raw" (as fc outputs do) beside its response.
    outputs = tmp_path / "outputs.jsonl"
    line = {"id": telco_id, "raw": {}, "response": "ANSWER: B", "answer": None, "error": None}
    outputs.write_text(json.dumps(line) + "\n", encoding="utf-8")
    result = run_cli("score", outputs, *QNA, "--out", tmp_path / "o")
    assert result.exit_code == 0, result.output


# -- 5. counts in words ---------------------------------------------------------------------


def test_one_id_on_two_lines_is_counted_in_the_singular(tmp_path: Path, perfect: Path) -> None:
    lines = perfect.read_text(encoding="utf-8").splitlines()
    again = json.loads(lines[0])["id"]
    perfect.write_text("\n".join([*lines, lines[0]]) + "\n", encoding="utf-8")
    result = run_cli("score", perfect, "--check", "ast", "--out", tmp_path / "o")
    assert result.exit_code == 0, result.output
    assert said(result) == [
        f"warning: {perfect}: 1 id is answered on more than one line; the last line counts "
        f"({again})"
    ]


def test_one_missing_item_left_out_is_counted_in_the_singular(
    tmp_path: Path, perfect: Path
) -> None:
    lines = perfect.read_text(encoding="utf-8").splitlines()
    gone = json.loads(lines[0])["id"]
    perfect.write_text("\n".join(lines[1:]) + "\n", encoding="utf-8")
    result = run_cli("score", perfect, "--check", "ast", "--missing", "skip")
    assert result.exit_code == 0, result.output
    assert said(result) == [
        f"warning: 1 item has no output and was left out by --missing skip: {gone}"
    ]


def test_a_run_line_of_one_column_is_counted_in_the_singular(tmp_path: Path) -> None:
    run = tmp_path / "run.trec"
    run.write_text("q1 Q0 d1 1 2.5 bm25\nq1\n", encoding="utf-8")
    error, _ = error_and_fix(run_cli("score", run, *QASPER, "--out", tmp_path / "o"))
    assert error == (f"error: {run}, line 2: 1 column, expected 6: qid Q0 docid rank score tag")


def test_one_repeated_prediction_is_counted_in_the_singular(tmp_path: Path, telco_id: str) -> None:
    # read_predictions is the library's reader (the command reads through qa.scoring).
    predictions = tmp_path / "p.jsonl"
    line = json.dumps({"id": telco_id, "answer": "B"})
    predictions.write_text(f"{line}\n{line}\n", encoding="utf-8")
    read = read_predictions(predictions, {telco_id})
    assert read.warnings == (
        f"1 prediction repeats an id given earlier ({telco_id}); the later line counts",
    )


def test_every_writer_words_an_out_inside_a_file_the_same(
    tmp_path: Path, perfect: Path, telco_id: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """QA and retrieval scores, retrieve and run: one clear error, never a traceback."""
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test")
    out = perfect / "o"
    fix = "  fix: give a directory that exists, or one inside a directory you can write to"
    qa = tmp_path / "qa.jsonl"
    qa.write_text(json.dumps({"id": telco_id, "answer": "B"}) + "\n", encoding="utf-8")
    for args in (
        ("score", qa, *QNA, "--out", out),
        ("score", "dataset", *QASPER, "--out", out),
        ("retrieve", *QASPER, "--out", out, "--cache-dir", tmp_path / "cache"),
    ):
        result = run_cli(*args)
        assert result.exit_code == 1, result.output
        # retrieve's progress lines come first; the message is what follows them.
        message = unfold(result.stderr[result.stderr.index("error: ") :])
        error, shown_fix = message.splitlines()
        assert error.startswith(f"error: {out}: cannot write the result files here")
        assert shown_fix == fix
    ran = run_cli("run", "--model", "openai/m", "--base-url", dead_url(), "--out", out)
    error, shown_fix = error_and_fix(ran)
    assert error.startswith(f"error: cannot use {out}/openai-m-fc as the run directory")
    assert shown_fix == fix


def test_a_cache_that_cannot_be_written_costs_time_not_the_run(
    tmp_path: Path, perfect: Path
) -> None:
    result = run_cli(
        "retrieve", *QASPER, "--out", tmp_path / "bm25", "--cache-dir", perfect / "cache"
    )
    assert result.exit_code == 0, result.output
    assert (tmp_path / "bm25" / "run.trec").stat().st_size > 0


@pytest.mark.parametrize(
    ("args", "said"),
    [
        (("--measures", "nDCG@10"), "--measures is for retrieval datasets; builtin:tfce "),
        (
            ("--split", "test"),
            "--split is for retrieval and question-answering datasets; builtin:tfce "
            "(the default --data) is a function-calling dataset",
        ),
        (("--qrels", str(REPO / "README.md")), "--qrels is for retrieval datasets"),
        (("--judge", "openai/j"), "--judge is for question-answering datasets"),
    ],
)
def test_options_of_another_task_are_refused_not_ignored(
    perfect: Path, args: tuple[str, ...], said: str
) -> None:
    result = run_cli("score", perfect, *args)
    assert result.exit_code == 2, result.output
    assert said in unfold(result.stderr)


@pytest.mark.parametrize(
    ("args", "said"),
    [
        (
            ("--context", "gold"),
            "error: --context is for question-answering datasets; builtin:tfce (the "
            "default --data) is a function-calling dataset",
        ),
        (
            ("--split", "test", "--judge", "openai/j"),
            "error: --split is for retrieval and question-answering datasets; --judge is for "
            "question-answering datasets; builtin:tfce (the default --data) is a "
            "function-calling dataset",
        ),
        (
            (*QNA, "--category", "simple"),
            "error: --category is for function-calling datasets; --data is a "
            "question-answering dataset",
        ),
        (
            (*QNA, "--functions", str(REPO)),
            "error: --functions is for function-calling datasets; --data is a "
            "question-answering dataset",
        ),
        (
            (*QNA, "--check", "both", "--coerce-strings"),
            "error: --check and --coerce-strings are for function-calling datasets; --data "
            "is a question-answering dataset",
        ),
    ],
)
def test_run_refuses_options_of_another_task_as_score_does(
    tmp_path: Path, args: tuple[str, ...], said: str
) -> None:
    """Before anything is asked or written: the server named does not exist."""
    result = run_cli(
        "run",
        "--model",
        "openai/m",
        "--base-url",
        dead_url(),
        "--out",
        tmp_path,
        *args,
    )
    assert result.exit_code == 2, result.output
    assert unfold(result.stderr) == said
    assert not any(tmp_path.iterdir())


def test_category_is_refused_for_a_retrieval_dataset(tmp_path: Path) -> None:
    result = run_cli("score", "dataset", *QASPER, "--category", "simple", "--out", tmp_path)
    assert result.exit_code == 2, result.output
    assert unfold(result.stderr) == (
        "error: --category is for function-calling datasets; --data is a retrieval dataset"
    )


@pytest.mark.parametrize(
    ("args", "said"),
    [
        (("--check", "ast"), "--check is for function-calling datasets"),
        (("--exec-timeout", "3"), "--exec-timeout is for function-calling datasets"),
        (("--optional-params", "any"), "--optional-params is for function-calling datasets"),
    ],
)
def test_fc_options_given_to_a_qa_score_are_refused_defaults_are_not(
    tmp_path: Path, args: tuple[str, ...], said: str
) -> None:
    preds = tmp_path / "preds.jsonl"
    preds.write_text('{"id": "x", "answer": "A"}\n', encoding="utf-8")
    result = run_cli("score", preds, *QNA, *args, "--out", tmp_path / "o")
    assert result.exit_code == 2, result.output
    assert said in unfold(result.stderr)
    assert not (tmp_path / "o").exists()


def test_a_run_refused_leaves_no_directory_it_made(tmp_path: Path) -> None:
    out = tmp_path / "new" / "results"
    result = run_cli(
        "run",
        "--model",
        "openai/m",
        "--base-url",
        dead_url(),
        "--ids",
        "nope",
        "--out",
        out,
    )
    assert result.exit_code == 2, result.output
    assert not (tmp_path / "new").exists()


def test_a_typed_builtin_tfce_is_named_as_given_not_as_the_default(perfect: Path) -> None:
    result = run_cli("score", perfect, "--data", "builtin:tfce", "--split", "test")
    assert result.exit_code == 2, result.output
    assert unfold(result.stderr) == (
        "error: --split is for retrieval and question-answering datasets; --data is a "
        "function-calling dataset"
    )


def test_every_option_of_another_task_is_named_at_once(tmp_path: Path) -> None:
    preds = tmp_path / "preds.jsonl"
    preds.write_text('{"id": "x", "answer": "A"}\n', encoding="utf-8")
    args = ("--check", "ast", "--coerce-strings", "--corpus", "y", "--measures", "x")
    result = run_cli("score", preds, *QNA, *args)
    assert result.exit_code == 2, result.output
    assert unfold(result.stderr) == (
        "error: --check and --coerce-strings are for function-calling datasets; --corpus "
        "and --measures are for retrieval datasets; --data is a question-answering dataset"
    )
