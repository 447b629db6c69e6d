"""retrieve: BM25 with bm25s, its on-disk cache, candidate pools and the run it writes."""

from __future__ import annotations

import json
import random
from pathlib import Path

import bm25s
import pytest

from tests.retrieval_fixtures import (
    sample_chunk_span,
    sample_hf,
    span_query,
    write_hf,
    write_table,
)
from tfce_eval.errors import UsageError
from tfce_eval.retrieval import load_retrieval, read_run, score_run
from tfce_eval.retrieval.bm25 import retrieve

WORDS = [f"w{i}" for i in range(150)] + ["the", "and", "of"]  # three are stopwords


def _generated(root: Path, seed: int = 5) -> Path:
    rng = random.Random(seed)
    corpus = [
        {
            "id": f"doc{i:03d}",
            "title": f"t{i % 7}",
            "section_name": "s",
            "text": " ".join(rng.choices(WORDS, k=rng.randint(5, 40))),
        }
        for i in range(300)
    ]
    queries = [{"id": f"q{i}", "text": " ".join(rng.choices(WORDS, k=4))} for i in range(25)]
    queries.append({"id": "qx", "text": "zzz unknown words only"})
    qrels = [
        {"query_id": q["id"], "corpus_id": f"doc{i * 7:03d}", "score": 1}
        for i, q in enumerate(queries)
    ]
    pools = [
        {"query-id": q["id"], "corpus-ids": [f"doc{(i + j * 13) % 300:03d}" for j in range(20)]}
        for i, q in enumerate(queries)
    ]
    return write_hf(
        root,
        corpus=corpus,
        queries={"test": queries},
        qrels={"test": qrels},
        top_ranked={"test": pools},
        fmt="parquet",
    )


def _direct(ds_root: Path, k: int) -> dict[str, list[tuple[float, str]]]:
    """bm25s as its README uses it: tokenize, index, tokenize the queries, retrieve."""
    ds = load_retrieval(ds_root)
    docs = list(ds.iter_corpus())
    texts = [f"{d.title}\n{d.text}" for d in docs]
    retriever = bm25s.BM25(k1=1.5, b=0.75, method="lucene")
    retriever.index(bm25s.tokenize(texts, stopwords="en", show_progress=False), show_progress=False)
    qids = sorted(ds.queries)
    tokens = bm25s.tokenize([ds.queries[q] for q in qids], stopwords="en", show_progress=False)
    found, scores = retriever.retrieve(tokens, k=k, show_progress=False)
    out = {}
    for i, q in enumerate(qids):
        pairs = [(float(s), docs[int(d)].id) for d, s in zip(found[i], scores[i], strict=True)]
        out[q] = sorted((p for p in pairs if p[0] > 0), reverse=True)
    return out


def _read_trec(path: Path) -> dict[str, list[tuple[float, str]]]:
    out: dict[str, list[tuple[float, str]]] = {}
    for line in path.read_text().splitlines():
        q, _, d, _, s, _ = line.split()
        out.setdefault(q, []).append((float(s), d))
    return out


def test_the_run_equals_bm25s_called_directly(tmp_path: Path) -> None:
    root = _generated(tmp_path / "ds")
    ds = load_retrieval(root)
    result = retrieve(ds, k=10, out_dir=tmp_path / "out", cache_dir=tmp_path / "cache")
    ours = _read_trec(result.run_path)
    direct = _direct(root, 10)
    assert {q: v for q, v in direct.items() if v} == ours
    assert "qx" not in ours  # no query word in the corpus: nothing retrieved
    assert result.queries == 26 and not result.cache_hit
    # Ranks follow the scores, ties by document id descending: it scores unchanged.
    run = read_run(result.run_path)
    assert run.contradicted == () and run.reordered == ()
    scored = score_run(run, ds, "R@10 nDCG@10", None)
    assert scored.summary["coverage"] == {"answered": 25, "total": 26}
    meta = json.loads(result.meta_path.read_text())
    assert meta["method"] == "bm25" and meta["documents"] == 300
    assert meta["parameters"] == {
        "k": 10,
        "k1": 1.5,
        "b": 0.75,
        "variant": "lucene",
        "candidates": False,
    }
    assert meta["tokenizer"]["stemmer"] is None  # PyStemmer is not installed here
    assert meta["tokenizer"]["stopwords"] == "bm25s English list"
    assert meta["corpus_sha256"] == ds.corpus_sha256()
    assert meta["cache"]["hit"] is False
    assert set(meta["times"]) == {"index_s", "search_s", "total_s"}


def test_the_index_cache(tmp_path: Path) -> None:
    root = _generated(tmp_path / "ds")
    ds = load_retrieval(root)
    cache = tmp_path / "cache"
    first = retrieve(ds, out_dir=tmp_path / "a", cache_dir=cache)
    ticks: list[tuple[str, int, int]] = []
    second = retrieve(
        ds, out_dir=tmp_path / "b", cache_dir=cache, progress=lambda *t: ticks.append(t)
    )
    assert second.cache_hit and second.meta["cache"]["hit"] is True
    assert "tokenize" not in {t[0] for t in ticks} and ("search", 26, 26) in ticks
    assert first.run_path.read_bytes() == second.run_path.read_bytes()
    [index_dir] = cache.iterdir()
    # A damaged cache is rebuilt, not trusted.
    (index_dir / "ids.json").write_text("[not json")
    third = retrieve(ds, out_dir=tmp_path / "c", cache_dir=cache)
    assert not third.cache_hit and third.run_path.read_bytes() == first.run_path.read_bytes()
    # Another corpus, another key.
    other = _generated(tmp_path / "other", seed=6)
    fourth = retrieve(load_retrieval(other), out_dir=tmp_path / "d", cache_dir=cache)
    assert not fourth.cache_hit and len(list(cache.iterdir())) == 2


def test_candidates_rank_only_the_pool(tmp_path: Path) -> None:
    root = _generated(tmp_path / "ds")
    ds = load_retrieval(root)
    full = retrieve(ds, k=300, out_dir=tmp_path / "full", cache_dir=tmp_path / "c")
    pooled = retrieve(ds, k=5, candidates=True, out_dir=tmp_path / "pool", cache_dir=tmp_path / "c")
    assert pooled.cache_hit and pooled.meta["parameters"]["candidates"] is True
    everything = _read_trec(full.run_path)
    ours = _read_trec(pooled.run_path)
    for qid, pool in ds.top_ranked.items():
        expected = [p for p in everything.get(qid, []) if p[1] in pool][:5]
        assert ours.get(qid, []) == expected, qid
    assert any(len(v) == 5 for v in ours.values())


def test_chunk_span_runs_use_the_row_ids(tmp_path: Path) -> None:
    root = sample_chunk_span(tmp_path / "c")
    queries = [
        span_query("where is bbbb", [("doc-a", 5, 9, 1)]),
        span_query("eeee please", [("doc-b", 5, 9, 1)]),
    ]
    write_table(root / "queries" / "test", queries)
    ds = load_retrieval(root, corpus="documents_coref")
    result = retrieve(ds, out_dir=tmp_path / "out", cache_dir=tmp_path / "cache")
    assert result.queries == 2 and result.meta["answered"] == 2
    assert result.run_path.read_text().splitlines()[0].startswith("0 Q0 a-1 1 ")
    scored = score_run(result.run_path, ds, "SpanCov@5 R@5", None)
    assert [q.qid for q in scored.queries] == ["0", "1"]
    assert [q.measures["SpanCov@5"] for q in scored.queries] == [1.0, 1.0]


def test_bad_requests(tmp_path: Path) -> None:
    ds = load_retrieval(sample_hf(tmp_path / "hf"))
    kw = {"out_dir": tmp_path / "o", "cache_dir": tmp_path / "c"}
    with pytest.raises(UsageError, match="unknown retrieval method 'dense'"):
        retrieve(ds, method="dense", **kw)
    with pytest.raises(UsageError, match="at least 1"):
        retrieve(ds, k=0, **kw)
    spans = load_retrieval(sample_chunk_span(tmp_path / "c2"))
    with pytest.raises(UsageError, match="--candidates needs"):
        retrieve(spans, candidates=True, **kw)
    assert not (tmp_path / "o").exists()


@pytest.mark.parametrize("fmt", ["jsonl", "parquet"])
def test_corpus_columns_match_the_record_reader(tmp_path: Path, fmt: str) -> None:
    from tfce_eval.retrieval.corpus import corpus_columns

    for ds in (
        load_retrieval(sample_hf(tmp_path / "hf", fmt)),
        load_retrieval(sample_chunk_span(tmp_path / "c", fmt), corpus="documents_coref"),
    ):
        docs = list(ds.iter_corpus())
        assert corpus_columns(ds.files) == (
            [d.id for d in docs],
            [d.title for d in docs],
            [d.text for d in docs],
        )


def test_corpus_columns_name_a_bad_line_or_a_twice_used_id(tmp_path: Path) -> None:
    from tfce_eval.errors import DataError
    from tfce_eval.retrieval.corpus import corpus_columns

    root = sample_hf(tmp_path / "hf")
    corpus = root / "corpus" / "train.jsonl"
    lines = corpus.read_text().splitlines()
    corpus.write_text("\n".join([*lines[:2], '{"id": "x", "title": "t"}', *lines[2:]]) + "\n")
    ds = load_retrieval(root)
    with pytest.raises(DataError) as err:
        corpus_columns(ds.files)
    assert (err.value.path, err.value.line) == (str(corpus), 3)
    assert "missing field 'text'" in err.value.message
    corpus.write_text("\n".join([*lines, lines[0]]) + "\n")
    with pytest.raises(DataError, match="document id 'p1_abs' appears twice"):
        retrieve(load_retrieval(root), out_dir=tmp_path / "o", cache_dir=tmp_path / "c")
    # Integer ids are read as strings, as the record reader reads them.
    write_table(
        root / "corpus" / "train",
        [{"id": 7, "title": None, "text": "seven"}, {"id": 8, "text": "eight"}],
        "parquet",
    )
    corpus.unlink()
    assert corpus_columns(load_retrieval(root).files) == (["7", "8"], ["", ""], ["seven", "eight"])


def test_nothing_to_retrieve(tmp_path: Path) -> None:
    from tfce_eval.errors import DataError

    root = sample_hf(tmp_path / "hf")
    (root / "corpus" / "train.jsonl").write_text("")
    with pytest.raises(DataError, match="the corpus has no documents"):
        retrieve(load_retrieval(root), out_dir=tmp_path / "o", cache_dir=tmp_path / "c")
    root = sample_hf(tmp_path / "hf2")
    (root / "queries" / "dev.jsonl").write_text("")
    (root / "qrels" / "dev.jsonl").write_text("")
    with pytest.raises(DataError, match="split 'dev' has no queries"):
        retrieve(
            load_retrieval(root, split="dev"), out_dir=tmp_path / "o", cache_dir=tmp_path / "c"
        )
    assert not (tmp_path / "o").exists()


def test_without_a_cache_dir_the_index_is_kept_under_xdg_cache_home(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from click.testing import CliRunner

    from tfce_eval.cli import main

    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg"))
    out = tmp_path / "bm25"
    result = CliRunner().invoke(
        main, ["retrieve", "--data", "builtin:qasper-rag", "--out", str(out)]
    )
    assert result.exit_code == 0, result.output
    kept = json.loads((out / "run.json").read_text(encoding="utf-8"))["cache"]["path"]
    assert Path(kept).parent == tmp_path / "xdg" / "tfce-eval" / "bm25"
    assert Path(kept).is_dir() and any(Path(kept).iterdir())
