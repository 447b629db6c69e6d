"""The records of a dataset's files as the index keeps them, and how problems are reported.

`QuestionLoc` and `AnswerLoc` say where an item's question and answer are; a `Source` is one
file, with its parsed records when the dataset is small enough to keep them
(`KEEP_PARSED_BYTES`: each line is then parsed once, at load); the `Reporter` raises on the
first error (loading) or collects every problem (validating). `doc_objects` and
`parse_docs` read an item's function docs; `named` words files in messages.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, NamedTuple

from tfce_eval.errors import DataError
from tfce_eval.jsonl import LineReader
from tfce_eval.model import Category, Finding, FunctionDoc, Level

#: A dataset whose files add up to at most this many bytes keeps its records parsed in
#: memory (a few times their size on disk); a larger one is read back line by line, so
#: that a dataset of any size streams in little memory.
KEEP_PARSED_BYTES = 4 * 1024 * 1024


class QuestionLoc(NamedTuple):
    file: int
    offset: int
    line: int
    category: Category


class AnswerLoc(NamedTuple):
    file: int
    offset: int
    line: int


@dataclass(frozen=True)
class Source:
    """A dataset file, and its records when they are kept parsed.

    `held` maps a record's offset (the byte offset of its line in a JSON Lines file, its
    index in a file that is one JSON document) to its value. Whole-file JSON always keeps
    its records; JSON Lines keeps them when the dataset is small (`KEEP_PARSED_BYTES`),
    else a record is read back from the file by its offset when its item is wanted.
    """

    path: Path
    held: dict[int, Any] | None

    def record(self, offset: int, line: int, item_id: str, reader: LineReader) -> dict[str, Any]:
        """The record of `item_id` found at load time; DataError if the file has changed."""
        held = self.held
        value = held.get(offset) if held is not None else reader.read(self.path, offset, line)
        if type(value) is not dict or value.get("id") != item_id:
            raise DataError(
                "the file changed after it was loaded",
                path=str(self.path),
                line=line,
                item_id=item_id,
                hint="load the dataset again",
            )
        return value


class Reporter:
    """Raises on the first error (loading) or collects every problem (validating)."""

    def __init__(self, strict: bool) -> None:
        self.strict = strict
        self.problems: list[Finding] = []

    def error(
        self,
        message: str,
        *,
        path: Path | str | None,
        line: int | None = None,
        item_id: str | None = None,
        hint: str | None = None,
    ) -> None:
        finding = _finding(Level.ERROR, message, path, line, item_id, hint)
        if self.strict:
            raise DataError(message, path=finding.path, line=line, item_id=item_id, hint=hint)
        self.problems.append(finding)

    def warning(
        self,
        message: str,
        *,
        path: Path | str | None,
        line: int | None = None,
        item_id: str | None = None,
        hint: str | None = None,
    ) -> None:
        self.problems.append(_finding(Level.WARNING, message, path, line, item_id, hint))


def _finding(
    level: Level,
    message: str,
    path: Path | str | None,
    line: int | None,
    item_id: str | None,
    hint: str | None,
) -> Finding:
    return Finding(level, message, None if path is None else str(path), line or None, item_id, hint)


def doc_objects(item: Mapping[str, Any]) -> list[dict[str, Any]] | str:
    """An item's function docs as objects that each have a name, or what is wrong with them.

    `function` (or `functions`) is one doc or a list of them; a doc wrapped OpenAI-style as
    `{"type": "function", "function": {...}}` is unwrapped.
    """
    raw = item.get("function", item.get("functions"))
    if raw is None:
        return 'the item has no "function" docs'
    docs: list[dict[str, Any]] = []
    for index, doc in enumerate(raw if isinstance(raw, list) else [raw]):
        if isinstance(doc, dict) and doc.get("type") == "function" and "function" in doc:
            doc = doc["function"]
        if not isinstance(doc, dict):
            return f"function doc {index} is not an object"
        name = doc.get("name")
        if not isinstance(name, str) or not name:
            return f"function doc {index} has no name"
        docs.append(doc)
    return docs


def parse_docs(item: Mapping[str, Any]) -> tuple[FunctionDoc, ...] | str:
    """An item's function docs (see `doc_objects`), or what is wrong with them."""
    docs = doc_objects(item)
    if isinstance(docs, str):
        return docs
    return function_docs(docs)


def function_docs(docs: list[dict[str, Any]]) -> tuple[FunctionDoc, ...]:
    """The records of docs that `doc_objects` accepted."""
    return tuple(
        [
            FunctionDoc(
                d["name"], d["description"] if isinstance(d.get("description"), str) else "", d
            )
            for d in docs
        ]
    )


@dataclass
class FileNotes:
    """Base of what the indexer keeps about its files to report once a file, or all, are
    read: the reporter, the indexer's files (as they grow) and the dataset's directory."""

    reporter: Reporter
    sources: Sequence[Source]
    root: Path | None

    def name(self, file: int) -> str:
        """The file as messages name it (see `named`)."""
        return named(self.sources[file].path, self.root)


def named(path: Path, root: Path | None) -> str:
    """A file as messages name it: from the dataset's directory `root` when it is inside."""
    return str(path.relative_to(root) if root and path.is_relative_to(root) else path)
