"""The BM25 index `retrieve` builds with bm25s, and its cache: built once per corpus and
settings, saved under a name no other process writes, and renamed into place whole."""

from __future__ import annotations

import json
import os
import secrets
import shutil
from collections.abc import Callable
from pathlib import Path
from typing import Any

from tfce_eval.errors import DataError
from tfce_eval.retrieval.corpus import corpus_columns
from tfce_eval.retrieval.dataset import RetrievalDataset

#: progress(stage, done, total): stages "hash", "read", "tokenize", "index", "search",
#: "write", in that order ("read" to "index" only when the index is not cached).
Progress = Callable[[str, int, int], None]

K1 = 1.5
B = 0.75
VARIANT = "lucene"
PATTERN = r"(?u)\b\w\w+\b"
BATCH = 2_000  # documents per tokenization step (a progress tick)


Index = tuple[Any, Any, list[str]]


def new_tokenizer(stemmer: Any) -> Any:
    import bm25s.tokenization

    return bm25s.tokenization.Tokenizer(
        lower=True, splitter=PATTERN, stopwords="english", stemmer=stemmer
    )


def load_index(index_dir: Path, stemmer: Any) -> Index | None:
    """The cached index, or None when there is none (or it cannot be read)."""
    if not (index_dir / "complete").is_file():
        return None
    import bm25s

    try:
        retriever = bm25s.BM25.load(str(index_dir), load_corpus=False, show_progress=False)
        tokenizer = new_tokenizer(stemmer)
        tokenizer.load_vocab(str(index_dir))
        doc_ids = json.loads((index_dir / "ids.json").read_text(encoding="utf-8"))
    except (OSError, ValueError, KeyError):
        return None  # a damaged cache is rebuilt
    return retriever, tokenizer, doc_ids


def build_index(dataset: RetrievalDataset, stemmer: Any, index_dir: Path, tick: Progress) -> Index:
    import bm25s

    tick("read", 0, 1)
    doc_ids, titles, bodies = corpus_columns(dataset.files)
    if not doc_ids:
        raise DataError(
            "the corpus has no documents",
            path=", ".join(str(p) for p in dataset.files.corpus),
            hint="add the documents to retrieve from",
        )
    texts = [f"{t}\n{b}" if t else b for t, b in zip(titles, bodies, strict=True)]
    del titles, bodies
    tick("read", 1, 1)
    tokenizer = new_tokenizer(stemmer)
    token_ids: list[list[int]] = []
    for start in range(0, len(texts), BATCH):
        tick("tokenize", start, len(texts))
        batch = texts[start : start + BATCH]
        token_ids += tokenizer.tokenize(
            batch, update_vocab=True, return_as="ids", show_progress=False
        )
    tick("tokenize", len(texts), len(texts))
    del texts
    tick("index", 0, 1)
    retriever = bm25s.BM25(k1=K1, b=B, method=VARIANT)
    retriever.index((token_ids, tokenizer.get_vocab_dict()), show_progress=False)
    tick("index", 1, 1)
    _save_index(retriever, tokenizer, doc_ids, index_dir)
    return retriever, tokenizer, doc_ids


def _save_index(retriever: Any, tokenizer: Any, doc_ids: list[str], index_dir: Path) -> None:
    """Write the cache to a temporary directory and rename it into place."""
    # A name no other process has, whatever its process id (containers sharing a cache
    # may each be process 1); made by the save, with the permissions any directory gets.
    tmp = index_dir.with_name(f".{index_dir.name}.{os.getpid()}.{secrets.token_hex(8)}.tmp")
    try:
        index_dir.parent.mkdir(parents=True, exist_ok=True)
        _remove_stale(index_dir)
        retriever.save(str(tmp), show_progress=False)
        tokenizer.save_vocab(str(tmp))
        (tmp / "ids.json").write_text(json.dumps(doc_ids, ensure_ascii=False), encoding="utf-8")
        (tmp / "complete").write_text("1\n")
        shutil.rmtree(index_dir, ignore_errors=True)
        os.replace(tmp, index_dir)
    except OSError:
        pass  # a cache that cannot be written costs time, not results
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


#: How old a temporary index directory is before it counts as left by a killed save.
STALE_S = 24 * 3600


def _remove_stale(index_dir: Path) -> None:
    """Remove this index's temporary directories that no save has touched for a day: a
    save killed on the way leaves one, and nothing else would ever remove it."""
    import time

    limit = time.time() - STALE_S
    for old in index_dir.parent.glob(f".{index_dir.name}.*.tmp"):
        try:
            if old.stat().st_mtime < limit:
                shutil.rmtree(old, ignore_errors=True)
        except OSError:
            continue  # gone meanwhile, or not ours to look at
