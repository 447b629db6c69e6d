"""Loading a QA dataset from either layout: Telco-Retrieve split files, or QASPER-RAG's
queries, answers and qrels (read by the retrieval loader, never twice)."""

from __future__ import annotations

from pathlib import Path

from tfce_eval.qa import QaDataset, load_telco, qasper_dataset
from tfce_eval.retrieval import RetrievalDataset, detect_layout, load_retrieval


def chunk_texts(dataset: RetrievalDataset) -> dict[str, str]:
    """Every chunk's text by id (title first when there is one), for context and evidence."""
    texts: dict[str, str] = {}
    for doc in dataset.iter_corpus():
        texts[doc.id] = f"{doc.title}\n{doc.text}" if doc.title else doc.text
    return texts


def load_qa_dataset(path: Path, *, split: str | None = None, name: str = "") -> QaDataset:
    """A QA dataset: Telco-Retrieve split files, or a QASPER-RAG directory's answers."""
    if detect_layout(path) is None:
        return load_telco(path, split)
    retrieval = load_retrieval(path, split=split, name=name or str(path))
    return qasper_dataset(
        retrieval.queries,
        retrieval.answers,
        retrieval.qrels,
        path=name or str(path),
        split=retrieval.split,
        sha256=retrieval.corpus_sha256(),
        chunk_text=chunk_texts(retrieval),
    )
