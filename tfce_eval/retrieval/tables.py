"""Reading the rows of a dataset file (parquet, JSON Lines, JSON), each with its origin.

Every reader reports what is wrong into a `Problems` collector (as `model.Finding`s) and
goes on, so that `validate` can list every problem of a dataset at once; the loaders then
raise the first. Parquet is read with pyarrow in batches, only the columns asked for.
"""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

from tfce_eval.errors import DataError
from tfce_eval.jsonl import JsonLines, JsonRefused, parse_json, read_document
from tfce_eval.model import Finding, Level, writable
from tfce_eval.retrieval.records import Origin
from tfce_eval.retrieval.textfiles import BOM, open_bytes

#: The suffixes of the data files a layout's directories may hold.
DATA_SUFFIXES = (".parquet", ".jsonl", ".json")

#: How much of a `.json` file is read at a time to find its first character, and how many
#: times (past 1 MiB of white space, the array reader reports the file).
_PEEK = 4096
_PEEKS = 256

#: How many problems with the same message one file reports before they are counted.
SAME_PROBLEM_LIMIT = 10


class Problems:
    """Collects findings; repeats of one message in one file are counted, not listed."""

    def __init__(self) -> None:
        self.items: list[Finding] = []
        # (file, message) -> how often, and the first finding: a repeat is counted only.
        self._seen: dict[tuple[str, str], tuple[int, Finding]] = {}
        self.error_count = 0

    def add(
        self,
        path: str | Path,
        line: int | None,
        message: str,
        hint: str | None,
        level: Level = Level.ERROR,
    ) -> None:
        """A finding about a file (`line` None) or one of its lines."""
        self._note(str(path), Finding(level, message, str(path), line, None, hint or None))

    def at(self, origin: Origin, message: str, hint: str, level: Level = Level.ERROR) -> None:
        """A finding about the record at `origin` (a line, or a row named in the path)."""
        path, line = origin.place()
        self._note(origin.path, Finding(level, message, path, line, None, hint or None))

    def error(self, error: DataError, file: str | Path) -> None:
        """What a reader of `file` that stops at its first problem raised, as a finding."""
        self._note(str(file), Finding.from_error(error, path=str(file)))

    def _note(self, file: str, finding: Finding) -> None:
        key = (file, finding.message)
        count, first = self._seen.get(key, (0, finding))
        self._seen[key] = (count + 1, first)
        if finding.level is Level.ERROR:
            self.error_count += 1
        if count < SAME_PROBLEM_LIMIT:
            self.items.append(finding)

    @property
    def errors(self) -> list[Finding]:
        return [f for f in self.items if f.level is Level.ERROR]

    def finish(self) -> list[Finding]:
        """Every finding, with one closing line per message that repeated past the limit."""
        out = list(dict.fromkeys(self.items))  # a part read twice reports once
        for (file, message), (count, first) in self._seen.items():
            if count > SAME_PROBLEM_LIMIT:
                more = count - SAME_PROBLEM_LIMIT
                out.append(
                    Finding(first.level, f"{more} more like: {message}", file, hint=first.hint)
                )
        return out

    def raise_first(self) -> None:
        """Raise the first error as a DataError, saying how many others there are."""
        errors = self.errors
        if not errors:
            return
        first = errors[0]
        if self.error_count > 1:
            more = self.error_count - 1
            message = f"{first.message} ({more} more: tfce-eval validate lists them)"
            first = dataclasses.replace(first, message=message)
        raise first.to_error()


def split_of(name: str) -> str:
    """The split a data file belongs to: the leading letters and digits of its name."""
    match = re.match(r"[A-Za-z0-9]+", name)
    return match.group(0) if match else ""


def data_files(folder: Path, split: str | None = None) -> list[Path]:
    """The data files of a folder (of one split when given), in name order."""
    if not folder.is_dir():
        return []
    return sorted(
        p
        for p in folder.iterdir()
        if p.is_file()
        and p.name.endswith(DATA_SUFFIXES)
        and not p.name.startswith(".")
        and (split is None or split_of(p.name) == split)
    )


def iter_rows(
    path: Path, problems: Problems, columns: Sequence[str] | None = None
) -> Iterator[tuple[Origin, dict[str, Any]]]:
    """The objects of a data file in file order; problems for what cannot be read."""
    if path.name.endswith(".parquet"):
        yield from _parquet_rows(path, problems, columns)
    elif path.name.endswith(".jsonl") or not _opens_array(path):
        # Hugging Face's json loader reads JSON Lines from `.json` files too: what the file
        # begins with decides, as for function-calling datasets.
        yield from _jsonl_rows(path, problems)
    else:
        yield from _json_rows(path, problems)


def _opens_array(path: Path) -> bool:
    """Whether a `.json` file begins with "[" (a JSON array of rows), or holds nothing but
    white space or cannot be read (the array reader reports both): else it is JSON Lines."""
    try:
        with open_bytes(path) as handle:
            head = handle.read(_PEEK).removeprefix(BOM).lstrip()
            for _ in range(_PEEKS):
                if head:
                    break
                block = handle.read(_PEEK)
                if not block:
                    return True
                head = block.lstrip()
            if not head:  # more white space than is looked through: the array reader says so
                return True
    except (DataError, OSError):
        return True
    return head.startswith(b"[")


def _parquet_rows(
    path: Path, problems: Problems, columns: Sequence[str] | None
) -> Iterator[tuple[Origin, dict[str, Any]]]:
    import pyarrow as pa
    import pyarrow.parquet as pq

    name = str(path)
    try:
        pf = pq.ParquetFile(path)
        names = set(pf.schema_arrow.names)
        wanted = None if columns is None else [c for c in columns if c in names]
        row = 0
        for batch in pf.iter_batches(batch_size=4096, columns=wanted):
            for record in _batch_records(batch, name, row, problems):
                if record is not None:
                    yield Origin(name, row, is_row=True), record
                row += 1
    except (pa.ArrowException, OSError) as exc:
        problems.add(
            name,
            None,
            f"cannot read this parquet file: {exc}",
            "write it again with pyarrow or pandas (to_parquet)",
        )


def _batch_records(
    batch: Any, name: str, first: int, problems: Problems
) -> list[dict[str, Any] | None]:
    """A parquet batch's rows as dicts; a row with text that is not UTF-8 (which pyarrow
    reads, and refuses only when it is converted) is reported and given as None."""
    try:
        records: list[dict[str, Any] | None] = batch.to_pylist()
        return records
    except UnicodeDecodeError:
        pass
    records = []
    for i in range(batch.num_rows):
        try:
            records.append(batch.slice(i, 1).to_pylist()[0])
            continue
        except UnicodeDecodeError as exc:
            byte = f"byte 0x{exc.object[exc.start]:02x}"
        bad = [c for c in batch.column_names if _not_utf8(batch.column(c)[i])]
        column = f"field {bad[0]!r}" if bad else "a field"
        problems.at(
            Origin(name, first + i, is_row=True),
            f"{column} is not UTF-8 ({byte})",
            "write the file's text as UTF-8",
        )
        records.append(None)
    return records


def _not_utf8(value: Any) -> bool:
    try:
        value.as_py()
    except UnicodeDecodeError:
        return True
    return False


def _jsonl_rows(path: Path, problems: Problems) -> Iterator[tuple[Origin, dict[str, Any]]]:
    name = str(path)
    fix = "each line must be one JSON object (JSON Lines)"
    if not path.name.endswith(".jsonl"):
        fix += ", or the whole file one JSON array of objects"
    try:
        for number, record, refused in JsonLines(path).entries():
            if refused is not None:
                problems.add(name, number, *_refusal(refused, fix))
            elif not isinstance(record, dict):
                problems.add(name, number, "not a JSON object", "each line must be one JSON object")
            else:
                yield Origin(name, number), record
    except DataError as exc:  # the file cannot be opened
        problems.add(name, None, exc.message, "check the file's permissions")


def _json_rows(path: Path, problems: Problems) -> Iterator[tuple[Origin, dict[str, Any]]]:
    name = str(path)
    try:
        raw = read_document(path)
        if not raw.removeprefix(BOM).strip():
            fix = "write the rows as a JSON array of objects, or JSON Lines"
            problems.add(name, None, "the file is empty", fix)
            return
        data = parse_json(raw)
    except DataError as exc:
        problems.add(name, None, exc.message, exc.hint or "check the file's permissions")
        return
    except JsonRefused as exc:
        fix = "the file must be a JSON array of objects, or JSON Lines"
        problems.add(name, exc.line, *_refusal(exc, fix))
        return
    if not isinstance(data, list):
        problems.add(name, None, "not a JSON array", "write the rows as a JSON array of objects")
        return
    for row, record in enumerate(data):
        origin = Origin(name, row, is_row=True)
        if not isinstance(record, dict):
            problems.at(origin, "not a JSON object", "each item must be a JSON object")
            continue
        yield origin, record


def _refusal(refused: JsonRefused, fix: str) -> tuple[str, str]:
    """What keeps JSON from being read, and the fix (`fix` for a syntax error)."""
    if refused.syntax and not refused.encoding and not refused.note:
        return f"not valid JSON: {refused.reason} at column {refused.column}", fix
    return refused.at_column(), refused.hint


class Fields:
    """Typed access to one record's fields, reporting each problem against its origin."""

    def __init__(self, record: dict[str, Any], origin: Origin, problems: Problems, what: str):
        self.record = record
        self.origin = origin
        self.problems = problems
        self.what = what  # e.g. "a corpus row": named in the hints

    def _missing(self, names: Sequence[str]) -> None:
        shown = " or ".join(repr(n) for n in names)
        self.problems.at(
            self.origin, f"missing field {shown}", f"give {self.what} the field {names[0]!r}"
        )

    def _wrong(self, name: str, expected: str) -> None:
        got = type(self.record[name]).__name__
        self.problems.at(
            self.origin,
            f"field {name!r} is {got}, not {expected}",
            f"write {name!r} as {expected} in {self.what}",
        )

    def _find(self, names: Sequence[str], required: bool) -> str | None:
        for name in names:
            if name in self.record and self.record[name] is not None:
                return name
        if required:
            self._missing(names)
        return None

    def ident(self, *names: str, required: bool = True) -> str | None:
        """An id: a non-empty string, or an integer written as a string."""
        name = self._find(names, required)
        if name is None:
            return None
        value = self.record[name]
        if isinstance(value, int) and not isinstance(value, bool):
            return str(value)
        if not isinstance(value, str):
            self._wrong(name, "a string")
            return None
        if not value.strip():
            self.problems.at(self.origin, f"field {name!r} is empty", f"give {self.what} an id")
            return None
        shown = writable(value)
        if shown != value:  # JSON's "\ud800": no run or qrels file can hold it
            self.problems.at(
                self.origin,
                f"field {name!r} holds a lone surrogate, not a character: {shown}",
                f"give {self.what} an id of valid Unicode",
            )
            return None
        return value

    def text(self, *names: str, required: bool = True) -> str | None:
        name = self._find(names, required)
        if name is None:
            return None
        value = self.record[name]
        if not isinstance(value, str):
            self._wrong(name, "a string")
            return None
        return value

    def integer(self, *names: str, required: bool = True) -> int | None:
        name = self._find(names, required)
        if name is None:
            return None
        value = self.record[name]
        if isinstance(value, float) and value.is_integer():
            return int(value)
        if not isinstance(value, int) or isinstance(value, bool):
            self._wrong(name, "an integer")
            return None
        return value

    def text_list(self, *names: str, required: bool = True) -> list[str] | None:
        name = self._find(names, required)
        if name is None:
            return None
        value = self.record[name]
        if not isinstance(value, list | tuple) or not all(
            isinstance(v, str) or (isinstance(v, int) and not isinstance(v, bool)) for v in value
        ):
            self._wrong(name, "a list of strings")
            return None
        return [str(v) for v in value]

    def int_list(self, *names: str, required: bool = True) -> list[int] | None:
        name = self._find(names, required)
        if name is None:
            return None
        value = self.record[name]
        if not isinstance(value, list | tuple) or not all(
            isinstance(v, int) and not isinstance(v, bool) for v in value
        ):
            self._wrong(name, "a list of integers")
            return None
        return list(value)
