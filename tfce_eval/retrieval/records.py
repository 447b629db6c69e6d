"""The records of a retrieval dataset: layouts, documents, gold fragments, problems.

Everything here is a frozen value parsed once by the loaders; nothing reads files.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum

from tfce_eval.errors import DataError


def id_key(qid: str) -> tuple[int, int, str]:
    """Sort key of ids: all-digit ids by number ("2" before "10"), then the rest by text."""
    return (0, int(qid), "") if qid.isascii() and qid.isdigit() else (1, 0, qid)


class Layout(StrEnum):
    """The three directory layouts a retrieval dataset can have (SPEC R1)."""

    HF = "hf"  # corpus/ queries/ qrels/ answers/ top_ranked/ retrieved_docs/ (QASPER-RAG)
    BEIR = "beir"  # corpus.jsonl queries.jsonl qrels/<split>.tsv
    CHUNK_SPAN = "chunk-span"  # documents/ documents_coref/ queries/ (ConditionalQA)

    @property
    def label(self) -> str:
        return {
            Layout.HF: "HF/MTEB",
            Layout.BEIR: "BEIR",
            Layout.CHUNK_SPAN: "chunk spans",
        }[self]


class Severity(StrEnum):
    ERROR = "error"  # the dataset cannot be scored as it is
    WARNING = "warning"  # it can, but something is probably not what was meant


@dataclass(frozen=True, slots=True)
class Origin:
    """Where a record came from: a file and its 1-based line, or a parquet file's row.

    Parquet rows are counted from 0, as pandas and pyarrow count them, so that
    `row 17` is `df.iloc[17]`; text files count lines from 1, as editors do.
    """

    path: str
    line: int
    is_row: bool = False

    def where(self) -> str:
        return f"{self.path}, {'row' if self.is_row else 'line'} {self.line}"


@dataclass(frozen=True, slots=True)
class Problem:
    """One thing wrong with a dataset or run file: where, what, and how to fix it."""

    path: str
    line: int | None
    message: str
    hint: str
    severity: Severity = Severity.ERROR

    def render(self) -> str:
        """One line naming the file and line (or row), then the fix on the next."""
        where = self.path
        if self.line is not None:
            unit = "row" if self.path.endswith(".parquet") else "line"
            where += f", {unit} {self.line}"
        text = f"{where}: {self.severity}: {self.message}"
        return text + (f"\n  fix: {self.hint}" if self.hint else "")

    def to_error(self) -> DataError:
        path = self.path
        line = self.line
        if line is not None and path.endswith(".parquet"):
            path, line = f"{path}, row {line}", None
        return DataError(self.message, path=path, line=line, hint=self.hint or None)


@dataclass(frozen=True, slots=True)
class Doc:
    """One corpus document (a chunk). The span fields are set in the chunk-span layout."""

    id: str
    text: str
    title: str = ""
    section: str = ""
    source_url: str | None = None
    start: int | None = None
    end: int | None = None


@dataclass(frozen=True, slots=True)
class Span:
    """A half-open character range [start, end) of one source document."""

    source_url: str
    start: int
    end: int

    def overlaps(self, other: Span) -> bool:
        """Half-open overlap: ranges that only touch at a boundary do not overlap."""
        return (
            self.source_url == other.source_url
            and self.start < other.end
            and other.start < self.end
        )


@dataclass(frozen=True, slots=True)
class Fragment:
    """One gold fragment of a chunk-span query: a span and its relevance score."""

    span: Span
    score: int
    answer: str = ""
