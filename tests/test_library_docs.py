"""The Python examples of README.md and docs/*.md run as written, on a fresh clone.

Every fenced `python` block runs in a process of its own, from a directory laid out as
the repository's root (it holds `examples/`), offline. A block that needs what a test
cannot have (a model server, a download) is marked with an HTML comment on the line
before it, `<!-- not run: why -->`; it must still compile.
"""

from __future__ import annotations

import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
DOCS = [REPO / "README.md", *sorted((REPO / "docs").glob("*.md"))]
FENCE = re.compile(r"^```python\n(.*?)^```$", re.S | re.M)
NOT_RUN = re.compile(r"<!-- not run: [^>]+ -->\s*$")


def blocks() -> list[tuple[str, str, bool]]:
    """(file:line, code, runs) of every python block."""
    found = []
    for path in DOCS:
        text = path.read_text(encoding="utf-8")
        for match in FENCE.finditer(text):
            line = text.count("\n", 0, match.start()) + 1
            before = text[: match.start()].rstrip("\n").rsplit("\n", 1)[-1]
            runs = not NOT_RUN.search(before)
            found.append((f"{path.relative_to(REPO)}:{line}", match.group(1), runs))
    return found


BLOCKS = blocks()


def test_the_library_sections_have_examples_that_run() -> None:
    running = {where.split(":")[0] for where, _, runs in BLOCKS if runs}
    assert {"README.md", "docs/qa.md", "docs/retrieval.md"} <= running


def test_no_python_example_hides_in_an_indented_block() -> None:
    """An indented block is not run: Python examples are fenced, so that this file runs them."""
    for path in DOCS:
        text = path.read_text(encoding="utf-8")
        assert not re.search(r"\n\n    (from|import) tfce_eval", text), path


@pytest.mark.parametrize(("where", "code", "runs"), BLOCKS, ids=[b[0] for b in BLOCKS])
def test_a_python_example_runs_as_written(
    where: str, code: str, runs: bool, tmp_path: Path
) -> None:
    compile(code, where, "exec")
    if not runs:
        return
    shutil.copytree(REPO / "examples", tmp_path / "examples")
    done = subprocess.run(
        [sys.executable, "-c", code],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=300,
        env={"PATH": "/usr/bin:/bin", "HOME": str(tmp_path), "PYTHONPATH": str(REPO)},
    )
    assert done.returncode == 0, f"{where}:\n{done.stderr}"
    assert done.stdout.strip(), f"{where} printed nothing"
