"""Helpers the bench scripts share: option types, output that fits 80 columns, data
directories that an interrupted run never leaves looking complete, and bytecode caching.

Standard library only, so that every script can import it in either environment.
"""

from __future__ import annotations

import argparse
import json
import os
import pstats
import shutil
import sys
import sysconfig
import textwrap
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any

WIDTH = 80
BENCH = Path(__file__).resolve().parent
REPO = BENCH.parent
#: Where timed commands keep their compiled bytecode (see `bytecode_env`).
PYCACHE = BENCH / "out" / "pycache"


def at_least_one(text: str) -> int:
    """An argparse type: an integer of at least 1 (a repeat count)."""
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not an integer") from None
    if value < 1:
        raise argparse.ArgumentTypeError(f"{value} is below 1: give 1 or more")
    return value


def wrap(text: str, indent: str = "", more: str | None = None) -> str:
    """`text` filled to 80 columns, first line after `indent`, the others after `more`
    (two spaces deeper by default). Words are never split: a path longer than a line
    stays whole."""
    return textwrap.fill(
        text,
        WIDTH,
        initial_indent=indent,
        subsequent_indent=indent + "  " if more is None else more,
        break_long_words=False,
        break_on_hyphens=False,
    )


def shown(path: Path) -> str:
    """`path` relative to the current directory when it is under it, else as it is."""
    try:
        return str(path.resolve().relative_to(Path.cwd().resolve()))
    except ValueError:
        return str(path)


def complete(folder: Path, settings: dict[str, Any] | None = None) -> bool:
    """Whether `prepared` finished `folder` (with `settings`, when given)."""
    try:
        found = json.loads((folder / "settings.json").read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return False
    return settings is None or found == settings


def prepared(
    folder: Path,
    settings: dict[str, Any],
    make: Callable[[Path], None],
    *,
    force: bool = False,
) -> bool:
    """Make `folder` with `make` unless a complete one made with `settings` is there.

    `make` writes into a fresh `<folder>.partial`, which is renamed to `folder` with
    `settings.json` in it only when `make` has returned: a run interrupted while
    writing leaves no folder that looks complete, and data made with other settings
    are made again (`force`: always). Returns True when the folder was kept as it was.
    """
    if not force and complete(folder, settings):
        return True
    stamp = folder / "settings.json"
    partial = folder.with_name(folder.name + ".partial")
    shutil.rmtree(partial, ignore_errors=True)
    partial.mkdir(parents=True)
    make(partial)
    (partial / "settings.json").write_text(json.dumps(settings) + "\n", encoding="utf-8")
    stamp.unlink(missing_ok=True)  # first, so that a half-removed folder is never reused
    shutil.rmtree(folder, ignore_errors=True)
    partial.rename(folder)
    return False


def write_atomic(path: Path, text: str) -> None:
    """Write `text` to `path` through a temporary name, so that `path` is whole or absent."""
    part = path.with_name(path.name + ".partial")
    part.write_text(text, encoding="utf-8")
    os.replace(part, path)


def bytecode_env(env: dict[str, str] | None = None) -> dict[str, str]:
    """`env` (default: this process's) with compiled bytecode cached in bench/out/pycache.

    With PYTHONDONTWRITEBYTECODE set (the project's environment sets it), Python
    compiles every module of tfce-eval from source at every start, while installed
    packages come precompiled by pip; a timed command would then measure the compiler.
    Run each command once untimed first, so that the cache is written.
    """
    env = dict(os.environ if env is None else env)
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    env["PYTHONPYCACHEPREFIX"] = str(PYCACHE)
    return env


def _where(filename: str) -> str:
    """A profiled function's file, without the directories every entry shares."""
    roots = [str(REPO), sysconfig.get_path("purelib"), sysconfig.get_path("stdlib")]
    roots += [p for p in sys.path if p.endswith("site-packages")]
    for root in sorted(roots, key=len, reverse=True):
        if filename.startswith(root + os.sep):
            return filename[len(root) + 1 :]
    return filename


def profile_lines(
    stats: pstats.Stats, key: str, top: int, only: str | None = None
) -> Iterable[str]:
    """The `top` functions of a profile by own ("tottime") or cumulative time, two lines
    each: the figures and the function, then its file and line (shortened by `_where`).
    `only` keeps the functions whose file contains it."""
    table: dict[tuple[str, int, str], tuple[int, int, float, float, Any]]
    table = stats.stats  # type: ignore[attr-defined]
    rows = [
        (where, figures) for where, figures in table.items() if only is None or only in where[0]
    ]
    column = 2 if key == "tottime" else 3
    rows.sort(key=lambda row: row[1][column], reverse=True)
    total = getattr(stats, "total_tt", 0.0)
    yield f"{len(table)} functions, {total:.3f} s; the top {top} by {key}:"
    yield f"  {'own s':>8} {'cum s':>8} {'calls':>9}  function / file:line"
    for (filename, line, name), (prim, calls, own, cum, _) in rows[:top]:
        count = f"{calls}" if calls == prim else f"{calls}/{prim}"
        yield wrap(f"{own:8.3f} {cum:8.3f} {count:>9}  {name}", "  ", " " * 32)
        if filename != "~":
            yield wrap(f"{_where(filename)}:{line}", " " * 32, " " * 32)
