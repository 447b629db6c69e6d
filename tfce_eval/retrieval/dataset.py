"""A retrieval dataset loaded for scoring and retrieving: `load_retrieval`.

Queries, judgements, answers, candidate pools and span fragments of one split are read
at once (they are small); the corpus, which can hold 81,000 chunks, is read only when
iterated (`iter_corpus`). Nothing here writes.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from tfce_eval.dataset.paths import builtin_dir, recorded
from tfce_eval.model import TaskKind
from tfce_eval.retrieval.layouts import DatasetFiles, locate
from tfce_eval.retrieval.readers import (
    QrelOrigins,
    Qrels,
    Refused,
    iter_docs,
    read_answers,
    read_chunk_spans,
    read_qrels_rows,
    read_queries,
    read_top_ranked,
)
from tfce_eval.retrieval.records import Doc, Fragment, Layout, Origin, Span, id_key
from tfce_eval.retrieval.spans import span_gold
from tfce_eval.retrieval.tables import Problems
from tfce_eval.retrieval.textfiles import open_bytes, unreadable
from tfce_eval.retrieval.textqrels import read_trec_qrels, read_tsv_qrels


def corpus_sha256(paths: Iterable[Path]) -> str:
    """SHA-256 of corpus files' bytes, in the order given (`DatasetFiles.corpus`, name
    order): a corpus's identity, as `retrieve` records it. DataError naming a file that
    cannot be read."""
    digest = hashlib.sha256()
    for path in paths:
        with open_bytes(path) as fh:
            try:
                while block := fh.read(1 << 20):
                    digest.update(block)
            except OSError as exc:
                raise unreadable(path, exc) from None
    return digest.hexdigest()


@dataclass(frozen=True, slots=True)
class RetrievalDataset:
    """One split of a retrieval dataset, ready to score runs against."""

    name: str  # as the user named it: a path or builtin:NAME
    files: DatasetFiles
    queries: Mapping[str, str]  # qid -> text
    qrels: Mapping[str, Mapping[str, int]]  # qid -> docid -> relevance
    query_origins: Mapping[str, Origin]
    answers: Mapping[str, str] = field(default_factory=dict)
    top_ranked: Mapping[str, tuple[str, ...]] = field(default_factory=dict)
    fragments: Mapping[str, tuple[Fragment, ...]] = field(default_factory=dict)
    chunk_spans: Mapping[str, Span] = field(default_factory=dict)
    qrel_origins: Mapping[tuple[str, str], Origin] = field(default_factory=dict)
    refused: Refused = field(default_factory=Refused)  # queries not read, errors reported
    #: The files the judgements came from (the --qrels file when one was given), and
    #: whether they are the span gold of queries' fragments (ConditionalQA).
    gold_files: tuple[Path, ...] = ()
    gold_spans: bool = False
    qrels_given: bool = False  # with --qrels, not the dataset's own

    @property
    def qrels_source(self) -> str:
        """Where the judgements came from, as messages name it."""
        return _gold_source(self.gold_files, self.gold_spans, str)

    @property
    def root(self) -> Path:
        return self.files.root

    @property
    def layout(self) -> Layout:
        return self.files.layout

    @property
    def split(self) -> str:
        return self.files.split

    @property
    def corpus_name(self) -> str:
        return self.files.corpus_name

    @property
    def has_spans(self) -> bool:
        """Whether the gold is given as spans, so that SpanCov@k applies."""
        return self.layout is Layout.CHUNK_SPAN and bool(self.fragments)

    def gold_queries(self) -> list[str]:
        """The queries with at least one relevant document, sorted by id: the scored set."""
        return sorted(
            (q for q, docs in self.qrels.items() if any(r > 0 for r in docs.values())),
            key=id_key,
        )

    def iter_corpus(self, problems: Problems | None = None) -> Iterator[Doc]:
        """The corpus documents in file order, read lazily; DataError on a bad row.

        With `problems`, bad rows are reported there and skipped instead.
        """
        sink = problems if problems is not None else Problems()
        for _, doc in iter_docs(self.files, sink):
            if problems is None:
                sink.raise_first()
            yield doc
        if problems is None:
            sink.raise_first()

    def corpus_sha256(self) -> str:
        """SHA-256 of the corpus files' bytes, in name order: the corpus's identity.
        DataError naming a file that cannot be read."""
        return corpus_sha256(self.files.corpus)

    def gold_sha256(self) -> str:
        """SHA-256 of the judgements (query, document, relevance; sorted): the gold's
        identity, wherever its files are. Two runs are comparable only on the same gold."""
        digest = hashlib.sha256()
        for qid in sorted(self.qrels):
            for docid, rel in sorted(self.qrels[qid].items()):
                digest.update(f"{qid}\t{docid}\t{rel}\n".encode())
        return digest.hexdigest()

    def describe(self) -> dict[str, Any]:
        """What summary.json and run.json record about the dataset."""
        return {
            "name": self.name,
            "path": recorded(self.root),
            "layout": str(self.layout),
            "split": self.split,
            "corpus": self.corpus_name,
            "queries": len(self.queries),
            "gold_queries": len(self.gold_queries()),
            # Absolute, so that a report made from another directory reads a --qrels
            # file again; a built-in dataset's files as builtin:NAME/FILE.
            "qrels": _gold_source(self.gold_files, self.gold_spans, recorded),
            "qrels_given": self.qrels_given,
            "gold_sha256": self.gold_sha256(),
        }


def _gold_source(paths: Iterable[Path], spans: bool, show: Callable[[Path], str | None]) -> str:
    """Where the judgements come from, each file shown by `show`."""
    listed = ", ".join(show(p) or "" for p in paths)
    return f"spans in {listed}" if spans else listed


def load_retrieval(
    path: str | Path,
    *,
    split: str | None = None,
    corpus: str | None = None,
    qrels: str | Path | None = None,
    name: str | None = None,
) -> RetrievalDataset:
    """Load one split of a retrieval dataset; DataError on the first problem found.

    `split` defaults to `test` when present; `corpus` picks documents or documents_coref
    in the chunk-span layout; `qrels` is a TREC qrels file replacing the layout's gold.
    `path` may be `builtin:NAME` (the dataset is then named so, not by its install path).
    """
    problems = Problems()
    builtin = builtin_dir(path, TaskKind.RETRIEVAL)
    if builtin is not None:
        name = name or str(path)
    split, corpus = split or None, corpus or None  # given empty: not given
    files = locate(builtin or path, split=split, corpus=corpus)
    dataset = read_dataset(files, problems, qrels=qrels, name=name)
    problems.raise_first()
    return dataset


def read_dataset(
    files: DatasetFiles,
    problems: Problems,
    *,
    qrels: str | Path | None = None,
    name: str | None = None,
) -> RetrievalDataset:
    """Read a split's small parts, reporting into `problems` (used by load and validate)."""
    if not files.queries:
        problems.add(
            files.root / "queries",
            None,
            f"no query files for split {files.split!r}",
            "add queries/<split>-*.parquet or <split>.jsonl",
        )
    texts, origins, fragments, refused = read_queries(files, problems)
    chunk_spans: dict[str, Span] = {}
    gold: Qrels
    qrel_origins: QrelOrigins = {}
    sources: tuple[Path, ...] = tuple(files.qrels)  # where the judgements come from
    spans = qrels is None and files.layout is Layout.CHUNK_SPAN
    if qrels is not None:
        gold, qrel_origins = read_trec_qrels(Path(qrels), problems, texts, refused)
        sources = (Path(qrels),)
    elif files.layout is Layout.CHUNK_SPAN:
        chunk_spans = read_chunk_spans(files, problems)
        gold = span_gold(fragments, chunk_spans, problems, origins, files.corpus_name)
        sources = tuple(files.queries)
    elif files.layout is Layout.BEIR:
        if not files.qrels[0].exists():  # anything else there, the reader names
            problems.add(files.qrels[0], None, "file not found", "add the split's qrels")
            gold = {}
        else:
            gold, qrel_origins = read_tsv_qrels(files.qrels[0], problems, texts, refused)
        sources = (files.qrels[0],)
    else:
        if not files.qrels:
            problems.add(
                files.root / "qrels",
                None,
                f"no qrels files for split {files.split!r}",
                "add qrels/<split>-*.parquet or <split>.jsonl, or give --qrels FILE",
            )
        gold, qrel_origins = read_qrels_rows(files.qrels, problems, texts, refused)
    if files.layout is Layout.CHUNK_SPAN and qrels is not None:
        chunk_spans = read_chunk_spans(files, problems)
    if files.layout is Layout.BEIR:
        # queries.jsonl holds every split's queries: a split is the queries it judges.
        texts = {q: t for q, t in texts.items() if q in gold}
        origins = {q: o for q, o in origins.items() if q in gold}
    answers = read_answers(files.answers, problems, texts, refused)
    pools, _ = read_top_ranked(files.top_ranked, problems, texts, refused)
    return RetrievalDataset(
        name=name or str(files.root),
        files=files,
        queries=texts,
        qrels=gold,
        gold_files=sources,
        gold_spans=spans,
        qrels_given=qrels is not None,
        query_origins=origins,
        answers=answers,
        top_ranked=pools,
        fragments=fragments,
        chunk_spans=chunk_spans,
        qrel_origins=qrel_origins,
        refused=refused,
    )
