"""Where the built-in dataset lives, for an editable install and for an installed wheel."""

from __future__ import annotations

from pathlib import Path

_PACKAGE = Path(__file__).resolve().parent.parent


def builtin_data_dir() -> Path:
    """The directory that holds the built-in `questions/`, `answers/` and `functions/`.

    A wheel carries them in `tfce_eval/data/`; an editable install or a source checkout
    reads them from the repository root beside the package.
    """
    for candidate in (_PACKAGE / "data", _PACKAGE.parent):
        if (candidate / "questions").is_dir() and (candidate / "answers").is_dir():
            return candidate
    return _PACKAGE / "data"
