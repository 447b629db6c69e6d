"""The files of a run directory (docs/files.md 8) and how they are written and read.

Every file name lives here. Whole files (scores, summary, run.json, reports) are written to a
temporary file in the same directory and renamed into place, so a reader never sees half a
file. `outputs.jsonl` is the only file that grows (run.appender writes it during a run): one
complete line per finished item, flushed and fsynced, so a run killed at any moment keeps
every finished item; a torn last line (the line being written when the process died) is
detected and dropped on reading, and cut off before a resumed run appends. Outputs files
are indexed by id in `scoring.outputs` (`index_outputs`, `OutputsIndex`; also importable
from here).
"""

from __future__ import annotations

import hashlib
import json
import os
from collections.abc import Callable, Iterable, Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TypeVar

from tfce_eval.errors import DataError
from tfce_eval.jsonl import JsonLines, JsonRefused, parse_json
from tfce_eval.jsonl import read_json as read_json_document
from tfce_eval.model import Category, ErrorCode, ScoreRecord, TaskKind
from tfce_eval.scoring.encoding import dumps
from tfce_eval.scoring.keeper import Keeper
from tfce_eval.scoring.outputs import (
    ANSWER_KEYS,
    OutputsIndex,
    index_outputs,
    is_request_error,
    json_object,
)
from tfce_eval.scoring.writing import AtomicLines, Staging, write_json, write_text_atomic
from tfce_eval.words import article

__all__ = [
    "ANSWER_KEYS",
    "OUTPUTS",
    "REPORT_HTML",
    "REPORT_MD",
    "RUN_JSON",
    "RUN_TREC",
    "SCORES",
    "SUMMARY",
    "AtomicLines",
    "OutputsIndex",
    "RunDir",
    "dumps",
    "index_outputs",
    "is_request_error",
    "iter_json_lines",
    "no_run_directory",
    "read_json",
    "read_scores",
    "truncate_torn_tail",
    "write_json",
    "write_lines_atomic",
    "write_scored",
    "write_scores",
    "write_text_atomic",
]

OUTPUTS = "outputs.jsonl"
SCORES = "scores.jsonl"
SUMMARY = "summary.json"
RUN_JSON = "run.json"
REPORT_MD = "report.md"
REPORT_HTML = "report.html"

#: The library function that reads a scored run of each task, for messages.
RUN_READERS = {
    TaskKind.FC: "tfce_eval.report.load_run",
    TaskKind.QA: "tfce_eval.qa.load_qa_run",
    TaskKind.RETRIEVAL: "tfce_eval.retrieval.load_scored_run",
}


def no_run_directory(path: Path) -> str:
    """What is wrong with `path`, given as a run directory that is none: not there, or
    something else (a file) there."""
    return "not a directory" if path.exists() else "run directory not found"


def check_run_task(run_dir: Path, task: TaskKind) -> None:
    """A DataError when `run_dir`'s summary.json is of another task than `task`, naming the
    task and the function that reads it (a function-calling summary names no task).
    Anything unreadable is left for the caller's own checks to name."""
    try:
        data = read_json_document(run_dir / SUMMARY)
    except (DataError, OSError):
        return
    found = data.get("task", str(TaskKind.FC)) if isinstance(data, dict) else None
    if found == task or found not in {str(kind) for kind in TaskKind}:
        return
    kind = TaskKind(found)
    raise DataError(
        f"a scored {kind} run, not {article(task)} one",
        path=str(run_dir),
        hint=f"read it with {RUN_READERS[kind]}",
    )


RUN_TREC = "run.trec"  # a retrieval run (`retrieve`)


@dataclass(frozen=True)
class RunDir:
    """The paths of one run directory."""

    path: Path

    @property
    def outputs(self) -> Path:
        return self.path / OUTPUTS

    @property
    def scores(self) -> Path:
        return self.path / SCORES

    @property
    def summary(self) -> Path:
        return self.path / SUMMARY

    @property
    def run_json(self) -> Path:
        return self.path / RUN_JSON

    @property
    def report_md(self) -> Path:
        return self.path / REPORT_MD

    @property
    def report_html(self) -> Path:
        return self.path / REPORT_HTML


def write_lines_atomic(path: Path, rows: Iterable[Mapping[str, Any]]) -> None:
    with AtomicLines(path) as out:
        for row in rows:
            out.write(row)


def write_scores(path: Path, records: Iterable[ScoreRecord]) -> None:
    write_lines_atomic(path, (r.to_json() for r in records))


#: A retrieval or QA score's lines: strict JSON (never NaN) with JSON's own spacing.
_SCORED_LINE = json.JSONEncoder(ensure_ascii=False, allow_nan=False, check_circular=False)


def write_scored(
    out_dir: Path, rows: Iterable[Mapping[str, Any]], summary: Mapping[str, Any]
) -> None:
    """A retrieval or QA score's scores.jsonl (a row a line) and its summary.json, written
    to temporary files and renamed into place together, the reports of an earlier score
    removed (a new score never sits beside them; the caller writes new ones)."""
    with Staging(out_dir) as stage:
        stage.text(SCORES, (_SCORED_LINE.encode(row) + "\n" for row in rows))
        text = json.dumps(summary, ensure_ascii=False, indent=2, allow_nan=False) + "\n"
        stage.text(SUMMARY, text)
        stage.commit(stale=(REPORT_MD, REPORT_HTML))


def read_json(path: Path) -> Any:
    """A run directory's JSON document (summary.json, run.json), within the bounds every
    JSON read has; DataError naming the file (and line) when it cannot be read."""
    if not path.is_file():
        raise DataError("file not found", path=str(path))
    return read_json_document(path, hint="the file is damaged; re-run to rewrite it")


_E = TypeVar("_E", Category, ErrorCode)

#: Members by their text, looked up without an Enum call for each of many records.
_MEMBERS: dict[type, dict[str, Any]] = {
    kind: {str(m): m for m in kind} for kind in (Category, ErrorCode)
}


def _member(kind: type[_E], value: Any) -> _E:
    """`kind(value)`, the member named by `value`, or the ValueError it raises."""
    found: _E | None = _MEMBERS[kind].get(value) if isinstance(value, str) else None
    return kind(value) if found is None else found


def read_scores(
    path: Path,
    *,
    check: Callable[[dict[str, Any], int], None] | None = None,
    keep_details: int | None = None,
) -> list[ScoreRecord]:
    """Read scores.jsonl back into records (for reports), in one pass over the file.

    `check(obj, line)`, when given, is called on each line's object before its record is
    made, and may raise to refuse it. `keep_details` None keeps every record's details;
    a number keeps them only for that many failing records of each category and kind
    (model error, request error), the first in the file, and of the others what the
    summary reads (scoring.keeper): a report listing that many failures per category
    reads no more.
    """
    keeper = None if keep_details is None else Keeper(keep_details)
    records: list[ScoreRecord] = []
    for line_no, obj in iter_json_lines(path):
        if check is not None:
            check(obj, line_no)
        try:
            error_type = obj.get("error_type")
            record = ScoreRecord(
                id=str(obj["id"]),
                category=_member(Category, obj["category"]),
                valid=bool(obj["valid"]),
                error_type=None if error_type is None else _member(ErrorCode, error_type),
                error=obj.get("error"),
                exec_valid=obj.get("exec_valid"),
                details=obj.get("details") or {},
            )
        except (KeyError, ValueError, TypeError) as exc:
            raise DataError(
                f"not a score record: {exc}",
                path=str(path),
                line=line_no,
                hint="scores.jsonl is written by `tfce-eval score` or `run`; re-score the outputs",
            ) from None
        if keeper is None:
            records.append(record)
        else:
            keeper.add(record)
    return records if keeper is None else keeper.records


def iter_json_lines(path: Path) -> Iterator[tuple[int, dict[str, Any]]]:
    """Yield (line number, object) for each non-blank line; any bad line is a DataError.

    Read by the one JSON Lines reader (`tfce_eval.jsonl`), within its size and depth limits.
    """
    for record in JsonLines(path):
        yield record.line, json_object(record, path)


def truncate_torn_tail(path: Path) -> bool:
    """Cut an incomplete last line off an outputs file so appends start on a fresh line.

    A last line that is a whole JSON object without its newline (an editor, `truncate`)
    is what the reader keeps (and a resume counts as answered): it gets its newline
    instead of being cut. Returns True if anything was cut.
    """
    if not path.exists():
        return False
    with path.open("rb+") as fh:
        fh.seek(0, os.SEEK_END)
        size = fh.tell()
        if size == 0:
            return False
        # Find the last newline by reading backwards in blocks.
        pos = size
        block = 65536
        end_of_last_complete = 0
        while pos > 0:
            step = min(block, pos)
            pos -= step
            fh.seek(pos)
            chunk = fh.read(step)
            idx = chunk.rfind(b"\n")
            if idx != -1:
                end_of_last_complete = pos + idx + 1
                break
        if end_of_last_complete == size:
            return False
        fh.seek(end_of_last_complete)
        if _whole_object(fh.read(size - end_of_last_complete)):
            fh.seek(size)
            fh.write(b"\n")
            fh.flush()
            os.fsync(fh.fileno())
            return False
        fh.truncate(end_of_last_complete)
        fh.flush()
        os.fsync(fh.fileno())
        return True


def _whole_object(tail: bytes) -> bool:
    """Whether a last line without its newline is one whole JSON object, as the JSON Lines
    reader keeps it (within its bounds: a line it would refuse is torn here too)."""
    try:
        return isinstance(parse_json(tail), dict)
    except JsonRefused:
        return False


def file_sha256(path: Path) -> str:
    """The SHA-256 of a file's bytes, read in blocks."""
    digest = hashlib.sha256()
    with path.open("rb") as fh:
        for block in iter(lambda: fh.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def scored_file(recorded: str, run_dir: Path | None, sha256: str) -> tuple[Path | None, str]:
    """The file a score read, found again: where it was (`recorded`), else beside the run
    directory under its name (a directory moved with the file), the first whose bytes are
    still those scored when `sha256` is known. (None, why) when there is none."""
    if not recorded:
        return None, "the summary names no file"
    where = Path(recorded)
    candidates = [where] + ([run_dir / where.name] if run_dir is not None else [])
    found = [path for path in candidates if path.is_file()]
    if not found:
        return None, f"{recorded} is gone"
    if not sha256:  # a summary written before digests were recorded
        return found[0], ""
    for path in found:
        try:
            if file_sha256(path) == sha256:
                return path, ""
        except OSError:
            continue
    return None, f"{found[0]} changed since scoring"
