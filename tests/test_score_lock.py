"""A score holds its directory while it writes: no second score and no run writes there
meanwhile, and a score waits for no one: it says who holds the directory and stops,
before it writes anything."""

from __future__ import annotations

import json
import os
import shutil
import socket
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from tfce_eval.cli import main
from tfce_eval.errors import DataError, RunError
from tfce_eval.scoring.lock import LOCK_NAME, RunLock

OUTPUTS = Path(__file__).resolve().parent.parent / "examples" / "outputs.jsonl"
HOLDER = f"(process {os.getpid()} on {socket.gethostname()}, started "


def score(*args: str) -> tuple[int, str]:
    result = CliRunner().invoke(main, ["score", *args, "--check", "ast"])
    return result.exit_code, " ".join(result.output.split())


def test_a_score_into_a_directory_a_run_holds_stops_before_writing(tmp_path: Path) -> None:
    out = tmp_path / "busy"
    with RunLock(out):  # a run working there
        code, said = score(str(OUTPUTS), "--out", str(out))
        assert code == 1, said
        assert f"is in use by another run {HOLDER}" in said
        assert "fix: wait for it to end, or give another --out" in said
        assert sorted(p.name for p in out.iterdir()) == [LOCK_NAME]
    assert not out.exists()  # the run made it and left it empty
    code, said = score(str(OUTPUTS), "--out", str(out))
    assert code == 0, said
    assert not (out / LOCK_NAME).exists() and (out / "report.html").is_file()


def test_a_score_of_a_live_runs_outputs_leaves_its_files_alone(tmp_path: Path) -> None:
    run = tmp_path / "run"
    run.mkdir()
    shutil.copy(OUTPUTS, run / "outputs.jsonl")
    (run / "run.json").write_text(json.dumps({"status": "running"}), encoding="utf-8")
    (run / "summary.json").write_text('{"the": "run\'s own"}', encoding="utf-8")
    with RunLock(run):
        code, said = score(str(run / "outputs.jsonl"))
    assert code == 1 and f"in use by another run {HOLDER}" in said
    assert (run / "summary.json").read_text(encoding="utf-8") == '{"the": "run\'s own"}'
    assert not (run / "scores.jsonl").exists()
    # Scored elsewhere while the run goes on: nothing of the run's is touched.
    with RunLock(run):
        code, said = score(str(run / "outputs.jsonl"), "--out", str(tmp_path / "peek"))
    assert code == 0, said
    assert json.loads((tmp_path / "peek" / "summary.json").read_text(encoding="utf-8"))


def test_a_run_into_a_directory_a_score_holds_names_the_score(tmp_path: Path) -> None:
    out = tmp_path / "scoring"
    with RunLock(out, "score"):
        with pytest.raises(RunError) as caught:
            RunLock(out).acquire()
        text = str(caught.value)
        assert f"is in use by another score {HOLDER}" in text
        assert "fix: wait for it to end or stop it, or choose another --run-name" in text
        with pytest.raises(RunError, match="in use by another score"):
            RunLock(out, "score").acquire()


def test_an_out_that_cannot_be_made_reads_as_any_write_failure(tmp_path: Path) -> None:
    blocker = tmp_path / "file"
    blocker.write_text("", encoding="utf-8")
    with pytest.raises(DataError, match="cannot write the result files here"):
        RunLock(blocker / "out", "score").acquire()
    code, said = score(str(OUTPUTS), "--out", str(blocker / "out"))
    assert code == 1 and "cannot write the result files here" in said
    with pytest.raises(RunError, match=r"cannot use .* as the run directory"):
        RunLock(blocker / "out").acquire()


def test_a_run_does_not_replace_the_scores_of_another_file(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from tests.fakeserver import FakeConfig, FakeServer
    from tfce_eval.dataset.load import load_dataset

    monkeypatch.setenv("OPENAI_API_KEY", "sk-test")
    code, said = score(str(OUTPUTS), "--out", str(tmp_path / "x"))
    assert code == 0, said
    before = (tmp_path / "x" / "summary.json").read_bytes()
    with FakeServer(FakeConfig(load_dataset(None))) as server:
        args = ["run", "--model", "vllm/m", "--base-url", server.base_url, "--check", "ast"]
        args += ["--out", str(tmp_path), "--run-name", "x", "--category", "simple"]
        refused = CliRunner().invoke(main, args)
        text = " ".join(refused.output.split())
        assert refused.exit_code == 2, text
        assert "holds the scores of another file (summary.json), not a run" in text
        assert "fix: use --force to start over there, or another --run-name" in text
        assert (tmp_path / "x" / "summary.json").read_bytes() == before
        forced = CliRunner().invoke(main, [*args, "--force"])
        assert forced.exit_code == 0, forced.output
    assert (tmp_path / "x" / "run.json").is_file()


def test_a_holder_that_has_not_said_who_it_is_is_no_run_by_default(tmp_path: Path) -> None:
    out = tmp_path / "d"
    out.mkdir()
    import fcntl

    fd = os.open(out / LOCK_NAME, os.O_RDWR | os.O_CREAT)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX)  # locked, nothing written yet
        with pytest.raises(RunError, match=r"in use by another command \(a process that has"):
            RunLock(out, "score").acquire()
    finally:
        os.close(fd)


def test_a_runs_own_outputs_scored_again_keep_the_runs_report(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from tests.fakeserver import FakeConfig, FakeServer
    from tfce_eval.dataset.load import load_dataset

    monkeypatch.setenv("OPENAI_API_KEY", "sk-test")
    with FakeServer(FakeConfig(load_dataset(None))) as server:
        args = ["run", "--model", "vllm/m", "--base-url", server.base_url, "--check", "ast"]
        args += ["--out", str(tmp_path), "--run-name", "r", "--category", "simple"]
        ran = CliRunner().invoke(main, args)
        assert ran.exit_code == 0, ran.output
    run_dir = tmp_path / "r"
    first = (run_dir / "report.md").read_text(encoding="utf-8")
    assert "vllm/m" in first
    summary = json.loads((run_dir / "summary.json").read_text(encoding="utf-8"))
    assert summary["run"] == {"provider": "vllm", "model": "m", "mode": "fc"}
    code, said = score(str(run_dir / "outputs.jsonl"), "--category", "simple")
    assert code == 0, said
    assert said.startswith("r: model vllm/m; mode fc; dataset builtin:tfce")  # as the run's
    assert (run_dir / "report.md").read_text(encoding="utf-8") == first
    again = json.loads((run_dir / "summary.json").read_text(encoding="utf-8"))
    assert again["run"] == summary["run"]  # the summary still names the run's model


def test_a_directory_its_last_holder_removes_as_the_lock_is_taken_is_made_again(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # The race: a command that made `out` releases it and removes it, empty, between
    # this one's mkdir and its open of the lock file.
    out = tmp_path / "made" / "out"
    real_open = os.open
    removed: list[Path] = []

    def rival_ends_first(path: Any, flags: int, mode: int = 0o777) -> int:
        if Path(path) == out / LOCK_NAME and not removed:
            out.rmdir()
            out.parent.rmdir()
            removed.append(out)
        return real_open(path, flags, mode)

    monkeypatch.setattr(os, "open", rival_ends_first)
    with RunLock(out, "score"):
        assert removed and (out / LOCK_NAME).is_file()
    monkeypatch.undo()
    assert not (tmp_path / "made").exists()  # made again by this one, so removed by it
