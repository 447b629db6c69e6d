"""`tfce-eval retrieve` and `score` through the command line: the run holds the first k
documents of trec_eval's order even when scores tie across the k-th place, and an empty
run that `retrieve` wrote (no query word is in the corpus) scores 0 instead of being
refused, while an empty file of the user's own still is."""

from __future__ import annotations

import json
import random
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from tests.messages import unfold
from tests.retrieval_fixtures import span_query, write_beir, write_chunk_span, write_hf
from tfce_eval.cli import main
from tfce_eval.retrieval import load_retrieval, read_run, retrieve, score_run


def invoke(*args: str, code: int = 0) -> Any:
    result = CliRunner().invoke(main, list(args))
    assert result.exit_code == code, (result.output, result.exception)
    assert "Traceback" not in result.output
    return result


def trec(path: Path) -> dict[str, list[tuple[str, str]]]:
    """{qid: [(docid, score text), ...]} in the file's order."""
    out: dict[str, list[tuple[str, str]]] = {}
    for line in path.read_text(encoding="utf-8").splitlines():
        qid, _, docid, _, score, _ = line.split()
        out.setdefault(qid, []).append((docid, score))
    return out


def span_dataset(root: Path) -> Path:
    """Two source documents in five chunks; three chunks share the words of queries 1
    and 2, so that their scores tie (as the ConditionalQA fixture of the review has it)."""
    chunks = []
    for url, spans in (("A", [(0, 10), (10, 20), (20, 30)]), ("B", [(0, 15), (15, 30)])):
        for i, (start, end) in enumerate(spans):
            text = f"text of {url} chunk {i} alpha" if i == 1 else f"other words {url}{i}"
            chunks.append(
                {
                    "chunk_id": f"{url}-{i}",
                    "chunk": text,
                    "source_url": url,
                    "title": f"Doc {url}",
                    "chunk_idx": i,
                    "chunk_start_char": start,
                    "chunk_end_char": end,
                }
            )
    queries = [
        span_query("alpha", [("A", 10, 20, 1)]),
        span_query("words", [("A", 5, 12, 1), ("A", 11, 13, 3), ("B", 29, 31, 2)]),
        span_query("other", [("B", 0, 15, 1)]),
    ]
    return write_chunk_span(root, documents=chunks, queries={"test": queries}, fmt="parquet")


def test_a_tie_across_the_kth_place_keeps_trec_evals_first_k(tmp_path: Path) -> None:
    data = span_dataset(tmp_path / "span")
    cache = str(tmp_path / "cache")
    runs = {}
    for k in ("2", "100"):
        out = tmp_path / f"k{k}"
        invoke("retrieve", "--data", str(data), "--k", k, "--out", str(out), "--cache-dir", cache)
        runs[k] = trec(out / "run.trec")
    # Query 1's three best chunks tie: trec_eval ranks them by id, descending.
    assert [d for d, _ in runs["100"]["1"]] == ["B-0", "A-2", "A-0"]
    assert len({s for _, s in runs["100"]["1"]}) == 1
    for qid, ranked in runs["100"].items():
        assert runs["2"][qid] == ranked[:2], qid
    # So the top 2 score the same whichever depth the run has.
    measured = []
    for k in ("2", "100"):
        run = str(tmp_path / f"k{k}" / "run.trec")
        invoke("score", run, "--data", str(data), "--measures", "R@2 nDCG@2 SpanCov@2")
        scores = (tmp_path / f"k{k}" / "scores.jsonl").read_text().splitlines()
        measured.append({r["qid"]: r["measures"] for r in map(json.loads, scores)})
    assert measured[0] == measured[1]
    # Query 1's gold is A-1, A-0 and B-1: B-0 and A-2, trec_eval's top 2, hold none.
    assert measured[0]["1"] == {"R@2": 0.0, "nDCG@2": 0.0, "SpanCov@2": 0.0}
    ours = read_run(tmp_path / "k2" / "run.trec")
    assert ours.reordered == () and ours.contradicted == ()


@pytest.mark.parametrize("scripts", ["d", "dDé文😀"])
def test_every_depth_is_the_start_of_the_full_ranking(tmp_path: Path, scripts: str) -> None:
    # Few words, short texts: many tied scores at every depth; ids in several scripts
    # are ordered by their UTF-8 bytes, as trec_eval orders them.
    rng = random.Random(3)
    words = ["alpha", "beta", "gamma", "delta"]
    corpus = [
        {
            "id": f"{rng.choice(scripts)}{i:02d}",
            "title": "",
            "text": " ".join(rng.choices(words, k=rng.randint(1, 2))),
        }
        for i in range(40)
    ]
    queries = [{"id": f"q{i}", "text": " ".join(rng.sample(words, 2))} for i in range(6)]
    qrels = [{"query_id": q["id"], "corpus_id": corpus[0]["id"], "score": 1} for q in queries]
    root = write_hf(
        tmp_path / "hf", corpus=corpus, queries={"test": queries}, qrels={"test": qrels}
    )
    ds = load_retrieval(root)
    cache = tmp_path / "cache"
    full = trec(retrieve(ds, k=40, out_dir=tmp_path / "full", cache_dir=cache).run_path)
    tied_at_a_cut = 0
    for k in range(1, 40):
        cut = trec(retrieve(ds, k=k, out_dir=tmp_path / f"k{k}", cache_dir=cache).run_path)
        for qid, ranked in full.items():
            assert cut[qid] == ranked[:k], (k, qid)
            if len(ranked) > k and ranked[k - 1][1] == ranked[k][1]:
                tied_at_a_cut += 1
    assert tied_at_a_cut > 50  # the case is exercised, not only the easy one
    for ranked in full.values():  # trec_eval's order: score, then id bytes, descending
        keys = [(float(score), docid.encode()) for docid, score in ranked]
        assert keys == sorted(keys, reverse=True)


def beir_without_matches(root: Path) -> Path:
    return write_beir(
        root,
        corpus=[
            {"_id": "d1", "title": "", "text": "alpha beta"},
            {"_id": "d2", "title": "", "text": "gamma delta"},
        ],
        queries=[{"_id": "a", "text": "zeta"}, {"_id": "b", "text": "omega"}],
        qrels={"test": [("a", "d1", 1), ("b", "d2", 1)]},
    )


def test_an_empty_run_that_retrieve_wrote_scores_0(tmp_path: Path) -> None:
    data = beir_without_matches(tmp_path / "beir")
    out = tmp_path / "run"
    invoke("retrieve", "--data", str(data), "--out", str(out), "--cache-dir", str(tmp_path / "c"))
    assert (out / "run.trec").read_bytes() == b""
    meta = json.loads((out / "run.json").read_text(encoding="utf-8"))
    assert (meta["queries"], meta["answered"], meta["entries"]) == (2, 0, 0)
    printed = invoke("score", str(out / "run.trec"), "--data", str(data)).output
    said = " ".join(printed.split())  # the report's table text, wrapped at 80 columns
    assert (
        "Warning: the run is empty: retrieve found no document for any query (2 queries "
        "asked; run.json beside it says so); every judged query scores 0"
    ) in said
    summary = json.loads((out / "summary.json").read_text(encoding="utf-8"))
    assert summary["coverage"] == {"answered": 0, "total": 2}
    assert summary["queries"] == 2
    assert all(m["mean"] == 0.0 for m in summary["measures"].values())
    scores = [json.loads(x) for x in (out / "scores.jsonl").read_text().splitlines()]
    assert [s["qid"] for s in scores] == ["a", "b"]
    assert all(s["n_retrieved"] == 0 for s in scores)
    assert all(v == 0.0 for s in scores for v in s["measures"].values())
    # The report reads it back.
    assert "0 of 2 gold queries" in invoke("report", str(out)).output


def test_an_empty_file_of_ones_own_is_still_refused(tmp_path: Path) -> None:
    data = beir_without_matches(tmp_path / "beir")
    mine = tmp_path / "mine" / "run.trec"
    mine.parent.mkdir()
    mine.write_text("\n")
    said = unfold(invoke("score", str(mine), "--data", str(data), code=1).output)
    assert f"error: {mine}: the run is empty" in said
    # Nor does a run.json beside it that names another file, or a run that found some.
    out = tmp_path / "run"
    invoke("retrieve", "--data", str(data), "--out", str(out), "--cache-dir", str(tmp_path / "c"))
    other = out / "other.trec"
    other.write_text("")
    elsewhere = ("--out", str(tmp_path / "scores"))
    said = invoke("score", str(other), "--data", str(data), *elsewhere, code=1).output
    assert "the run is empty" in said
    meta = json.loads((out / "run.json").read_text(encoding="utf-8"))
    (out / "run.json").write_text(json.dumps({**meta, "answered": 1, "entries": 1}))
    said = invoke("score", str(out / "run.trec"), "--data", str(data), code=1).output
    assert "the run is empty" in said
    with pytest.raises(Exception, match="the run is empty"):
        score_run(other, load_retrieval(data))


def test_an_out_directory_that_cannot_be_made_stops_before_indexing(tmp_path: Path) -> None:
    data = beir_without_matches(tmp_path / "beir")
    blocker = tmp_path / "a-file"
    blocker.write_text("not a directory\n")
    cache = tmp_path / "cache"
    out = blocker / "run"
    said = unfold(
        invoke(
            "retrieve", "--data", str(data), "--out", str(out), "--cache-dir", str(cache), code=1
        ).output
    )
    assert said.startswith(f"error: {out}: cannot write the result files here"), said
    assert "fix: give a directory that exists" in said
    # Nothing was indexed: the failure came before the minutes an index can take.
    assert not cache.exists()
    assert blocker.read_text() == "not a directory\n"


def test_an_id_with_a_lone_surrogate_is_one_error_not_a_traceback(tmp_path: Path) -> None:
    # JSON can write "\ud800" (json.dumps does by default); no run file can hold it.
    data = write_beir(
        tmp_path / "beir",
        corpus=[
            {"_id": "SURROGATE", "title": "", "text": "alpha beta"},
            {"_id": "d2", "title": "", "text": "alpha delta"},
        ],
        queries=[{"_id": "a", "text": "alpha"}],
        qrels={"test": [("a", "d2", 1)]},
    )
    corpus = data / "corpus.jsonl"
    corpus.write_text(corpus.read_text().replace("SURROGATE", "\\ud800a"), encoding="utf-8")
    out, cache = tmp_path / "run", tmp_path / "c"
    said = invoke(
        "retrieve", "--data", str(data), "--out", str(out), "--cache-dir", str(cache), code=1
    )
    message = " ".join(said.output.split())
    assert (
        "corpus.jsonl, line 1: field '_id' holds a lone surrogate, not a character: \\ud800a"
        in message
    )
    assert not (out / "run.trec").exists()
    checked = " ".join(invoke("validate", "--data", str(data), code=1).output.split())
    assert "holds a lone surrogate" in checked and checked.endswith("1 error, 0 warnings")


def test_the_score_retrieve_suggests_scores_the_run_against_its_own_split(
    tmp_path: Path,
) -> None:
    out, cache = tmp_path / "run", tmp_path / "cache"
    args = ["retrieve", "--data", "builtin:qasper-rag", "--split", "dev"]
    printed = invoke(*args, "--out", str(out), "--cache-dir", str(cache)).output
    joined = printed.replace(" \\\n", " ")  # the command, continued with backslashes
    (line,) = [x for x in joined.splitlines() if x.startswith("next: tfce-eval ")]
    suggested = line.removeprefix("next: tfce-eval ").split()
    assert suggested[-2:] == ["--split", "dev"], line
    scored = invoke(*suggested, "--json")
    assert json.loads(scored.stdout)["dataset"]["split"] == "dev"
