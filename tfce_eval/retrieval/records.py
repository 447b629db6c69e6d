"""The records of a retrieval dataset: layouts, documents, gold fragments, origins.

Everything here is a frozen value parsed once by the loaders; nothing reads files. What is
wrong with a dataset is a `tfce_eval.model.Finding`, placed by its record's `Origin`.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum


def id_key(qid: str) -> tuple[int, int, str]:
    """Sort key of ids: all-digit ids by number ("2" before "10"), then the rest by text."""
    return (0, int(qid), "") if qid.isascii() and qid.isdigit() else (1, 0, qid)


class Layout(StrEnum):
    """The three directory layouts a retrieval dataset can have (docs/retrieval.md)."""

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


@dataclass(frozen=True, slots=True)
class Origin:
    """Where a record came from: a file and its 1-based line, or a row of a parquet file
    or JSON array.

    Rows are counted from 0, as pandas and pyarrow count them, so that `row 17` is
    `df.iloc[17]`; text files count lines from 1, as editors do.
    """

    path: str
    line: int
    is_row: bool = False

    def where(self, within: str | None = None) -> str:
        """`path, line 3` or `path, row 2`; only `line 3` when `within` is the same file."""
        place = f"{'row' if self.is_row else 'line'} {self.line}"
        return place if within == self.path else f"{self.path}, {place}"

    def place(self) -> tuple[str, int | None]:
        """The path and line a finding or an error names: a row is part of the path."""
        return (self.where(), None) if self.is_row else (self.path, self.line)


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
    source: str = ""  # the corpus's own `source` field (Telco: the spec), when it has one


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
