"""The split files of a Telco-Retrieve QnA dataset, and choosing one by name.

A dataset directory holds one or more split files side by side (`*.json`, `*.jsonl`,
`*.ndjson`); a split is named by file stem, and `set_105` also finds
`3gpp_question_set_105.json`, as the dataset card names its configs.
"""

from __future__ import annotations

import re
from pathlib import Path

from tfce_eval.errors import DataError, UsageError

_SUFFIXES = (".json", ".jsonl", ".ndjson")
#: The card's config names inside its file names; `choose_split` finds the file by either.
_CARD_CONFIGS = (re.compile(r"3gpp_question_(set_\d+)"), re.compile(r"(question_pool)_3gpp"))


def split_files(path: Path) -> dict[str, Path]:
    """The split files of a dataset directory (or the one file given), keyed by stem."""
    if path.is_file():
        return {path.stem: path}
    if not path.is_dir():
        raise DataError(
            "no such file or directory", path=str(path), hint="give a split file or its directory"
        )
    found: dict[str, Path] = {}
    for p in sorted(path.iterdir()):
        if p.is_file() and p.suffix.lower() in _SUFFIXES and not p.name.startswith("."):
            if p.stem in found:
                raise DataError(
                    f"two split files are named {p.stem}: {found[p.stem].name} and {p.name}",
                    path=str(path),
                    hint="keep one of them (a split is chosen by the name before its suffix)",
                )
            found[p.stem] = p
    if not found:
        raise DataError(
            "no split files (*.json, *.jsonl) in this directory",
            path=str(path),
            hint="point --data at the directory holding the Telco-Retrieve QnA split files",
        )
    return found


def _shown(stem: str) -> str:
    """A split as a message offers it: by the dataset card's config name when the file is
    named as the card names it (`set_105` for `3gpp_question_set_105`), else by stem."""
    for pattern in _CARD_CONFIGS:
        if (match := pattern.fullmatch(stem)) is not None:
            return match.group(1)
    return stem


def choose_split(path: Path, split: str | None) -> tuple[str, Path]:
    """The (stem, file) `split` names: an exact stem, else the one stem it begins or ends."""
    files = split_files(path)
    names = {stem: _shown(stem) for stem in files}
    shared = list(names.values())
    # A card name that two files would share (set_84.json beside 3gpp_question_set_84.json)
    # is no name for either: those are offered by stem.
    stems = ", ".join(
        sorted(name if shared.count(name) == 1 else stem for stem, name in names.items())
    )
    if split is None:
        if len(files) == 1:
            return next(iter(files.items()))
        raise DataError(
            f"{len(files)} split files; choose one",
            path=str(path),
            hint=f"give --split with one of: {stems}",
        )
    if split in files:
        return split, files[split]
    # A name offered above (the card's) chooses its file, even where it also begins another.
    named = [stem for stem, name in names.items() if name == split]
    if len(named) == 1:
        return named[0], files[named[0]]
    near = [s for s in files if s.endswith("_" + split) or s.startswith(split + "_")]
    if len(near) == 1:
        return near[0], files[near[0]]
    # An option naming nothing there is a usage error (exit 2), as for retrieval datasets.
    raise UsageError(
        f"{path} has no split {split!r}"
        + (" (several stems fit)" if near else "")
        + f"; its splits: {stems}"
    )
