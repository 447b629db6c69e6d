"""The Python examples of README.md and docs/*.md run as written, on a fresh clone.

Every fenced `python` block runs in a process of its own, from a directory laid out as
the repository's root (it holds `examples/`), offline. A block that needs what a test
cannot have (a model server, a download) is marked with an HTML comment on the line
before it, `<!-- not run: why -->`; it must still compile.

Every Markdown file of the repository is wrapped at 80 columns, code fences included;
a table row, a heading and a line of one word (a long URL) cannot wrap and may be wider.
"""

from __future__ import annotations

import re
import shutil
import subprocess
import sys
import unicodedata
from pathlib import Path

import pytest

from tfce_eval.words import listed

REPO = Path(__file__).resolve().parents[1]
DOCS = [REPO / "README.md", *sorted((REPO / "docs").glob("*.md"))]
FENCE = re.compile(r"^```python\n(.*?)^```$", re.S | re.M)
NOT_RUN = re.compile(r"<!-- not run: [^>]+ -->\s*$")
WIDTH = 80
FENCE_MARK = re.compile(r"^ {0,3}(`{3,}|~{3,})")
LIST_MARKER = re.compile(r"^\s*(?:[-*+]|\d{1,9}[.)])\s+")
HEADING = re.compile(r"^ {0,3}#{1,6}(\s|$)")
# Folders of files a command writes, not documents: reports a test compares byte for
# byte (tests/fixtures), runs and builds (results/ holds one document, its README).
WRITTEN = {"fixtures", "build", "dist", "out", "runs", "scored"}


def shipped(path: Path) -> bool:
    parts = path.relative_to(REPO).parts
    folders = parts[:-1]
    if any(p.startswith(".") or p.endswith(".egg-info") or p in WRITTEN for p in folders):
        return False
    return parts[0] != "results" or parts == ("results", "README.md")


MARKDOWN = sorted(p for p in REPO.rglob("*.md") if shipped(p))


def columns(line: str) -> int:
    return sum(2 if unicodedata.east_asian_width(c) in "WF" else 1 for c in line)


def too_wide(text: str) -> list[str]:
    """'line N (C columns)' for each line that could wrap and is over 80 columns."""
    found = []
    fence = ""
    for number, line in enumerate(text.splitlines(), 1):
        mark = FENCE_MARK.match(line)
        if fence:
            if mark and mark.group(1)[0] == fence[0] and len(mark.group(1)) >= len(fence):
                fence = ""
        elif mark:
            fence = mark.group(1)
        elif line.lstrip().startswith("|") or HEADING.match(line):
            continue
        if columns(line) > WIDTH and len(LIST_MARKER.sub("", line).split()) > 1:
            found.append(f"line {number} ({columns(line)} columns)")
    return found


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


def test_the_repository_has_markdown_files() -> None:
    names = {str(p.relative_to(REPO)) for p in MARKDOWN}
    assert {"README.md", "docs/qa.md", "bench/README.md", "examples/README.md"} <= names


@pytest.mark.parametrize("path", MARKDOWN, ids=[str(p.relative_to(REPO)) for p in MARKDOWN])
def test_markdown_is_wrapped_at_80_columns(path: Path) -> None:
    wide = too_wide(path.read_text(encoding="utf-8"))
    assert not wide, f"{path.relative_to(REPO)}: wrap at 80 columns: {listed(wide)}"


def test_ci_runs_the_readme_test_command_word_for_word() -> None:
    readme = (REPO / "README.md").read_text(encoding="utf-8")
    after = readme.split("Run the tests (what CI runs, word for word):", 1)[1]
    block = after.split("```\n", 2)[1]
    command = block.replace("\\\n", " ").split()
    ci = (REPO / ".ci" / "run").read_text(encoding="utf-8").strip().splitlines()[-1]
    assert command == ci.split()
