"""The files of a run directory (SPEC 8) and how they are written and read.

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
from tfce_eval.model import Category, ErrorCode, ScoreRecord
from tfce_eval.scoring.writing import AtomicLines, dumps, write_json, write_text_atomic

__all__ = [
    "OUTPUTS",
    "REPORT_HTML",
    "REPORT_MD",
    "RUN_JSON",
    "SCORES",
    "SUMMARY",
    "AtomicLines",
    "OutputsIndex",
    "RunDir",
    "dumps",
    "index_outputs",
    "iter_json_lines",
    "read_json",
    "read_scores",
    "truncate_torn_tail",
    "write_json",
    "write_lines_atomic",
    "write_scores",
    "write_text_atomic",
]

OUTPUTS = "outputs.jsonl"
SCORES = "scores.jsonl"
SUMMARY = "summary.json"
RUN_JSON = "run.json"
REPORT_MD = "report.md"
REPORT_HTML = "report.html"


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


def read_json(path: Path) -> Any:
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise DataError("file not found", path=str(path)) from None
    except (UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise DataError(
            f"not valid JSON: {exc}",
            path=str(path),
            hint="the file is damaged; re-run to rewrite it",
        ) from None


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


def iter_json_lines(path: Path) -> Iterator[tuple[int, dict[str, Any]]]:
    """Yield (line number, object) for each non-blank line; any bad line is a DataError."""
    try:
        fh = path.open("rb")
    except FileNotFoundError:
        raise DataError("file not found", path=str(path)) from None
    with fh:
        for line_no, raw in enumerate(fh, start=1):
            if not raw.strip():
                continue
            yield line_no, _parse_line(raw, path, line_no)


def _parse_line(raw: bytes, path: Path, line_no: int) -> dict[str, Any]:
    try:
        obj = json.loads(raw.decode("utf-8-sig" if line_no == 1 else "utf-8"))
    except UnicodeDecodeError as exc:
        raise DataError(
            f"not UTF-8 ({exc.reason} at byte {exc.start})",
            path=str(path),
            line=line_no,
            hint="save the file as UTF-8",
        ) from None
    except json.JSONDecodeError as exc:
        raise DataError(
            f"bad JSON: {exc.msg} (column {exc.colno})",
            path=str(path),
            line=line_no,
            hint="each line must be one complete JSON object",
        ) from None
    if not isinstance(obj, dict):
        raise DataError(
            f"expected a JSON object, found {type(obj).__name__}",
            path=str(path),
            line=line_no,
            hint='each line must be an object such as {"id": ..., "calls": [...]}',
        )
    return obj


@dataclass(frozen=True)
class OutputsIndex:
    """Where each item's answer is in an outputs file: id -> (byte offset, line number).

    Kept instead of the answers themselves so that 100,000 items can be scored in little
    memory: an answer is read back when its item is checked. `lengths` holds the length in
    bytes of the lines that do not end in a newline (a bare CR, as in an old Mac file, or
    the end of the file); the others run to their newline. `duplicates`: ids answered on
    more than one line, in file order (the last line counts).
    """

    path: Path
    offsets: Mapping[str, tuple[int, int]]
    torn_tail: bool  # the file ends in an incomplete line (a run was killed mid-write)
    duplicates: tuple[str, ...] = ()
    lengths: Mapping[str, int] | None = None

    @contextmanager
    def reader(self) -> Iterator[Callable[[str], dict[str, Any]]]:
        """`with index.reader() as read: read(item_id)`: one open file for many reads."""
        lengths = self.lengths
        with self.path.open("rb") as fh:

            def read(item_id: str) -> dict[str, Any]:
                offset, line_no = self.offsets[item_id]
                fh.seek(offset)
                length = None if lengths is None else lengths.get(item_id)
                raw = fh.readline() if length is None else fh.read(length)
                return _parse_line(raw, self.path, line_no)

            yield read

    def read_many(self, ids: Iterable[str]) -> Iterator[tuple[str, dict[str, Any]]]:
        """Read several answers with one open file (ids in any order)."""
        with self.reader() as read:
            for item_id in ids:
                yield item_id, read(item_id)


def _split_lines(fh: Any) -> Iterator[tuple[int, bytes, bool]]:
    """(byte offset, line, ended) for each line; a bare CR ends a line as LF and CRLF do
    (JSON text never holds a raw CR, so a CR inside a line can only be a line end)."""
    offset = 0
    for raw in fh:
        ended = raw.endswith(b"\n")
        body = raw.rstrip(b"\n").rstrip(b"\r") if ended else raw
        if b"\r" not in body:
            yield offset, raw, ended
        else:
            parts = raw.split(b"\r")
            position = offset
            for i, part in enumerate(parts):
                last = i == len(parts) - 1
                if last and not part:
                    break  # the line ended in CR: nothing after it
                if last and part == b"\n":
                    break  # CRLF
                yield position, part, (not last) or ended
                position += len(part) + 1
        offset += len(raw)


def index_outputs(path: Path, *, tolerate_torn_tail: bool = False) -> OutputsIndex:
    """Index an outputs file by id. A later line for the same id replaces an earlier one
    (and the id is listed in `duplicates`, for a warning).

    `tolerate_torn_tail`: a last line without its line end that is not valid JSON is dropped
    (what a killed run leaves); otherwise it is an error like any bad line.
    """
    offsets: dict[str, tuple[int, int]] = {}
    lengths: dict[str, int] = {}
    duplicates: dict[str, None] = {}
    torn = False
    try:
        fh = path.open("rb")
    except FileNotFoundError:
        raise DataError(
            "file not found", path=str(path), hint="give the path of an outputs file"
        ) from None
    with fh:
        for line_no, (start, raw, ended) in enumerate(_split_lines(fh), start=1):
            if not raw.strip():
                continue
            if tolerate_torn_tail and not ended:
                try:
                    obj = _parse_line(raw, path, line_no)
                except DataError:
                    torn = True
                    break
            else:
                obj = _parse_line(raw, path, line_no)
            item_id = obj.get("id")
            if not isinstance(item_id, str | int) or isinstance(item_id, bool):
                raise DataError(
                    "the line has no id",
                    path=str(path),
                    line=line_no,
                    hint='every line needs the id of the item it answers: {"id": "...", ...}',
                )
            key = str(item_id)
            if key in offsets:
                duplicates[key] = None
            offsets[key] = (start, line_no)
            if not raw.endswith(b"\n"):
                lengths[key] = len(raw)  # ended by a bare CR (or the file's end)
            else:
                lengths.pop(key, None)
    return OutputsIndex(
        path=path,
        offsets=offsets,
        torn_tail=torn,
        duplicates=tuple(duplicates),
        lengths=lengths or None,
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
            idx = max(chunk.rfind(b"\n"), chunk.rfind(b"\r"))  # a bare CR ends a line too
            if idx != -1:
                end_of_last_complete = pos + idx + 1
                break
        if end_of_last_complete == size:
            return False
        fh.truncate(end_of_last_complete)
        fh.flush()
        os.fsync(fh.fileno())
        return True
