"""The files of a run directory (docs/files.md 8) and how they are written and read.

Every file name lives here. Whole files (scores, summary, run.json, reports) are written to a
temporary file in the same directory and renamed into place, so a reader never sees half a
file. `outputs.jsonl` is the only file that grows (run.appender writes it during a run): one
complete line per finished item, flushed and fsynced, so a run killed at any moment keeps
every finished item; a torn last line (the line being written when the process died) is
detected and dropped on reading, and cut off before a resumed run appends.
"""

from __future__ import annotations

import json
import os
from collections.abc import Callable, Iterable, Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from tfce_eval.errors import DataError
from tfce_eval.jsonl import JsonLines, LineReader, Record, json_type
from tfce_eval.jsonl import read_json as read_json_document
from tfce_eval.model import Category, ErrorCode, ScoreRecord, TaskKind
from tfce_eval.scoring.writing import AtomicLines, dumps, write_json, write_text_atomic

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
        f"a scored {kind} run, not a {task} one",
        path=str(run_dir),
        hint=f"read it with {RUN_READERS[kind]}",
    )


RUN_TREC = "run.trec"  # a retrieval run (`retrieve`)
#: Outputs files up to this size are kept parsed in memory while they are scored.
KEEP_PARSED_BYTES = 8 * 1024 * 1024


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
    """A retrieval or QA score's scores.jsonl (a row a line), then its summary.json, each
    written whole to a temporary file and renamed into place."""
    # write_text_atomic makes the directory, and words any failure to (a DataError).
    write_text_atomic(out_dir / SCORES, (_SCORED_LINE.encode(row) + "\n" for row in rows))
    text = json.dumps(summary, ensure_ascii=False, indent=2, allow_nan=False) + "\n"
    write_text_atomic(out_dir / SUMMARY, text)


def read_json(path: Path) -> Any:
    """A run directory's JSON document (summary.json, run.json), within the bounds every
    JSON read has; DataError naming the file (and line) when it cannot be read."""
    if not path.is_file():
        raise DataError("file not found", path=str(path))
    return read_json_document(path, hint="the file is damaged; re-run to rewrite it")


def read_scores(path: Path) -> list[ScoreRecord]:
    """Read scores.jsonl back into records (for reports)."""
    records: list[ScoreRecord] = []
    for line_no, obj in iter_json_lines(path):
        try:
            error_type = obj.get("error_type")
            records.append(
                ScoreRecord(
                    id=str(obj["id"]),
                    category=Category(obj["category"]),
                    valid=bool(obj["valid"]),
                    error_type=None if error_type is None else ErrorCode(error_type),
                    error=obj.get("error"),
                    exec_valid=obj.get("exec_valid"),
                    details=obj.get("details") or {},
                )
            )
        except (KeyError, ValueError, TypeError) as exc:
            raise DataError(
                f"not a score record: {exc}",
                path=str(path),
                line=line_no,
                hint="scores.jsonl is written by `tfce-eval score` or `run`; re-score the outputs",
            ) from None
    return records


def _object(record: Record, path: Path) -> dict[str, Any]:
    """The JSON object a line holds; DataError naming the file and line otherwise."""
    if record.error is not None:
        raise DataError(record.error, path=str(path), line=record.line, hint=record.hint)
    if not isinstance(record.value, dict):
        raise DataError(
            f"expected a JSON object, found {json_type(record.value)}",
            path=str(path),
            line=record.line,
            hint='each line must be an object such as {"id": ..., "calls": [...]}',
        )
    return record.value


#: The keys that hold an answer (docs/decoding.md 4.2); a line with none of them but an
#: `error` is a request error: the model could not be asked.
ANSWER_KEYS = ("raw", "calls", "tool_calls", "content", "result", "text")


def is_request_error(record: Mapping[str, Any]) -> bool:
    """True for an outputs line that says the model could not be asked (docs/files.md 8.2)."""
    if not record.get("error"):
        return False
    return all(record.get(k) is None for k in ANSWER_KEYS)


def iter_json_lines(path: Path) -> Iterator[tuple[int, dict[str, Any]]]:
    """Yield (line number, object) for each non-blank line; any bad line is a DataError.

    Read by the one JSON Lines reader (`tfce_eval.jsonl`), within its size and depth limits.
    """
    for record in JsonLines(path):
        yield record.line, _object(record, path)


@dataclass(frozen=True)
class OutputsIndex:
    """Where each item's answer is in an outputs file: id -> (byte offset, line number).

    Kept instead of the answers themselves so that 100,000 items can be scored in little
    memory: an answer is read back when its item is checked. A file of at most
    `KEEP_PARSED_BYTES` is small enough to keep as read (`held`), which spares parsing each
    line twice. The last line of an id counts. Lines before it that are request errors are
    what a resumed run leaves (it asks those items again and appends), so they are not
    listed; `duplicates`: ids with two or more answers (not request errors);
    `replaced_answers`: ids whose last line is a request error after an answer (`run`
    never writes one; a file from elsewhere may). Both in the order they were found.
    """

    path: Path
    offsets: Mapping[str, tuple[int, int]]
    #: The number of the incomplete last line that was dropped (what a run killed in
    #: mid-write leaves), or None.
    torn_line: int | None
    duplicates: tuple[str, ...] = ()
    replaced_answers: tuple[str, ...] = ()
    held: Mapping[str, dict[str, Any]] | None = None

    @contextmanager
    def reader(self) -> Iterator[Callable[[str], dict[str, Any]]]:
        """`with index.reader() as read: read(item_id)`: one open file for many reads."""
        if self.held is not None:
            yield self.held.__getitem__
            return
        with LineReader() as lines:

            def read(item_id: str) -> dict[str, Any]:
                offset, line_no = self.offsets[item_id]
                try:
                    record = lines.record(self.path, offset, line_no)
                except OSError as exc:
                    raise DataError(
                        f"cannot read the file: {exc.strerror or exc}",
                        path=str(self.path),
                        line=line_no,
                    ) from None
                return _object(record, self.path)

            yield read

    def read_many(self, ids: Iterable[str]) -> Iterator[tuple[str, dict[str, Any]]]:
        """Read several answers with one open file (ids in any order)."""
        with self.reader() as read:
            for item_id in ids:
                yield item_id, read(item_id)


def index_outputs(path: Path, *, tolerate_torn_tail: bool = False) -> OutputsIndex:
    """Index an outputs file by id. A later line for the same id replaces an earlier one;
    an id with an earlier answer is listed in `duplicates` or `replaced_answers`, for a
    warning (an earlier request error is not: a resumed run asked it again).

    `tolerate_torn_tail`: a last line without its newline that is not valid JSON is dropped
    (what a killed run leaves); otherwise it is an error like any bad line. A file whose
    lines end in a bare CR is an error that says so, never taken for a torn line.
    """
    offsets: dict[str, tuple[int, int]] = {}
    failed: set[str] = set()  # ids whose last line so far is a request error
    repeated: dict[str, bool] = {}  # ids on several lines: whether an earlier one answers
    try:
        size = path.stat().st_size
    except FileNotFoundError:
        raise DataError(
            "file not found", path=str(path), hint="give the path of an outputs file"
        ) from None
    held: dict[str, dict[str, Any]] | None = {} if size <= KEEP_PARSED_BYTES else None
    lines = JsonLines(path, torn_tail_ok=tolerate_torn_tail)
    for row in lines.rows():
        line, offset, obj, error, _ = row
        if error is not None or type(obj) is not dict:
            obj = _object(Record(*row), path)  # raises, naming the line
        item_id = obj.get("id")
        if type(item_id) is not str and (
            not isinstance(item_id, str | int) or isinstance(item_id, bool)
        ):
            raise DataError(
                "the line has no id",
                path=str(path),
                line=line,
                hint='every line needs the id of the item it answers: {"id": "...", ...}',
            )
        key = str(item_id)
        if key in offsets:
            repeated[key] = repeated.get(key, False) or key not in failed
        offsets[key] = (offset, line)
        if is_request_error(obj):
            failed.add(key)
        else:
            failed.discard(key)
        if held is not None:
            held[key] = obj
    return OutputsIndex(
        path=path,
        offsets=offsets,
        torn_line=lines.torn_line,
        duplicates=tuple(k for k, answered in repeated.items() if answered and k not in failed),
        replaced_answers=tuple(k for k, answered in repeated.items() if answered and k in failed),
        held=held,
    )


def truncate_torn_tail(path: Path) -> bool:
    """Cut an incomplete last line off an outputs file so appends start on a fresh line.

    Returns True if anything was cut.
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
        fh.truncate(end_of_last_complete)
        fh.flush()
        os.fsync(fh.fileno())
        return True
