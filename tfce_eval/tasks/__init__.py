"""The three kinds of task and where a dataset of each comes from.

A dataset has one task kind, `fc` (function calling), `qa` (question answering) or
`retrieval`, detected from its files or given with `--task`. Built-in datasets ship inside
the package and are addressed as `builtin:NAME`; `tfce-eval datasets` lists them. Each kind
plugs into the shared verbs through four seams: a loader (and its validator), a per-item
record, a summary, and a report section (a `report.document.Document`). docs/architecture.md
shows where each lives.
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass
from pathlib import Path

from tfce_eval.dataset.paths import BUILTIN_PREFIX as BUILTIN_PREFIX
from tfce_eval.dataset.paths import BUILTINS as BUILTINS
from tfce_eval.dataset.paths import Builtin as Builtin
from tfce_eval.dataset.paths import builtin as builtin
from tfce_eval.errors import DataError
from tfce_eval.jsonl import JsonRefused, parse_json

# The closed set lives with the others in model; named here too, where tasks are told apart.
from tfce_eval.model import TaskKind as TaskKind


def builtin_names(text: str) -> str:
    """`text` with the folder of every built-in dataset written `builtin:NAME`: a path
    inside the installed package says nothing to the user and may be longer than a line.
    """
    for entry in BUILTINS:
        root = str(entry.path)
        if not entry.folder:
            # The function-calling data's root may be the source checkout itself: only the
            # root alone and its own folders are the dataset's.
            if text == root:
                return BUILTIN_PREFIX + entry.name
            places = [(os.path.join(root, f), f"{BUILTIN_PREFIX}tfce/{f}") for f in _FC_FOLDERS]
        else:
            places = [(root, BUILTIN_PREFIX + entry.name)]
        for here, name in places:
            if here in text:
                # The folder itself or a path inside it; not a longer name that begins so.
                text = re.sub(re.escape(here) + r"(?![^\s/,:;)'\"])", name, text)
    return text


_FC_FOLDERS = ("questions", "answers", "functions")


@dataclass(frozen=True, slots=True)
class DataRef:
    """A dataset named on the command line: its directory, its task and its built-in name."""

    path: Path | None  # None: the built-in function-calling dataset, as before
    task: TaskKind
    builtin: str | None = None

    @property
    def directory(self) -> Path:
        """The dataset's directory; DataError for the built-in function-calling dataset,
        which has none and is no retrieval or QA dataset."""
        if self.path is None:
            raise _fc_only(self.task)
        return self.path


def _fc_only(task: TaskKind) -> DataError:
    """The error for the built-in function-calling dataset read as another task's."""
    others = ", ".join(BUILTIN_PREFIX + b.name for b in BUILTINS if b.task is task)
    return DataError(
        f"not a {task} dataset (it is for function calling)",
        path=BUILTIN_PREFIX + "tfce",
        hint=f"point --data (default: builtin:tfce) at a {task} dataset: {others} "
        "or a directory (tfce-eval datasets lists them)",
    )


def resolve_data(spec: str | Path | None, task: TaskKind | None = None) -> DataRef:
    """`--data` (a directory, `builtin:NAME`, or nothing) and `--task` to a DataRef.

    Nothing means the built-in function-calling dataset, as it always has; asked for as
    a retrieval or QA dataset it is a DataError, as any other dataset of the wrong task.
    """
    if spec is None or str(spec) == "":
        return _builtin_fc(task)
    text = str(spec)
    if text.startswith(BUILTIN_PREFIX):
        entry = builtin(text[len(BUILTIN_PREFIX) :])
        if entry.name == "tfce":
            return _builtin_fc(task)
        return DataRef(entry.path, task or entry.task, entry.name)
    path = Path(text)
    if not path.exists():
        raise DataError(
            "no such dataset directory",
            path=text,
            hint="give a dataset directory or builtin:NAME (tfce-eval datasets lists them)",
        )
    if not path.is_dir():
        raise DataError(
            "is a file, not a dataset directory",
            path=text,
            hint="give the directory that holds the dataset's files",
        )
    return DataRef(path, task or detect_task(path))


def _builtin_fc(task: TaskKind | None) -> DataRef:
    if task not in (None, TaskKind.FC):
        raise _fc_only(task)
    return DataRef(None, TaskKind.FC, "tfce")


def _has_questions_key(path: Path) -> bool:
    """Whether a .json file is a Telco-Retrieve split (`{"questions": [...]}` at the top)."""
    try:
        with path.open("rb") as fh:
            head = fh.read(4096).decode("utf-8", "replace")
    except OSError:
        return False
    return head.lstrip().startswith("{") and '"questions"' in head


def _jsonl_has(path: Path, *alternatives: tuple[str, ...]) -> bool:
    """Whether the file's first line is a record with all the keys of one alternative."""
    try:
        with path.open("rb") as fh:
            first = fh.readline(1 << 20)
        record = parse_json(first)
    except OSError:
        return False
    except JsonRefused as exc:  # JSON past a limit (a huge integer): its keys as text
        if exc.syntax:
            return False
        return any(all(f'"{k}"'.encode() in first for k in keys) for keys in alternatives)
    return isinstance(record, dict) and any(all(k in record for k in keys) for keys in alternatives)


def _top_has_fc_questions(path: Path) -> bool:
    """Whether question files sit at the directory's top, as in BFCL's own data/ folder
    (`BFCL_v3_simple.json` beside `possible_answer/`): records with a question and docs."""
    return any(
        file.suffix in (".json", ".jsonl")
        and _jsonl_has(file, ("question", "function"), ("question", "functions"))
        for file in sorted(path.iterdir())
        if file.is_file()
    )


def detect_task(path: Path) -> TaskKind:
    """The task kind of a dataset directory, from its files; DataError when none fits."""
    answers = (path / "answers").is_dir() or (path / "possible_answer").is_dir()
    if answers and ((path / "questions").is_dir() or _top_has_fc_questions(path)):
        return TaskKind.FC
    from tfce_eval.retrieval import detect_layout

    if detect_layout(path) is not None:
        return TaskKind.RETRIEVAL
    for file in sorted(path.iterdir()):
        if file.suffix == ".json" and _has_questions_key(file):
            return TaskKind.QA
        if file.suffix == ".jsonl" and _jsonl_has(file, ("question", "answer_type")):
            return TaskKind.QA
    raise DataError(
        "cannot tell which task this dataset is for",
        path=str(path),
        hint="function calling wants questions/ (or question files at the top) and "
        "answers/ or possible_answer/; retrieval corpus/ queries/ "
        "qrels/ (or corpus.jsonl, or documents/ queries/); question answering a split "
        'file {"questions": [...]}. Or say --task fc|qa|retrieval',
    )
