"""A model's answer is bounded: a body past the bound is a request error, not retried,
whose line holds no body; an answer within it is kept, and every line a run writes is
one `score` reads again (through the real SDKs, against the loopback server)."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner
from fakeserver import FakeConfig, FakeServer, qa_items
from smallrun import DATA, config, outputs

from tfce_eval.cli import main
from tfce_eval.dataset.load import load_dataset
from tfce_eval.providers.base import MAX_BODY_BYTES, Mode
from tfce_eval.qa.predictions import MAX_LINE
from tfce_eval.run.runner import run_eval

QNA = Path(__file__).resolve().parent.parent / "tfce_eval" / "builtin" / "telco-qna"
TRUTH = qa_items(QNA / "set_24.json")
HUGE = 4 * 1024 * 1024
TOO_LARGE = "response too large: the body "


@pytest.fixture(autouse=True)
def keys(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test")
    monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-ant-test")


def _qa_run(srv: FakeServer, out: Path, api: str) -> tuple[Path, list[dict[str, Any]]]:
    model = "vllm/m" if api == "openai" else "anthropic/claude-test"
    url = srv.base_url if api == "openai" else srv.root_url
    argv = ["run", "--data", "builtin:telco-qna", "--model", model, "--base-url", url]
    argv += ["--mode", "prompt", "--out", str(out), "--retry-delay", "0.01"]
    result = CliRunner().invoke(main, argv)
    assert result.exit_code == 0, (result.output, result.exception)
    (run_dir,) = [p for p in out.iterdir() if p.is_dir()]
    return run_dir, outputs(run_dir)


def _score(outputs_file: Path, data: str) -> Any:
    result = CliRunner().invoke(main, ["score", str(outputs_file), "--data", data])
    assert result.exit_code == 0, (result.output, result.exception)
    return result


def _declared(error: str) -> int:
    found = re.match(TOO_LARGE + r"is ([\d,]+) bytes, more than", error)
    assert found, error
    return int(found[1].replace(",", ""))


def _longest_line(run_dir: Path) -> int:
    return max(len(x) for x in (run_dir / "outputs.jsonl").read_bytes().splitlines())


@pytest.mark.parametrize("sized", [True, False], ids=["length", "no-length"])
@pytest.mark.parametrize("api", ["openai", "anthropic"])
def test_a_qa_answer_past_the_bound_is_one_request_error_and_rescored(
    tmp_path: Path, api: str, sized: bool
) -> None:
    huge = TRUTH[0].id
    cfg = FakeConfig(load_dataset(None), qa=TRUTH, huge_bytes=HUGE, huge_sized=sized)
    cfg.faults = {huge: ["huge"] * 5}
    with FakeServer(cfg) as srv:
        run_dir, records = _qa_run(srv, tmp_path, api)
        assert len(srv.requests_for(huge)) == 1  # it would come again: not retried
    by_id = {r["id"]: r for r in records}
    error = by_id[huge]["error"]
    assert f"the limit of {MAX_BODY_BYTES:,} bytes; not retried" in error
    if sized:  # the length it declared, before a byte of the body was read
        assert HUGE < _declared(error) < HUGE + 1024
    else:  # read until it went past the bound
        assert error.startswith(TOO_LARGE + "goes past the limit")
    assert by_id[huge]["raw"] is None and by_id[huge]["response"] is None
    assert all(r["error"] is None for i, r in by_id.items() if i != huge)
    assert _longest_line(run_dir) < 64 * 1024  # the error's line holds no body
    summary = json.loads((run_dir / "summary.json").read_text(encoding="utf-8"))
    errors = [t.get("request_errors", 0) for t in summary["answer_types"].values()]
    assert sum(errors) == 1
    _score(run_dir / "outputs.jsonl", "builtin:telco-qna")  # no new request


@pytest.mark.parametrize("api", ["openai", "anthropic"])
def test_a_qa_answer_just_under_the_bound_is_kept_and_rescored(tmp_path: Path, api: str) -> None:
    kept = TRUTH[0].id
    cfg = FakeConfig(load_dataset(None), qa=TRUTH, huge_bytes=MAX_BODY_BYTES - 2048)
    cfg.faults = {kept: ["huge"]}
    with FakeServer(cfg) as srv:
        run_dir, records = _qa_run(srv, tmp_path, api)
        assert len(srv.requests_for(kept)) == 1
    (record,) = [r for r in records if r["id"] == kept]
    assert record["error"] is None
    assert record["response"].count("x") == MAX_BODY_BYTES - 2048
    assert 2 * (MAX_BODY_BYTES - 2048) < _longest_line(run_dir) < MAX_LINE  # text twice
    summary = json.loads((run_dir / "summary.json").read_text(encoding="utf-8"))
    assert all(t.get("request_errors", 0) == 0 for t in summary["answer_types"].values())
    shown = _score(run_dir / "outputs.jsonl", "builtin:telco-qna").output
    assert "request_error" not in shown


@pytest.mark.parametrize("api", ["openai", "anthropic"])
def test_a_lone_surrogate_does_not_swell_a_long_answer_past_what_score_reads(
    tmp_path: Path, api: str
) -> None:
    """Only the surrogate is escaped on the way to the file: the 200 KB of emoji around it
    stay 4 bytes each (escaped, they were 12, and the line passed what score reads)."""
    item = TRUTH[0].id
    cfg = FakeConfig(load_dataset(None), qa=TRUTH, huge_bytes=200 * 1024)
    cfg.huge_text, cfg.faults = "\ud83d" + "\U0001f600" * 255, {item: ["huge"] * 5}
    with FakeServer(cfg) as srv:
        run_dir, records = _qa_run(srv, tmp_path, api)
        assert len(srv.requests_for(item)) == 1
    (record,) = [r for r in records if r["id"] == item]
    assert record["error"] is None
    assert record["response"].startswith("\ud83d\U0001f600") and len(record["response"]) > 50_000
    assert 200 * 1024 < _longest_line(run_dir) < MAX_LINE
    _score(run_dir / "outputs.jsonl", "builtin:telco-qna")


@pytest.mark.parametrize("api", ["openai", "anthropic"])
def test_an_answer_whose_line_would_pass_what_score_reads_is_a_request_error(
    tmp_path: Path, api: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The last guard of the line bound. A body within its own bound cannot make so long a
    line today (the file escapes nothing the wire did not), so the run's copy of the bound
    is lowered to 64 KiB to reach it; score still reads its own 1 MiB."""
    monkeypatch.setattr("tfce_eval.run.session.MAX_LINE", 64 * 1024)
    item = TRUTH[0].id
    cfg = FakeConfig(load_dataset(None), qa=TRUTH, huge_bytes=200 * 1024)
    cfg.huge_text, cfg.faults = "\U0001f600", {item: ["huge"] * 5}
    with FakeServer(cfg) as srv:
        run_dir, records = _qa_run(srv, tmp_path, api)
        assert len(srv.requests_for(item)) == 1
    (record,) = [r for r in records if r["id"] == item]
    assert record["error"].startswith("response too large: its outputs line would be ")
    assert f"more than the {64 * 1024:,} that score reads" in record["error"]
    assert _longest_line(run_dir) < 64 * 1024
    _score(run_dir / "outputs.jsonl", "builtin:telco-qna")


@pytest.mark.parametrize("api", ["openai", "anthropic"])
def test_a_prompt_mode_answer_past_the_bound_is_a_request_error(tmp_path: Path, api: str) -> None:
    dataset = load_dataset(DATA)
    huge = "run_simple_2"
    with FakeServer(FakeConfig(dataset, faults={huge: ["huge"] * 5}, huge_bytes=HUGE)) as srv:
        result = run_eval(config(srv, tmp_path, api, mode=Mode.PROMPT, timeout_s=10))
        assert len(srv.requests_for(huge)) == 1
    records = {r["id"]: r for r in outputs(result.run_dir)}
    assert HUGE < _declared(records[huge]["error"]) < HUGE + 1024
    assert records[huge]["raw"] is None and result.request_errors == 1
    assert sum(r["error"] is None for r in records.values()) == len(records) - 1
    (failed,) = [r for r in result.score.records if r.id == huge]
    assert failed.error_type == "request_error"
    assert _longest_line(result.run_dir) < 64 * 1024
    _score(result.run_dir / "outputs.jsonl", str(DATA))
