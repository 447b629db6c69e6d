"""Child processes, timed from spawn to exit, each with its own peak RSS."""

from __future__ import annotations

import os
import subprocess
import sys
import tempfile
import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from benchlib import bytecode_env

BENCH = Path(__file__).resolve().parent.parent
REPO = BENCH.parent
BFCL_PYTHON = BENCH / ".venv-bfcl" / "bin" / "python"


@dataclass
class Measured:
    wall_s: float
    rss_mb: float
    returncode: int
    stdout: str
    stderr: str


def child_env() -> dict[str, str]:
    """This environment with the repository on the path and bytecode cached in
    bench/out/pycache (benchlib.bytecode_env): each command runs once untimed first."""
    env = bytecode_env()
    env["PYTHONPATH"] = os.pathsep.join(p for p in (str(REPO), env.get("PYTHONPATH")) if p)
    return env


def run_child(
    cmd: Sequence[str], *, env: dict[str, str] | None = None, cwd: Path | None = None
) -> Measured:
    """Run `cmd`, timing it from spawn to exit and reading that child's own peak RSS."""
    # Output goes to files, not pipes: wait4 must reap the child itself to read its rusage.
    with tempfile.TemporaryFile() as out, tempfile.TemporaryFile() as err:
        start = time.perf_counter()
        proc = subprocess.Popen(list(cmd), stdout=out, stderr=err, env=env, cwd=cwd)
        _, status, usage = os.wait4(proc.pid, 0)
        wall = time.perf_counter() - start
        proc.returncode = os.waitstatus_to_exitcode(status)
        out.seek(0)
        err.seek(0)
        return Measured(
            wall,
            usage.ru_maxrss / 1024.0,
            proc.returncode,
            out.read().decode("utf-8", "replace"),
            err.read().decode("utf-8", "replace"),
        )


def score_command() -> tuple[list[str], str]:
    """How `tfce-eval` is started: the installed script if there is one, else `python -m`."""
    script = Path(sys.executable).with_name("tfce-eval")
    if script.is_file():
        return [str(script)], _short(script)
    return [sys.executable, "-m", "tfce_eval"], f"{Path(sys.executable).name} -m tfce_eval"


def _short(path: Path) -> str:
    """`path` relative to the repository when it is in it."""
    return str(path.relative_to(REPO)) if path.is_relative_to(REPO) else str(path)


def checked(m: Measured, what: str) -> Measured:
    if m.returncode != 0:
        raise SystemExit(f"{what} failed (exit {m.returncode}):\n{m.stderr[-3000:]}")
    return m
