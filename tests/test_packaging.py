"""The built-in dataset ships inside the wheel, so a plain `pip install .` finds it."""

from __future__ import annotations

import os
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]


@pytest.mark.slow
def test_wheel_carries_the_builtin_dataset_and_finds_it(tmp_path: Path) -> None:
    try:
        import setuptools  # noqa: F401
    except ImportError:
        pytest.skip("setuptools is not installed in this environment")
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
            str(REPO),
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
