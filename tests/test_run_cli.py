"""`tfce-eval run` as a user runs it: a real process, real signals, the loopback server."""

from __future__ import annotations

import json
import re
import shlex
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from click.testing import CliRunner
from fakeserver import FakeConfig, FakeServer
from smallrun import DATA, run_argv, run_env

from tests.messages import assert_folded
from tfce_eval.cli.run import run_command
from tfce_eval.dataset.load import load_dataset
from tfce_eval.run.runner import RunConfig, run_eval
from tfce_eval.scoring.options import CheckMode

SECRET = "sk-test-SECRET-9f8e7d6c5b4a"


@pytest.fixture(scope="module")
def dataset():
    return load_dataset(DATA)


def run_cli(server: FakeServer, out: Path, *extra: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        run_argv(server, out, *extra),
        env=run_env(SECRET),
        capture_output=True,
        text=True,
        timeout=120,
    )


def _lines(path: Path) -> int:
    try:
        return path.read_bytes().count(b"\n")
    except FileNotFoundError:
        return 0


def _start_and_stop_midway(server: FakeServer, out: Path, sig: int) -> subprocess.Popen[str]:
    outputs = out / "openai-fake-model-fc" / "outputs.jsonl"
    proc = subprocess.Popen(
        run_argv(server, out, "--concurrency", "2"),
        env=run_env(SECRET),
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    deadline = time.monotonic() + 60
    while _lines(outputs) < 4:
        assert proc.poll() is None, proc.communicate()
        assert time.monotonic() < deadline
        time.sleep(0.01)
    proc.send_signal(sig)
    proc.wait(timeout=30)
    return proc


def test_killed_with_sigkill_then_run_again_gives_the_same_scores(dataset, tmp_path, monkeypatch):
    monkeypatch.setenv("OPENAI_API_KEY", SECRET)
    with FakeServer(FakeConfig(dataset, latency_s=0.15)) as srv:
        whole = run_eval(
            RunConfig(
                model="openai/fake-model",
                base_url=srv.base_url,
                data=DATA,
                out=tmp_path / "whole",
                check=CheckMode.AST,
            )
        )
        killed = _start_and_stop_midway(srv, tmp_path / "killed", signal.SIGKILL)
        assert killed.returncode == -signal.SIGKILL
        run_dir = tmp_path / "killed" / "openai-fake-model-fc"
        kept = _lines(run_dir / "outputs.jsonl")
        assert 4 <= kept < 16
        srv.log.clear()
        again = run_cli(srv, tmp_path / "killed")
        assert again.returncode == 0, again.stderr
        assert len(srv.log) <= 16 - kept + 1  # at most one torn line asked again
    assert "resuming:" in again.stderr
    scores = (run_dir / "scores.jsonl").read_text()
    assert scores == (whole.run_dir / "scores.jsonl").read_text()
    assert len(scores.splitlines()) == 16


@pytest.mark.parametrize(("sig", "code"), [(signal.SIGINT, 130), (signal.SIGTERM, 143)])
def test_ctrl_c_or_sigterm_stops_cleanly_and_says_how_to_resume(dataset, tmp_path, sig, code):
    with FakeServer(FakeConfig(dataset, latency_s=0.15)) as srv:
        stopped = _start_and_stop_midway(srv, tmp_path, sig)
        _, stderr = stopped.communicate()
        assert stopped.returncode == code, stderr
        assert "interrupted:" in stderr and "error: interrupted" not in stderr
        # The command shown pastes into a shell: continued lines end with a backslash.
        assert_folded(stderr)
        shown = stderr.split("to resume, run again:\n", 1)[1].split("\n\n", 1)[0]
        resume = shlex.split(shown.replace("\\\n", " "))
        argv = run_argv(srv, tmp_path, "--concurrency", "2")
        assert resume == ["tfce-eval", *argv[argv.index("run") :]]
        assert "Traceback" not in stderr
        counts = re.findall(r"\d+/16 items \(\d+%\), \d+ failed", stderr)
        assert counts and len(counts) == len(set(counts))  # no progress line twice
        run_dir = tmp_path / "openai-fake-model-fc"
        raw = (run_dir / "outputs.jsonl").read_bytes()
        assert raw.endswith(b"\n")
        records = [json.loads(line) for line in raw.splitlines()]  # every line complete
        assert 4 <= len(records) < 16
        meta = json.loads((run_dir / "run.json").read_text())
        assert meta["status"] == "interrupted"
        assert meta["sessions"][0]["answered"] == len(records)
        again = run_cli(srv, tmp_path)
    assert again.returncode == 0, again.stderr
    assert json.loads((run_dir / "summary.json").read_text())["overall"]["micro"]["accuracy"] == 1.0


def test_a_401_stops_at_once_with_exit_code_1_and_says_what_to_fix(dataset, tmp_path):
    with FakeServer(FakeConfig(dataset, always=("401_echo",))) as srv:
        proc = run_cli(srv, tmp_path)
        assert len(srv.log) <= 8  # the first requests (--concurrency 8), none retried
    assert proc.returncode == 1
    assert "HTTP 401" in proc.stderr and "set OPENAI_API_KEY" in proc.stderr
    assert SECRET not in proc.stderr + proc.stdout  # the server echoed it; we do not


def test_the_api_key_appears_in_no_file_and_no_output(dataset, tmp_path):
    with FakeServer(FakeConfig(dataset, api_key=SECRET)) as srv:  # the key is really used
        dump = run_cli(srv, tmp_path, "--dump-request", "run_parallel_2")
        assert not srv.log  # --dump-request sends nothing
        run = run_cli(srv, tmp_path, "--check", "both")
        assert srv.log and all(r.headers["authorization"] == f"Bearer {SECRET}" for r in srv.log)
    assert dump.returncode == 0 and run.returncode == 0, run.stderr
    request = json.loads(dump.stdout)
    assert request["body"]["model"] == "fake-model"
    assert request["body"]["parallel_tool_calls"] is True
    assert request["headers"]["Authorization"] == "Bearer <$OPENAI_API_KEY>"
    texts = [dump.stdout, dump.stderr, run.stdout, run.stderr]
    files = [p for p in tmp_path.rglob("*") if p.is_file()]
    assert {p.name for p in files} >= {"outputs.jsonl", "run.json", "scores.jsonl", "summary.json"}
    texts += [p.read_text(encoding="utf-8", errors="replace") for p in files]
    assert not [t for t in texts if SECRET in t]
    assert "parallel_multiple" in run.stdout and "written:" in run.stdout


def test_usage_errors_and_a_changed_run_exit_2(dataset, tmp_path):
    # A changed run is a mistake of the options or the directory chosen, as `score --out`
    # into a run's directory is: both exit 2, and say what to do.
    with FakeServer(FakeConfig(dataset)) as srv:
        bad_model = subprocess.run(
            [sys.executable, "-m", "tfce_eval", "run", "--model", "gpt-4o"],
            env=run_env(SECRET),
            capture_output=True,
            text=True,
            timeout=60,
        )
        first = run_cli(srv, tmp_path, "--category", "simple", "--json")
        changed = run_cli(srv, tmp_path, "--category", "simple", "--temperature", "0.7")
    assert bad_model.returncode == 2 and "provider/name" in bad_model.stderr
    assert first.returncode == 0
    assert json.loads(first.stdout)["simple"]["accuracy"] == 1.0
    assert changed.returncode == 2
    assert "request option temperature: 0.0 (saved) vs 0.7 (now)" in changed.stderr
    assert "--force" in changed.stderr


@pytest.mark.parametrize(
    ("args", "present", "absent"),
    [
        (["--temperature", "none"], {"tools"}, {"temperature"}),
        (
            ["--temperature", "0.3", "--seed", "5", "--max-tokens", "99"],
            {"temperature", "seed", "max_tokens"},
            set(),
        ),
        (["--mode", "prompt"], {"temperature"}, {"tools", "tool_choice"}),
        (["--no-parallel-tool-calls"], {"tools"}, {"parallel_tool_calls"}),
    ],
)
def test_request_options_reach_the_dumped_request(args, present, absent):
    result = CliRunner().invoke(
        run_command,
        ["--model", "vllm/m", "--data", str(DATA), "--dump-request", "run_parallel_0", *args],
    )
    assert result.exit_code == 0, result.output
    body = json.loads(result.output)["body"]
    assert present <= set(body) and not absent & set(body)
    if "--temperature" in args:
        assert body.get("temperature") == (None if "none" in args else 0.3)


@pytest.mark.parametrize(
    "args",
    [
        ["--temperature", "3"],
        ["--temperature", "warm"],
        ["--concurrency", "0"],
        ["--mode", "chat"],
        ["--tool-choice", "maybe"],
    ],
)
def test_bad_option_values_are_usage_errors(args):
    result = CliRunner().invoke(run_command, ["--model", "vllm/m", *args])
    assert result.exit_code == 2


@pytest.mark.parametrize(("failed", "said"), [(1, "ask it again"), (2, "ask them again")])
def test_the_items_that_could_not_be_asked_are_counted_in_words(dataset, tmp_path, failed, said):
    faults = {f"run_simple_{n}": ["400"] for n in range(failed)}
    with FakeServer(FakeConfig(dataset, faults=faults)) as srv:
        done = run_cli(srv, tmp_path, "--category", "simple")
    assert done.returncode == 0, done.stderr
    line = " ".join(done.stdout.split())
    assert f"; {failed} could not be asked (request_error): run the same command" in line
    assert f"command again to {said}" in line
