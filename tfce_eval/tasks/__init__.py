"""The three kinds of task and where a dataset of each comes from.

A dataset has one task kind, `fc` (function calling), `qa` (question answering) or
`retrieval`, detected from its files or given with `--task`. Built-in datasets ship inside
the package and are addressed as `builtin:NAME`; `tfce-eval datasets` lists them. Each kind
plugs into the shared verbs through four seams: a loader (and its validator), a per-item
record, a summary, and a report section (a `report.document.Document`). docs/architecture.md
shows where each lives.
"""

from __future__ import annotations

import codecs
import json
import os
import re
import stat
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import BinaryIO

from tfce_eval.dataset.paths import BUILTIN_PREFIX as BUILTIN_PREFIX
from tfce_eval.dataset.paths import BUILTINS as BUILTINS
from tfce_eval.dataset.paths import Builtin as Builtin
from tfce_eval.dataset.paths import builtin as builtin
from tfce_eval.dataset.paths import other_task_error
from tfce_eval.errors import DataError, UsageError
from tfce_eval.jsonl import DEFAULT_LIMITS, JsonRefused, parse_json
from tfce_eval.jsonl.files import unreadable

# The closed set lives with the others in model; named here too, where tasks are told apart.
from tfce_eval.model import TaskKind as TaskKind
from tfce_eval.model import parse_choice

#: What a dataset of each task is called in messages.
TASK_WORDS = {
    TaskKind.FC: "function-calling",
    TaskKind.QA: "question-answering",
    TaskKind.RETRIEVAL: "retrieval",
}


def other_tasks_refusal(
    given: Sequence[tuple[str, tuple[TaskKind, ...]]], task: TaskKind, data: str
) -> UsageError:
    """The UsageError for options (or library fields) given for datasets of other tasks
    than `task`, those for the same tasks named together: `--split is for retrieval and
    question-answering datasets; builtin:tfce is a function-calling dataset`."""
    groups: dict[tuple[TaskKind, ...], list[str]] = {}
    for name, tasks in given:
        groups.setdefault(tasks, []).append(name)
    said = []
    for tasks, names in groups.items():
        named = " and ".join([", ".join(names[:-1]), names[-1]] if len(names) > 1 else names)
        verb = "is" if len(names) == 1 else "are"
        said.append(f"{named} {verb} for {' and '.join(TASK_WORDS[t] for t in tasks)} datasets")
    return UsageError(f"{'; '.join(said)}; {data} is a {TASK_WORDS[task]} dataset")


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
    def name(self) -> str:
        """The dataset as the user named it: `builtin:NAME`, or its directory."""
        return f"{BUILTIN_PREFIX}{self.builtin}" if self.builtin else str(self.path)

    @property
    def directory(self) -> Path:
        """The dataset's directory; DataError for the built-in function-calling dataset,
        which has none and is no retrieval or QA dataset."""
        if self.path is None:
            raise _fc_only(self.task)
        return self.path


def _fc_only(task: TaskKind) -> DataError:
    """The error for the built-in function-calling dataset read as another task's."""
    return other_task_error(builtin("tfce"), task, "point --data at")


def resolve_data(spec: str | Path | None, task: TaskKind | str | None = None) -> DataRef:
    """`--data` (a directory, `builtin:NAME`, or nothing) and `--task` to a DataRef.

    Nothing means the built-in function-calling dataset, as it always has; asked for as
    a retrieval or QA dataset it is a DataError, as is any built-in dataset asked for as
    another task's (but a retrieval one as QA: QASPER-RAG's answers are questions; one
    without answers is refused by the command that reads it).
    """
    if task is not None:  # a library caller may give the task as its text
        task = parse_choice(TaskKind, task, "task")
    if spec is None or str(spec) == "":
        return _builtin_fc(task)
    text = str(spec)
    # `builtin:NAME`, or its directory (as the command line's --data hands it on).
    entry = builtin(text[len(BUILTIN_PREFIX) :]) if text.startswith(BUILTIN_PREFIX) else None
    entry = entry or _builtin_at(text)
    if entry is not None:
        if entry.name == "tfce":
            return _builtin_fc(task)
        if task not in (None, entry.task) and (task, entry.task) != _QA_OF_RETRIEVAL:
            raise other_task_error(entry, task, "point --data at")
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


def _builtin_at(text: str) -> Builtin | None:
    """The built-in QA or retrieval dataset whose directory `text` names, or None."""
    if not text:
        return None
    where = os.path.abspath(text)
    return next((b for b in BUILTINS if b.folder and str(b.path) == where), None)


#: A task a built-in dataset of another may be read as: (asked, the dataset's own).
_QA_OF_RETRIEVAL = (TaskKind.QA, TaskKind.RETRIEVAL)


def _builtin_fc(task: TaskKind | None) -> DataRef:
    if task not in (None, TaskKind.FC):
        raise _fc_only(task)
    return DataRef(None, TaskKind.FC, "tfce")


@dataclass(frozen=True, slots=True)
class _Unread:
    """A file that might have told the task but could not be read: why, and the fix."""

    path: Path
    why: str
    fix: str

    @classmethod
    def os_error(cls, path: Path, exc: OSError) -> _Unread:
        """As `jsonl.files.unreadable` words a file that cannot be opened or read."""
        error = unreadable(path, exc)
        return cls(path, error.message, error.hint or "")


#: How far into a .json file the "questions" key is looked for: what the loader reads.
_SCAN_LIMIT = DEFAULT_LIMITS.max_bytes
_CHUNK = 1 << 20
_QUESTIONS_KEY = re.compile(rb'"questions"\s*:')
_UTF16 = (b"\xff\xfe", b"\xfe\xff")


def _open_candidate(path: Path) -> BinaryIO | _Unread:
    """A top-level file opened for reading, or why it cannot be: a file that is not a
    regular one (a named pipe) is never opened, so nothing waits for a writer."""
    try:
        mode = path.stat().st_mode
        if not stat.S_ISREG(mode):
            what = "a named pipe" if stat.S_ISFIFO(mode) else "not a regular file"
            return _Unread(path, f"{what}, not a file", "give the split as a regular file")
        return path.open("rb")
    except OSError as exc:
        return _Unread.os_error(path, exc)


def _not_text(path: Path, head: bytes) -> _Unread | None:
    """Why the start of a file is no JSON text to look into, or None."""
    if not head.strip():
        return _Unread(path, "the file is empty", "write the split into it")
    if head.startswith(_UTF16) or head[:2].count(0):
        return _Unread(path, "the file is UTF-16, not UTF-8", "save it as UTF-8")
    return None


def _has_questions_key(path: Path) -> bool | _Unread:
    """Whether a .json file is a Telco-Retrieve split (`{"questions": [...]}`): an object
    with a "questions" key, looked for as far as the loader would read."""
    handle = _open_candidate(path)
    if isinstance(handle, _Unread):
        return handle
    with handle:
        try:
            head = handle.read(_CHUNK)
            unread = _not_text(path, head)
            if unread is not None:
                return unread
            if not head.removeprefix(codecs.BOM_UTF8).lstrip().startswith(b"{"):
                return False
            window, seen = head, len(head)
            while not _QUESTIONS_KEY.search(window):
                block = handle.read(_CHUNK) if seen < _SCAN_LIMIT else b""
                if not block:
                    return False
                seen += len(block)
                # A key split across two blocks is found in the overlap kept.
                window = window[-4096:] + block
        except OSError as exc:
            return _Unread.os_error(path, exc)
    return True


def _jsonl_has(path: Path, *alternatives: tuple[str, ...]) -> bool | _Unread:
    """Whether the file's first line is a record with all the keys of one alternative."""
    handle = _open_candidate(path)
    if isinstance(handle, _Unread):
        return handle
    try:
        with handle:
            first = handle.readline(1 << 20)
            while first and not first.strip():
                first = handle.readline(1 << 20)
    except OSError as exc:
        return _Unread.os_error(path, exc)
    unread = _not_text(path, first)
    if unread is not None:
        return unread
    try:
        record = parse_json(first)
    except JsonRefused as exc:  # JSON past a limit (a huge integer): its keys as text
        if exc.encoding:
            return _Unread(path, f"line 1: {exc.what}", exc.hint)
        if exc.syntax:
            # A JSON array or a pretty-printed record: its first record, from the head.
            return _first_record_has(path, alternatives)
        return any(all(f'"{k}"'.encode() in first for k in keys) for keys in alternatives)
    if isinstance(record, list):  # a JSON array on one line
        record = record[0] if record else None
    return isinstance(record, dict) and any(all(k in record for k in keys) for keys in alternatives)


def _first_record_has(path: Path, alternatives: tuple[tuple[str, ...], ...]) -> bool:
    """Whether the first record of a file that is a JSON array, or pretty-printed records,
    has all the keys of one alternative: read from the file's first MiB (its keys as text
    when the record goes on past it, or holds what `json` refuses, like a huge integer)."""
    try:
        with path.open("rb") as handle:
            head = handle.read(_CHUNK)
    except OSError:
        return False
    text = head.removeprefix(codecs.BOM_UTF8).decode("utf-8", errors="replace").lstrip()
    if text.startswith("["):
        text = text[1:].lstrip()
    if not text.startswith("{"):
        return False
    try:
        record, _ = json.JSONDecoder().raw_decode(text)
    except (ValueError, RecursionError):
        return any(all(f'"{k}"' in text for k in keys) for keys in alternatives)
    return isinstance(record, dict) and any(all(k in record for k in keys) for keys in alternatives)


def _top_has_fc_questions(path: Path) -> bool:
    """Whether question files sit at the directory's top, as in BFCL's own data/ folder
    (`BFCL_v3_simple.json` beside `possible_answer/`): records with a question and docs."""
    return any(
        file.suffix in (".json", ".jsonl")
        and _jsonl_has(file, ("question", "function"), ("question", "functions")) is True
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
    unread: _Unread | None = None
    for file in sorted(path.iterdir()):
        suffix = file.suffix.lower()
        if suffix not in (".json", ".jsonl") or file.name.startswith(".") or file.is_dir():
            continue
        if suffix == ".json":
            found = _has_questions_key(file)
        else:
            found = _jsonl_has(file, ("question", "answer_type"))
        if found is True:
            return TaskKind.QA
        unread = unread or (found or None)
    if unread is not None:
        # The file that might have told it: its own problem, not the layout's.
        raise DataError(
            f"cannot tell which task this dataset is for: {unread.why}",
            path=str(unread.path),
            hint=f"{unread.fix}, or say --task fc|qa|retrieval",
        )
    raise DataError(
        "cannot tell which task this dataset is for",
        path=str(path),
        hint="function calling wants questions/ (or question files at the top) and "
        "answers/ or possible_answer/; retrieval corpus/ queries/ "
        "qrels/ (or corpus.jsonl, or documents/ queries/); question answering a split "
        'file {"questions": [...]}. Or say --task fc|qa|retrieval',
    )
