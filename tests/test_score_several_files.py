"""`tfce-eval score FILE...`: BFCL's result files, one per category, scored as one set.

Through the command line, on real files: a BFCL-layout dataset (tests/fixtures/bfcl_layout)
and result files as BFCL writes them (`result/MODEL/BFCL_v3_<category>_result.json`, lines
of `{"id", "result"}`).
"""

from __future__ import annotations

import hashlib
import json
import shutil
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from tests.gt_outputs import perfect_calls
from tests.messages import unfold
from tfce_eval.cli import main
from tfce_eval.dataset.load import load_dataset

DATA = Path(__file__).parent / "fixtures" / "bfcl_layout"
WRITTEN = ("scores.jsonl", "summary.json", "report.md", "report.html")


def run_cli(*args: str | Path) -> Any:
    return CliRunner().invoke(main, [str(a) for a in args], catch_exceptions=False)


def bfcl_lines() -> dict[str, list[dict[str, Any]]]:
    """Per category, BFCL's result lines: the ground truth, but for the second simple
    item, whose first call names another function (a wrong answer)."""
    by_category: dict[str, list[dict[str, Any]]] = {}
    for item in load_dataset(DATA).iter_items():
        result = [{c["name"]: c["arguments"]} for c in perfect_calls(item)]
        if item.id == "simple_1":
            result = [{"not_a_function": {}}]
        by_category.setdefault(str(item.category), []).append({"id": item.id, "result": result})
    return by_category


def write_lines(path: Path, rows: list[dict[str, Any]], extra: str = "") -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("".join(json.dumps(r) + "\n" for r in rows) + extra, encoding="utf-8")
    return path


def result_files(directory: Path) -> list[Path]:
    """BFCL's result files in `directory`, one per category, in a fixed order."""
    return [
        write_lines(directory / f"BFCL_v3_{category}_result.json", rows)
        for category, rows in sorted(bfcl_lines().items())
    ]


def scores(directory: Path) -> list[dict[str, Any]]:
    text = (directory / "scores.jsonl").read_text(encoding="utf-8")
    return [json.loads(line) for line in text.splitlines()]


def summary(directory: Path) -> dict[str, Any]:
    loaded: dict[str, Any] = json.loads((directory / "summary.json").read_text("utf-8"))
    return loaded


def sha256(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def test_result_files_score_as_their_concatenation(tmp_path: Path) -> None:
    files = result_files(tmp_path / "result" / "m")
    joined = tmp_path / "joined" / "all.json"
    joined.parent.mkdir()
    joined.write_bytes(b"".join(f.read_bytes() for f in files))
    assert run_cli("score", *files, "--data", DATA).exit_code == 0
    assert run_cli("score", joined, "--data", DATA).exit_code == 0
    several, one = tmp_path / "result" / "m", joined.parent
    # The same verdicts, item by item, and the same figures.
    assert scores(several) == scores(one)
    assert [s["id"] for s in scores(several) if not s["valid"]] == ["simple_1"]
    assert len(scores(several)) == len(load_dataset(DATA))
    apart, together = summary(several), summary(one)
    # Each file is recorded, in the order given: its path, digest and number of lines.
    lines = {f.name: len(f.read_text("utf-8").splitlines()) for f in files}
    assert lines["BFCL_v3_simple_result.json"] == 5
    assert apart.pop("outputs") == {
        "files": [{"path": str(f), "sha256": sha256(f), "lines": lines[f.name]} for f in files]
    }
    # One file keeps the one-file fields: its path, digest and lines.
    assert together.pop("outputs") == {"path": str(joined), "sha256": sha256(joined), "lines": 10}
    assert apart == together


def test_an_id_in_two_files_counts_once_its_last_line_with_a_warning(tmp_path: Path) -> None:
    files = result_files(tmp_path)
    simple = next(f for f in files if "_simple_" in f.name)
    parallel = next(f for f in files if "_parallel_result" in f.name)
    # simple_0 again, wrong, at the end of the parallel file (its line 2).
    write_lines(parallel, [*bfcl_lines()["parallel"], {"id": "simple_0", "result": []}])
    result = run_cli("score", simple, parallel, "--data", DATA, "--check", "ast")
    assert result.exit_code == 0, result.output
    assert unfold(result.stderr).splitlines()[0] == (
        "warning: 1 id is answered on more than one line; the last line counts, "
        f"the files read in the order given (simple_0 in {simple}, line 1 and "
        f"{parallel}, line 2)"
    )
    verdicts = {s["id"]: s for s in scores(tmp_path)}
    assert verdicts["simple_0"]["valid"] is False  # the later file's line counted
    assert verdicts["parallel_0"]["valid"] is True
    # Given the other way round, the simple file's right answer is the last.
    assert run_cli("score", parallel, simple, "--data", DATA, "--check", "ast").exit_code == 0
    assert {s["id"]: s for s in scores(tmp_path)}["simple_0"]["valid"] is True


def test_a_request_error_after_an_answer_in_another_file_names_both(tmp_path: Path) -> None:
    files = result_files(tmp_path)
    simple = next(f for f in files if "_simple_" in f.name)
    retried = write_lines(tmp_path / "retried.json", [{"id": "simple_2", "error": "timed out"}])
    result = run_cli("score", *files, retried, "--data", DATA, "--check", "ast")
    assert result.exit_code == 0, result.output
    warning = unfold(result.stderr).splitlines()[0]
    assert warning.startswith("warning: 1 id has a request error on a line after its answer")
    assert warning.endswith(f"(simple_2 in {simple}, line 3 and {retried}, line 1)")
    assert {s["id"]: s for s in scores(tmp_path)}["simple_2"]["error_type"] == "request_error"


@pytest.mark.parametrize(
    ("bad", "says"),
    [
        ("not json\n", "line 2: malformed JSON"),
        ('{"result": []}\n', "line 2: the line has no id"),
        ('{"id": "simple_99", "result": []}\n', "line 2 (id simple_99): this id is not in"),
    ],
)
def test_a_bad_line_in_the_second_file_is_named_and_nothing_is_written(
    tmp_path: Path, bad: str, says: str
) -> None:
    files = result_files(tmp_path / "result")
    second = write_lines(files[1], bfcl_lines()["multiple"], extra=bad)
    result = run_cli("score", *files, "--data", DATA)
    assert result.exit_code == 1, result.output
    assert unfold(result.stderr).startswith(f"error: {second}, {says}")
    assert not any((tmp_path / "result" / name).exists() for name in WRITTEN)


def test_files_in_several_directories_need_out(tmp_path: Path) -> None:
    # BFCL v4's layout: result/MODEL/live/..., result/MODEL/non_live/...
    model = tmp_path / "result" / "m"
    files = result_files(model / "non_live")
    moved = model / "live" / files[0].name
    moved.parent.mkdir()
    files[0].rename(moved)
    files[0] = moved
    result = run_cli("score", *files, "--data", DATA)
    assert result.exit_code == 2, result.output
    assert unfold(result.stderr) == (
        f"error: the FILEs are in 2 directories ({model / 'live'}, {model / 'non_live'}): "
        "give --out DIR, the directory for the scores"
    )
    written = [p for p in tmp_path.rglob("*") if p.name in WRITTEN]
    assert written == []
    assert run_cli("score", *files, "--data", DATA, "--out", model).exit_code == 0
    assert sorted(p.name for p in model.iterdir() if p.is_file()) == sorted(WRITTEN)


def test_files_in_one_directory_are_scored_beside_them(tmp_path: Path) -> None:
    files = result_files(tmp_path / "result" / "m")
    assert run_cli("score", *files, "--data", DATA).exit_code == 0
    assert all((tmp_path / "result" / "m" / name).is_file() for name in WRITTEN)
    # Scored again with the same glob, which now picks up summary.json too.
    again = sorted((tmp_path / "result" / "m").glob("*.json"))
    result = run_cli("score", *again, "--data", DATA)
    assert result.exit_code == 2, result.output
    summary_json = tmp_path / "result" / "m" / "summary.json"
    assert unfold(result.stderr) == (
        f"error: {summary_json} is a file a score writes, not outputs: leave it out of the "
        f"FILEs (BFCL's: {tmp_path / 'result' / 'm' / '*_result.json'})"
    )


@pytest.mark.parametrize("out", [False, True])
def test_a_file_given_twice_is_refused(tmp_path: Path, out: bool) -> None:
    files = result_files(tmp_path)
    again = f"{tmp_path}/./{files[0].name}"
    given = ("--out", tmp_path / "o") if out else ()
    result = run_cli("score", files[0], files[1], again, "--data", DATA, *given)
    assert result.exit_code == 2, result.output
    assert unfold(result.stderr) == (
        f"error: {again} is given twice as FILE (also as {files[0]}): give it once"
    )
    assert not (tmp_path / "o").exists()


@pytest.mark.parametrize("link", ["symbolic", "hard"])
def test_a_file_given_twice_by_a_link_is_refused(tmp_path: Path, link: str) -> None:
    files = result_files(tmp_path)
    other = tmp_path / "other.json"
    if link == "symbolic":
        other.symlink_to(files[0])
    else:
        other.hardlink_to(files[0])
    result = run_cli("score", files[0], other, "--data", DATA, "--out", tmp_path / "o")
    assert result.exit_code == 2, result.output
    assert unfold(result.stderr) == (
        f"error: {other} is given twice as FILE (also as {files[0]}): give it once"
    )


def test_the_checks_on_the_files_hold_with_out(tmp_path: Path) -> None:
    """--out says where the scores go; it does not waive what is checked of the FILEs."""
    files = result_files(tmp_path / "m")
    assert run_cli("score", *files, "--data", DATA).exit_code == 0
    summary_json = tmp_path / "m" / "summary.json"
    result = run_cli("score", files[0], summary_json, "--data", DATA, "--out", tmp_path / "o")
    assert result.exit_code == 2, result.output
    assert unfold(result.stderr).startswith(f"error: {summary_json} is a file a score writes")
    for data in ("builtin:telco-qna", "builtin:qasper-rag"):
        result = run_cli("score", *files[:2], "--data", data, "--out", tmp_path / "o")
        assert result.exit_code == 2, result.output
        assert "one file: give one FILE, not 2" in unfold(result.stderr)
    assert not (tmp_path / "o").exists()


def test_scores_do_not_go_into_another_runs_directory(tmp_path: Path) -> None:
    """A run directory's run.json names its model: other answers scored into it would be
    reported as that model's. Its own outputs.jsonl may be scored again there."""
    files = result_files(tmp_path / "m")
    run_dir = tmp_path / "run"
    run_dir.mkdir()
    (run_dir / "run.json").write_text('{"model": "openai/other"}\n', encoding="utf-8")
    result = run_cli("score", *files, "--data", DATA, "--out", run_dir)
    assert result.exit_code == 2, result.output
    assert unfold(result.stderr) == (
        f"error: {run_dir} holds a run (run.json) whose answers are not the FILE given: "
        "its report would name that run's model; give another --out"
    )
    assert sorted(p.name for p in run_dir.iterdir()) == ["run.json"]
    own = run_dir / "outputs.jsonl"
    own.write_bytes(b"".join(f.read_bytes() for f in files))
    assert run_cli("score", own, "--data", DATA).exit_code == 0
    assert (run_dir / "summary.json").is_file()


def test_a_directory_given_as_file_suggests_its_files(tmp_path: Path) -> None:
    model = tmp_path / "result" / "m"
    result_files(model)
    result = run_cli("score", model, "--data", DATA)
    assert result.exit_code == 1, result.output
    assert unfold(result.stderr).splitlines() == [
        f"error: {model}: is a directory, not a file",
        f"  fix: give the files in it: {model / '*_result.json'} (several FILEs are read as one)",
    ]
    # BFCL v4 keeps them a level down (non_live/, live/).
    result = run_cli("score", tmp_path / "result", "--data", DATA)
    assert f"give the files in it: {tmp_path / 'result' / '*' / '*_result.json'}" in unfold(
        result.stderr
    )


@pytest.mark.parametrize(
    ("data", "says"),
    [
        ("builtin:telco-qna", "error: QA predictions are one file: give one FILE, not 2"),
        ("builtin:qasper-rag", "error: a retrieval run is one file: give one FILE, not 2"),
    ],
)
def test_several_files_are_for_function_calling_outputs_only(
    tmp_path: Path, data: str, says: str
) -> None:
    files = result_files(tmp_path)[:2]
    result = run_cli("score", *files, "--data", data)
    assert result.exit_code == 2, result.output
    assert unfold(result.stderr) == (f"{says} (several FILEs are for function-calling outputs)")


def test_report_reads_a_score_of_several_files_and_of_one(tmp_path: Path) -> None:
    several = tmp_path / "several"
    files = result_files(several)
    one = tmp_path / "one" / "all.json"
    one.parent.mkdir()
    one.write_bytes(b"".join(f.read_bytes() for f in files))
    assert run_cli("score", *files, "--data", DATA).exit_code == 0
    assert run_cli("score", one, "--data", DATA).exit_code == 0
    for directory in (several, one.parent):
        shown = run_cli("report", directory, "--format", "json")
        assert shown.exit_code == 0, shown.output
        (run,) = json.loads(shown.stdout)["runs"]
        assert (run["categories"]["simple"]["correct"], run["categories"]["simple"]["total"]) == (
            4,
            5,
        )
        failures = run_cli("report", directory, "--failures", "3", "--format", "md")
        assert "simple_1" in failures.stdout
    both = run_cli("report", several, one.parent, "--format", "json")
    assert both.exit_code == 0, both.output
    assert [r["name"] for r in json.loads(both.stdout)["runs"]] == ["several", "one"]


def test_report_shows_the_answers_as_sent_from_the_files_scored(tmp_path: Path) -> None:
    """An undecodable answer is shown as sent, read from the files summary.json names
    (not only a run directory's outputs.jsonl); none once a file has changed."""
    files = result_files(tmp_path / "result")
    rows = [json.loads(line) for line in files[-1].read_text(encoding="utf-8").splitlines()]
    rows[0]["result"] = "f(2 [broken"
    write_lines(files[-1], rows)
    out = tmp_path / "scored"
    assert run_cli("score", *files, "--data", DATA, "--out", out, "--check", "ast").exit_code == 0
    shown = run_cli("report", out, "--failures", "5", "--format", "md")
    assert shown.exit_code == 0
    assert "answer as sent" in shown.output and "f(2 [broken" in shown.output
    write_lines(files[-1], rows[:1])  # the file changes after the score
    shown = run_cli("report", out, "--failures", "5", "--format", "md")
    assert shown.exit_code == 0
    assert "answer as sent" not in shown.output and "f(2 [broken" not in shown.output


def test_an_item_without_output_is_shown_as_such(tmp_path: Path) -> None:
    files = result_files(tmp_path / "result")
    biggest = max(files, key=lambda f: len(f.read_text(encoding="utf-8").splitlines()))
    kept = biggest.read_text(encoding="utf-8").splitlines(keepends=True)[1:]
    biggest.write_text("".join(kept), encoding="utf-8")  # its first item: no output
    out = tmp_path / "scored"
    assert run_cli("score", *files, "--data", DATA, "--out", out).exit_code == 0
    shown = run_cli("report", out, "--failures", "50", "--format", "md").output
    assert "(no output for this item)" in shown
    assert "(no calls could be decoded)" not in shown


def test_relative_paths_are_recorded_absolute(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    shutil.copytree(DATA, tmp_path / "data")
    result_files(tmp_path / "result")
    monkeypatch.chdir(tmp_path)
    files = sorted(str(p.relative_to(tmp_path)) for p in (tmp_path / "result").iterdir())
    assert run_cli("score", *files, "--data", "data", "--out", "scored").exit_code == 0
    summary = json.loads((tmp_path / "scored" / "summary.json").read_text(encoding="utf-8"))
    assert summary["dataset"]["path"] == str(tmp_path / "data")
    assert [f["path"] for f in summary["outputs"]["files"]] == [str(tmp_path / f) for f in files]
