"""The small function-calling dataset the run tests ask, and the ways they start a run on
it: as a library call (`config`), or as a user does, in a process of its own (`run_argv`,
`run_env`)."""

from __future__ import annotations

import json
import os
import sys
from dataclasses import replace
from pathlib import Path
from typing import Any

from fakeserver import FakeServer

from tfce_eval.run.retry import RetryPolicy
from tfce_eval.run.runner import RunConfig
from tfce_eval.scoring.options import CheckMode

ROOT = Path(__file__).resolve().parents[1]
DATA = Path(__file__).parent / "fixtures" / "run_small"
FAST_RETRY = RetryPolicy(max_retries=2, base_delay_s=0.01, max_delay_s=0.05)


def config(server: FakeServer, out: Path, sdk: str = "openai", **changes: Any) -> RunConfig:
    """A run of DATA against the loopback server through `sdk`'s API, quick to retry."""
    base = RunConfig(
        model=f"{sdk}/fake-model",
        data=DATA,
        out=out,
        base_url=server.base_url if sdk == "openai" else server.root_url,
        check=CheckMode.AST,
        concurrency=4,
        timeout_s=0.5,
        retry=FAST_RETRY,
    )
    return replace(base, **changes)


def outputs(run_dir: Path) -> list[dict[str, Any]]:
    """The records of a run's outputs.jsonl, in the order they were written."""
    return [json.loads(line) for line in (run_dir / "outputs.jsonl").read_bytes().splitlines()]


def run_args(
    out: Path, *extra: str, model: str = "openai/fake-model", base_url: str | None = None
) -> list[str]:
    """The arguments of `tfce-eval run` on DATA, quick to retry (`--base-url` when given)."""
    base = [] if base_url is None else ["--base-url", base_url]
    return [
        "run",
        "--model",
        model,
        *base,
        "--data",
        str(DATA),
        "--out",
        str(out),
        "--check",
        "ast",
        "--retry-delay",
        "0.01",
        *extra,
    ]


def run_argv(server: FakeServer, out: Path, *extra: str) -> list[str]:
    """`tfce-eval run` on DATA against the loopback server, as a command line."""
    return [sys.executable, "-m", "tfce_eval", *run_args(out, *extra, base_url=server.base_url)]


def run_env(key: str) -> dict[str, str]:
    """The environment of a run in its own process: this checkout importable, `key` as
    the OpenAI key, no base URL from outside."""
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(ROOT), env.get("PYTHONPATH")]))
    env["OPENAI_API_KEY"] = key
    env.pop("OPENAI_BASE_URL", None)
    return env
