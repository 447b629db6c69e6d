"""An error status's body is bounded as an answer's is: past the bound it is one request
error naming the status, not retried, never held whole (with or without its length,
gzip-compressed or not); within it, the status is judged as always (through the real
SDKs, against the loopback server)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from fakeserver import FakeConfig, FakeServer
from smallrun import DATA, config, outputs, run_env

from tfce_eval.dataset.load import load_dataset
from tfce_eval.providers.base import MAX_BODY_BYTES
from tfce_eval.run.runner import RunResult, run_eval

ITEM = "run_simple_2"
HUGE = 4 * 1024 * 1024
APIS = ["openai", "vllm", "anthropic"]  # vllm: an OpenAI-compatible server
SHAPES = ["length", "chunked", "gzip"]  # gzip: 4 KiB sent, decoding to HUGE
STATUSES = [400, 401, 500]  # an item's error, a fatal one, a retried one (within the bound)


@pytest.fixture(autouse=True)
def keys(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test")
    monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-ant-test")


def _server(status: int, size: int, shape: str) -> FakeServer:
    cfg = FakeConfig(load_dataset(DATA), faults={ITEM: ["huge_error"] * 5}, huge_bytes=size)
    cfg.huge_status, cfg.huge_sized, cfg.huge_gzip = status, shape == "length", shape == "gzip"
    return FakeServer(cfg)


def _run(srv: FakeServer, out: Path, api: str) -> tuple[RunResult, dict[str, Any]]:
    model = {"model": "vllm/fake-model"} if api == "vllm" else {}
    sdk = "anthropic" if api == "anthropic" else "openai"
    result = run_eval(config(srv, out, sdk, timeout_s=10, **model))
    return result, {r["id"]: r for r in outputs(result.run_dir)}


def _longest_line(run_dir: Path) -> int:
    return max(len(x) for x in (run_dir / "outputs.jsonl").read_bytes().splitlines())


#: Each API with each status and each shape of body (a Latin square: every pair once).
SQUARE = [(a, s, SHAPES[(i + j) % 3]) for i, a in enumerate(APIS) for j, s in enumerate(STATUSES)]


@pytest.mark.parametrize(("api", "status", "shape"), SQUARE)
def test_an_error_body_past_the_bound_is_one_request_error_naming_the_status(
    tmp_path: Path, api: str, status: int, shape: str
) -> None:
    """Whatever the status (a 401 within the bound stops the run, a 500 is retried)."""
    with _server(status, HUGE, shape) as srv:
        result, records = _run(srv, tmp_path, api)
        assert len(srv.requests_for(ITEM)) == 1  # it would come again: not retried
    error = records[ITEM]["error"]
    head = f"HTTP {status}: response too large: the error body "
    if shape == "length":  # the length it declared, before a byte of the body was read
        assert error.startswith(head + f"is {HUGE:,} bytes, more than the limit")
    else:  # read (and decoded) until it went past the bound
        assert error.startswith(head + "goes past the limit")
    assert error.endswith(f"the limit of {MAX_BODY_BYTES:,} bytes; not retried: check the server")
    assert records[ITEM]["raw"] is None and result.request_errors == 1
    assert all(r["error"] is None for i, r in records.items() if i != ITEM)
    assert _longest_line(result.run_dir) < 64 * 1024


@pytest.mark.parametrize(
    ("api", "status", "attempts", "gzip"),
    [(a, s, n, (s == 500) == (a == "anthropic")) for a in APIS for s, n in ((400, 1), (500, 3))],
)
def test_an_error_body_just_under_the_bound_is_judged_as_always(
    tmp_path: Path, api: str, status: int, attempts: int, gzip: bool
) -> None:
    """Read whole, chunked: a 400 is this item's error at once, a 500 is retried; its
    message, one word of 255 KiB, is shown cut (and read for URLs in linear time)."""
    with _server(status, MAX_BODY_BYTES - 1024, "gzip" if gzip else "chunked") as srv:
        result, records = _run(srv, tmp_path, api)
        assert len(srv.requests_for(ITEM)) == attempts
    error = records[ITEM]["error"]
    assert error.startswith(f"HTTP {status}: " + "x" * 69 + "…")  # the server's message
    assert "too large" not in error and (attempts == 1) == ("attempts" not in error)
    assert result.request_errors == 1


#: Runs the command given after a file name, then writes there its peak memory. Measured
#: as a child's, of this small process: a process's own peak includes that of the
#: process it was started from (Linux keeps it across exec), here pytest's.
LAUNCHER = """import resource, subprocess, sys
from pathlib import Path
done = subprocess.run(sys.argv[2:])
peak = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
Path(sys.argv[1]).write_text(str(peak * (1 if sys.platform == "darwin" else 1024)))
sys.exit(done.returncode)
"""


@pytest.mark.parametrize(("api", "gzip"), [("openai", False), ("anthropic", True)])
def test_a_200_mb_error_body_is_never_held(tmp_path: Path, api: str, gzip: bool) -> None:
    """In a run of its own: the peak memory of the process stays far below the body
    (chunked; or 200 KB of gzip that decodes to 200 MB)."""
    size = 200 * 1024 * 1024
    peak_file = tmp_path / "peak"
    with _server(500, size, "gzip" if gzip else "chunked") as srv:
        url = srv.root_url if api == "anthropic" else srv.base_url
        argv = [sys.executable, "-c", LAUNCHER, str(peak_file), sys.executable, "-m"]
        argv += ["tfce_eval", "run", "--model"]
        argv += [f"{api}/fake-model", "--base-url", url, "--data", str(DATA)]
        argv += ["--out", str(tmp_path / "out"), "--retry-delay", "0.01", "--timeout", "60"]
        env = run_env("sk-test") | {"ANTHROPIC_API_KEY": "sk-ant-test"}
        # The time limit only stops a run that hangs; the test asserts no time.
        done = subprocess.run(argv, env=env, capture_output=True, text=True, timeout=600)
        asked = len(srv.requests_for(ITEM))
    assert done.returncode == 0, done.stderr
    peak = int(peak_file.read_text())
    assert 0 < peak < 150 * 1024 * 1024 < size, f"peak memory: {peak:,} bytes"
    assert asked == 1
    (run_dir,) = (tmp_path / "out").iterdir()
    records = {r["id"]: r for r in outputs(run_dir)}
    error = records[ITEM]["error"]
    assert error.startswith("HTTP 500: response too large: the error body goes past the limit")
    assert sum(r["error"] is not None for r in records.values()) == 1
