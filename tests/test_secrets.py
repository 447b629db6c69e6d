"""Keys and a base URL's credentials never reach a file, a log or a message.

Everything goes through the command line (or the provider's public methods) with the real
SDKs against the loopback server; what a run writes and prints is searched for the secret,
in any form it may come back in (escaped, Basic-encoded, cut by a server echoing a header).
"""

from __future__ import annotations

import base64
import json
import shlex
import signal
import subprocess
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner
from fakeserver import FakeConfig, FakeServer, qa_items
from smallrun import DATA, run_argv, run_env
from smallrun import run_args as small_run_args

from tests.messages import unfold
from tests.ports import dead_url
from tfce_eval.cli import main
from tfce_eval.dataset.load import load_dataset
from tfce_eval.providers.registry import make_provider

KEY = "sk-SECRET-7a6b5c4d3e2f"
USER, PASSWORD = "alice", "PW-s3cr3t-6077"
BASIC = base64.b64encode(f"{USER}:{PASSWORD}".encode()).decode()
QNA = Path(__file__).resolve().parent.parent / "tfce_eval" / "builtin" / "telco-qna"


@pytest.fixture(scope="module")
def dataset() -> Any:
    return load_dataset(DATA)


@pytest.fixture(autouse=True)
def environment(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in ("OPENAI_BASE_URL", "ANTHROPIC_BASE_URL", "ANTHROPIC_AUTH_TOKEN"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("OPENAI_API_KEY", KEY)
    monkeypatch.setenv("ANTHROPIC_API_KEY", KEY)


def with_credentials(url: str, user: str = USER, password: str = PASSWORD) -> str:
    return url.replace("http://", f"http://{user}:{password}@", 1)


def url_of(server: FakeServer, sdk: str) -> str:
    return server.base_url if sdk == "openai" else server.root_url


def leaks(text: str, *secrets: str) -> list[str]:
    """The secrets `text` shows, whole or cut at either end (as a server echoing a header
    with the wrong prefix cuts it), escaped or not."""
    return [s for s in secrets if s[3:-3] in text]


def written(folder: Path) -> str:
    """Every file under `folder`, as text."""
    return "".join(
        p.read_text(encoding="utf-8", errors="replace") for p in folder.rglob("*") if p.is_file()
    )


def cli(*args: str) -> Any:
    return CliRunner().invoke(main, list(args))


def run_args(server: FakeServer, sdk: str, out: Path, url: str | None = None) -> list[str]:
    base_url = None if url == "" else url or url_of(server, sdk)
    return small_run_args(out, model=f"{sdk}/fake-model", base_url=base_url)


# --- a key that cannot be sent ------------------------------------------------------------


@pytest.mark.parametrize("command", ["run", "doctor"])
@pytest.mark.parametrize(
    ("sdk", "env", "key", "says"),
    [
        ("openai", "OPENAI_API_KEY", "sk-SECRET123CR\r", "a line break at its start or end"),
        ("openai", "OPENAI_API_KEY", "sk-SECRET123LF\n", "a line break at its start or end"),
        ("anthropic", "ANTHROPIC_API_KEY", "sk-SECRET123é", "a character that is not ASCII"),
        ("anthropic", "ANTHROPIC_AUTH_TOKEN", " sk-SECRET123", "white space at its start"),
        ("openai", "OPENAI_API_KEY", "sk-SECRET\x1b123", "a control character"),
    ],
)
def test_a_key_that_cannot_be_sent_is_refused_before_any_request(
    dataset: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, command, sdk, env, key, says
) -> None:
    monkeypatch.delenv("ANTHROPIC_API_KEY")
    monkeypatch.setenv(env, key)
    with FakeServer(FakeConfig(dataset)) as srv:
        if command == "run":
            result = cli(*run_args(srv, sdk, tmp_path / "out"))
        else:
            result = cli("doctor", "--model", f"{sdk}/m", "--base-url", url_of(srv, sdk))
        assert not srv.log
    assert result.exit_code == 1, result.output
    said = unfold(result.output)
    assert f"{env} cannot be sent in an HTTP header: it holds {says}" in said
    assert "SECRET" not in said and "attempts" not in said
    assert not (tmp_path / "out").exists()  # nothing written


def test_a_judges_key_that_cannot_be_sent_is_refused_before_any_request(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-SECRET123\r")
    with FakeServer(FakeConfig(load_dataset(None), qa=qa_items(QNA / "set_24.json"))) as srv:
        args = ["--data", "builtin:telco-qna", "--model", "vllm/m", "--base-url", srv.base_url]
        result = cli("run", *args, "--judge", "anthropic/j", "--out", str(tmp_path))
        assert not srv.log
    assert result.exit_code == 2, result.output
    said = unfold(result.output)
    assert "--judge anthropic/j: ANTHROPIC_API_KEY cannot be sent in an HTTP header" in said
    assert "SECRET" not in said and not list(tmp_path.iterdir())


@pytest.mark.parametrize(
    "quoted",
    [
        lambda k: repr(("Bearer " + k).encode()),  # h11's Illegal header value b'...'
        lambda k: json.dumps(k),
        lambda k: k.encode("unicode_escape").decode(),
        lambda k: "Basic " + BASIC,
        lambda k: BASIC[1:],  # echoed as if `Basic ` were `Bearer `
        lambda k: dead_url(credentials=f"{USER}:{PASSWORD}"),
    ],
)
# A key that can be sent may still be escaped when quoted: a backslash is doubled.
@pytest.mark.parametrize("key", ["sk-SECRET123CR\r", "sk-SECRET123é", "sk-SECRET\\7a6b5c"])
def test_an_error_quoting_a_secret_in_any_form_is_scrubbed(quoted, key: str) -> None:
    url = with_credentials(dead_url())
    provider = make_provider("openai/m", base_url=url, env={"OPENAI_API_KEY": key})
    error = provider.classify(RuntimeError(f"it said {quoted(key)} there"))
    shown = error.render()
    assert "it said" in shown and "***" in shown
    assert not leaks(shown, key.strip(), PASSWORD, BASIC)


# --- a base URL's credentials --------------------------------------------------------------


@pytest.mark.parametrize("sdk", ["openai", "anthropic"])
def test_a_base_urls_credentials_are_used_but_never_shown_or_written(
    dataset: Any, tmp_path: Path, sdk: str
) -> None:
    with FakeServer(FakeConfig(dataset, always=("echo_key",))) as srv:
        url = with_credentials(url_of(srv, sdk))
        args = run_args(srv, sdk, tmp_path, url)
        dump = cli(*args, "--dump-request", "run_simple_0")
        assert not srv.log
        first = cli(*args)
        assert srv.log and all(r.headers["authorization"] == f"Basic {BASIC}" for r in srv.log)
        again = cli(*args)  # the same command: the same run, nothing left to ask
    assert first.exit_code == 0 and again.exit_code == 0, first.output + again.output
    assert "holds a different run" not in again.output
    request = json.loads(dump.output)
    shown = url_of(srv, sdk).replace("http://", f"http://{USER}:***@")
    assert request["url"].startswith(shown + "/")
    assert request["headers"]["Authorization"] == (
        "Basic <base64 of the user:password in the base URL>"
    )
    (run_dir,) = tmp_path.iterdir()
    assert json.loads((run_dir / "run.json").read_text())["base_url"] == shown
    assert "Your key is Basic ***" in (run_dir / "outputs.jsonl").read_text()  # echoed
    texts = written(tmp_path) + dump.output + first.output + again.output
    assert not leaks(texts, PASSWORD, BASIC, KEY)


@pytest.mark.parametrize("source", ["option", "variable"])
@pytest.mark.parametrize("sdk", ["openai", "anthropic"])
def test_a_refused_user_and_password_are_named_not_shown(
    dataset: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, sdk: str, source: str
) -> None:
    with FakeServer(FakeConfig(dataset, always=("401_echo",))) as srv:
        url = with_credentials(url_of(srv, sdk))
        option = ["--base-url", url]
        if source == "variable":
            monkeypatch.setenv(f"{sdk.upper()}_BASE_URL", url)
            option = []
        run = cli(*run_args(srv, sdk, tmp_path, url if option else ""))
        doctor = cli("doctor", "--model", f"{sdk}/m", *option)
        assert srv.log
    assert run.exit_code == 1 and doctor.exit_code == 1, run.output + doctor.output
    shown = url_of(srv, sdk).replace("http://", f"http://{USER}:***@")
    assert unfold(doctor.output).startswith(f"doctor: {sdk}/m at {shown}\n")
    for said in (unfold(run.output), unfold(doctor.output)):
        assert "HTTP 401: Incorrect API key provided: ***" in said
        assert "fix: the server refused the user and password of the base URL" in said
    (run_dir,) = tmp_path.iterdir()
    assert json.loads((run_dir / "run.json").read_text())["base_url"] == shown
    assert not leaks(written(tmp_path) + run.output + doctor.output, PASSWORD, BASIC, KEY)


def test_an_old_run_json_with_credentials_resumes_and_loses_them(
    dataset: Any, tmp_path: Path
) -> None:
    with FakeServer(FakeConfig(dataset)) as srv:
        url = with_credentials(srv.base_url)
        args = run_args(srv, "openai", tmp_path, url)
        assert cli(*args).exit_code == 0
        (run_dir,) = tmp_path.iterdir()
        meta = json.loads((run_dir / "run.json").read_text())
        meta["base_url"] = url  # as an earlier version wrote it
        (run_dir / "run.json").write_text(json.dumps(meta))
        outputs = (run_dir / "outputs.jsonl").read_text().splitlines(keepends=True)
        (run_dir / "outputs.jsonl").write_text("".join(outputs[:-1]))
        again = cli(*args)
    assert again.exit_code == 0, again.output
    assert "1 asked now" in again.output
    assert not leaks(written(tmp_path) + again.output, PASSWORD)


@pytest.mark.parametrize("judge_at", ["401", "closed"])
def test_the_judges_base_url_is_recorded_and_shown_without_its_password(
    tmp_path: Path, judge_at: str
) -> None:
    truth = qa_items(QNA / "set_24.json")
    model = FakeServer(FakeConfig(load_dataset(None), qa=truth))
    judge = FakeServer(FakeConfig(load_dataset(None), qa=truth, schedule=lambda n: "401_echo"))
    with model, judge:
        judge_url = judge.base_url if judge_at == "401" else dead_url()
        result = cli(
            *["run", "--data", "builtin:telco-qna", "--model", "vllm/m"],
            *["--base-url", model.base_url, "--out", str(tmp_path), "--run-name", "r"],
            *["--judge", "vllm/j", "--judge-base-url", with_credentials(judge_url, "jj")],
            *["--max-retries", "0", "--retry-delay", "0.01"],
        )
    assert result.exit_code == 0, result.output
    meta = json.loads((tmp_path / "r" / "run.json").read_text())
    assert meta["judge_base_url"] == judge_url.replace("http://", "http://jj:***@")
    scores = (tmp_path / "r" / "scores.jsonl").read_text()
    assert "judge failed" in scores and "judge failed" in result.output
    basic = base64.b64encode(f"jj:{PASSWORD}".encode()).decode()
    files = {p.name for p in (tmp_path / "r").iterdir()}
    assert {"summary.json", "report.md", "report.html"} <= files
    assert not leaks(written(tmp_path) + result.output, PASSWORD, basic)


def _lines(path: Path) -> int:
    return path.read_bytes().count(b"\n") if path.exists() else 0


def test_ctrl_c_shows_the_resume_command_without_the_password(dataset: Any, tmp_path: Path) -> None:
    with FakeServer(FakeConfig(dataset, latency_s=0.15)) as srv:
        argv = run_argv(srv, tmp_path, "--concurrency", "2")
        argv[argv.index(srv.base_url)] = with_credentials(srv.base_url)
        proc = subprocess.Popen(
            argv, env=run_env(KEY), stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True
        )
        outputs = tmp_path / "openai-fake-model-fc" / "outputs.jsonl"
        deadline = time.monotonic() + 60
        while _lines(outputs) < 3:
            assert proc.poll() is None and time.monotonic() < deadline
            time.sleep(0.01)
        proc.send_signal(signal.SIGINT)
        _, stderr = proc.communicate(timeout=30)
        assert proc.returncode == 130, stderr
        assert "to resume, run again, with each password shown as *** put back:" in stderr
        shown = stderr.split("put back:\n", 1)[1].split("\n\n", 1)[0]
        command = shlex.split(shown.replace("\\\n", " "))
        assert f"http://{USER}:***@127.0.0.1:{srv.port}/v1" in command
        # With the password put back, the command resumes the run.
        resumed = [a.replace(":***@", f":{PASSWORD}@") for a in command[1:]]
        again = subprocess.run(
            argv[:3] + resumed, env=run_env(KEY), capture_output=True, text=True, timeout=120
        )
    assert again.returncode == 0, again.stderr
    assert "resuming:" in again.stderr
    assert not leaks(stderr + again.stdout + again.stderr + written(tmp_path), PASSWORD, BASIC)


# --- a base URL that cannot work -----------------------------------------------------------

BAD_URLS = ["not a url", "ftp://127.0.0.1/v1", "{}?api-key=SECRETQ", "{}#SECRETQ", "{}\r"]


@pytest.fixture
def qa_server() -> Iterator[FakeServer]:
    with FakeServer(FakeConfig(load_dataset(None), qa=qa_items(QNA / "set_24.json"))) as srv:
        yield srv


@pytest.mark.parametrize("where", ["run", "doctor", "variable", "judge"])
@pytest.mark.parametrize("bad", BAD_URLS)
def test_a_base_url_that_cannot_work_is_refused_in_one_line_before_any_request(
    qa_server: FakeServer, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, where, bad
) -> None:
    url = bad.format(qa_server.base_url)
    source = {"run": "--base-url", "doctor": "--base-url", "variable": "OPENAI_BASE_URL"}
    qa = ["--data", "builtin:telco-qna", "--out", str(tmp_path)]
    started = time.monotonic()
    if where == "judge":
        args = ["run", *qa, "--model", "vllm/m", "--base-url", qa_server.base_url]
        result = cli(*args, "--judge", "vllm/j", "--judge-base-url", url)
    elif where == "variable":
        monkeypatch.setenv("OPENAI_BASE_URL", url)
        result = cli("run", *qa, "--model", "openai/m")
    else:
        result = cli(where, "--model", "vllm/m", "--base-url", url, *(qa if where == "run" else []))
    assert time.monotonic() - started < 5
    assert not qa_server.log
    assert result.exit_code == 2, result.output
    said = unfold(result.output)
    assert len(said.splitlines()) == 1, said
    assert said.startswith(f"error: {source.get(where, '--judge-base-url')} '")
    assert "SECRETQ" not in said
    assert not list(tmp_path.iterdir())


def test_an_answer_is_scrubbed_only_of_what_can_be_nothing_but_a_secret() -> None:
    # A scrubbed answer is a changed answer: a password that is also a word of the domain,
    # or a key cut short, must leave the model's arguments as they are.
    from tfce_eval.providers.registry import make_provider

    provider = make_provider(
        "openai/m",
        base_url=dead_url(credentials="admin:downlink"),
        env={"OPENAI_API_KEY": "token-abc123456"},
    )
    answer = {"direction": "downlink", "text": "Use token-abc for the demo"}
    assert provider.scrub_value(answer) == answer
    assert provider.scrub_value({"echo": "key token-abc123456"}) == {"echo": "key ***"}
    # Messages are scrubbed of every form, cut ones included.
    assert "downlink" not in provider.scrub("refused: admin:downlink")
