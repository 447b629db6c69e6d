"""`tfce-eval report` through click: every format, two runs, files, and bad run directories."""

from __future__ import annotations

import csv
import io
import json
import os
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest
from click.testing import CliRunner
from messages import unfold
from test_report import BASIC, PAIR_A, PAIR_B, make_run

from tfce_eval.cli.report import report_command


def invoke(*args: str | Path) -> tuple[int, str, str]:
    result = CliRunner().invoke(report_command, [str(a) for a in args])
    return result.exit_code, result.stdout, result.stderr


@pytest.fixture
def run_dir(tmp_path: Path) -> Path:
    return make_run(tmp_path, "model-a", BASIC)


def test_default_is_the_terminal_table(run_dir: Path) -> None:
    code, out, _ = invoke(run_dir)
    assert code == 0
    assert "overall (micro)" in out and "64.3%" in out and "N/A" in out
    assert "\x1b[" not in out  # no colour codes when stdout is not a terminal


@pytest.mark.parametrize(
    ("fmt", "check"),
    [
        ("table", lambda out: "[49.0, 94.3]" in out),
        ("md", lambda out: "| simple | 10 | 8 | 80.0% | [49.0, 94.3] |" in out),
        ("json", lambda out: json.loads(out)["runs"][0]["categories"]["simple"]["correct"] == 8),
        (
            "csv",
            lambda out: any(
                r["category"] == "simple" and r["accuracy"] == "0.8"
                for r in csv.DictReader(io.StringIO(out))
            ),
        ),
        ("html", lambda out: out.startswith("<!DOCTYPE html>") and "80.0%" in out),
    ],
)
def test_each_format(run_dir: Path, fmt: str, check: object) -> None:
    code, out, err = invoke(run_dir, "--format", fmt)
    assert code == 0, err
    assert callable(check) and check(out)


def test_two_runs_side_by_side_with_paired_test(tmp_path: Path) -> None:
    a, b = make_run(tmp_path, "a", PAIR_A), make_run(tmp_path, "b", PAIR_B)
    code, out, err = invoke(a, b, "--format", "md")
    assert code == 0, err
    assert "a: accuracy" in out and "b: accuracy" in out
    assert "| simple | 16 | 3 | 10 | 2 | 1 | 0.0386 |" in out
    code, out, _ = invoke(a, b)
    assert code == 0 and "Paired comparison of A and B" in out and "0.0386" in out


def test_failures_and_prices(run_dir: Path) -> None:
    code, out, err = invoke(run_dir, "--failures", "1", "--price-in", "3", "--price-out", "15")
    assert code == 0, err
    # 14 items x (1000 in, 200 out): 14000 * 3 / 1e6 + 2800 * 15 / 1e6 = 0.042 + 0.042
    assert "$0.0840" in out
    assert "Failures (up to 1 per category)" in out and "simple_8" in out
    assert "simple_9" not in out


def test_output_file(run_dir: Path, tmp_path: Path) -> None:
    target = tmp_path / "out" / "report.html"
    code, out, err = invoke(run_dir, "--format", "html", "-o", target)
    assert code == 0, err
    assert out == ""
    assert target.read_text(encoding="utf-8").startswith("<!DOCTYPE html>")
    assert str(target) in err


def test_missing_run_dir_is_exit_1_with_a_message(tmp_path: Path) -> None:
    missing = tmp_path / "no-such-run"
    code, out, err = invoke(missing)
    assert code == 1
    assert out == ""
    assert "error:" in err and "run directory not found" in err and str(missing) in err


def test_a_missing_run_beside_another_tasks_run_is_named_missing(tmp_path: Path) -> None:
    """Not taken for a function-calling run, and then called a run of another task."""
    from tfce_eval.cli import main

    scored = tmp_path / "bm25"
    made = ["retrieve", "--data", "builtin:qasper-rag", "--out", str(scored)]
    assert CliRunner().invoke(main, [*made, "--cache-dir", str(tmp_path / "c")]).exit_code == 0
    run = ["score", str(scored / "run.trec"), "--data", "builtin:qasper-rag", "--out"]
    assert CliRunner().invoke(main, [*run, str(scored)]).exit_code == 0
    missing = tmp_path / "no-such-run"
    for runs in ((scored, missing), (missing, scored)):
        code, _, err = invoke(*runs)
        said = unfold(err)
        assert code == 1 and "different tasks" not in said
        assert f"error: {missing}" in said


def test_directory_without_scores_is_exit_1(tmp_path: Path) -> None:
    (tmp_path / "empty").mkdir()
    code, _, err = invoke(tmp_path / "empty")
    assert code == 1 and "no summary.json or scores.jsonl" in unfold(err)


@pytest.mark.parametrize(
    "args",
    [
        [],
        ["--format", "pdf"],
        ["--failures", "-1"],
        ["--price-in", "-2"],
        ["--price-out", "1e308"],  # no price is that: every cost would read $inf
    ],
)
def test_usage_errors_are_exit_2(run_dir: Path, args: list[str]) -> None:
    code, _, _ = invoke(*([run_dir] if args else []), *args)
    assert code == 2


# ---- where failing items' questions come from ------------------------------------------------


def failing_run(root: Path, ids: list[str], dataset: dict[str, object]) -> Path:
    """A scored run whose items all failed, with run.json recording `dataset`."""
    from tfce_eval.model import Category, ErrorCode, ScoreRecord
    from tfce_eval.scoring.rundir import RunDir, write_json, write_scores
    from tfce_eval.scoring.summary import summarize

    records = [
        ScoreRecord(
            id=i,
            category=Category.SIMPLE,
            valid=False,
            error_type=ErrorCode.VALUE_ERROR,
            error="x: expected 1, received 2",
            exec_valid=None,
            details={"calls": [{"name": "f", "arguments": {"x": 2}}]},
        )
        for i in ids
    ]
    files = RunDir(root / "run")
    write_scores(files.scores, records)
    write_json(files.summary, summarize(records))
    write_json(files.run_json, {"model": "m", "dataset": dataset})
    return files.path


def test_failures_fall_back_to_the_built_in_dataset_when_it_is_the_one_recorded(
    tmp_path: Path,
) -> None:
    # What an editable install leaves: run.json names an installed copy that is gone.
    from tfce_eval.dataset.load import load_dataset

    builtin = load_dataset()
    item = next(builtin.iter_items())
    gone = tmp_path / "site-packages" / "tfce_eval" / "data"
    run = failing_run(tmp_path, [item.id], {"path": str(gone), "sha256": builtin.sha256})
    code, out, err = invoke(run, "--failures", "1", "--format", "md")
    assert code == 0, err
    assert isinstance(item.question, str) and item.question[:40] in out
    assert "unavailable" not in out and "changed since the run" not in out


def test_data_gives_the_questions_when_the_recorded_dataset_is_gone(tmp_path: Path) -> None:
    from test_report import write_dataset

    from tfce_eval.dataset.load import load_dataset

    data = write_dataset(tmp_path / "moved")
    sha = load_dataset(data).sha256
    run = failing_run(tmp_path, ["simple_0"], {"path": str(tmp_path / "gone"), "sha256": sha})
    code, out, err = invoke(run, "--failures", "1", "--format", "md")
    assert code == 0, err
    assert "Questions: unavailable, could not load" in out
    assert "--data DIR" in out  # says how to give it, and `report` has the option
    code, out, err = invoke(run, "--failures", "1", "--format", "md", "--data", data)
    assert code == 0, err
    assert "问题0" in out
    assert "unavailable" not in out and "changed since the run" not in out


def test_data_that_differs_from_the_recorded_one_is_used_with_a_note(tmp_path: Path) -> None:
    from test_report import write_dataset

    data = write_dataset(tmp_path / "other")
    run = failing_run(tmp_path, ["simple_0"], {"path": str(data), "sha256": "0" * 64})
    code, out, err = invoke(run, "--failures", "1", "--data", data)
    assert code == 0, err
    assert "问题0" in out and "changed since the run" in out


def test_data_that_cannot_be_loaded_is_exit_1(tmp_path: Path) -> None:
    run = failing_run(tmp_path, ["simple_0"], {"path": "x", "sha256": "0" * 64})
    code, out, err = invoke(run, "--failures", "1", "--data", tmp_path / "nowhere")
    assert code == 1 and out == ""
    assert "error:" in err and str(tmp_path / "nowhere") in err


def test_a_mistyped_verdict_is_exit_1_naming_file_line_and_field(tmp_path: Path) -> None:
    run_dir = make_run(tmp_path, "typed", BASIC)
    path = run_dir / "scores.jsonl"
    records = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]
    records[0]["valid"] = "false"  # a string: true to Python
    path.write_text("".join(json.dumps(r) + "\n" for r in records), encoding="utf-8")
    code, out, err = invoke(run_dir)
    assert code == 1 and out == ""
    assert unfold(err).splitlines()[0] == (
        f'error: {path}, line 1: field valid is "false" (a string), not true or false'
    )


def test_prices_on_a_run_without_token_counts_say_why_nothing_is_priced(tmp_path: Path) -> None:
    run_dir = make_run(tmp_path, "no-usage", BASIC, tokens=None)
    for fmt in ("table", "md", "html"):
        code, out, err = invoke(run_dir, "--price-in", "3", "--price-out", "15", "--format", fmt)
        assert code == 0, err
        text = " ".join(out.split())
        assert "Nothing to price for no-usage: no token counts were recorded" in text, fmt
    code, out, _ = invoke(run_dir)
    assert code == 0 and "Nothing to price" not in out  # no prices, nothing to explain
    # Neither tokens nor latencies: no usage table, but still the reason.
    summary = json.loads((run_dir / "summary.json").read_text(encoding="utf-8"))
    summary["overall"]["latency_s"] = None
    (run_dir / "summary.json").write_text(json.dumps(summary), encoding="utf-8")
    code, out, _ = invoke(run_dir, "--price-in", "3")
    assert code == 0 and "latency" not in out
    assert "Nothing to price for no-usage" in " ".join(out.split())


def test_the_examples_readme_command_writes_into_results_not_the_checkout(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import shlex
    import shutil

    from tfce_eval.cli import main

    repo = Path(__file__).resolve().parents[1]
    readme = (repo / "examples" / "README.md").read_text(encoding="utf-8")
    command = next(
        line for line in readme.splitlines() if line.startswith("tfce-eval score examples/")
    )
    for name in ("examples", "questions", "answers", "functions"):
        shutil.copytree(repo / name, tmp_path / name, ignore=shutil.ignore_patterns("__pycache__"))
    before = sorted(p.name for p in (tmp_path / "examples").iterdir())
    monkeypatch.chdir(tmp_path)
    result = CliRunner().invoke(main, shlex.split(command)[1:])
    assert result.exit_code == 0, result.output
    assert sorted(p.name for p in (tmp_path / "examples").iterdir()) == before
    out = tmp_path / "results" / "example"
    for name in ("scores.jsonl", "summary.json", "report.md", "report.html"):
        assert (out / name).is_file()
    assert "results/" in (repo / ".gitignore").read_text(encoding="utf-8")


@pytest.mark.parametrize(
    ("make", "said"),
    [
        (lambda p: p.write_text("[]\n", encoding="utf-8"), "not a summary"),
        (lambda p: p.mkdir(), "not a file"),
        (lambda p: os.mkfifo(p), "not a file"),  # never opened: no writer would come
    ],
)
def test_a_summary_that_is_none_is_named_not_the_scores(
    run_dir: Path, make: Callable[[Path], object], said: str
) -> None:
    summary = run_dir / "summary.json"
    summary.unlink()
    make(summary)
    done = subprocess.run(
        [sys.executable, "-m", "tfce_eval", "report", str(run_dir)],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 1
    assert unfold(done.stderr).startswith(f"error: {summary}: {said}")


def test_a_scores_file_that_is_a_named_pipe_does_not_hang(run_dir: Path) -> None:
    scores = run_dir / "scores.jsonl"
    scores.unlink()
    os.mkfifo(scores)
    done = subprocess.run(
        [sys.executable, "-m", "tfce_eval", "report", str(run_dir)],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert "Traceback" not in done.stderr and done.returncode in (0, 1)


def test_a_qa_or_retrieval_directory_without_its_summary_is_told_apart(
    tmp_path: Path,
) -> None:
    from tfce_eval.cli import main

    split = Path(__file__).resolve().parents[1] / "tfce_eval/builtin/telco-qna/set_24.json"
    first = json.loads(split.read_text(encoding="utf-8"))["questions"][0]["question_id"]
    predictions = tmp_path / "p.jsonl"
    predictions.write_text(json.dumps({"id": first, "response": "ANSWER: A"}) + "\n")
    scored = tmp_path / "qa"
    args = ["score", str(predictions), "--data", "builtin:telco-qna", "--out", str(scored)]
    assert CliRunner().invoke(main, args).exit_code == 0
    (scored / "summary.json").unlink()
    # Read as a function-calling run, its records were "not a score record: 'category'".
    result = CliRunner().invoke(main, ["report", str(scored)])
    assert result.exit_code == 0, result.output
    assert result.output.startswith("QA report: qa")


def test_failures_list_only_categories_with_failures(tmp_path: Path) -> None:
    from gt_outputs import write_perfect_outputs

    from tfce_eval.cli import main
    from tfce_eval.dataset.load import load_dataset

    gt = write_perfect_outputs(load_dataset(), tmp_path / "gt.jsonl", shape="calls")
    right = [x for x in gt.read_text(encoding="utf-8").splitlines() if "base_parallel_0" in x]
    wrong = json.dumps({"id": "base_simple_0", "content": "I cannot help."})
    for name, lines in (("mixed", [*right, wrong]), ("right", right)):
        outputs = tmp_path / f"{name}.jsonl"
        outputs.write_text("\n".join(lines) + "\n", encoding="utf-8")
        args = ["score", str(outputs), "--missing", "skip", "--out", str(tmp_path / name)]
        assert CliRunner().invoke(main, args).exit_code == 0
    code, out, err = invoke(tmp_path / "mixed", "--failures", "3")
    assert code == 0, err
    failures = out.partition("Failures (up to 3 per category)\n")[2]
    assert failures.startswith("simple: 1 of 1 failing item\n"), failures
    assert "parallel:" not in failures  # its one item is right: nothing to list
    for fmt in ("table", "md"):
        code, out, err = invoke(tmp_path / "right", "--failures", "3", "--format", fmt)
        assert code == 0, err
        assert out.rstrip().endswith(("No item failed.", "_No item failed._")), out


@pytest.mark.parametrize("task", ["fc", "qa", "retrieval"])
def test_a_file_given_as_a_run_directory_is_called_what_it_is(tmp_path: Path, task: str) -> None:
    """A file is no missing directory: the message says what is there."""
    from tfce_eval.errors import DataError
    from tfce_eval.qa import load_qa_run
    from tfce_eval.report import load_run
    from tfce_eval.retrieval import load_scored_run

    a_file = tmp_path / "notes.txt"
    a_file.write_text("x\n", encoding="utf-8")
    loader = {"fc": load_run, "qa": load_qa_run, "retrieval": load_scored_run}[task]
    with pytest.raises(DataError) as info:
        loader(a_file)
    assert info.value.message == "not a directory" and info.value.path == str(a_file)
    code, _, err = invoke(a_file)
    assert code == 1 and unfold(err).startswith(f"error: {a_file}: not a directory")
