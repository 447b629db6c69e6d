"""The built-in dataset ships inside the wheel, so a plain `pip install .` finds it."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tarfile
import zipfile
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
_NOT_SOURCE = shutil.ignore_patterns(
    ".git",
    ".venv*",
    "build",
    "dist",
    "*.egg-info",
    "out",
    "results",
    "runs",
    "scored",
    "__pycache__",
    ".*_cache",
)


@pytest.mark.slow
def test_wheel_carries_the_builtin_dataset_and_finds_it(tmp_path: Path) -> None:
    # `pip install .` builds in the tree it is given: a copy, so that no build/ or
    # egg-info is left in the checkout.
    tree = tmp_path / "tree"
    shutil.copytree(REPO, tree, ignore=_NOT_SOURCE)
    build = subprocess.run(
        [
            sys.executable,
            "-m",
            "pip",
            "wheel",
            "--no-deps",
            "--no-build-isolation",
            "-q",
            "-w",
            str(tmp_path / "dist"),
            str(tree),
        ],
        capture_output=True,
        text=True,
        timeout=300,
        cwd=tmp_path,
    )
    assert build.returncode == 0, build.stderr
    wheel = next((tmp_path / "dist").glob("tfce_eval-*.whl"))
    names = set(zipfile.ZipFile(wheel).namelist())
    for name in ("simple.jsonl", "parallel_multiple.jsonl"):
        assert f"tfce_eval/data/questions/{name}" in names
        assert f"tfce_eval/data/answers/{name}" in names
    assert "tfce_eval/data/functions/__init__.py" in names
    assert not any("__pycache__" in n for n in names)

    # Unpacked away from the repository, the package finds its own copy of the data.
    site = tmp_path / "site"
    zipfile.ZipFile(wheel).extractall(site)
    env = {**os.environ, "PYTHONPATH": str(site)}
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    probe = subprocess.run(
        [sys.executable, "-c", "import tfce_eval.dataset.paths as p; print(p.builtin_data_dir())"],
        capture_output=True,
        text=True,
        env=env,
        cwd=elsewhere,
        timeout=60,
    )
    assert probe.stdout.strip() == str(site / "tfce_eval" / "data"), probe.stderr
    validate = subprocess.run(
        [sys.executable, "-m", "tfce_eval", "validate"],
        capture_output=True,
        text=True,
        env=env,
        cwd=elsewhere,
        timeout=120,
    )
    assert validate.returncode == 0, validate.stdout + validate.stderr
    assert "0 errors" in validate.stdout


@pytest.mark.slow
def test_a_wheel_built_from_the_sdist_carries_every_builtin_dataset(tmp_path: Path) -> None:
    """`python -m build` makes the wheel from the sdist: the folders setup.py copies into
    the wheel (questions/, answers/, functions/) must be in the sdist too."""
    sdist_dir, wheel_dir = tmp_path / "sdist", tmp_path / "wheel"
    make_sdist = (
        "import sys; from setuptools import build_meta; print(build_meta.build_sdist(sys.argv[1]))"
    )
    # From a copy without the build products a checkout collects (setuptools would take
    # the file list of a kept tfce_eval.egg-info and hide a missing MANIFEST.in).
    tree = tmp_path / "tree"
    shutil.copytree(REPO, tree, ignore=_NOT_SOURCE)
    built = subprocess.run(
        [sys.executable, "-c", make_sdist, str(sdist_dir)],
        capture_output=True,
        text=True,
        timeout=300,
        cwd=tree,
    )
    assert built.returncode == 0, built.stderr
    sdist = sdist_dir / built.stdout.strip().splitlines()[-1]
    with tarfile.open(sdist) as archive:
        archive.extractall(tmp_path / "unpacked", filter="data")
    (source,) = (tmp_path / "unpacked").iterdir()
    for folder in ("questions", "answers", "functions", "tests", "tfce_eval/builtin", "bench"):
        assert (source / folder).is_dir(), f"{folder}/ is not in the sdist"
    # What the tests read besides the package: the CI script and every tracked markdown file.
    assert (source / ".ci" / "run").is_file() and (source / "bench" / "README.md").is_file()
    assert (source / ".gitignore").is_file()
    assert not (source / "bench" / "out").exists()
    assert not list(source.rglob("__pycache__"))
    pip_wheel = ["pip", "wheel", "--no-deps", "--no-build-isolation", "-q", "-w", str(wheel_dir)]
    wheel = subprocess.run(
        [sys.executable, "-m", *pip_wheel, str(source)],
        capture_output=True,
        text=True,
        timeout=300,
        cwd=tmp_path,
    )
    assert wheel.returncode == 0, wheel.stderr
    names = set(zipfile.ZipFile(next(wheel_dir.glob("tfce_eval-*.whl"))).namelist())
    assert "tfce_eval/data/questions/simple.jsonl" in names
    assert "tfce_eval/data/answers/parallel_multiple.jsonl" in names
    assert "tfce_eval/data/functions/__init__.py" in names
    assert "tfce_eval/py.typed" in names
    for name in ("telco-qna", "qasper-rag", "conditionalqa"):
        assert any(n.startswith(f"tfce_eval/builtin/{name}/") for n in names), name
