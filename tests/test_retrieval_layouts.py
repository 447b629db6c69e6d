"""Loading retrieval datasets in the three layouts, span gold, and validate."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

import pytest

from tests.retrieval_fixtures import (
    HF_CORPUS,
    SPAN_DOCUMENTS,
    sample_beir,
    sample_chunk_span,
    sample_hf,
    span_query,
    write_chunk_span,
    write_hf,
    write_table,
    write_trec_qrels,
)
from tfce_eval.errors import DataError, UsageError
from tfce_eval.model import Level
from tfce_eval.retrieval import Layout, detect_layout, load_retrieval, validate_retrieval


@pytest.mark.parametrize("fmt", ["jsonl", "parquet", "json", "json-lines"])
def test_hf_layout_reads_every_part(tmp_path: Path, fmt: str) -> None:
    root = sample_hf(tmp_path / "ds", fmt)
    assert detect_layout(root) is Layout.HF
    ds = load_retrieval(root)
    assert ds.split == "test"  # the default when present
    assert ds.files.splits == ("dev", "test")
    assert ds.queries == {
        "q1": "Which events trigger handover?",
        "q2": "What fading model is assumed?",
        "q3": "Where do the traces come from?",
    }
    assert ds.qrels == {"q1": {"p1_0": 1}, "q2": {"p2_0": 2, "p2_abs": 1}, "q3": {"p2_1": 1}}
    assert ds.answers == {"q1": "A3 events"}
    assert ds.top_ranked["q2"] == ("p2_abs", "p2_0", "p2_1")
    assert [d.id for d in ds.iter_corpus()] == [d["id"] for d in HF_CORPUS]
    first = next(iter(ds.iter_corpus()))
    assert (first.title, first.section, first.text) == (
        "Paper one",
        "abstract",
        "We study LTE handover.",
    )
    assert ds.gold_queries() == ["q1", "q2", "q3"]
    corpus_file = ds.files.corpus[0]
    assert ds.corpus_sha256() == hashlib.sha256(corpus_file.read_bytes()).hexdigest()
    dev = load_retrieval(root, split="dev")
    assert dev.queries == {"d1": "How much do failures drop?"}
    assert dev.qrels == {"d1": {"p1_1": 1}}


def test_split_choice(tmp_path: Path) -> None:
    root = sample_hf(tmp_path / "ds")
    with pytest.raises(UsageError, match="no split 'train'; its splits: dev, test"):
        load_retrieval(root, split="train")
    for part in ("queries", "qrels", "answers", "top_ranked", "retrieved_docs"):
        for f in (root / part).glob("test*"):
            f.rename(f.with_name(f.name.replace("test", "val")))
    with pytest.raises(UsageError, match=r"several splits .* --split"):
        load_retrieval(root)
    assert load_retrieval(root, split="val").gold_queries() == ["q1", "q2", "q3"]


def test_beir_layout_and_a_trec_qrels_override(tmp_path: Path) -> None:
    root = sample_beir(tmp_path / "beir")
    assert detect_layout(root) is Layout.BEIR
    ds = load_retrieval(root)
    # queries.jsonl holds every split: the test split is the queries its qrels judge.
    assert ds.queries == {"1": "power control", "2": "beams"}
    assert ds.qrels == {"1": {"d1": 1}, "2": {"d3": 1, "d2": 0}}
    train = load_retrieval(root, split="train")
    assert train.queries == {"9": "a training query"} and train.gold_queries() == ["9"]
    override = write_trec_qrels(tmp_path / "q.txt", {"1": {"d2": 3}, "2": {"d1": 0}})
    ds = load_retrieval(root, qrels=override)
    assert ds.qrels == {"1": {"d2": 3}, "2": {"d1": 0}}
    assert ds.gold_queries() == ["1"]  # query 2 has no relevant document left
    assert ds.qrels_source == str(override)


def test_trec_qrels_override_names_a_bad_line(tmp_path: Path) -> None:
    root = sample_beir(tmp_path / "beir")
    bad = tmp_path / "bad.qrels"
    bad.write_text("1 0 d1 1\n\n2 0 d3 high\n")
    with pytest.raises(DataError) as err:
        load_retrieval(root, qrels=bad)
    assert err.value.path == str(bad) and err.value.line == 3
    assert "relevance 'high' is not an integer" in err.value.message


@pytest.mark.parametrize("fmt", ["jsonl", "parquet"])
@pytest.mark.parametrize("corpus", ["documents", "documents_coref"])
def test_span_gold_by_half_open_overlap(tmp_path: Path, fmt: str, corpus: str) -> None:
    root = sample_chunk_span(tmp_path / "cqa", fmt)
    assert detect_layout(root) is Layout.CHUNK_SPAN
    ds = load_retrieval(root, corpus=corpus)
    # Queries carry no id: they are numbered by row from 0.
    assert ds.queries == {"0": "first", "1": "second"}
    # Query 0: [5,9) score 1 covers a-1; [7,12) score 2 overlaps a-1 and a-2.
    # a-1 overlaps both fragments: its relevance is the larger score, 2.
    assert ds.qrels == {"0": {"a-1": 2, "a-2": 2}, "1": {"b-1": 1}}
    assert ds.has_spans and ds.corpus_name == corpus
    texts = [d.text for d in ds.iter_corpus()]
    assert texts[0] == ("aaaa" if corpus == "documents" else "AAAA (resolved)")


def test_a_fragment_touching_a_chunk_boundary_is_not_gold(tmp_path: Path) -> None:
    queries = [
        span_query("touch", [("doc-a", 9, 10, 1)]),  # a-1 ends at 9, a-2 starts at 10
        span_query("one char", [("doc-a", 13, 14, 1)]),  # the last character of a-2
        span_query("across", [("doc-a", 3, 6, 1)]),  # a-0's last and a-1's first char
    ]
    root = write_chunk_span(tmp_path / "c", documents=SPAN_DOCUMENTS, queries={"test": queries})
    problems = validate_retrieval(root)
    errors = [p for p in problems if p.level is Level.ERROR]
    assert len(errors) == 1
    assert errors[0].line == 1 and "overlaps no chunk of documents/" in errors[0].message
    with pytest.raises(DataError, match="overlaps no chunk"):
        load_retrieval(root)
    ok = write_chunk_span(tmp_path / "ok", documents=SPAN_DOCUMENTS, queries={"test": queries[1:]})
    assert load_retrieval(ok).qrels == {"0": {"a-2": 1}, "1": {"a-0": 1, "a-1": 1}}


def test_span_queries_with_an_id_field_keep_it(tmp_path: Path) -> None:
    rows = [dict(span_query("x", [("doc-b", 0, 4, 1)]), id="cq-7")]
    root = write_chunk_span(tmp_path / "c", documents=SPAN_DOCUMENTS, queries={"test": rows})
    assert load_retrieval(root).qrels == {"cq-7": {"b-0": 1}}


def test_unknown_layout(tmp_path: Path) -> None:
    (tmp_path / "stuff").mkdir()
    assert detect_layout(tmp_path / "stuff") is None
    assert detect_layout(tmp_path / "missing") is None
    with pytest.raises(DataError, match="not a retrieval dataset") as err:
        load_retrieval(tmp_path / "stuff")
    assert "corpus/ queries/ qrels/" in (err.value.hint or "")
    [problem] = validate_retrieval(tmp_path / "stuff")
    assert problem.message == "not a retrieval dataset"


def test_corpus_option_only_for_chunk_spans(tmp_path: Path) -> None:
    with pytest.raises(UsageError, match="chunk-span layout only"):
        load_retrieval(sample_hf(tmp_path / "hf"), corpus="documents_coref")
    root = sample_chunk_span(tmp_path / "c")
    with pytest.raises(UsageError, match="one of documents, documents_coref"):
        load_retrieval(root, corpus="plain")


def _broken_hf(root: Path) -> Path:
    corpus = [*HF_CORPUS, {"id": "p1_0", "title": "dup", "text": "again"}, {"title": "no id"}]
    write_hf(
        root,
        corpus=corpus,
        queries={"test": [{"id": "q1", "text": "a"}, {"id": "q1", "text": "b"}, {"id": 5}]},
        qrels={
            "test": [
                {"query_id": "q1", "corpus_id": "p1_0", "score": 1},
                {"query_id": "q9", "corpus_id": "p1_0", "score": 1},
                {"query_id": "q1", "corpus_id": "nope", "score": 1},
                {"query_id": "q1", "corpus_id": "p1_1", "score": "1"},
            ]
        },
        top_ranked={"test": [{"query-id": "q1", "corpus-ids": ["p1_0", "gone"]}]},
        retrieved_docs={
            "test": [
                {"query_id": "q1", "corpus_id": "p1_0", "rank": 1, "retrieval_score": 2.0},
                {"query_id": "q1", "corpus_id": "p1_0", "rank": 2, "retrieval_score": 1.0},
            ]
        },
    )
    with (root / "queries" / "test.jsonl").open("a") as fh:
        fh.write("{not json\n")
    return root


def test_validate_reports_every_problem_with_its_line(tmp_path: Path) -> None:
    root = _broken_hf(tmp_path / "bad")
    problems = validate_retrieval(root)
    seen = {(Path(p.path).parent.name, p.line, p.message) for p in problems}
    expected = {
        ("corpus", 7, "document id 'p1_0' appears twice"),
        ("corpus", 8, "missing field 'id' or '_id'"),
        ("queries", 2, "query id 'q1' appears twice (first at line 1)"),
        ("queries", 3, "missing field 'text'"),
        (
            "queries",
            4,
            "not valid JSON: Expecting property name enclosed in double quotes at column 2",
        ),
        ("qrels", 3, "judgement of document 'nope', which is not in the corpus"),
        ("qrels", 4, "field 'score' is str, not an integer"),
        ("top_ranked", 1, "1 candidate of query 'q1' is not in the corpus (gone)"),
        ("retrieved_docs", 2, "document 'p1_0' is listed twice for query 'q1'"),
    }
    assert expected <= seen, expected - seen
    # q9 may be the query on the line that is not JSON: its judgement is not reported
    # as one of an unknown query (tests/test_retrieval_knock_on.py).
    assert not [p for p in problems if "'q9'" in p.message]
    for p in problems:
        assert p.hint and p.level is Level.ERROR, p
    with pytest.raises(DataError) as err:
        load_retrieval(root)
    assert "more: tfce-eval validate lists them" in err.value.message
    assert (err.value.path, err.value.line) == (str(root / "queries" / "test.jsonl"), 2)


def test_validate_a_sound_dataset_in_parquet(tmp_path: Path) -> None:
    assert validate_retrieval(sample_hf(tmp_path / "hf", "parquet")) == []
    assert validate_retrieval(sample_beir(tmp_path / "beir")) == []
    assert validate_retrieval(sample_chunk_span(tmp_path / "c", "parquet")) == []


def test_parquet_problems_name_the_row(tmp_path: Path) -> None:
    root = sample_hf(tmp_path / "hf", "parquet")
    write_table(
        root / "qrels" / "test-00000-of-00001",
        [
            {"query_id": "q1", "corpus_id": "p1_0", "score": 1},
            {"query_id": "zz", "corpus_id": "p1_0", "score": 1},
        ],
        "parquet",
    )
    with pytest.raises(DataError) as err:
        load_retrieval(root)
    parquet = root / "qrels" / "test-00000-of-00001.parquet"
    assert str(err.value).startswith(f"{parquet}, row 1: judgement for query 'zz'")
    # validate names the row the same way: in the path, as a row counted from 0.
    [finding] = [p for p in validate_retrieval(root) if p.level is Level.ERROR]
    assert (finding.path, finding.line) == (f"{parquet}, row 1", None)
    assert str(finding) == (
        f"error: {parquet}, row 1: judgement for query 'zz', which is not among the "
        "queries of this split\n  fix: add the query to the queries file, or remove the "
        "judgement"
    )


def test_json_array_problems_name_the_row(tmp_path: Path) -> None:
    root = sample_hf(tmp_path / "hf")
    (root / "corpus" / "train.jsonl").unlink()
    rows = [*HF_CORPUS, "not an object", {"id": "p1_0", "text": "again"}]
    (root / "corpus" / "train.json").write_text(json.dumps(rows), encoding="utf-8")
    path = root / "corpus" / "train.json"
    found = {(p.path, p.line, p.message) for p in validate_retrieval(root)}
    assert (f"{path}, row {len(HF_CORPUS)}", None, "not a JSON object") in found
    assert (f"{path}, row {len(HF_CORPUS) + 1}", None, "document id 'p1_0' appears twice") in found


def test_a_thousand_bad_rows_are_counted_not_listed(tmp_path: Path) -> None:
    root = sample_hf(tmp_path / "hf")
    rows = [{"query_id": "q1", "corpus_id": f"x{i}", "score": "high"} for i in range(1000)]
    write_table(root / "qrels" / "test", rows)
    problems = validate_retrieval(root, split="test")
    bad = [p for p in problems if "'score' is str" in p.message]
    assert len(bad) == 11 and bad[-1].message.startswith("990 more like: ")
    qrels = root / "qrels" / "test.jsonl"
    assert [p.line for p in bad] == [*range(1, 11), None]
    assert bad[-1].path == str(qrels) and bad[-1].hint == bad[0].hint


def test_empty_and_missing_parts(tmp_path: Path) -> None:
    root = sample_hf(tmp_path / "hf")
    (root / "qrels" / "test.jsonl").write_text("")
    # An empty qrels file loads; nothing is scored (score_run says so).
    assert load_retrieval(root).gold_queries() == []
    (root / "qrels" / "test.jsonl").unlink()
    with pytest.raises(DataError, match="no qrels files for split 'test'"):
        load_retrieval(root)
    root = sample_chunk_span(tmp_path / "c")
    (root / "documents" / "test.jsonl").write_text(json.dumps({"chunk_id": "a-0"}) + "\n")
    with pytest.raises(DataError, match="missing field 'source_url'"):
        load_retrieval(root)


def test_importing_the_library_loads_no_heavy_package() -> None:
    import subprocess
    import sys

    code = (
        "import sys, tfce_eval.retrieval\n"
        "heavy = {'pyarrow', 'numpy', 'ir_measures', 'pytrec_eval', 'bm25s', 'scipy', 'rich'}\n"
        "print(sorted(heavy & set(sys.modules)))\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"


@pytest.mark.parametrize("content", ["", "\n \n\n", " " * (2 << 20)])
def test_an_empty_json_table_is_said_to_be_empty(tmp_path: Path, content: str) -> None:
    root = sample_hf(tmp_path / "ds", "json")
    (root / "queries" / "test.json").write_text(content, encoding="utf-8")
    found = [f for f in validate_retrieval(root) if f.path == str(root / "queries" / "test.json")]
    assert [(f.message, f.line) for f in found] == [("the file is empty", None)]
