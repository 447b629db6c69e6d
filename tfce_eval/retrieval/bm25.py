"""`retrieve`: BM25 over a dataset's corpus with bm25s, writing a TREC run and run.json.

The tokenizer is bm25s's own: lower case, words of two or more letters or digits
(`(?u)\\b\\w\\w+\\b`, scikit-learn's pattern), bm25s's English stopwords, and the
Snowball English stemmer from PyStemmer when that package is installed (no stemming
otherwise); run.json records which. Each document is indexed as its title and its text.
BM25 is bm25s's Lucene variant (k1 1.5, b 0.75).

The index is cached under `cache_dir`, keyed by the SHA-256 of the corpus files and of
the settings above, so a second run over the same corpus only searches. A document that
shares no term with the query (score 0) is not retrieved, as in Lucene. The run holds
the first k documents of the whole corpus in trec_eval's order (score descending, then
document id descending), so a tie across the k-th place keeps the documents trec_eval
would rank first, and the run scores unchanged.
With `candidates`, each query ranks only its top_ranked pool (QASPER's paper-scoped
candidates) instead of the whole corpus. The out directory must hold no other run, and
scores in it are kept only for the same run (`outdir.py`).
"""

from __future__ import annotations

import hashlib
import json
import os
import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from tfce_eval.errors import DataError, UsageError
from tfce_eval.retrieval.bm25_index import (
    K1,
    PATTERN,
    VARIANT,
    B,
    Progress,
    build_index,
    load_index,
)
from tfce_eval.retrieval.dataset import RetrievalDataset
from tfce_eval.retrieval.outdir import check_out_dir
from tfce_eval.retrieval.records import id_key
from tfce_eval.scoring.rundir import RUN_JSON, RUN_TREC, write_text_atomic
from tfce_eval.scoring.writing import probe_writable

TAG = "tfce-bm25"
QUERY_BATCH = 100  # queries per search step


@dataclass(frozen=True, slots=True)
class RetrieveResult:
    """What `retrieve` wrote: the run file, run.json's content and whether the cache hit."""

    run_path: Path
    meta_path: Path
    meta: dict[str, Any]
    cache_hit: bool
    queries: int
    #: The scores of this same run that were in the directory and are kept.
    kept: tuple[str, ...] = ()


def _stemmer() -> tuple[Any, str | None]:
    import importlib

    try:
        stemmer = importlib.import_module("Stemmer")  # PyStemmer: optional
    except ImportError:
        return None, None
    return stemmer.Stemmer("english"), "PyStemmer (Snowball English)"


def _tokenizer_info(stemmer_name: str | None) -> dict[str, Any]:
    import bm25s

    return {
        "library": "bm25s",
        "version": getattr(bm25s, "__version__", "unknown"),
        "lower": True,
        "pattern": PATTERN,
        "stopwords": "bm25s English list",
        "stemmer": stemmer_name,
        "fields": ["title", "text"],
    }


def _noop(stage: str, done: int, total: int) -> None:
    pass


def retrieve(
    dataset: RetrievalDataset,
    *,
    method: str = "bm25",
    k: int = 100,
    candidates: bool = False,
    out_dir: str | Path,
    cache_dir: str | Path,
    progress: Progress | None = None,
) -> RetrieveResult:
    """Rank the corpus (or each query's candidates) for every query of the split; a
    UsageError, before any work, for an `out_dir` holding another run or the scores of
    another run (`outdir.check_out_dir`). `out_dir` is this call's while it works: a
    retrieve, score or run there meanwhile stops at once, naming it (`scoring.lock`)."""
    from tfce_eval.scoring.lock import RunLock

    with RunLock(Path(out_dir), "retrieve"):
        return _retrieve(dataset, method, k, candidates, Path(out_dir), cache_dir, progress)


def _retrieve(
    dataset: RetrievalDataset,
    method: str,
    k: int,
    candidates: bool,
    out: Path,
    cache_dir: str | Path,
    progress: Progress | None,
) -> RetrieveResult:
    if method != "bm25":
        raise UsageError(f"unknown retrieval method {method!r}; the embedded one is bm25")
    if k < 1:
        raise UsageError(f"--k must be at least 1, not {k}")
    if candidates and not dataset.top_ranked:
        raise UsageError(
            "--candidates needs each query's candidate pool (top_ranked/, as in "
            "QASPER-RAG); this dataset has none"
        )
    if not dataset.queries:
        raise DataError(
            f"split {dataset.split!r} has no queries to retrieve for",
            path=", ".join(str(p) for p in dataset.files.queries) or str(dataset.root),
            hint="add queries to the split, or choose another with --split",
        )
    parameters = {"k": k, "k1": K1, "b": B, "variant": VARIANT, "candidates": candidates}
    described = dataset.describe()
    # Checked first: indexing a large corpus takes minutes, and its run would be lost.
    kept = check_out_dir(out, method, parameters, described)
    probe_writable(out)
    tick = progress or _noop
    started = time.perf_counter()
    tick("hash", 0, 1)
    corpus_sha = dataset.corpus_sha256()
    tick("hash", 1, 1)
    stemmer, stemmer_name = _stemmer()
    tokenizer_info = _tokenizer_info(stemmer_name)
    if kept is not None:
        kept.check_corpus(corpus_sha, tokenizer_info)
    settings = {"k1": K1, "b": B, "variant": VARIANT, "tokenizer": tokenizer_info}
    key = hashlib.sha256(
        json.dumps({"corpus": corpus_sha, **settings}, sort_keys=True).encode()
    ).hexdigest()
    index_dir = Path(cache_dir) / f"bm25-{key[:24]}"
    t0 = time.perf_counter()
    index = load_index(index_dir, stemmer)
    hit = index is not None
    if index is None:
        index = build_index(dataset, stemmer, index_dir, tick)
    retriever, tokenizer, doc_ids = index
    index_s = time.perf_counter() - t0

    t1 = time.perf_counter()
    qids = sorted(dataset.queries, key=id_key)
    if candidates:
        ranked = _search_candidates(retriever, tokenizer, doc_ids, dataset, qids, k, tick)
    else:
        ranked = _search(retriever, tokenizer, doc_ids, dataset, qids, k, tick)
    search_s = time.perf_counter() - t1

    tick("write", 0, 1)
    # write_text_atomic makes the directory, and words any failure to (a DataError).
    lines = []
    for qid in qids:
        for rank, (score, docid) in enumerate(ranked[qid], 1):
            lines.append(f"{qid} Q0 {docid} {rank} {score!r} {TAG}\n")
    text = "".join(lines)
    if kept is not None:  # as write_text_atomic writes it
        kept.check_run(text.encode("utf-8", "backslashreplace"))
    meta: dict[str, Any] = {
        "method": method,
        "parameters": parameters,
        "tokenizer": tokenizer_info,
        "corpus_sha256": corpus_sha,
        "documents": len(doc_ids),
        "queries": len(qids),
        "answered": sum(1 for q in qids if ranked[q]),
        # 0 with `answered` 0: the empty run is this one's (read_run accepts it).
        "entries": len(lines),
        "dataset": described,
        "run": RUN_TREC,
        "cache": {"hit": hit, "path": str(index_dir)},
        "times": {
            "index_s": round(index_s, 3),
            "search_s": round(search_s, 3),
            "total_s": round(time.perf_counter() - started, 3),
        },
    }
    # run.json first: stopped between the two, the directory holds retrieve's run.json
    # and no run.trec, which a rerun writes; a run.trec alone would be another's run.
    write_text_atomic(out / RUN_JSON, json.dumps(meta, ensure_ascii=False, indent=2) + "\n")
    write_text_atomic(out / RUN_TREC, text)
    tick("write", 1, 1)
    files = kept.files if kept is not None else ()
    return RetrieveResult(out / RUN_TREC, out / RUN_JSON, meta, hit, len(qids), files)


def _query_ids(tokenizer: Any, texts: Sequence[str]) -> list[list[int]]:
    return list(
        tokenizer.tokenize(list(texts), update_vocab=False, return_as="ids", show_progress=False)
    )


def _ordered(pairs: list[tuple[float, str]], k: int) -> list[tuple[float, str]]:
    """Positive scores only, by score then document id, both descending (trec_eval)."""
    return sorted((p for p in pairs if p[0] > 0), reverse=True)[:k]


def _search(
    retriever: Any,
    tokenizer: Any,
    doc_ids: list[str],
    dataset: RetrievalDataset,
    qids: list[str],
    k: int,
    tick: Progress,
) -> dict[str, list[tuple[float, str]]]:
    ranked: dict[str, list[tuple[float, str]]] = {}
    order = _IdOrder(doc_ids)
    for start in range(0, len(qids), QUERY_BATCH):
        tick("search", start, len(qids))
        batch = qids[start : start + QUERY_BATCH]
        ids = _query_ids(tokenizer, [dataset.queries[q] for q in batch])
        for qid, query in zip(batch, ids, strict=True):
            ranked[qid] = _top(retriever, query, order, k)
    tick("search", len(qids), len(qids))
    return ranked


class _IdOrder:
    """The corpus's document ids, and each one's place in their byte order, made when a
    tie first crosses the k-th place (most searches never need it)."""

    def __init__(self, doc_ids: list[str]) -> None:
        self.doc_ids = doc_ids
        self._places: Any = None

    def places(self) -> Any:
        """An int64 array: the place of each document's id among all ids, ascending."""
        if self._places is None:
            import numpy as np
            import pyarrow as pa
            import pyarrow.compute as pc

            # Arrow compares strings by their UTF-8 bytes, which is trec_eval's order.
            ascending = pc.sort_indices(pa.array(self.doc_ids, type=pa.large_string()))
            places = np.empty(len(self.doc_ids), dtype=np.int64)
            places[ascending.to_numpy()] = np.arange(len(self.doc_ids), dtype=np.int64)
            self._places = places
        return self._places


def _top(retriever: Any, query: list[int], order: _IdOrder, k: int) -> list[tuple[float, str]]:
    """The first k documents of trec_eval's order over the whole corpus.

    bm25s's own top k (`retrieve`) keeps an arbitrary part of a tie across the k-th
    place; trec_eval ranks ties by document id, descending, so which tied documents are
    in the top k is decided here: every document scoring above the k-th best score is
    taken (as `retrieve` does, one scoring of the corpus and one partition per query),
    and of those scoring it, the ones with the highest ids that fill the k places (a
    second partition, so that a tie of a million documents costs no more than one of
    two); then they are ordered and cut.
    """
    import numpy as np

    if not query:
        return []
    every = retriever.get_scores(query)
    n = len(every)
    kth = np.partition(every, n - k)[n - k] if k < n else 0
    if kth > 0:
        above = np.flatnonzero(every > kth)
        tied = np.flatnonzero(every == kth)
        room = k - len(above)  # at least 1: fewer than k documents score above the k-th
        if len(tied) > room:
            places = order.places()[tied]
            tied = tied[np.argpartition(places, len(tied) - room)[len(tied) - room :]]
        chosen = np.concatenate((above, tied))
    else:
        chosen = np.flatnonzero(every > 0)
    doc_ids = order.doc_ids
    pairs = zip(every[chosen].tolist(), (doc_ids[d] for d in chosen.tolist()), strict=True)
    return _ordered(list(pairs), k)


def _search_candidates(
    retriever: Any,
    tokenizer: Any,
    doc_ids: list[str],
    dataset: RetrievalDataset,
    qids: list[str],
    k: int,
    tick: Progress,
) -> dict[str, list[tuple[float, str]]]:
    position = {d: i for i, d in enumerate(doc_ids)}
    ranked: dict[str, list[tuple[float, str]]] = {}
    for start in range(0, len(qids), QUERY_BATCH):
        tick("search", start, len(qids))
        batch = qids[start : start + QUERY_BATCH]
        ids = _query_ids(tokenizer, [dataset.queries[q] for q in batch])
        for qid, query in zip(batch, ids, strict=True):
            pool = [d for d in dataset.top_ranked.get(qid, ()) if d in position]
            if not pool or not query:
                ranked[qid] = []
                continue
            scores = retriever.get_scores(query)
            pairs = [(float(scores[position[d]]), d) for d in pool]
            ranked[qid] = _ordered(pairs, k)
    tick("search", len(qids), len(qids))
    return ranked


def default_cache_dir() -> Path:
    """Where BM25 indexes are kept between runs: $XDG_CACHE_HOME/tfce-eval, or ~/.cache."""
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "tfce-eval" / "bm25"
