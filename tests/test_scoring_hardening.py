"""Scoring under bad conditions: bugs of tfce-eval, odd outputs files, files that cannot be
written. Each failure is one line on stderr, exit 1, and the files already saved survive."""

from __future__ import annotations

import errno
import json
import math
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner, Result

import tfce_eval.scoring.score as scoring
import tfce_eval.scoring.writing as writing
from tests.gt_outputs import write_perfect_outputs
from tests.messages import unfold
from tfce_eval.cli import main
from tfce_eval.dataset.load import load_dataset
from tfce_eval.errors import DataError, HarnessError
from tfce_eval.scoring.encoding import dumps, dumps_strict
from tfce_eval.scoring.options import CheckMode, ScoreOptions
from tfce_eval.scoring.rundir import index_outputs, read_scores
from tfce_eval.scoring.score import score_outputs

REPO = Path(__file__).resolve().parents[1]
AST = ScoreOptions(check=CheckMode.AST)


def run_cli(*args: str) -> Result:
    return CliRunner().invoke(main, list(args), catch_exceptions=False)


def one_line_error(result: Result) -> str:
    assert result.exit_code == 1, result.output
    text = unfold(result.stderr)
    assert "\n" not in text, text
    assert "Traceback" not in text
    assert text.startswith("error: ")
    return text


def error_and_fix(result: Result) -> tuple[str, str]:
    """The error line and its `fix:` line (each unfolded) of a command that failed."""
    assert result.exit_code == 1, result.output
    assert "Traceback" not in result.stderr
    error, fix = unfold(result.stderr).split("\n")
    assert error.startswith("error: ") and fix.startswith("  fix: ")
    return error, fix


def snapshot(directory: Path) -> dict[str, bytes]:
    return {p.name: p.read_bytes() for p in sorted(directory.iterdir()) if p.is_file()}


@pytest.fixture
def perfect(tmp_path: Path) -> Path:
    return write_perfect_outputs(load_dataset(), tmp_path / "gt.jsonl", shape="calls")


# -- scoring is a library: it returns its result, callers write reports -------------------


def test_scoring_imports_neither_reports_nor_heavy_libraries() -> None:
    code = (
        "import sys, tfce_eval.scoring.score\n"
        "heavy = ['tfce_eval.report', 'tfce_eval.providers', 'tfce_eval.run', 'rich',\n"
        "         'jsonschema', 'openai', 'anthropic', 'numpy', 'multiprocessing.pool',\n"
        "         'tfce_eval.exec.pool', 'tfce_eval.exec.executor', 'subprocess']\n"
        "print([m for m in heavy if m in sys.modules])\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, cwd=REPO, check=True
    )
    assert done.stdout.strip() == "[]"


def test_score_outputs_writes_no_reports_and_removes_stale_ones(
    tmp_path: Path, perfect: Path
) -> None:
    out = tmp_path / "out"
    out.mkdir()
    (out / "report.md").write_text("an old report", encoding="utf-8")
    (out / "report.html").write_text("an old report", encoding="utf-8")
    result = score_outputs(perfect, load_dataset(), AST, out)
    assert sorted(p.name for p in out.iterdir()) == ["scores.jsonl", "summary.json"]
    assert result.summary["overall"]["micro"]["accuracy"] == 1.0


def test_the_score_command_writes_the_reports(tmp_path: Path, perfect: Path) -> None:
    result = run_cli("score", str(perfect), "--check", "ast", "--out", str(tmp_path / "o"))
    assert result.exit_code == 0, result.output
    names = sorted(p.name for p in (tmp_path / "o").iterdir())
    assert names == ["report.html", "report.md", "scores.jsonl", "summary.json"]
    assert "simple" in (tmp_path / "o" / "report.md").read_text(encoding="utf-8")


# -- a failure of tfce-eval is never the model's error ------------------------------------


def test_a_bug_on_one_item_stops_the_score_and_names_the_item(
    tmp_path: Path, perfect: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    assert run_cli("score", str(perfect), "--check", "ast").exit_code == 0
    before = snapshot(tmp_path)
    victim = load_dataset().ids()[3]
    real = scoring.check_item  # type: ignore[attr-defined]

    def broken(item: Any, *args: Any) -> Any:
        if item.id == victim:
            raise ZeroDivisionError("division by zero")
        return real(item, *args)

    monkeypatch.setattr(scoring, "check_item", broken)
    text = one_line_error(run_cli("score", str(perfect), "--check", "ast"))
    assert f"item {victim}:" in text
    assert "ZeroDivisionError" in text and "bug in tfce-eval" in text
    assert snapshot(tmp_path) == before  # nothing half-written, nothing lost


def test_a_harness_error_from_the_library_names_the_item(
    tmp_path: Path, perfect: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    def broken(*args: Any, **kwargs: Any) -> Any:
        raise KeyError("oops")

    monkeypatch.setattr(scoring, "decode_output", broken)
    with pytest.raises(HarnessError) as caught:
        score_outputs(perfect, load_dataset(), AST, tmp_path / "out")
    first = load_dataset().ids()[0]
    assert str(caught.value).startswith(f"item {first}: scoring it failed inside tfce-eval")
    assert not (tmp_path / "out").exists() or not any((tmp_path / "out").iterdir())


def _write_jsonl(path: Path, rows: list[dict[str, Any]]) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")


def broken_ground_truth(root: Path) -> Path:
    """A dataset whose second function raises for its ground truth's value (x=0), with an
    outputs file: s_0 right, s_1 the (broken) ground truth, s_2 undecodable, s_3 a value
    the ground truth does not allow."""
    params = {"type": "dict", "properties": {"x": {"type": "integer"}}, "required": ["x"]}
    docs = {n: {"name": n, "description": "", "parameters": params} for n in ("twice", "inv")}
    truth = {"s_0": ("twice", 3), "s_1": ("inv", 0), "s_2": ("inv", 0), "s_3": ("inv", 0)}
    _write_jsonl(
        root / "questions" / "simple.jsonl",
        [{"id": i, "question": "q", "function": [docs[n]]} for i, (n, _) in truth.items()],
    )
    _write_jsonl(
        root / "answers" / "simple.jsonl",
        [{"id": i, "ground_truth": {n: {"x": x}}} for i, (n, x) in truth.items()],
    )
    (root / "functions").mkdir()
    (root / "functions" / "__init__.py").write_text(
        "def twice(x):\n    return 2 * x\n\n\ndef inv(x):\n    return 1 / x\n",
        encoding="utf-8",
    )
    outputs = root / "outputs.jsonl"
    _write_jsonl(
        outputs,
        [
            {"id": "s_0", "calls": [{"name": "twice", "arguments": {"x": 3}}]},
            {"id": "s_1", "calls": [{"name": "inv", "arguments": {"x": 0}}]},
            {"id": "s_2", "content": "inv(x="},
            {"id": "s_3", "calls": [{"name": "inv", "arguments": {"x": 4}}]},
        ],
    )
    return outputs


@pytest.mark.parametrize("check", [CheckMode.BOTH, CheckMode.EXEC])
def test_a_ground_truth_that_raises_is_a_dataset_problem_never_the_models(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, check: CheckMode
) -> None:
    monkeypatch.setattr(scoring, "KEEP_DETAILS", 0)  # the counts survive slim records
    outputs = broken_ground_truth(tmp_path / "data")
    dataset = load_dataset(tmp_path / "data")
    result = score_outputs(outputs, dataset, ScoreOptions(check=check), tmp_path / "out")
    verdicts = {r.id: (r.valid, r.error_type, r.exec_valid) for r in result.records}
    assert verdicts == {
        "s_0": (True, None, True),
        "s_1": (True, None, None),  # the AST check passed; the exec check was not judged
        "s_2": (False, "parse_error", None),
        "s_3": (False, "value_error", None),
    }
    written = {r.id: r for r in read_scores(tmp_path / "out" / "scores.jsonl")}
    reason = (
        "the ground truth call raised (a dataset problem): expected call 1 inv(x=0) raised "
        "ZeroDivisionError: division by zero"
    )
    for item_id in ("s_1", "s_2", "s_3"):
        exec_details = written[item_id].details["exec"]
        assert (exec_details["valid"], exec_details["skipped"]) == (None, reason)
    assert written["s_1"].details["exec"]["expected"] == [
        {"call": "inv(x=0)", "error": "raised ZeroDivisionError: division by zero"}
    ]
    block = result.summary["simple"]["exec"]
    assert (block["covered"], block["correct"], block["items"]) == (1, 1, 4)
    assert (block["errors"], block["dataset_problems"]) == ({}, 3)
    assert result.summary["overall"]["exec"]["dataset_problems"] == 3
    assert result.summary["simple"]["model_errors"] == 2
    assert [w for w in result.warnings if "ground-truth" in w] == [
        "3 items were not exec-checked (s_1, s_2, s_3): a ground-truth call fails (a "
        "dataset problem, not the model's); `tfce-eval validate` lists them"
    ]


def test_a_ground_truth_whose_result_is_nan_is_a_dataset_problem(tmp_path: Path) -> None:
    """NaN equals nothing: no answer could match it, so the item is not exec-judged, and
    validate names the call (through the CLI, as a user meets it)."""
    root = tmp_path / "data"
    outputs = broken_ground_truth(root)
    (root / "functions" / "__init__.py").write_text(
        "def twice(x):\n    return [2 * x, {'half': x / 2}]\n\n\n"
        "def inv(x):\n    return [1.0, {'v': float('nan')}]\n",
        encoding="utf-8",
    )
    runner = CliRunner()
    out = tmp_path / "out"
    scored = runner.invoke(main, ["score", str(outputs), "--data", str(root), "--out", str(out)])
    assert scored.exit_code == 0, scored.output
    summary = json.loads((out / "summary.json").read_text(encoding="utf-8"))
    assert (summary["simple"]["exec"]["covered"], summary["simple"]["exec"]["correct"]) == (1, 1)
    assert summary["simple"]["exec"]["dataset_problems"] == 3
    assert summary["simple"]["exec"]["errors"] == {}
    checked = runner.invoke(main, ["validate", "--data", str(root)])
    assert checked.exit_code == 1
    assert "ground-truth call 1 inv(x=0) returned NaN, which equals nothing" in unfold(
        checked.output
    )


# -- odd outputs files -------------------------------------------------------------------


def test_duplicate_ids_are_a_warning_with_count_and_first_ids(
    tmp_path: Path, perfect: Path
) -> None:
    lines = perfect.read_text(encoding="utf-8").splitlines()
    doubled = tmp_path / "doubled.jsonl"
    doubled.write_text("\n".join([*lines, lines[1], lines[0], lines[1]]) + "\n", "utf-8")
    result = score_outputs(doubled, load_dataset(), AST, tmp_path / "out")
    first, second = json.loads(lines[0])["id"], json.loads(lines[1])["id"]
    warning = [w for w in result.warnings if "more than one line" in w]
    assert warning == [
        f"{doubled}: 2 ids are answered on more than one line; the last line of each "
        f"counts ({second}, {first})"
    ]


def request_error_line(line: str) -> str:
    """The line `run` writes for an item it could not ask, for the item of `line`."""
    record = json.loads(line)
    failed = {"raw": None, "calls": None, "error": "HTTP 503 (3 attempts)", "usage": None}
    return json.dumps({"id": record["id"], **failed, "latency_s": None})


def test_request_errors_followed_by_an_answer_are_what_a_resume_leaves_no_warning(
    tmp_path: Path, perfect: Path
) -> None:
    lines = perfect.read_text(encoding="utf-8").splitlines()
    resumed = tmp_path / "resumed.jsonl"
    # Asked, failed, asked again (failed twice for lines[1]) and answered: appended.
    errors = [request_error_line(lines[i]) for i in (0, 1, 1, 2)]
    resumed.write_text("\n".join([*errors, *lines]) + "\n", "utf-8")
    index = index_outputs(resumed)
    assert (index.duplicates, index.replaced_answers) == ((), ())
    result = score_outputs(resumed, load_dataset(), AST, tmp_path / "out")
    assert result.warnings == ()
    assert result.summary["overall"]["micro"]["accuracy"] == 1.0


def test_an_answer_replaced_by_a_later_request_error_is_a_warning(
    tmp_path: Path, perfect: Path
) -> None:
    lines = perfect.read_text(encoding="utf-8").splitlines()
    ids = [json.loads(line)["id"] for line in lines]
    odd = tmp_path / "odd.jsonl"
    tail = [
        request_error_line(lines[2]),  # answer, then a request error: the error counts
        request_error_line(lines[3]),  # answer, error, answer: two answers
        lines[3],
        request_error_line(lines[4]),  # answer, error, error: still the answer replaced
        request_error_line(lines[4]),
    ]
    odd.write_text("\n".join([*lines, *tail]) + "\n", "utf-8")
    index = index_outputs(odd)
    assert (index.duplicates, index.replaced_answers) == ((ids[3],), (ids[2], ids[4]))
    result = score_outputs(odd, load_dataset(), AST, tmp_path / "out")
    assert list(result.warnings) == [
        f"{odd}: 1 id is answered on more than one line; the last line counts ({ids[3]})",
        f"{odd}: 2 ids have a request error on a line after their answer; the last line "
        f"counts, so they are request errors ({ids[2]}, {ids[4]})",
    ]
    failed = sorted(r.id for r in result.records if r.error_type == "request_error")
    assert failed == sorted([ids[2], ids[4]])
    # The harness's failures are counted apart, never as the model's errors.
    blocks = [result.summary[c] for c in result.summary["categories"]]
    assert sum(b["request_errors"] for b in blocks) == 2
    assert sum(b["model_errors"] for b in blocks) == 0


def test_a_file_with_bare_cr_line_ends_is_not_taken_for_a_torn_line(
    tmp_path: Path, perfect: Path
) -> None:
    lines = perfect.read_text(encoding="utf-8").splitlines()
    old_mac = tmp_path / "cr.jsonl"
    old_mac.write_bytes("\r".join(lines).encode("utf-8"))  # no line end after the last
    with pytest.raises(DataError) as caught:
        index_outputs(old_mac, tolerate_torn_tail=True)
    assert caught.value.line == 1 and "carriage returns (CR)" in caught.value.message
    result = run_cli("score", str(old_mac), "--check", "ast", "--out", str(tmp_path / "o"))
    assert result.exit_code == 1
    assert f"{old_mac}, line 1" in unfold(result.stderr) and "LF" in result.stderr
    assert not (tmp_path / "o").exists()


def _strict(text: str) -> Any:
    def refuse(name: str) -> Any:
        raise AssertionError(f"{name} written into a result file")

    return json.loads(text, parse_constant=refuse)


def test_nan_and_infinity_are_never_written(tmp_path: Path) -> None:
    dataset = load_dataset()
    first, second, third = dataset.ids()[:3]
    outputs = tmp_path / "nan.jsonl"
    outputs.write_text(
        f'{{"id": "{first}", "calls": [{{"name": "f", "arguments": {{"x": NaN}}}}],'
        ' "latency_s": NaN}\n'
        f'{{"id": "{second}", "calls": [{{"name": "f", "arguments": {{"x": -Infinity}}}}],'
        ' "latency_s": Infinity}\n'
        f'{{"id": "{third}", "calls": [], "latency_s": 2.5}}\n',
        encoding="utf-8",
    )
    result = run_cli("score", str(outputs), "--check", "ast", "--out", str(tmp_path / "o"))
    assert result.exit_code == 0, result.output
    for line in (tmp_path / "o" / "scores.jsonl").open(encoding="utf-8"):
        _strict(line)
    summary = _strict((tmp_path / "o" / "summary.json").read_text(encoding="utf-8"))
    assert summary["overall"]["latency_s"]["items"] == 1  # NaN and Infinity left out
    assert summary["overall"]["latency_s"]["mean"] == 2.5


@pytest.mark.parametrize(
    ("value", "written"),
    [
        (math.nan, '"NaN"'),
        (math.inf, '"Infinity"'),
        ([1.5, {"k": -math.inf}], '[1.5,{"k":"-Infinity"}]'),
        (10**5000, '"<an integer of 5001 digits>"'),
        (-(10**400), "-1" + "0" * 400),
        ("\ud83d", '"\\ud83d"'),
        ("北京", '"北京"'),
    ],
    ids=["nan", "inf", "nested", "huge_int", "long_int", "surrogate", "chinese"],
)
def test_strict_json_maps_what_json_cannot_hold(value: Any, written: str) -> None:
    text = dumps_strict(value)
    assert text == written
    text.encode("utf-8")  # always writable


def test_deep_values_are_bounded_when_written() -> None:
    deep: Any = []
    for _ in range(5000):
        deep = [deep]
    assert "<nested deeper than 200 levels>" in dumps_strict({"details": deep})


def test_a_lone_surrogate_is_written_as_its_escape() -> None:
    line = dumps({"content": "a\ud83db"})
    assert line == '{"content":"a\\ud83db"}'
    assert json.loads(line)["content"] == "a\ud83db"


# -- where results go ----------------------------------------------------------------------


@pytest.mark.parametrize("name", ["scores.jsonl", "summary.json", "report.md"])
def test_an_input_the_score_would_overwrite_is_refused(
    tmp_path: Path, perfect: Path, name: str
) -> None:
    target = tmp_path / name
    target.write_bytes(perfect.read_bytes())
    text = one_line_error(run_cli("score", str(target), "--check", "ast"))
    assert str(target) in text and "overwritten" in text and "--out" in text
    assert target.read_bytes() == perfect.read_bytes()


def test_an_unwritable_out_is_one_line(tmp_path: Path, perfect: Path) -> None:
    blocker = tmp_path / "a-file"
    blocker.write_text("x", encoding="utf-8")
    text, fix = error_and_fix(
        run_cli("score", str(perfect), "--check", "ast", "--out", str(blocker / "out"))
    )
    assert "cannot write the result files" in text and str(blocker) in text
    assert "a part of the path is a file" in text and "disk space" not in fix


def test_a_full_disk_keeps_the_previous_score_whole(
    tmp_path: Path, perfect: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    assert run_cli("score", str(perfect), "--check", "ast").exit_code == 0
    before = snapshot(tmp_path)
    assert {"scores.jsonl", "summary.json", "report.md", "report.html"} <= set(before)
    real = writing._finish
    calls = {"n": 0}

    def full(fh: Any) -> None:
        calls["n"] += 1
        if calls["n"] == 2:  # scores.jsonl is written, summary.json is not
            raise OSError(errno.ENOSPC, "No space left on device")
        real(fh)

    monkeypatch.setattr(writing, "_finish", full)
    text, fix = error_and_fix(run_cli("score", str(perfect), "--check", "ast"))
    assert "No space left on device" in text and "free some disk space" in fix
    assert snapshot(tmp_path) == before  # no new scores beside old reports, no temp files


def test_reports_that_cannot_be_written_leave_no_stale_ones(
    tmp_path: Path, perfect: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    assert run_cli("score", str(perfect), "--check", "ast").exit_code == 0
    import tfce_eval.scoring.rundir as rundir

    def full(path: Path, text: str) -> None:
        raise DataError("cannot write the result files here (No space left on device)")

    # The reports take their writer from scoring.rundir when they are written.
    monkeypatch.setattr(rundir, "write_text_atomic", full)
    lines = perfect.read_text(encoding="utf-8").splitlines()
    perfect.write_text("\n".join(lines[1:]) + "\n", encoding="utf-8")
    one_line_error(run_cli("score", str(perfect), "--check", "ast"))
    # The new scores stand alone: the old reports, which described other scores, are gone.
    assert not (tmp_path / "report.md").exists() and not (tmp_path / "report.html").exists()
    summary = json.loads((tmp_path / "summary.json").read_text(encoding="utf-8"))
    assert summary["missing"]["count"] == 1


def test_the_run_command_writes_the_reports_beside_its_scores(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from fakeserver import FakeConfig, FakeServer

    data = Path(__file__).parent / "fixtures" / "run_small"
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test-reports")
    with FakeServer(FakeConfig(load_dataset(data))) as srv:
        result = run_cli(
            "run",
            "--model",
            "openai/fake-model",
            "--base-url",
            srv.base_url,
            "--data",
            str(data),
            "--out",
            str(tmp_path),
            "--run-name",
            "r1",
            "--check",
            "ast",
            "--retry-delay",
            "0.01",
        )
    assert result.exit_code == 0, result.output
    run_dir = tmp_path / "r1"
    names = {p.name for p in run_dir.iterdir()}
    assert {"report.md", "report.html", "scores.jsonl", "summary.json", "run.json"} <= names
    assert "fake-model" in (run_dir / "report.md").read_text(encoding="utf-8")


def test_a_wrong_answer_to_an_item_its_own_truth_fails_is_said_to_be_the_datas(
    tmp_path: Path,
) -> None:
    """The ground truth breaks its docs (a word for an integer): no answer can be right.
    The item still counts (as BFCL counts it), and the score says so."""
    root = tmp_path / "data"
    params = {"type": "dict", "properties": {"n": {"type": "integer"}}, "required": ["n"]}
    doc = {"name": "cells", "description": "", "parameters": params}
    _write_jsonl(
        root / "questions" / "simple.jsonl",
        [{"id": f"s_{n}", "question": "q", "function": [doc]} for n in range(3)],
    )
    truths: list[Any] = ["five", 5, 7]
    _write_jsonl(
        root / "answers" / "simple.jsonl",
        [{"id": f"s_{n}", "ground_truth": {"cells": {"n": t}}} for n, t in enumerate(truths)],
    )
    outputs = tmp_path / "outputs.jsonl"
    answers = [5, 6, 7]  # wrong (the truth is broken), wrong (the model's), right
    _write_jsonl(
        outputs,
        [
            {"id": f"s_{n}", "calls": [{"name": "cells", "arguments": {"n": a}}]}
            for n, a in enumerate(answers)
        ],
    )
    args = ["score", str(outputs), "--data", str(root), "--out", str(tmp_path / "o")]
    result = CliRunner().invoke(main, args)
    assert result.exit_code == 0, result.output
    assert (
        "warning: 1 item cannot be answered right under these options (s_0): the ground "
        "truth fails its own check (a dataset problem, counted against the model as BFCL "
        "counts it); `tfce-eval validate` lists what is wrong in the data"
    ) in unfold(result.stderr).splitlines()


def test_ground_truth_the_checker_accepts_is_not_said_to_fail_its_own_check(
    tmp_path: Path,
) -> None:
    """BFCL ground truth read as the checker reads it: nested alternatives, a member or
    parameter that may be left out (even one the docs lack), a word for a boolean. Only
    the item whose nested truth breaks its declared type is named."""
    root = tmp_path / "bfcl"
    budget = {"type": "dict", "properties": {"min": {"type": "integer"}}}
    params = {
        "type": "dict",
        "properties": {"budget": budget, "on": {"type": "boolean"}, "n": {"type": "integer"}},
        "required": ["budget"],
    }
    doc = {"name": "find", "description": "", "parameters": params}
    truths: list[dict[str, Any]] = [
        {"budget": [{"min": [300, 350], "max": [""]}], "n": [3]},
        {"budget": [{"min": [300]}], "extra": [1, ""]},
        {"budget": [{"min": [300]}], "on": ["true"]},
        {"budget": [{"min": ["lots"]}]},
    ]
    _write_jsonl(
        root / "questions" / "BFCL_v3_simple.json",
        [
            {
                "id": f"simple_{n}",
                "question": [[{"role": "user", "content": "q"}]],
                "function": [doc],
            }
            for n in range(len(truths))
        ],
    )
    _write_jsonl(
        root / "possible_answer" / "BFCL_v3_simple.json",
        [{"id": f"simple_{n}", "ground_truth": [{"find": t}]} for n, t in enumerate(truths)],
    )
    outputs = tmp_path / "outputs.jsonl"
    _write_jsonl(
        outputs,
        [
            {"id": f"simple_{n}", "calls": [{"name": "find", "arguments": {"budget": {"min": 1}}}]}
            for n in range(len(truths))
        ],
    )
    args = ["score", str(outputs), "--data", str(root), "--out", str(tmp_path / "o")]
    result = CliRunner().invoke(main, args)
    assert result.exit_code == 0, result.output
    assert (
        "warning: 1 item cannot be answered right under these options (simple_3): the "
        "ground truth fails its own check (a dataset problem, counted against the model as "
        "BFCL counts it); `tfce-eval validate` lists what is wrong in the data"
    ) in unfold(result.stderr).splitlines()
