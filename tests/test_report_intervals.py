"""Intervals in QA and retrieval reports: one notation in the text formats, full precision
in CSV.

The terminal table, Markdown and HTML show a 95 % interval as `[low, high]`, as function
calling's report does; CSV writes its two bounds as numbers, in columns `<name> low` and
`<name> high`, exactly as summary.json holds them (README "Formats": JSON and CSV keep
full precision). A run may be named by its summary.json, as a function-calling run may.
Each run is scored and reported through the command line.
"""

from __future__ import annotations

import csv
import io
import json
from pathlib import Path

import pytest
from click.testing import CliRunner, Result
from retrieval_fixtures import HF_CORPUS, write_hf, write_trec_run

from tfce_eval.cli import main

QA_RECORDS = [
    {
        "question_id": f"m{n}",
        "question": f"Which function number {n}?",
        "answer_type": "mc",
        "options": {"A": "AMF", "B": "SMF"},
        "reference_answer": "A",
    }
    for n in range(7)
]
#: 5 of 7 right: Wilson's interval has no short decimal form.
QA_PREDICTIONS = [{"id": f"m{n}", "answer": "A" if n < 5 else "B"} for n in range(7)]


def ok(*args: str | Path) -> Result:
    result = CliRunner().invoke(main, [str(a) for a in args])
    assert result.exit_code == 0, (result.output, result.exception)
    return result


def csv_rows(text: str, table: str) -> list[dict[str, str]]:
    """The rows of one table of a Document's CSV (a header row per table)."""
    rows = list(csv.reader(io.StringIO(text)))
    start = next(i for i, row in enumerate(rows) if row[0] == "table" and rows[i + 1][0] == table)
    header = rows[start]
    body = []
    for row in rows[start + 1 :]:
        if row[0] != table:
            break
        body.append(dict(zip(header, row, strict=True)))
    return body


@pytest.fixture
def qa_run(tmp_path: Path) -> Path:
    data = tmp_path / "data"
    data.mkdir()
    doc = {"_corpus": "3gpp", "_description": "d", "_generated": "g", "questions": QA_RECORDS}
    (data / "set_7.json").write_text(json.dumps(doc), encoding="utf-8")
    preds = tmp_path / "preds.jsonl"
    preds.write_text("".join(json.dumps(p) + "\n" for p in QA_PREDICTIONS), encoding="utf-8")
    ok("score", preds, "--data", data, "--out", tmp_path / "run")
    return tmp_path / "run"


def test_qa_csv_keeps_both_bounds_at_full_precision(qa_run: Path) -> None:
    low, high = json.loads((qa_run / "summary.json").read_text())["answer_types"]["mc"]["ci95"]
    (row,) = csv_rows(ok("report", qa_run, "--format", "csv").stdout, "types")
    assert row["type"] == "mc" and row["accuracy"] == repr(5 / 7)
    assert (float(row["95% interval low"]), float(row["95% interval high"])) == (low, high)
    assert row["95% interval low"] == repr(low)  # every digit, not a rounded text
    assert "95% interval" not in row


def test_qa_text_formats_show_the_interval_in_brackets(qa_run: Path) -> None:
    low, high = json.loads((qa_run / "summary.json").read_text())["answer_types"]["mc"]["ci95"]
    shown = f"[{low:.3f}, {high:.3f}]"
    for fmt in ("table", "md", "html"):
        assert shown in ok("report", qa_run, "--format", fmt).stdout, fmt
    assert shown in (qa_run / "report.md").read_text()


@pytest.fixture
def retrieval_run(tmp_path: Path) -> Path:
    queries = [{"id": f"q{n}", "text": f"Question {n}?"} for n in range(4)]
    qrels = [{"query_id": f"q{n}", "corpus_id": "p1_0", "score": 1} for n in range(4)]
    data = write_hf(
        tmp_path / "data", corpus=HF_CORPUS, queries={"test": queries}, qrels={"test": qrels}
    )
    ranked = {
        f"q{n}": [("p2_0", 2.0), ("p1_0", 1.0)] if n % 2 else [("p1_0", 1.0)] for n in range(4)
    }
    trec = write_trec_run(tmp_path / "run.trec", ranked)
    ok("score", trec, "--data", data, "--out", tmp_path / "run", "--measures", "nDCG@10")
    return tmp_path / "run"


def test_retrieval_csv_keeps_both_bounds_and_text_shows_brackets(retrieval_run: Path) -> None:
    summary = json.loads((retrieval_run / "summary.json").read_text())
    low, high = summary["measures"]["nDCG@10"]["ci95"]
    assert low < high  # two values, so that the interval is not one number twice
    (row,) = csv_rows(ok("report", retrieval_run, "--format", "csv").stdout, "measures")
    assert row["measure"] == "nDCG@10"
    assert (row["95% interval low"], row["95% interval high"]) == (repr(low), repr(high))
    shown = f"[{low:.4f}, {high:.4f}]"
    for fmt in ("table", "md", "html"):
        assert shown in ok("report", retrieval_run, "--format", fmt).stdout, fmt


def test_a_run_named_by_its_summary_json_is_reported_as_its_directory(
    qa_run: Path, retrieval_run: Path
) -> None:
    for run in (qa_run, retrieval_run):
        by_file = ok("report", run / "summary.json", "--format", "json").stdout
        assert by_file == ok("report", run, "--format", "json").stdout
