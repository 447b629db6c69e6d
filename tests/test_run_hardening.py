"""`run` against hostile servers and a hostile run directory: the real SDKs, the loopback
server, real files in tmp_path. Whatever a server sends, a run keeps every answer it has,
says what went wrong in one line, and never writes the key anywhere.
"""

from __future__ import annotations

import errno
import importlib
import json
import os
import socket
import subprocess
import time
from pathlib import Path

import pytest
from fakeserver import FakeConfig, FakeServer
from messages import unfold
from smallrun import DATA, config, outputs, run_argv, run_env

from tests.ports import dead_url
from tfce_eval.dataset.load import load_dataset
from tfce_eval.errors import RunError, UsageError
from tfce_eval.run.appender import OutputsAppender, encode_line
from tfce_eval.run.retry import RetryPolicy
from tfce_eval.run.runner import RunConfig, run_eval
from tfce_eval.scoring.lock import RunLock

SECRET = "sk-hardening-0123456789abcdef"


@pytest.fixture(scope="module")
def dataset():
    return load_dataset(DATA)


@pytest.fixture(autouse=True)
def keys(monkeypatch):
    monkeypatch.setenv("OPENAI_API_KEY", SECRET)
    monkeypatch.setenv("ANTHROPIC_API_KEY", SECRET)


# --- what a model or a server sends -----------------------------------------------------------


@pytest.mark.parametrize("sdk", ["openai", "anthropic"])
def test_a_lone_surrogate_in_an_answer_is_stored_and_later_answers_are_kept(dataset, tmp_path, sdk):
    faults = {"run_multiple_2": ["surrogate"], "run_simple_0": ["surrogate"]}
    with FakeServer(FakeConfig(dataset, faults=faults)) as srv:
        first = run_eval(config(srv, tmp_path, sdk, concurrency=1))
        srv.log.clear()
        again = run_eval(config(srv, tmp_path, sdk, concurrency=1))
        assert not srv.log  # resumed: nothing left to ask
    records = {r["id"]: r for r in outputs(first.run_dir)}
    assert sorted(records) == sorted(dataset.ids())  # every answer after it kept too
    raw = json.dumps(records["run_multiple_2"]["raw"])
    assert "\\ud83d" in raw
    (call,) = records["run_multiple_2"]["calls"]
    assert call["arguments"]["name"].endswith("\ud83d")
    assert all(r["error"] is None for r in records.values())
    assert (again.resumed, again.asked) == (16, 0)
    by_id = {r.id: r for r in again.score.records}
    assert by_id["run_multiple_2"].error_type == "value_error"
    assert sum(r.valid for r in again.score.records) == 15


def test_the_appender_writes_a_lone_surrogate_and_every_line_after_it(tmp_path):
    path = tmp_path / "outputs.jsonl"
    records = [
        {"id": "a", "raw": {"content": "好"}},
        {"id": "b", "raw": {"content": "\ud83d"}, "calls": [{"arguments": {"x": "\udc00"}}]},
        {"id": "c", "raw": {"content": "after"}},
    ]
    with OutputsAppender(path) as out:
        for record in records:
            out.put_line(encode_line(record))
    lines = path.read_bytes().splitlines()
    assert [json.loads(line) for line in lines] == records  # read back to the same strings
    assert lines[0].decode("utf-8") == '{"id":"a","raw":{"content":"好"}}'  # still readable
    assert b"\\ud83d" in lines[1]
    # Only the surrogate is escaped: the rest of its line stays readable, not six bytes a
    # character (which would push a long answer past the line bound score reads).
    line = encode_line({"id": "d", "raw": {"content": "好é" * 1000 + "\udc80"}})
    assert line.decode("utf-8") == '{"id":"d","raw":{"content":"' + "好é" * 1000 + '\\udc80"}}\n'
    assert json.loads(line)["raw"]["content"].endswith("é\udc80")


@pytest.mark.parametrize("sdk", ["openai", "anthropic"])
def test_a_body_nested_100000_deep_is_one_request_error(dataset, tmp_path, sdk):
    with FakeServer(FakeConfig(dataset, faults={"run_simple_2": ["deep"] * 5})) as srv:
        result = run_eval(config(srv, tmp_path, sdk))
        assert len(srv.requests_for("run_simple_2")) == 1  # the same body again: not retried
    records = {r["id"]: r for r in outputs(result.run_dir)}
    assert len(records) == 16 and result.request_errors == 1
    assert records["run_simple_2"]["error"].startswith("malformed response: the body nests")
    assert sum(r.valid for r in result.score.records) == 15


@pytest.mark.parametrize("sdk", ["openai", "anthropic"])
def test_a_key_in_a_text_error_body_or_a_200_answer_is_written_nowhere(dataset, tmp_path, sdk):
    faults = {"run_simple_2": ["text_error_key"], "run_multiple_0": ["echo_key"]}
    with FakeServer(FakeConfig(dataset, faults=faults)) as srv:
        result = run_eval(config(srv, tmp_path, sdk))
        assert SECRET in srv.requests_for("run_simple_2")[0].headers.get(
            "authorization", srv.requests_for("run_simple_2")[0].headers.get("x-api-key", "")
        )
    records = {r["id"]: r for r in outputs(result.run_dir)}
    assert records["run_simple_2"]["error"].startswith("HTTP 400: EEEE")
    # The key, scrubbed, was inside an over-long word: the message shows the word cut.
    assert records["run_simple_2"]["error"].endswith("EEEE… is not a valid key.")
    assert "Your key is ***." in json.dumps(records["run_multiple_0"]["raw"])
    texts = [p.read_text(encoding="utf-8") for p in result.run_dir.rglob("*") if p.is_file()]
    assert len(texts) >= 4
    assert not [t for t in texts if SECRET[:8] in t]  # not even the part before a cut


@pytest.mark.parametrize("sdk", ["openai", "anthropic"])
def test_a_trickling_server_is_cut_off_at_the_timeout(dataset, tmp_path, sdk):
    faults = {"run_simple_1": ["trickle"] * 3}  # headers, then a byte every 0.2 s
    with FakeServer(FakeConfig(dataset, faults=faults, trickle_s=0.2)) as srv:
        start = time.monotonic()
        result = run_eval(config(srv, tmp_path, sdk, timeout_s=0.5))
        elapsed = time.monotonic() - start
        assert len(srv.requests_for("run_simple_1")) == 3
    assert elapsed < 6  # three attempts of 0.5 s; the whole body would take over a minute
    (failed,) = [r for r in outputs(result.run_dir) if r["error"]]
    assert failed["id"] == "run_simple_1"
    assert failed["error"] == "no answer within 0.5 s (--timeout) (after 3 attempts)"


# --- the run directory --------------------------------------------------------------------


@pytest.mark.parametrize(
    "name", ["../../victim", "../victim", "a/../../victim", "/abs/victim", ".", ""]
)
def test_a_run_name_that_leaves_out_is_refused_and_nothing_outside_is_touched(
    dataset, tmp_path, name
):
    out = tmp_path / "deep" / "results"
    victim = tmp_path / "victim"
    victim.mkdir()
    (victim / "outputs.jsonl").write_text("precious\n")
    run_name = name.replace("/abs", str(tmp_path)) if name.startswith("/abs") else name
    with FakeServer(FakeConfig(dataset)) as srv:
        with pytest.raises(UsageError) as info:
            run_eval(config(srv, out, run_name=run_name, force=True))
        assert not srv.log
    message = str(info.value)
    assert message.startswith("--run-name") and "\n" not in message
    assert (victim / "outputs.jsonl").read_text() == "precious\n"
    assert sorted(p.name for p in tmp_path.rglob("*")) == ["outputs.jsonl", "victim"]


def test_a_run_name_may_name_a_folder_inside_out(dataset, tmp_path):
    with FakeServer(FakeConfig(dataset)) as srv:
        result = run_eval(config(srv, tmp_path, run_name="week1/qwen", ids=("run_simple_0",)))
    assert result.run_dir == tmp_path / "week1" / "qwen"


def _lines(path: Path) -> int:
    try:
        return path.read_bytes().count(b"\n")
    except FileNotFoundError:
        return 0


def _start(server: FakeServer, out: Path, *extra: str) -> subprocess.Popen[str]:
    """A run in another process, returned once it has saved a few answers."""
    outputs_file = out / "openai-fake-model-fc" / "outputs.jsonl"
    proc = subprocess.Popen(
        run_argv(server, out, *extra),
        env=run_env(SECRET),
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    deadline = time.monotonic() + 60
    while _lines(outputs_file) < 3:
        assert proc.poll() is None, proc.communicate()
        assert time.monotonic() < deadline
        time.sleep(0.01)
    return proc


def test_a_second_run_in_a_busy_directory_names_the_first_and_force_deletes_nothing(
    dataset, tmp_path
):
    with FakeServer(FakeConfig(dataset, latency_s=0.3)) as srv:
        first = _start(srv, tmp_path, "--concurrency", "1")  # about 5 s in all
        with pytest.raises(RunError) as info:
            run_eval(config(srv, tmp_path, force=True))
        second = subprocess.run(
            run_argv(srv, tmp_path, "--force"),
            env=run_env(SECRET),
            capture_output=True,
            text=True,
            timeout=60,
        )
        assert first.poll() is None  # both tries were made while the first run was running
        _, stderr = first.communicate(timeout=60)
        assert sorted(r.item_id for r in srv.log) == sorted(dataset.ids())  # each asked once
    assert first.returncode == 0, stderr
    message = str(info.value)
    assert f"in use by another run (process {first.pid} on {socket.gethostname()}" in message
    assert "started 20" in message
    assert second.returncode == 1
    message = unfold(second.stderr)
    assert message.count("\n") <= 1 and f"process {first.pid}" in message
    run_dir = tmp_path / "openai-fake-model-fc"
    ids = [r["id"] for r in outputs(run_dir)]
    assert sorted(ids) == sorted(dataset.ids())  # each item once, the file never replaced
    assert not (run_dir / ".lock").exists()  # released
    again = run_eval(config(srv, tmp_path))
    assert again.asked == 0


def test_a_run_directory_lock_is_released_however_the_run_ends(dataset, tmp_path):
    with FakeServer(FakeConfig(dataset, always=("401",))) as srv:
        with pytest.raises(RunError):
            run_eval(config(srv, tmp_path))
        srv.config.always = ()
        result = run_eval(config(srv, tmp_path))
    assert result.asked == 16
    with RunLock(result.run_dir), pytest.raises(RunError, match=f"process {os.getpid()}"):
        RunLock(result.run_dir).acquire()


# --- a full disk, a directory that cannot be written ------------------------------------------


def test_a_full_disk_stops_the_run_in_one_message_and_the_run_resumes(
    dataset, tmp_path, monkeypatch
):
    real = OutputsAppender._write_lines
    batches: list[int] = []

    def fill_up(self: OutputsAppender, lines: list[bytes]) -> None:
        batches.append(len(lines))
        if len(batches) > 3:
            raise OSError(errno.ENOSPC, "No space left on device")
        real(self, lines)

    monkeypatch.setattr(OutputsAppender, "_write_lines", fill_up)
    with FakeServer(FakeConfig(dataset, latency_s=0.02)) as srv:
        cfg = config(srv, tmp_path, concurrency=1)
        with pytest.raises(RunError) as info:
            run_eval(cfg)
        message = str(info.value)
        run_dir = tmp_path / "openai-fake-model-fc"
        assert message.splitlines()[0] == (
            f"cannot write {run_dir / 'outputs.jsonl'}: No space left on device"
        )
        assert "run the same command again" in message and "Traceback" not in message
        kept = outputs(run_dir)
        assert len(kept) == 3
        meta = json.loads((run_dir / "run.json").read_text())
        assert meta["status"] == "stopped"
        assert meta["sessions"][-1]["error"] == "No space left on device"
        monkeypatch.setattr(OutputsAppender, "_write_lines", real)
        again = run_eval(cfg)
    assert (again.resumed, again.asked) == (3, 13)
    assert again.score.summary["overall"]["micro"]["accuracy"] == 1.0


def _unwritable(tmp_path: Path) -> Path:
    """A directory no one can create anything in (root ignores permission bits: /sys)."""
    locked = tmp_path / "read-only"
    locked.mkdir()
    locked.chmod(0o555)
    return locked if not os.access(locked, os.W_OK) else Path("/sys/tfce-eval-results")


def test_an_unwritable_out_is_one_message_with_exit_code_1(dataset, tmp_path):
    out = _unwritable(tmp_path)
    with FakeServer(FakeConfig(dataset)) as srv:
        proc = subprocess.run(
            run_argv(srv, out / "results"),
            env=run_env(SECRET),
            capture_output=True,
            text=True,
            timeout=60,
        )
        assert not srv.log
    assert proc.returncode == 1
    assert "Traceback" not in proc.stderr
    first, *rest = unfold(proc.stderr).splitlines()
    assert first.startswith(f"error: cannot use {out / 'results'}")
    assert rest == ["  fix: give a directory you can write to"]


# --- redirects and servers that are not there -------------------------------------------------


@pytest.mark.parametrize("sdk", ["openai", "anthropic"])
def test_a_redirect_to_another_host_is_not_followed_and_names_both_hosts(dataset, tmp_path, sdk):
    with FakeServer(FakeConfig(dataset), host="127.0.0.2") as elsewhere:
        faults = {"run_simple_3": ["redirect"]}
        cfg = FakeConfig(dataset, faults=faults, redirect_to=elsewhere.root_url)
        with FakeServer(cfg) as srv:
            result = run_eval(config(srv, tmp_path, sdk))
            assert len(srv.requests_for("run_simple_3")) == 1  # not retried
        assert not elsewhere.log  # the key was never sent there
    (failed,) = [r for r in outputs(result.run_dir) if r["error"]]
    assert failed["id"] == "run_simple_3"
    here, there = f"127.0.0.1:{srv.port}", f"127.0.0.2:{elsewhere.port}"
    assert failed["error"] == (
        f"HTTP 307: {here} redirects to another host, {there}; requests are not "
        "sent on (if that is the server, give its address with --base-url)"
    )


@pytest.mark.parametrize("umask", [0o002, 0o027])
def test_the_files_of_a_run_follow_the_umask(dataset, tmp_path, umask):
    with FakeServer(FakeConfig(dataset)) as srv:
        proc = subprocess.run(
            run_argv(srv, tmp_path, "--ids", "run_simple_0,run_parallel_0"),
            env=run_env(SECRET),
            capture_output=True,
            text=True,
            timeout=60,
            preexec_fn=lambda: os.umask(umask),  # as the user's shell would set it
        )
    assert proc.returncode == 0, proc.stderr
    run_dir = tmp_path / "openai-fake-model-fc"
    modes = {p.name: p.stat().st_mode & 0o777 for p in run_dir.iterdir()}
    assert {"outputs.jsonl", "run.json", "scores.jsonl", "summary.json"} <= set(modes)
    assert modes == dict.fromkeys(modes, 0o666 & ~umask)


@pytest.mark.parametrize("sdk", ["openai", "anthropic"])
def test_a_run_with_no_server_stops_at_the_first_refusal_and_says_so_once(tmp_path, sdk):
    url = dead_url("/v1" if sdk == "openai" else "")
    cfg = RunConfig(model=f"{sdk}/m", data=DATA, out=tmp_path, base_url=url)  # default retries
    importlib.import_module(sdk)  # any run pays for the SDK's import; the stop is timed
    start = time.monotonic()
    with pytest.raises(RunError) as info:
        run_eval(cfg)
    assert time.monotonic() - start < 2
    message = str(info.value)
    assert message.splitlines()[0] == f"connection to {url} refused: nothing is listening there"
    assert "fix: start the server, or check --base-url" in message
    assert message.count("command again") == 1
    meta = json.loads((tmp_path / f"{sdk}-m-fc" / "run.json").read_text())
    assert meta["status"] == "stopped"


def test_a_server_that_fails_every_item_says_run_again_once(dataset, tmp_path):
    once = RetryPolicy(max_retries=0)
    with FakeServer(FakeConfig(dataset, always=("503",))) as srv, pytest.raises(RunError) as info:
        run_eval(config(srv, tmp_path, retry=once, concurrency=2))
    assert "the first 5 items all failed" in str(info.value)
    assert str(info.value).count("command again") == 1
