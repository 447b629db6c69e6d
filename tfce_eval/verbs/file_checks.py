"""What `score` checks of its FILEs before it reads them: how many a task takes, where the
scores go, the same file given twice, a file of another task, a run directory given
instead of its file, and a run directory the scores would go into from other answers.
Each check is a UsageError or a DataError; they speak of FILE, --out and --data, the
command line's words, which `score_files`' arguments mirror.
"""

from __future__ import annotations

import os
from pathlib import Path

from tfce_eval.model import TaskKind
from tfce_eval.tasks import TASK_WORDS


def out_beside(files: tuple[str, ...], task: TaskKind, *, out_given: bool) -> Path | None:
    """Where the scores go without --out: beside the one FILE (None: the scorer's
    default), beside several FILEs when they share a directory. UsageError, --out given or
    not, for several FILEs of a task that reads one, a file a score writes among them, or
    the same file twice (by another name or a link); without --out, for FILEs in several
    directories (the scores could go to any of them, so --out must say where)."""
    if len(files) == 1:
        return None
    from tfce_eval.errors import UsageError

    if task is not TaskKind.FC:
        what = _WANTS[task][1]
        verb = "are" if what.endswith("s") else "is"
        raise UsageError(
            f"{what} {verb} one file: give one FILE, not {len(files)} "
            "(several FILEs are for function-calling outputs)"
        )
    from tfce_eval.scoring.rundir import SCORES, SUMMARY

    seen: dict[tuple[int, int] | Path, str] = {}
    directories: dict[Path, str] = {}  # each directory as the user spelled it first
    for file in files:
        path = Path(os.path.abspath(file))
        if path.name in (SUMMARY, SCORES):  # what `score DIR/*.json` picks up the 2nd time
            raise UsageError(
                f"{file} is a file a score writes, not outputs: leave it out of the FILEs "
                f"(BFCL's: {os.path.join(os.path.dirname(file), '*_result.json')})"
            )
        key = _identity(path)
        if key in seen:
            also = f" (also as {seen[key]})" if seen[key] != file else ""
            raise UsageError(f"{file} is given twice as FILE{also}: give it once")
        seen[key] = file
        directories.setdefault(path.parent, os.path.dirname(file) or ".")
    if len(directories) > 1 and not out_given:
        from tfce_eval.words import listed

        raise UsageError(
            f"the FILEs are in {len(directories)} directories "
            f"({listed(list(directories.values()))}): "
            "give --out DIR, the directory for the scores"
        )
    return Path(files[0]).parent


def refuse_another_runs_directory(target: Path | None, files: list[Path]) -> None:
    """UsageError when the scores would go into the directory of a model run (or of a
    `retrieve`) from other answers than its own: its run.json would then describe a
    model that did not give them, and report would say so."""
    from tfce_eval.errors import UsageError
    from tfce_eval.scoring.rundir import OUTPUTS, RUN_JSON, RUN_TREC

    if target is None or not (target / RUN_JSON).is_file():
        return
    # A retrieval run in JSON may itself be called run.json: then it is no run's record.
    own = [target / OUTPUTS, target / RUN_TREC, target / RUN_JSON]
    if len(files) == 1 and _identity(files[0]) in {_identity(path) for path in own}:
        return
    raise UsageError(
        f"{target} holds a run (run.json) whose answers are not the FILE given: its "
        "report would name that run's model; give another --out"
    )


def _identity(path: Path) -> tuple[int, int] | Path:
    """What tells one file from another: its device and inode (a link, a second name),
    else its absolute path (a file not there is named by the error that follows)."""
    try:
        found = path.stat()
    except OSError:
        return path
    return (found.st_dev, found.st_ino)


#: The longest first line read to tell which task's file it is.
_PEEK = 1 << 20
#: Per task: what its dataset is called, what `score` reads for it, and in what form.
_WANTS = {
    TaskKind.FC: (
        TASK_WORDS[TaskKind.FC],
        "function-calling outputs",
        'its items\' outputs (JSON Lines with "id" and "calls", "tool_calls", "content" or "text")',
    ),
    TaskKind.QA: (
        TASK_WORDS[TaskKind.QA],
        "QA predictions",
        'predictions for its questions (JSON Lines with "id" and "response" or "answer")',
    ),
    TaskKind.RETRIEVAL: (
        TASK_WORDS[TaskKind.RETRIEVAL],
        "a retrieval run",
        "a run of its queries (TREC `qid Q0 docid rank score tag`, JSON Lines or JSON)",
    ),
}


def refuse_another_tasks_file(path: Path, task: TaskKind, data: Path | None) -> None:
    """A file that is surely another task's (by its first line) stops the score with a
    message saying whose it is and what the dataset wants, not a puzzle about its lines."""
    found = first_line_task(path)
    if found is None or found[0] is task:
        return
    from tfce_eval.errors import DataError

    other, what, line = found
    kind, wanted, form = _WANTS[task]
    if data is None:  # the default dataset: the user may not know --data at all
        message = f"{what}, not {wanted}"
        hint = f"name its {_WANTS[other][0]} dataset: --data DIR or --data builtin:NAME"
    else:
        message = f"{what}, not {wanted}: {data} is a {kind} dataset"
        hint = f"score {form}, or give --data the dataset this file was made for"
    raise DataError(message, path=str(path), line=line, hint=hint)


def first_line_task(path: Path) -> tuple[TaskKind, str, int] | None:
    """(task, what the file is, line) when the first non-blank line is surely another
    task's: a TREC run or a retrieval run's JSON line, fc outputs (an id and an answer
    key) or QA predictions (an id and a response or answer); None when unsure."""
    from tfce_eval.jsonl import JsonRefused, parse_json
    from tfce_eval.scoring.rundir import ANSWER_KEYS

    try:
        with path.open("rb") as fh:
            number, raw = 0, b""
            while not raw.strip() and (raw := fh.readline(_PEEK + 1)):
                number += 1
    except OSError:
        return None  # the scorer says why it cannot read the file
    if not raw.strip() or len(raw) > _PEEK:
        return None
    fields = raw.decode("utf-8", "replace").split()
    if len(fields) == 6 and fields[1] in ("Q0", "0") and fields[3].isdigit():
        return TaskKind.RETRIEVAL, "a TREC run", number
    try:
        record = parse_json(raw)
    except JsonRefused:
        return None
    if not isinstance(record, dict):
        return None
    if {"query_id", "corpus_id"} <= record.keys() or {"qid", "docids"} <= record.keys():
        return TaskKind.RETRIEVAL, "a retrieval run (JSON Lines)", number
    item_id = record.get("id", record.get("question_id"))
    if not isinstance(item_id, str | int) or isinstance(item_id, bool):
        return None  # a JSON run {qid: {docid: score}} maps every key to an object
    fc = any(key in record for key in ANSWER_KEYS if key != "raw")
    qa = "response" in record or "answer" in record
    if fc and not qa and "id" in record:
        return (
            TaskKind.FC,
            "function-calling outputs (JSON Lines of items with an id and calls)",
            number,
        )
    if qa and not fc:
        what = "QA predictions (JSON Lines of items with an id and a response or answer)"
        return TaskKind.QA, what, number
    return None


def existing(file: str, task: TaskKind) -> Path:
    """FILE as a path; DataError when it is not a file, naming the file a run of `task`
    writes when FILE is a run directory that holds one."""
    path = Path(file)
    if path.is_file():
        return path
    from tfce_eval.errors import DataError

    hint = "give the file of outputs, predictions or the run to score"
    if path.is_dir():
        inside = [path / name for name in _run_files(task) if (path / name).is_file()]
        pattern = _outputs_pattern(file) if task is TaskKind.FC else None
        if inside:
            hint = f"give {inside[0]}, the file of the run in this directory"
        elif pattern:
            hint = f"give the files in it: {pattern} (several FILEs are read as one)"
        raise DataError("is a directory, not a file", path=file, hint=hint)
    raise DataError("no such file" if not path.exists() else "is not a file", path=file, hint=hint)


#: How many entries of a directory given as FILE are looked at for a hint.
_SCAN = 1000


def _outputs_pattern(directory: str) -> str | None:
    """`DIR/*_result.json` (BFCL's), `DIR/*.json` or `DIR/*.jsonl` when the directory
    holds such files, `DIR/*/*...` when its subdirectories do (BFCL v4's
    result/MODEL/non_live/...); else None."""
    from itertools import islice

    def suffix(where: str) -> str | None:
        try:
            with os.scandir(where) as entries:
                names = [e.name for e in islice(entries, _SCAN) if e.is_file()]
        except OSError:
            return None
        for ending in ("_result.json", ".json", ".jsonl"):  # BFCL's result files first
            if any(name.endswith(ending) for name in names):
                return ending
        return None

    found = suffix(directory)
    if found:
        return os.path.join(directory, "*" + found)
    try:
        with os.scandir(directory) as entries:
            subdirectories = [e.path for e in islice(entries, _SCAN) if e.is_dir()]
    except OSError:
        return None
    for subdirectory in subdirectories[:50]:
        found = suffix(subdirectory)
        if found:
            return os.path.join(directory, "*", "*" + found)
    return None


def _run_files(task: TaskKind) -> tuple[str, ...]:
    """The files a run of `task` writes that `score` reads, most likely first."""
    from tfce_eval.scoring.rundir import OUTPUTS, RUN_TREC

    if task is TaskKind.RETRIEVAL:
        return (RUN_TREC,)
    return (OUTPUTS, "predictions.jsonl") if task is TaskKind.QA else (OUTPUTS,)
