"""Outputs files indexed by id: one file (a run's outputs.jsonl, a file given to `score`)
or several read as one set of answers (BFCL's result files, one per category).

docs/files.md 8.2: the last line of an id counts, the files read in the order given;
earlier lines that are request errors pass silently (a resumed run leaves them); an id
answered on more than one line is a warning, which names every line when there are
several files. Every error names the file and line it comes from.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from tfce_eval.dataset.paths import recorded
from tfce_eval.errors import DataError
from tfce_eval.jsonl import JsonLines, LineReader, Record, json_type, torn_line_warning
from tfce_eval.words import counted, listed

__all__ = [
    "ANSWER_KEYS",
    "KEEP_PARSED_BYTES",
    "OutputsFile",
    "OutputsIndex",
    "index_outputs",
    "index_outputs_files",
    "is_request_error",
    "json_object",
]

#: Outputs files up to this size in all are kept parsed in memory while they are scored.
KEEP_PARSED_BYTES = 8 * 1024 * 1024

#: The keys that hold an answer (docs/decoding.md 4.2); a line with none of them but an
#: `error` is a request error: the model could not be asked.
ANSWER_KEYS = ("raw", "calls", "tool_calls", "content", "result", "text")


def is_request_error(record: Mapping[str, Any]) -> bool:
    """True for an outputs line that says the model could not be asked (docs/files.md 8.2)."""
    if not record.get("error"):
        return False
    return all(record.get(k) is None for k in ANSWER_KEYS)


def json_object(record: Record, path: Path) -> dict[str, Any]:
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


@dataclass(frozen=True)
class OutputsFile:
    """One outputs file as read: its SHA-256, its number of lines, and the number of the
    incomplete last line that was dropped (what a run killed in mid-write leaves) or None."""

    path: Path
    sha256: str
    lines: int
    torn_line: int | None = None

    def to_json(self) -> dict[str, Any]:
        return {"path": recorded(self.path), "sha256": self.sha256, "lines": self.lines}


@dataclass(frozen=True)
class OutputsIndex:
    """Where each item's answer is: id -> (byte offset, line number) in its file.

    Kept instead of the answers themselves so that 100,000 items can be scored in little
    memory: an answer is read back when its item is checked. Files of at most
    `KEEP_PARSED_BYTES` in all are small enough to keep as read (`held`), which spares
    parsing each line twice. The last line of an id counts. Lines before it that are
    request errors are what a resumed run leaves (it asks those items again and appends),
    so they are not listed; `duplicates`: ids with two or more answers (not request
    errors); `replaced_answers`: ids whose last line is a request error after an answer
    (`run` never writes one; a file from elsewhere may). Both in the order they were found.

    `path` is the first file; `files` every file read, in order. With several files,
    `file_of` says which file holds each id's line and `places` lists every line, as
    (file index, line), of the ids in `duplicates` and `replaced_answers`.
    """

    path: Path
    offsets: Mapping[str, tuple[int, int]]
    #: The number of the incomplete last line that was dropped, or None (with several
    #: files, None: each file's is in `files`).
    torn_line: int | None
    duplicates: tuple[str, ...] = ()
    replaced_answers: tuple[str, ...] = ()
    held: Mapping[str, dict[str, Any]] | None = None
    files: tuple[OutputsFile, ...] = ()
    file_of: Mapping[str, int] | None = None
    places: Mapping[str, tuple[tuple[int, int], ...]] | None = None

    def path_of(self, item_id: str) -> Path:
        """The file that holds the line of `item_id` that counts."""
        return self.path if self.file_of is None else self.files[self.file_of[item_id]].path

    def describe(self) -> dict[str, Any]:
        """What summary.json records of the file read (`path`, `sha256`, `lines`), or of
        the files (`files`: a list of those), docs/files.md 8.4."""
        if len(self.files) == 1:
            return self.files[0].to_json()
        return {"files": [f.to_json() for f in self.files]}

    def warnings(self) -> list[str]:
        """What reading the files leaves to say: each torn last line dropped, the ids
        answered on more than one line, the answers a later request error replaced."""
        found = [
            torn_line_warning(f.path, f.torn_line) for f in self.files if f.torn_line is not None
        ]
        # One file is named first; several are named at each line (in the order given).
        prefix = f"{self.path}: " if self.places is None else ""
        order = "" if self.places is None else ", the files read in the order given"
        dup = self.duplicates
        if dup:
            each = "" if len(dup) == 1 else " of each"
            found.append(
                f"{prefix}{counted(len(dup), 'id is', 'ids are')} answered on more than one "
                f"line; the last line{each} counts{order} ({self._where(dup)})"
            )
        lost = self.replaced_answers
        if lost:
            verdict = (
                "its answer; the last line counts, so it is a request error"
                if len(lost) == 1
                else "their answer; the last line counts, so they are request errors"
            )
            found.append(
                f"{prefix}{counted(len(lost), 'id has', 'ids have')} a request error on a "
                f"line after {verdict} ({self._where(lost)})"
            )
        return found

    def _where(self, ids: Sequence[str]) -> str:
        """The first ids; with several files, the first three, each with every line it
        is on."""
        if self.places is None:
            return listed(ids)
        shown = []
        for item_id in ids:
            lines = [f"{self.files[f].path}, line {line}" for f, line in self.places[item_id]]
            where = lines[0] if len(lines) == 1 else ", ".join(lines[:-1]) + " and " + lines[-1]
            shown.append(f"{item_id} in {where}")
        return listed(shown, 3)

    @contextmanager
    def reader(self) -> Iterator[Callable[[str], dict[str, Any]]]:
        """`with index.reader() as read: read(item_id)`: one open file for many reads."""
        if self.held is not None:
            yield self.held.__getitem__
            return
        with LineReader() as lines:

            def read(item_id: str) -> dict[str, Any]:
                offset, line_no = self.offsets[item_id]
                path = self.path_of(item_id)
                try:
                    record = lines.record(path, offset, line_no)
                except OSError as exc:
                    raise DataError(
                        f"cannot read the file: {exc.strerror or exc}",
                        path=str(path),
                        line=line_no,
                    ) from None
                return json_object(record, path)

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
    return index_outputs_files((path,), tolerate_torn_tail=tolerate_torn_tail)


#: The keys every line of a function-calling scores.jsonl has (docs/files.md).
_SCORED_KEYS = ("valid", "error_type", "exec_valid", "details")


def _refuse_a_scored_line(obj: Mapping[str, Any], path: Path, line: int) -> None:
    """DataError when a file's first line is a scored record, not an answer: scored as
    answers, a scores.jsonl would give 0 % with every item a parse or request error."""
    if all(k in obj for k in _SCORED_KEYS) and not any(k in obj for k in ANSWER_KEYS):
        import shlex

        raise DataError(
            "this is a line of the scores.jsonl that `score` writes, not an answer",
            path=str(path),
            line=line,
            hint="give the outputs it was scored from (a run's outputs.jsonl), or read "
            + (
                f"the scores with `tfce-eval report {shlex.quote(str(path.parent))}`"
                if (path.parent / "summary.json").is_file()
                else "the scores with `tfce-eval report DIR`, DIR holding its summary.json"
            ),
        )


def _size(path: Path) -> int:
    try:
        return path.stat().st_size
    except FileNotFoundError:
        raise DataError(
            "file not found", path=str(path), hint="give the path of an outputs file"
        ) from None


def index_outputs_files(paths: Sequence[Path], *, tolerate_torn_tail: bool = False) -> OutputsIndex:
    """Index several outputs files as one, read in the order given: as `index_outputs`
    does one file made of them all (a torn last line is tolerated in each)."""
    several = len(paths) > 1
    offsets: dict[str, tuple[int, int]] = {}
    failed: set[str] = set()  # ids whose last line so far is a request error
    repeated: dict[str, bool] = {}  # ids on several lines: whether an earlier one answers
    file_of: dict[str, int] | None = {} if several else None
    places: dict[str, list[tuple[int, int]]] = {}
    size = sum(_size(path) for path in paths)
    held: dict[str, dict[str, Any]] | None = {} if size <= KEEP_PARSED_BYTES else None
    files: list[OutputsFile] = []
    for number, path in enumerate(paths):
        lines = JsonLines(path, torn_tail_ok=tolerate_torn_tail)
        first = True
        for row in lines.rows():
            line, offset, obj, error, _ = row
            if error is not None or type(obj) is not dict:
                obj = json_object(Record(*row), path)  # raises, naming the line
            if first:
                _refuse_a_scored_line(obj, path, line)
                first = False
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
                if file_of is not None:
                    earlier = (file_of[key], offsets[key][1])
                    places.setdefault(key, [earlier]).append((number, line))
            offsets[key] = (offset, line)
            if file_of is not None:
                file_of[key] = number
            if is_request_error(obj):
                failed.add(key)
            else:
                failed.discard(key)
            if held is not None:
                held[key] = obj
        files.append(OutputsFile(path, lines.digest(), lines.lines, lines.torn_line))
    duplicates = tuple(k for k, answered in repeated.items() if answered and k not in failed)
    replaced = tuple(k for k, answered in repeated.items() if answered and k in failed)
    return OutputsIndex(
        path=paths[0],
        offsets=offsets,
        torn_line=None if several else files[0].torn_line,
        duplicates=duplicates,
        replaced_answers=replaced,
        held=held,
        files=tuple(files),
        file_of=file_of,
        places={k: tuple(places[k]) for k in (*duplicates, *replaced)} if several else None,
    )
