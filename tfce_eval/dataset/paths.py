"""Where the built-in datasets live, for an editable install and for an installed wheel.

Every task's loader takes `builtin:NAME` for one of them (`builtin_dir`), so a library
caller names them as the command line does; `tfce_eval.tasks` lists them for `datasets`.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

from tfce_eval.errors import DataError, UsageError
from tfce_eval.model import TaskKind
from tfce_eval.words import article

_PACKAGE = Path(__file__).resolve().parent.parent
BUILTIN_PREFIX = "builtin:"


def recorded(path: str | Path | None) -> str | None:
    """A path as a summary records it: absolute, so that a report made from another
    directory finds the file (None, and `builtin:NAME`, as they are). A built-in dataset
    (or a file in it) is recorded as `builtin:NAME[/FILE]`, not where this install keeps
    it: a report made after an upgrade, or from another environment, still finds it."""
    if path is None or str(path).startswith(BUILTIN_PREFIX):
        return None if path is None else str(path)
    absolute = os.path.abspath(path)
    for entry in BUILTINS:
        root = str(entry.path)
        if not entry.folder:
            # The function-calling data's root may be the checkout itself: only the root
            # is the dataset, not every file under it.
            if absolute == root:
                return BUILTIN_PREFIX + entry.name
            continue
        if absolute == root:
            return BUILTIN_PREFIX + entry.name
        if absolute.startswith(root + os.sep):
            inner = Path(os.path.relpath(absolute, root)).as_posix()
            return f"{BUILTIN_PREFIX}{entry.name}/{inner}"
    return absolute


def builtin_data_dir() -> Path:
    """The directory that holds the built-in `questions/`, `answers/` and `functions/`.

    A wheel carries them in `tfce_eval/data/`; an editable install or a source checkout
    reads them from the repository root beside the package.
    """
    for candidate in (_PACKAGE / "data", _PACKAGE.parent):
        if (candidate / "questions").is_dir() and (candidate / "answers").is_dir():
            return candidate
    return _PACKAGE / "data"


@dataclass(frozen=True, slots=True)
class Builtin:
    """A dataset shipped in the package."""

    name: str
    task: TaskKind
    layout: str
    description: str
    folder: str  # under tfce_eval/builtin/, or "" for the function-calling data

    @property
    def path(self) -> Path:
        if not self.folder:
            return builtin_data_dir()
        return _PACKAGE / "builtin" / self.folder


BUILTINS: tuple[Builtin, ...] = (
    Builtin("tfce", TaskKind.FC, "BFCL/TFCE", "telecom function calls", ""),
    Builtin(
        "telco-qna",
        TaskKind.QA,
        "Telco-Retrieve",
        "3GPP questions: mc, tf, open",
        "telco-qna",
    ),
    Builtin(
        "qasper-rag",
        TaskKind.RETRIEVAL,
        "HF/MTEB",
        "paper chunks; also qa",
        "qasper-rag",
    ),
    Builtin(
        "conditionalqa",
        TaskKind.RETRIEVAL,
        "chunk spans",
        "span gold, plain + coref",
        "conditionalqa",
    ),
)


def builtin(name: str) -> Builtin:
    """The built-in dataset called `name`; UsageError naming the choices otherwise."""
    for entry in BUILTINS:
        if entry.name == name:
            return entry
    names = ", ".join(b.name for b in BUILTINS)
    raise UsageError(f"no built-in dataset {name!r}; choose from {names} (tfce-eval datasets)")


#: What a dataset of each task is for, in messages: `not a qa dataset (it is for ...)`.
PURPOSES = {
    TaskKind.FC: "function calling",
    TaskKind.QA: "question answering",
    TaskKind.RETRIEVAL: "retrieval",
}


def other_task_error(entry: Builtin, task: TaskKind, give: str = "give") -> DataError:
    """The error for the built-in dataset `entry` read as a `task` dataset: what it is
    for, and the built-in datasets of `task` to `give` instead (`point --data at`)."""
    others = ", ".join(BUILTIN_PREFIX + b.name for b in BUILTINS if b.task is task)
    return DataError(
        f"not {article(task)} dataset (it is for {PURPOSES[entry.task]})",
        path=BUILTIN_PREFIX + entry.name,
        hint=f"{give} {article(task)} dataset: {others} or a directory (tfce-eval datasets lists "
        "them)",
    )


def builtin_dir(spec: str | Path, task: TaskKind, *, also: TaskKind | None = None) -> Path | None:
    """The directory of `spec` when it is `builtin:NAME` of a dataset of `task` (or of
    `also`: QASPER-RAG is a retrieval dataset whose answers are questions); None for any
    other path. A built-in dataset of another task is a DataError naming the built-in
    datasets of `task`."""
    text = str(spec)
    if not text.startswith(BUILTIN_PREFIX):
        return None
    # `builtin:NAME/FILE` names a file in it, as a summary records a split file.
    name, _, inner = text[len(BUILTIN_PREFIX) :].partition("/")
    entry = builtin(name)
    # A folder or file inside one is whatever it is (the Telco corpus in builtin:telco-qna).
    if entry.task is not task and entry.task is not also and not inner:
        raise other_task_error(entry, task)
    return entry.path / inner if inner else entry.path
