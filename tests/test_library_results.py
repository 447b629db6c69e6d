"""Scoring and reading results from Python: paths as text, scoring in memory, and errors
that stay in the tfce_eval.errors tree and say what to call instead."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from tfce_eval.dataset.load import load_dataset
from tfce_eval.errors import DataError, UsageError
from tfce_eval.qa import load_qa_run, load_telco, score_predictions
from tfce_eval.qa.report import qa_document
from tfce_eval.report import render
from tfce_eval.report.runs import load_run
from tfce_eval.retrieval import (
    load_retrieval,
    load_scored_run,
    read_run,
    retrieval_document,
    score_run,
)
from tfce_eval.scoring.options import ScoreOptions
from tfce_eval.scoring.score import score_outputs

ROOT = Path(__file__).resolve().parents[1]
EXAMPLES = ROOT / "examples" / "outputs.jsonl"


def test_score_outputs_takes_paths_as_text(tmp_path: Path) -> None:
    as_text = score_outputs(str(EXAMPLES), load_dataset(), ScoreOptions(), str(tmp_path / "a"))
    as_path = score_outputs(EXAMPLES, load_dataset(), ScoreOptions(), tmp_path / "b")
    assert as_text.summary["overall"] == as_path.summary["overall"]
    assert as_text.run_dir is not None and as_text.run_dir.summary.is_file()


def test_score_outputs_without_a_directory_writes_nothing(tmp_path: Path) -> None:
    before = sorted(p.name for p in EXAMPLES.parent.iterdir())
    in_memory = score_outputs(EXAMPLES, load_dataset(), ScoreOptions(), None)
    written = score_outputs(EXAMPLES, load_dataset(), ScoreOptions(), tmp_path)
    assert in_memory.run_dir is None
    assert in_memory.summary["overall"] == written.summary["overall"]
    assert [r.id for r in in_memory.records] == [r.id for r in written.records]
    assert sorted(p.name for p in EXAMPLES.parent.iterdir()) == before
    # Options and directory may be left out altogether: the defaults, in memory.
    assert score_outputs(EXAMPLES, load_dataset()).summary["check"] == "both"


@pytest.mark.parametrize(
    "empty", [lambda: qa_document([]), lambda: render([], "md"), lambda: retrieval_document([])]
)
def test_a_report_of_no_runs_is_a_usage_error(empty: Callable[[], Any]) -> None:
    with pytest.raises(UsageError, match=r"^no runs to report on$"):
        empty()


@pytest.fixture(scope="module")
def runs(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    """One scored run directory of each task."""
    root = tmp_path_factory.mktemp("runs")
    score_outputs(EXAMPLES, load_dataset(), ScoreOptions(check="ast"), root / "fc")  # type: ignore[arg-type]
    telco = load_telco("builtin:telco-qna")
    preds = root / "preds.jsonl"
    preds.write_text(
        "".join(json.dumps({"id": i.id, "answer": i.reference}) + "\n" for i in telco.items)
    )
    score_predictions(preds, telco, out_dir=root / "qa")
    qasper = load_retrieval("builtin:qasper-rag")
    trec = root / "run.trec"
    trec.write_text(
        "".join(f"{q} Q0 {d} 1 1.0 gold\n" for q, docs in qasper.qrels.items() for d in docs)
    )
    score_run(read_run(trec), qasper, "nDCG@10", root / "retrieval")
    return {"fc": root / "fc", "qa": root / "qa", "retrieval": root / "retrieval"}


READERS = {
    "fc": (load_run, "tfce_eval.report.load_run"),
    "qa": (load_qa_run, "tfce_eval.qa.load_qa_run"),
    "retrieval": (load_scored_run, "tfce_eval.retrieval.load_scored_run"),
}


@pytest.mark.parametrize("held", list(READERS))
@pytest.mark.parametrize("asked", list(READERS))
def test_reading_a_run_of_another_task_names_its_task_and_reader(
    runs: dict[str, Path], held: str, asked: str
) -> None:
    read, _ = READERS[asked]
    if held == asked:
        read(runs[held])  # each reader reads its own task's run
        read(str(runs[held]))  # given as text too
        return
    with pytest.raises(DataError) as caught:
        read(runs[held])
    message = str(caught.value)
    said = {"fc": "an fc", "qa": "a qa", "retrieval": "a retrieval"}[asked]
    assert f"a scored {held} run, not {said} one" in message
    assert f"fix: read it with {READERS[held][1]}" in message
