"""`report --failures N` on retrieval runs: the queries a retriever fails.

Runs are TREC files scored by `tfce-eval score` against a small dataset in the HF/MTEB
layout (tests/retrieval_fixtures.py), then reported through the command line.
"""

from __future__ import annotations

import csv
import io
import json
import math
import re
import shutil
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner, Result
from messages import unfold
from retrieval_fixtures import HF_CORPUS, HF_QUERIES, sample_hf, write_hf, write_trec_run

from tfce_eval.cli import main

UNSHOWN = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069]")
HOSTILE = "[bold]x[/bold] \x1b[31m | ``` <b>q</b>"

QUERIES = [
    {"id": "q1", "text": "Which events trigger handover?"},
    {"id": "q2", "text": "What fading model is assumed?"},
    {"id": "q3", "text": HOSTILE},
]
QRELS = [
    {"query_id": "q1", "corpus_id": "p1_0", "score": 1},
    {"query_id": "q2", "corpus_id": "p2_0", "score": 2},
    {"query_id": "q2", "corpus_id": "p2_abs", "score": 1},
    {"query_id": "q2", "corpus_id": "p2_1", "score": 0},
    {"query_id": "q3", "corpus_id": "p2_1", "score": 1},
]
#: nDCG@10: q1 0.63 (relevant second), q2 0 and q3 0 (a tie, broken by id).
RANKED = {
    "q1": [("p1_abs", 3.0), ("p1_0", 2.0)],
    "q2": [("p2_1", 5.0), ("p1_0", 1.0)],
    "q3": [("p1_1", 1.0)],
}


def invoke(*args: str | Path) -> Result:
    return CliRunner().invoke(main, [str(a) for a in args])


def ok(*args: str | Path) -> Result:
    result = invoke(*args)
    assert result.exit_code == 0, (result.output, result.exception)
    return result


@pytest.fixture
def run(tmp_path: Path) -> Path:
    data = write_hf(
        tmp_path / "data", corpus=HF_CORPUS, queries={"test": QUERIES}, qrels={"test": QRELS}
    )
    trec = write_trec_run(tmp_path / "run.trec", RANKED)
    ok("score", trec, "--data", data, "--out", tmp_path / "run")
    return tmp_path / "run"


def failures(run_dirs: Path | list[Path], n: int, *more: str | Path) -> list[dict[str, Any]]:
    dirs = run_dirs if isinstance(run_dirs, list) else [run_dirs]
    out = ok("report", *dirs, "--failures", str(n), "--format", "json", *more).stdout
    data = json.loads(out)
    assert "runs" in data
    result: list[dict[str, Any]] = data["failures"]
    return result


def test_json_lists_the_lowest_queries_with_measures_gold_and_ranking(run: Path) -> None:
    (found,) = failures(run, 2)
    assert found["label"] == "A" and found["measure"] == "nDCG@10"
    assert found["queries"] == 3 and found["gold"] is True and found["note"] is None
    assert [q["qid"] for q in found["shown"]] == ["q2", "q3"]  # tie at 0, by query id
    q2 = found["shown"][0]
    assert q2["query"] == "What fading model is assumed?"
    assert q2["n_relevant"] == 2 and q2["n_retrieved"] == 2
    scores = {r["qid"]: r for r in map(json.loads, (run / "scores.jsonl").read_text().splitlines())}
    assert q2["measures"] == scores["q2"]["measures"]
    assert scores["q2"]["n_relevant"] == 2  # p2_1, judged 0, is not relevant
    assert list(q2["measures"])[:2] == ["nDCG@10", "RR@10"]
    assert q2["top"] == [
        {"rank": 1, "docid": "p2_1", "relevance": 0},
        {"rank": 2, "docid": "p1_0", "relevance": None},
    ]
    assert q2["not_retrieved"] == ["p2_0 (2)", "p2_abs"] and q2["not_retrieved_count"] == 2


def test_values_are_read_from_scores_jsonl_not_recomputed(run: Path) -> None:
    scores = run / "scores.jsonl"
    records = [json.loads(line) for line in scores.read_text().splitlines()]
    for record in records:
        if record["qid"] == "q1":
            record["measures"]["nDCG@10"] = 0.0
    scores.write_text("".join(json.dumps(r) + "\n" for r in records), encoding="utf-8")
    (found,) = failures(run, 1)
    assert [q["qid"] for q in found["shown"]] == ["q1"]


def test_n_bounds_the_queries(run: Path) -> None:
    assert [q["qid"] for q in failures(run, 1)[0]["shown"]] == ["q2"]
    assert [q["qid"] for q in failures(run, 10)[0]["shown"]] == ["q2", "q3", "q1"]
    assert "failures" not in json.loads(ok("report", run, "--format", "json").stdout)


def test_terminal_table_marks_documents_and_shows_query_text_inert(run: Path) -> None:
    result = ok("report", run, "--failures", "2")
    out = result.stdout
    assert result.stderr == ""
    assert "Lowest nDCG@10: 2 of 3 queries" in out
    section = out[out.index("Lowest nDCG@10") :]
    fields = [line.split()[:2] for line in section.splitlines() if line.startswith("  q2 ")]
    assert [f[1] for f in fields] == [
        "query",
        "nDCG@10",
        "RR@10",
        "R@10",
        "R@100",
        "Success@1",
        "Success@5",
        "relevant",
        "top",
        "not",
    ]
    assert re.search(r"top 10\s+1\. p2_1  not relevant\n\s+2\. p1_0  unjudged\n", section)
    assert re.search(r"not retrieved\s+p2_0 \(2\), p2_abs\n", section)
    assert "[bold]x[/bold] \\x1b[31m | ``` <b>q</b>" in out
    assert not UNSHOWN.search(out)
    assert max(len(line) for line in out.splitlines()) <= 80


def test_markdown_html_and_csv(run: Path) -> None:
    md = ok("report", run, "--failures", "2", "--format", "md").stdout
    assert "## Lowest nDCG@10: 2 of 3 queries" in md
    assert "| q2 | top 10 | 1. p2_1  not relevant<br>2. p1_0  unjudged |" in md
    (query,) = [line for line in md.splitlines() if line.startswith("| q3 | query |")]
    assert query == "| q3 | query | [bold]x[/bold] \\\\x1b[31m \\| \\`\\`\\` &lt;b&gt;q&lt;/b&gt; |"
    assert not UNSHOWN.search(md) and "<b>" not in md
    page = ok("report", run, "--failures", "2", "--format", "html").stdout
    assert "<b>q" not in page and "&lt;b&gt;q&lt;/b&gt;" in page and "\\x1b[31m" in page
    assert not UNSHOWN.search(page)
    text = ok("report", run, "--failures", "2", "--format", "csv").stdout
    rows = [r for r in csv.reader(io.StringIO(text)) if r[0] == "failures"]
    assert ["failures", "q2", "nDCG@10", "0.0"] in rows
    assert ["failures", "q2", "relevant", "2"] in rows
    # CSV keeps full precision, as the README says: each measure as scores.jsonl has it
    # (q1's nDCG@10 is 1 / log2(3), its one relevant chunk ranked second).
    text = ok("report", run, "--failures", "3", "--format", "csv").stdout
    every = [r for r in csv.reader(io.StringIO(text)) if r[0] == "failures"]
    scores = (run / "scores.jsonl").read_text(encoding="utf-8").splitlines()
    kept = {r["qid"]: r["measures"] for r in map(json.loads, scores)}
    shown = [r for r in every if r[2] in kept.get(r[1], {})]
    assert shown and all(float(v) == kept[qid][name] for _, qid, name, v in shown)
    assert ["failures", "q1", "nDCG@10", repr(1 / math.log2(3))] in every
    assert [r[1] for r in rows if r[2] == "query"] == ["q2", "q3"]


def test_gone_dataset_and_run_file_are_said_and_data_brings_the_gold_back(
    run: Path, tmp_path: Path
) -> None:
    shutil.move(tmp_path / "data", tmp_path / "moved")
    (found,) = failures(run, 1)
    q2 = found["shown"][0]
    assert q2["query"] is None and q2["not_retrieved"] is None and found["gold"] is False
    assert [d["relevance"] for d in q2["top"]] == [None, None]
    assert found["note"].startswith("Queries and gold unavailable: could not load ")
    assert "--data DIR" in found["note"]
    out = ok("report", run, "--failures", "1").stdout
    assert "(unavailable)" in out and "1. p2_1\n" in out  # no mark without the gold
    assert "Queries and gold unavailable: could not load" in unfold(out)
    (back,) = failures(run, 1, "--data", tmp_path / "moved")
    assert back["note"] is None and back["shown"][0]["query"].startswith("What fading")
    (tmp_path / "run.trec").unlink()
    (gone,) = failures(run, 1, "--data", tmp_path / "moved")
    assert gone["shown"][0]["top"] is None and gone["shown"][0]["not_retrieved"] is None
    assert "ranking unavailable: the run file" in gone["note"]


def test_a_run_file_moved_with_its_directory_is_found(run: Path, tmp_path: Path) -> None:
    shutil.move(tmp_path / "run.trec", run / "run.trec")
    (found,) = failures(run, 1)
    assert found["note"] is None and found["shown"][0]["top"][0]["docid"] == "p2_1"


def test_another_file_where_the_run_was_is_not_shown_as_its_ranking(
    run: Path, tmp_path: Path
) -> None:
    """The summary keeps the run file's digest: a different file put where the scored one
    was is passed over for the copy that moved with the directory, and with no such copy
    no ranking is shown."""
    shutil.copy(tmp_path / "run.trec", run / "run.trec")
    other = {**RANKED, "q2": [("p1_0", 5.0), ("p2_1", 1.0)]}
    write_trec_run(tmp_path / "run.trec", other)  # the same entries, another ranking
    (found,) = failures(run, 1)
    assert found["note"] is None and found["shown"][0]["top"][0]["docid"] == "p2_1"
    (run / "run.trec").unlink()
    (found,) = failures(run, 1)
    assert found["shown"][0]["top"] is None
    assert "changed since scoring" in found["note"]


def test_data_that_cannot_be_loaded_is_exit_1(run: Path, tmp_path: Path) -> None:
    result = invoke("report", run, "--failures", "1", "--data", tmp_path / "nowhere")
    assert result.exit_code == 1 and result.stdout == ""
    assert unfold(result.stderr).startswith(f"error: {tmp_path / 'nowhere'}: ")
    empty = tmp_path / "empty"
    empty.mkdir()
    result = invoke("report", run, "--failures", "1", "--data", empty)
    assert result.exit_code == 1 and result.stdout == "" and "error:" in result.stderr
    assert "Traceback" not in result.output


def test_the_datasets_own_retrieved_docs(tmp_path: Path) -> None:
    data = sample_hf(tmp_path / "hf")
    ok("score", "dataset", "--data", data, "--out", tmp_path / "own")
    (found,) = failures(tmp_path / "own", 3)
    by_qid = {q["qid"]: q for q in found["shown"]}
    assert by_qid["q3"]["top"] == [] and by_qid["q3"]["not_retrieved"] == ["p2_1"]
    assert [d["docid"] for d in by_qid["q2"]["top"]] == ["p2_1", "p2_0"]
    assert by_qid["q3"]["query"] == HF_QUERIES["test"][2]["text"]
    out = ok("report", tmp_path / "own", "--failures", "3").stdout
    assert "(the run ranks nothing for this query)" in unfold(out)


def test_several_runs_are_listed_each_under_its_letter(run: Path, tmp_path: Path) -> None:
    better = write_trec_run(tmp_path / "better.trec", {**RANKED, "q3": [("p2_1", 1.0)]})
    ok("score", better, "--data", tmp_path / "data", "--out", tmp_path / "better")
    found = failures([run, tmp_path / "better"], 2)
    assert [(f["label"], f["run"]) for f in found] == [("A", "run"), ("B", "better")]
    assert [q["qid"] for q in found[1]["shown"]] == ["q2", "q1"]
    out = ok("report", run, tmp_path / "better", "--failures", "2").stdout
    assert "A: Lowest nDCG@10: 2 of 3 queries" in out
    assert "B: Lowest nDCG@10: 2 of 3 queries" in out


def test_data_of_another_layout_is_not_read_with_the_recorded_corpus(run: Path) -> None:
    # The run was scored on an HF dataset (corpus "corpus"); the chunk-span dataset given
    # has no such corpus, and the user gave no --corpus: the report goes on with its own.
    result = invoke("report", run, "--failures", "1", "--data", "builtin:conditionalqa")
    assert result.exit_code == 0, result.output
    assert "--corpus" not in result.output
    assert "run does not rank at all. The gold in " in " ".join(result.output.split())


def test_qrels_that_cannot_be_read_again_are_named_not_called_changed(
    tmp_path: Path,
) -> None:
    data = write_hf(
        tmp_path / "data", corpus=HF_CORPUS, queries={"test": QUERIES}, qrels={"test": QRELS}
    )
    trec = write_trec_run(tmp_path / "run.trec", RANKED)
    given = tmp_path / "given.qrels"
    given.write_text("q2 0 p1_0 1\nq2 0 p2_1 1\n", encoding="utf-8")
    ok("score", trec, "--data", data, "--qrels", given, "--out", tmp_path / "run")
    (found,) = failures(tmp_path / "run", 1)
    assert found["note"] is None  # the file is there: its marks are shown
    assert [d["relevance"] for d in found["shown"][0]["top"]] == [1, 1]
    given.write_text("q2 0 p1_0 1\n", encoding="utf-8")
    (found,) = failures(tmp_path / "run", 1)
    assert found["note"].endswith(
        f"the gold in --qrels {given} changed since scoring; the marks may differ"
    )
    # The marks are the changed file's, the one the note names (p2_1 is no longer judged).
    assert [d["relevance"] for d in found["shown"][0]["top"]] == [None, 1]
    given.unlink()  # as a pipe (/dev/stdin) is: not there to read again
    (found,) = failures(tmp_path / "run", 1)
    said = (
        f"the run was scored with --qrels {given}, which cannot be read again; the "
        f"marks are {data}'s own judgements and may differ"
    )
    assert found["note"].endswith(said)
    out = ok("report", tmp_path / "run", "--failures", "1").stdout
    assert said[1:] in " ".join(out.split())


def test_the_datasets_own_gold_changed_is_not_called_a_qrels_file(tmp_path: Path) -> None:
    """Scored without --qrels: the summary names the dataset's own judgements, and a
    report after they changed says the dataset's gold changed, not a --qrels file's."""
    data = write_hf(
        tmp_path / "data", corpus=HF_CORPUS, queries={"test": QUERIES}, qrels={"test": QRELS}
    )
    trec = write_trec_run(tmp_path / "run.trec", RANKED)
    ok("score", trec, "--data", data, "--out", tmp_path / "run")
    summary = json.loads((tmp_path / "run" / "summary.json").read_text(encoding="utf-8"))
    assert summary["dataset"]["qrels_given"] is False
    write_hf(data, corpus=HF_CORPUS, queries={"test": QUERIES}, qrels={"test": QRELS[:-1]})
    (found,) = failures(tmp_path / "run", 1)
    said = f"the gold in {data} changed since scoring; the marks may differ"
    assert found["note"].endswith(said) and "--qrels" not in found["note"]
    # A summary written before `qrels_given` names the dataset's own file in `qrels`.
    del summary["dataset"]["qrels_given"]
    assert summary["dataset"]["qrels"] == str(data / "qrels" / "test.jsonl")
    (tmp_path / "run" / "summary.json").write_text(json.dumps(summary), encoding="utf-8")
    (found,) = failures(tmp_path / "run", 1)
    assert found["note"].endswith(said) and "--qrels" not in found["note"]
    # The dataset moved, and --data names where it is now; its old place is gone.
    moved = tmp_path / "moved"
    data.rename(moved)
    (found,) = failures(tmp_path / "run", 1, "--data", moved)
    assert found["note"].endswith(
        f"the gold in {moved} changed since scoring; the marks may differ"
    )


def test_a_relative_qrels_file_is_found_from_another_directory(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    data = write_hf(
        tmp_path / "data", corpus=HF_CORPUS, queries={"test": QUERIES}, qrels={"test": QRELS}
    )
    trec = write_trec_run(tmp_path / "run.trec", RANKED)
    (tmp_path / "given.qrels").write_text("q2 0 p1_0 1\nq2 0 p2_1 1\n", encoding="utf-8")
    monkeypatch.chdir(tmp_path)
    ok("score", trec, "--data", data, "--qrels", "given.qrels", "--out", tmp_path / "run")
    summary = json.loads((tmp_path / "run" / "summary.json").read_text(encoding="utf-8"))
    assert summary["dataset"]["qrels"] == str(tmp_path / "given.qrels")
    (tmp_path / "elsewhere").mkdir()
    monkeypatch.chdir(tmp_path / "elsewhere")
    (found,) = failures(tmp_path / "run", 1)
    assert found["note"] is None  # the same judgements, read again
    assert [d["relevance"] for d in found["shown"][0]["top"]] == [1, 1]


def test_the_failing_queries_table_reads_at_80_columns(tmp_path: Path) -> None:
    """The value column holds text and figures: it wraps, and the query ids beside it
    are never squeezed to a letter a line."""
    ok("score", "dataset", "--data", "builtin:qasper-rag", "--out", tmp_path / "own")
    out = ok("report", tmp_path / "own", "--failures", "2").stdout
    rows = [line for line in out.splitlines() if re.match(r"^  paper\d", line)]
    assert len(rows) >= 2 * 10  # two queries, a row per field
    assert all(re.match(r"^  paper\d+-q\d+ +\S", line) for line in rows), out
    assert len(out.splitlines()) < 80 and max(map(len, out.splitlines())) <= 80
