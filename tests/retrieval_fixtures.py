"""Helpers that write retrieval datasets and runs, in every layout and form, for the tests.

Parquet files are written with pyarrow, as the Hugging Face hub writes them; JSON Lines
with the standard library. Each helper returns the directory or file it wrote.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any

Row = Mapping[str, Any]


def write_table(path: Path, rows: Sequence[Row], fmt: str = "jsonl") -> Path:
    """Rows as `<path>.jsonl` or `<path>.parquet` (pyarrow infers the schema); `json`: a
    JSON array in `<path>.json`; `json-lines`: JSON Lines in `<path>.json`, as Hugging
    Face's json loader reads them."""
    path.parent.mkdir(parents=True, exist_ok=True)
    if fmt == "json":
        target = path.with_name(path.name + ".json")
        target.write_text(json.dumps(list(rows), ensure_ascii=False, indent=1), encoding="utf-8")
        return target
    if fmt == "json-lines":
        target = path.with_name(path.name + ".json")
        lines = "".join(json.dumps(row, ensure_ascii=False) + "\n" for row in rows)
        target.write_text(lines, encoding="utf-8")
        return target
    if fmt == "parquet":
        import pyarrow as pa
        import pyarrow.parquet as pq

        target = path.with_name(path.name + ".parquet")
        pq.write_table(pa.Table.from_pylist([dict(r) for r in rows]), target)
        return target
    target = path.with_name(path.name + ".jsonl")
    with target.open("w", encoding="utf-8") as fh:
        for row in rows:
            fh.write(json.dumps(row, ensure_ascii=False) + "\n")
    return target


def _name(split: str, fmt: str) -> str:
    # The hub's parquet files are `<split>-00000-of-00001.parquet`; JSONL `<split>.jsonl`.
    return f"{split}-00000-of-00001" if fmt == "parquet" else split


def write_hf(
    root: Path,
    *,
    corpus: Sequence[Row],
    queries: Mapping[str, Sequence[Row]],
    qrels: Mapping[str, Sequence[Row]],
    answers: Mapping[str, Sequence[Row]] | None = None,
    top_ranked: Mapping[str, Sequence[Row]] | None = None,
    retrieved_docs: Mapping[str, Sequence[Row]] | None = None,
    fmt: str = "jsonl",
) -> Path:
    """The HF/MTEB layout of QASPER-RAG: one sub-directory per config."""
    write_table(root / "corpus" / _name("train", fmt), corpus, fmt)
    parts: dict[str, Mapping[str, Sequence[Row]] | None] = {
        "queries": queries,
        "qrels": qrels,
        "answers": answers,
        "top_ranked": top_ranked,
        "retrieved_docs": retrieved_docs,
    }
    for folder, by_split in parts.items():
        for split, rows in (by_split or {}).items():
            write_table(root / folder / _name(split, fmt), rows, fmt)
    return root


def write_beir(
    root: Path,
    *,
    corpus: Sequence[Row],
    queries: Sequence[Row],
    qrels: Mapping[str, Iterable[tuple[str, str, int]]],
) -> Path:
    """The BEIR layout: corpus.jsonl, queries.jsonl, qrels/<split>.tsv with its header."""
    write_table(root / "corpus", corpus)
    write_table(root / "queries", queries)
    (root / "qrels").mkdir(parents=True, exist_ok=True)
    for split, triples in qrels.items():
        lines = ["query-id\tcorpus-id\tscore"] + [f"{q}\t{d}\t{r}" for q, d, r in triples]
        (root / "qrels" / f"{split}.tsv").write_text("\n".join(lines) + "\n", encoding="utf-8")
    return root


def write_chunk_span(
    root: Path,
    *,
    documents: Sequence[Row],
    queries: Mapping[str, Sequence[Row]],
    documents_coref: Sequence[Row] | None = None,
    fmt: str = "jsonl",
) -> Path:
    """The chunk-span layout of ConditionalQA: documents/, documents_coref/, queries/."""
    write_table(root / "documents" / _name("test", fmt), documents, fmt)
    if documents_coref is not None:
        write_table(root / "documents_coref" / _name("test", fmt), documents_coref, fmt)
    for split, rows in queries.items():
        write_table(root / "queries" / _name(split, fmt), rows, fmt)
    return root


def write_trec_run(path: Path, ranked: Mapping[str, Sequence[tuple[str, float]]]) -> Path:
    """A TREC run from {qid: [(docid, score), ...]} with ranks in the given order."""
    with path.open("w", encoding="utf-8") as fh:
        for qid, docs in ranked.items():
            for rank, (docid, score) in enumerate(docs, 1):
                fh.write(f"{qid} Q0 {docid} {rank} {score!r} test\n")
    return path


def write_trec_qrels(path: Path, qrels: Mapping[str, Mapping[str, int]]) -> Path:
    with path.open("w", encoding="utf-8") as fh:
        for qid, docs in qrels.items():
            for docid, rel in docs.items():
                fh.write(f"{qid} 0 {docid} {rel}\n")
    return path


# A small QASPER-shaped dataset: two papers, six chunks, three test queries and one dev.
HF_CORPUS = [
    {
        "id": "p1_abs",
        "title": "Paper one",
        "section_name": "abstract",
        "text": "We study LTE handover.",
    },
    {
        "id": "p1_0",
        "title": "Paper one",
        "section_name": "Method",
        "text": "Handover uses A3 events.",
    },
    {
        "id": "p1_1",
        "title": "Paper one",
        "section_name": "Results",
        "text": "Failures drop by half.",
    },
    {
        "id": "p2_abs",
        "title": "Paper two",
        "section_name": "abstract",
        "text": "A model of fading.",
    },
    {
        "id": "p2_0",
        "title": "Paper two",
        "section_name": "Model",
        "text": "Rayleigh fading is assumed.",
    },
    {
        "id": "p2_1",
        "title": "Paper two",
        "section_name": "Data",
        "text": "Traces from five cities.",
    },
]
HF_QUERIES = {
    "test": [
        {"id": "q1", "text": "Which events trigger handover?"},
        {"id": "q2", "text": "What fading model is assumed?"},
        {"id": "q3", "text": "Where do the traces come from?"},
    ],
    "dev": [{"id": "d1", "text": "How much do failures drop?"}],
}
HF_QRELS = {
    "test": [
        {"query_id": "q1", "corpus_id": "p1_0", "score": 1},
        {"query_id": "q2", "corpus_id": "p2_0", "score": 2},
        {"query_id": "q2", "corpus_id": "p2_abs", "score": 1},
        {"query_id": "q3", "corpus_id": "p2_1", "score": 1},
    ],
    "dev": [{"query_id": "d1", "corpus_id": "p1_1", "score": 1}],
}


def sample_hf(root: Path, fmt: str = "jsonl") -> Path:
    """The small QASPER-shaped dataset, with answers, candidates and retrieved_docs."""
    return write_hf(
        root,
        corpus=HF_CORPUS,
        queries=HF_QUERIES,
        qrels=HF_QRELS,
        answers={"test": [{"query_id": "q1", "answer": "A3 events"}]},
        top_ranked={
            "test": [
                {"query-id": "q1", "corpus-ids": ["p1_abs", "p1_0", "p1_1"]},
                {"query-id": "q2", "corpus-ids": ["p2_abs", "p2_0", "p2_1"]},
                {"query-id": "q3", "corpus-ids": ["p2_abs", "p2_0", "p2_1"]},
            ]
        },
        retrieved_docs={
            "test": [
                {
                    "query_id": "q1",
                    "corpus_id": "p1_0",
                    "rank": 1,
                    "retrieval_score": 3.0,
                    "is_relevant": True,
                },
                {
                    "query_id": "q1",
                    "corpus_id": "p1_1",
                    "rank": 2,
                    "retrieval_score": 2.0,
                    "is_relevant": False,
                },
                {
                    "query_id": "q2",
                    "corpus_id": "p2_1",
                    "rank": 1,
                    "retrieval_score": 5.0,
                    "is_relevant": False,
                },
                {
                    "query_id": "q2",
                    "corpus_id": "p2_0",
                    "rank": 2,
                    "retrieval_score": 4.0,
                    "is_relevant": True,
                },
            ]
        },
        fmt=fmt,
    )


# A small ConditionalQA-shaped dataset: two source documents cut into five chunks.
# doc-a is "aaaa\nbbbb\ncccc" -> chunks [0,4) [5,9) [10,14); doc-b "dddd\neeee" -> [0,4) [5,9).
SPAN_DOCUMENTS = [
    {
        "chunk_id": "a-0",
        "chunk": "aaaa",
        "source_url": "doc-a",
        "title": "A",
        "chunk_idx": 0,
        "chunk_start_char": 0,
        "chunk_end_char": 4,
    },
    {
        "chunk_id": "a-1",
        "chunk": "bbbb",
        "source_url": "doc-a",
        "title": "A",
        "chunk_idx": 1,
        "chunk_start_char": 5,
        "chunk_end_char": 9,
    },
    {
        "chunk_id": "a-2",
        "chunk": "cccc",
        "source_url": "doc-a",
        "title": "A",
        "chunk_idx": 2,
        "chunk_start_char": 10,
        "chunk_end_char": 14,
    },
    {
        "chunk_id": "b-0",
        "chunk": "dddd",
        "source_url": "doc-b",
        "title": "B",
        "chunk_idx": 0,
        "chunk_start_char": 0,
        "chunk_end_char": 4,
    },
    {
        "chunk_id": "b-1",
        "chunk": "eeee",
        "source_url": "doc-b",
        "title": "B",
        "chunk_idx": 1,
        "chunk_start_char": 5,
        "chunk_end_char": 9,
    },
]


def span_query(text: str, frags: Sequence[tuple[str, int, int, int]]) -> dict[str, Any]:
    """A chunk-span query row from (source_url, start, end, score) fragments."""
    return {
        "original_query": text,
        "query": text,
        "answer": ["x" * (e - s) for _, s, e, _ in frags],
        "score": [sc for *_, sc in frags],
        "source_url": [u for u, *_ in frags],
        "frag_start_char": [s for _, s, _, _ in frags],
        "frag_end_char": [e for _, _, e, _ in frags],
        "n_gold": len(frags),
    }


SPAN_QUERIES = [
    # Query "0": one fragment inside a-1, and one across the end of a-1 into a-2.
    span_query("first", [("doc-a", 5, 9, 1), ("doc-a", 7, 12, 2)]),
    # Query "1": exactly chunk b-1.
    span_query("second", [("doc-b", 5, 9, 1)]),
]


def sample_chunk_span(root: Path, fmt: str = "jsonl") -> Path:
    coref = [dict(d, chunk=d["chunk"].upper() + " (resolved)") for d in SPAN_DOCUMENTS]
    return write_chunk_span(
        root,
        documents=SPAN_DOCUMENTS,
        documents_coref=coref,
        queries={"test": SPAN_QUERIES},
        fmt=fmt,
    )


BEIR_CORPUS = [
    {"_id": "d1", "title": "T1", "text": "uplink power control"},
    {"_id": "d2", "title": "T2", "text": "downlink scheduling"},
    {"_id": "d3", "title": "T3", "text": "beam management"},
]
BEIR_QUERIES = [
    {"_id": "1", "text": "power control"},
    {"_id": "2", "text": "beams"},
    {"_id": "9", "text": "a training query"},
]


def sample_beir(root: Path) -> Path:
    return write_beir(
        root,
        corpus=BEIR_CORPUS,
        queries=BEIR_QUERIES,
        qrels={
            "test": [("1", "d1", 1), ("2", "d3", 1), ("2", "d2", 0)],
            "train": [("9", "d2", 1)],
        },
    )
