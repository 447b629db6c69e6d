"""score_run's files, reading them back, and the report Document (docs/retrieval.md)."""

from __future__ import annotations

import dataclasses
import hashlib
import json
from pathlib import Path

import pytest

from tests.retrieval_fixtures import (
    sample_chunk_span,
    sample_hf,
    write_trec_run,
)
from tfce_eval.errors import DataError
from tfce_eval.report.document import render_document
from tfce_eval.retrieval import (
    load_retrieval,
    load_scored_run,
    read_run,
    retrieval_document,
    score_run,
)
from tfce_eval.retrieval.score import resamples_for
from tfce_eval.stats import bootstrap_interval, paired_randomization_p, paired_t_p


def _run(tmp_path: Path, name: str = "run.trec") -> Path:
    return write_trec_run(
        tmp_path / name,
        {
            "q1": [("p1_0", 9.0), ("p1_1", 8.0)],
            "q2": [("p2_1", 5.0), ("p2_0", 4.0), ("p2_abs", 3.0)],
            "zz": [("p1_0", 1.0)],  # not in the gold
        },
    )


def test_score_writes_scores_and_summary(tmp_path: Path) -> None:
    ds = load_retrieval(sample_hf(tmp_path / "hf"))
    out = tmp_path / "out"
    result = score_run(_run(tmp_path), ds, "RR@10 Success@1 R@2 nDCG@10", out)
    lines = [json.loads(x) for x in (out / "scores.jsonl").read_text().splitlines()]
    # q1: the relevant p1_0 first. q2: p2_1 (not relevant) first, then p2_0 (2), p2_abs (1).
    # q3: missing from the run, 0 everywhere.
    ndcg_q2 = (2 / 1.584962500721156 + 1 / 2) / (2 + 1 / 1.584962500721156)
    assert lines[0] == {
        "qid": "q1",
        "measures": {"RR@10": 1.0, "Success@1": 1.0, "R@2": 1.0, "nDCG@10": 1.0},
        "n_relevant": 1,
        "n_retrieved": 2,
    }
    assert lines[1]["qid"] == "q2" and lines[1]["n_relevant"] == 2
    assert lines[1]["n_retrieved"] == 3
    assert lines[1]["measures"]["RR@10"] == 0.5 and lines[1]["measures"]["R@2"] == 0.5
    assert lines[1]["measures"]["nDCG@10"] == pytest.approx(ndcg_q2, abs=1e-12)
    assert lines[2] == {
        "qid": "q3",
        "measures": {"RR@10": 0.0, "Success@1": 0.0, "R@2": 0.0, "nDCG@10": 0.0},
        "n_relevant": 1,
        "n_retrieved": 0,
    }
    summary = json.loads((out / "summary.json").read_text())
    assert summary == result.summary
    assert list(summary) == [
        "task",
        "measures",
        "queries",
        "coverage",
        "warnings",
        "dataset",
        "run",
        "interval",
    ]
    assert summary["task"] == "retrieval" and summary["queries"] == 3
    assert summary["coverage"] == {"answered": 2, "total": 3}
    assert summary["measures"]["RR@10"]["mean"] == pytest.approx(0.5)
    assert summary["measures"]["RR@10"]["ci95"] == list(bootstrap_interval([1.0, 0.5, 0.0]))
    assert summary["warnings"] == [
        "1 query of the run not in the gold, ignored (zz)",
        "1 query of the gold missing from the run, scored 0 (trec_eval -c)",
    ]
    assert summary["dataset"]["split"] == "test" and summary["dataset"]["layout"] == "hf"
    assert len(summary["dataset"]["corpus_sha256"]) == 64
    assert summary["run"] == {
        "name": "run.trec",
        "path": str(tmp_path / "run.trec"),
        "form": "trec",
        "queries": 3,
        "entries": 6,
        "sha256": hashlib.sha256((tmp_path / "run.trec").read_bytes()).hexdigest(),
    }
    assert summary["interval"]["resamples"] == 10_000
    assert not list(out.glob(".*tmp"))


def test_span_coverage_and_ids_sorted_by_number(tmp_path: Path) -> None:
    root = sample_chunk_span(tmp_path / "c")
    ds = load_retrieval(root)
    # Query 0's fragments: [5,9) and [7,12) of doc-a. a-2 [10,14) covers only the second.
    # Query 1's fragment: [5,9) of doc-b, b-1; the run gives b-0 first, then b-1.
    run = write_trec_run(
        tmp_path / "r.trec", {"0": [("a-2", 2.0), ("a-0", 1.0)], "1": [("b-0", 2), ("b-1", 1)]}
    )
    result = score_run(run, ds, "SpanCov@1 SpanCov@2 R@1", None)
    values = {q.qid: dict(q.measures) for q in result.queries}
    assert values == {
        "0": {"SpanCov@1": 0.5, "SpanCov@2": 0.5, "R@1": 0.5},
        "1": {"SpanCov@1": 0.0, "SpanCov@2": 1.0, "R@1": 0.0},
    }
    # Ids sorted as numbers: "2" before "10".
    rows = [
        {
            "query": f"q{i}",
            "score": [1],
            "source_url": ["doc-b"],
            "frag_start_char": [0],
            "frag_end_char": [4],
        }
        for i in range(12)
    ]
    (root / "queries" / "test.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows))
    ds = load_retrieval(root)
    run = write_trec_run(tmp_path / "s.trec", {"3": [("b-0", 1.0)]})
    result = score_run(run, ds, "R@1", None)
    assert [q.qid for q in result.queries] == [str(i) for i in range(12)]


def test_nothing_is_written_for_a_bad_run(tmp_path: Path) -> None:
    ds = load_retrieval(sample_hf(tmp_path / "hf"))
    out = tmp_path / "out"
    dup = tmp_path / "dup.trec"
    dup.write_text("q1 Q0 a 1 2 r\nq1 Q0 a 2 1 r\n")
    with pytest.raises(DataError, match="listed twice"):
        score_run(dup, ds, None, out)
    other = write_trec_run(tmp_path / "other.trec", {"x1": [("a", 1.0)], "x2": [("b", 1.0)]})
    with pytest.raises(DataError) as err:
        score_run(other, ds, None, out)
    assert "none of the run's 2 queries is in the gold of split 'test' (x1, x2)" in str(err.value)
    assert not out.exists()
    empty = load_retrieval(ds.root, split="dev")
    (ds.root / "qrels" / "dev.jsonl").write_text(
        json.dumps({"query_id": "d1", "corpus_id": "p1_1", "score": 0}) + "\n"
    )
    empty = load_retrieval(ds.root, split="dev")
    with pytest.raises(DataError, match="no query of this split has a relevant document"):
        score_run(other, empty, None, out)


def test_large_query_sets_use_fewer_resamples() -> None:
    assert resamples_for(271) == resamples_for(2000) == 10_000
    assert resamples_for(4000) == 5_000
    assert resamples_for(10_000) == 2_000 == resamples_for(1_000_000)


def test_load_scored_run_round_trip_and_bad_files(tmp_path: Path) -> None:
    ds = load_retrieval(sample_hf(tmp_path / "hf"))
    out = tmp_path / "a"
    result = score_run(_run(tmp_path), ds, None, out)
    back = load_scored_run(out)
    assert back.name == "a" and back.summary == result.summary
    assert back.queries == result.queries
    scores = out / "scores.jsonl"
    lines = scores.read_text().splitlines()
    record = json.loads(lines[1])
    record["measures"]["RR@10"] = "high"
    scores.write_text("\n".join([lines[0], json.dumps(record), lines[2]]) + "\n")
    with pytest.raises(DataError) as err:
        load_scored_run(out)
    assert (err.value.path, err.value.line) == (str(scores), 2)
    assert "measure 'RR@10' is missing or not a number" in err.value.message
    scores.write_text("\n".join([lines[0], lines[0], lines[2]]) + "\n")
    with pytest.raises(DataError, match="query 'q1' appears twice"):
        load_scored_run(out)
    scores.write_text("\n".join(lines[:2]) + "\n")
    with pytest.raises(DataError, match=r"2 query records, but summary\.json counts 3"):
        load_scored_run(out)
    summary = out / "summary.json"
    data = json.loads(summary.read_text())
    data["measures"]["RR@10"]["ci95"] = [0.1]
    summary.write_text(json.dumps(data))
    with pytest.raises(DataError, match="'ci95' must be two numbers"):
        load_scored_run(out)
    summary.write_text(json.dumps({"task": "fc"}))
    with pytest.raises(DataError, match="a scored fc run, not a retrieval one"):
        load_scored_run(out)
    with pytest.raises(DataError, match="nowhere: run directory not found"):
        load_scored_run(tmp_path / "nowhere")
    (tmp_path / "empty").mkdir()
    with pytest.raises(DataError, match=r"no summary\.json"):
        load_scored_run(tmp_path / "empty")


def _two_runs(tmp_path: Path) -> tuple[Path, Path]:
    ds = load_retrieval(sample_hf(tmp_path / "hf"))
    a = tmp_path / "bm25-baseline-with-a-long-name"
    score_run(_run(tmp_path), ds, "RR@10 R@2", a)
    better = write_trec_run(
        tmp_path / "b.trec",
        {"q1": [("p1_0", 3.0)], "q2": [("p2_0", 2.0)], "q3": [("p2_1", 1.0)]},
    )
    b = tmp_path / "dense"
    score_run(better, ds, "RR@10 R@2", b)
    return a, b


def _fits(text: str) -> None:
    assert all(len(line) <= 80 for line in text.splitlines()), text


def test_document_for_one_run(tmp_path: Path) -> None:
    a, _ = _two_runs(tmp_path)
    doc = retrieval_document([load_scored_run(a)])
    [table] = doc.tables
    assert table.columns == ("measure", "mean", "95% interval", "queries")
    assert [row[0] for row in table.rows] == ["RR@10", "R@2"]
    assert table.rows[0][1] == pytest.approx(0.5) and table.rows[0][3] == 3
    text = render_document(doc, "table")
    _fits(text)
    assert "Coverage: 2 of 3 gold queries" in text
    assert "percentile bootstrap over queries (10,000 resamples, seed 0)" in text
    for fmt in ("md", "csv", "html", "json"):
        assert render_document(doc, fmt)
    assert json.loads(render_document(doc, "json"))["runs"][0]["name"] == a.name


def test_document_for_two_runs_pairs_them(tmp_path: Path) -> None:
    a, b = _two_runs(tmp_path)
    doc = retrieval_document([load_scored_run(a), load_scored_run(b)])
    rows = doc.data["paired"]["rows"]
    assert [r["measure"] for r in rows] == ["RR@10", "R@2"]
    # A: RR@10 per query 1, 0.5, 0; B: 1, 1, 1.
    xa, xb = [1.0, 0.5, 0.0], [1.0, 1.0, 1.0]
    assert rows[0] == {
        "measure": "RR@10",
        "n": 3,
        "mean_a": 0.5,
        "mean_b": 1.0,
        "p_randomization": paired_randomization_p(xa, xb, permutations=10_000, seed=0),
        "p_ttest": paired_t_p(xa, xb),
    }
    # Differences 0, -0.5, -1: of the 4 sign sets of the two non-zero ones, 2 reach the
    # observed |mean| 0.5 (all minus, all plus).
    assert rows[0]["p_randomization"] == pytest.approx(0.5, abs=0.02)
    [table] = doc.tables
    assert table.rows[0][:5] == ("RR@10", 3, 0.5, 1.0, 0.5)  # B - A: B is the better
    text = render_document(doc, "table")
    _fits(text)
    assert doc.notes[0] == f"Runs: A = {a.name} ({a}); B = {b.name} ({b})."
    assert a.name in text.replace("\n", "")
    assert "B - A" in text and "p rand." in text
    assert json.loads(render_document(doc, "json"))["paired"]["rows"][1]["measure"] == "R@2"
    for fmt in ("md", "csv", "html"):
        assert "RR@10" in render_document(doc, fmt)


def test_document_for_three_runs_side_by_side(tmp_path: Path) -> None:
    a, b = _two_runs(tmp_path)
    runs = [load_scored_run(a), load_scored_run(b), load_scored_run(a, name="again")]
    doc = retrieval_document(runs)
    [table] = doc.tables
    assert table.columns == ("measure", "A", "B", "C")
    assert table.rows[0] == ("RR@10", 0.5, 1.0, 0.5)
    assert table.rows[-1] == ("queries", 3, 3, 3)
    text = render_document(doc, "table")
    _fits(text)
    legend = " ".join(doc.notes)
    assert f"A = {a.name} ({a})" in legend and f"B = {b.name} ({b})" in legend
    assert "C = again" in legend
    # Every name reaches the terminal whole (wrapped, never cut).
    assert a.name in text.replace("\n", "")
    assert doc.data["side_by_side"]["rows"][0] == {
        "measure": "RR@10",
        "means": {"A": 0.5, "B": 1.0, "C": 0.5},
    }


def test_runs_that_cannot_be_paired_are_shown_side_by_side(tmp_path: Path) -> None:
    a, _ = _two_runs(tmp_path)
    ds = load_retrieval(tmp_path / "hf", split="dev")
    run = write_trec_run(tmp_path / "d.trec", {"d1": [("p1_1", 1.0)]})
    dev = score_run(read_run(run), ds, "RR@10", tmp_path / "dev")
    doc = retrieval_document([load_scored_run(a), dev])
    assert doc.tables[0].columns == ("measure", "A", "B")
    assert doc.data["paired"]["reason"].startswith("the runs were scored against different gold")
    assert any(n.startswith("No paired test: the runs were scored against") for n in doc.notes)
    # A summary written before the gold's digest was recorded: the queries tell.
    dataset = {k: v for k, v in dev.summary["dataset"].items() if k != "gold_sha256"}
    older = dataclasses.replace(dev, summary={**dev.summary, "dataset": dataset})
    doc = retrieval_document([load_scored_run(a), older])
    assert doc.data["paired"]["reason"].startswith("the runs share no query")
    # Runs that share no measure: side by side, '-' where a run lacks one.
    other = score_run(read_run(run), ds, "nDCG@10", tmp_path / "other")
    doc = retrieval_document([dev, other])
    assert doc.data["paired"]["reason"].startswith("the runs share no measure")
    assert doc.tables[0].rows[0] == ("RR@10", dev.mean("RR@10"), None)


def test_runs_on_the_same_gold_pair_wherever_it_lies(tmp_path: Path) -> None:
    a, b = _two_runs(tmp_path)
    first, second = load_scored_run(a), load_scored_run(b)
    assert first.summary["dataset"]["gold_sha256"] == second.summary["dataset"]["gold_sha256"]
    assert retrieval_document([first, second]).data["paired"]["rows"]


def test_the_report_says_which_run_and_which_gold_it_is_of(tmp_path: Path) -> None:
    from click.testing import CliRunner

    from tfce_eval.cli import main

    data, run, out = sample_hf(tmp_path / "hf"), _run(tmp_path), tmp_path / "out"
    result = CliRunner().invoke(main, ["score", str(run), "--data", str(data), "--out", str(out)])
    assert result.exit_code == 0, result.output
    summary = json.loads((out / "summary.json").read_text(encoding="utf-8"))
    digest = hashlib.sha256(run.read_bytes()).hexdigest()[:12]
    gold = summary["dataset"]["gold_sha256"][:12]
    split = summary["dataset"]["split"]
    about = f"out: run {run} (trec, sha256 {digest}); dataset "
    markdown = (out / "report.md").read_text(encoding="utf-8").splitlines()
    assert markdown[2].startswith(f"- {about}") and markdown[2].endswith(f"(gold sha256 {gold})")
    assert f", split {split}" in markdown[2]
    html = (out / "report.html").read_text(encoding="utf-8")
    assert f"<ul><li>{about}" in html
    as_csv = CliRunner().invoke(main, ["report", str(out), "--format", "csv"]).output
    import csv

    rows = list(csv.reader(as_csv.splitlines()))
    assert rows[:2] == [["table", "about"], ["about", markdown[2][2:]]]
    as_json = json.loads(CliRunner().invoke(main, ["report", str(out), "--format", "json"]).output)
    (described,) = as_json["runs"]
    assert described["run"]["sha256"].startswith(digest) and described["run"]["form"] == "trec"
    assert described["dataset"]["gold_sha256"].startswith(gold)
    shown = CliRunner().invoke(main, ["report", str(out)])
    assert shown.exit_code == 0
    assert " ".join(shown.output.split()).startswith(f"Retrieval: out {about}"), shown.output
    _fits(shown.output)
