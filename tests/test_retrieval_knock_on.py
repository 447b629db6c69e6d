"""A query the loader refuses (a missing field, a line that is not JSON) is one error:
its judgements, answers, candidates and retrieved_docs are not reported again as rows of
an unknown query, by `validate` (through the command line) nor by loading. A judgement of
a query that is in no row at all still is."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from tests.messages import unfold
from tests.retrieval_fixtures import (
    BEIR_CORPUS,
    HF_CORPUS,
    HF_QRELS,
    HF_QUERIES,
    write_beir,
    write_hf,
)
from tfce_eval.cli import main
from tfce_eval.errors import DataError
from tfce_eval.retrieval import load_retrieval

UNKNOWN = "which is not among the queries"


def validate(root: Path, *args: str) -> list[str]:
    """The errors `validate` prints, one line each."""
    result = CliRunner().invoke(main, ["validate", "--data", str(root), *args])
    assert result.exit_code == 1, result.output
    assert "Traceback" not in result.output
    return [line for line in unfold(result.output).splitlines() if line.startswith("error:")]


def hf_with(root: Path, test_queries: list[dict[str, Any]], **extra: Any) -> Path:
    retrieved = [
        {"query_id": "q2", "corpus_id": "p2_0", "rank": 1, "retrieval_score": 2.0},
        {"query_id": "q1", "corpus_id": "p1_0", "rank": 1, "retrieval_score": 1.0},
    ]
    return write_hf(
        root,
        corpus=HF_CORPUS,
        queries={"test": test_queries, "dev": HF_QUERIES["dev"]},
        qrels={"test": [*HF_QRELS["test"], *extra.get("qrels", [])], "dev": HF_QRELS["dev"]},
        answers={"test": [{"query_id": "q2", "answer": "Rayleigh"}]},
        top_ranked={"test": [{"query-id": "q2", "corpus-ids": ["p2_0", "p2_1"]}]},
        retrieved_docs={"test": retrieved},
    )


def test_a_query_without_its_text_is_one_error(tmp_path: Path) -> None:
    queries = [dict(q) for q in HF_QUERIES["test"]]
    del queries[1]["text"]  # q2: two judgements, an answer, candidates, retrieved_docs
    root = hf_with(tmp_path / "hf", queries)
    errors = validate(root, "--split", "test")
    assert errors == [f"error: {root}/queries/test.jsonl:2: missing field 'text'"]
    with pytest.raises(DataError) as err:
        load_retrieval(root)
    assert err.value.message == "missing field 'text'"  # no "(4 more: ...)"


def test_a_judgement_of_a_query_in_no_row_is_still_named(tmp_path: Path) -> None:
    queries = [dict(q) for q in HF_QUERIES["test"]]
    del queries[1]["text"]
    stray = {"query_id": "q9", "corpus_id": "p1_0", "score": 1}
    root = hf_with(tmp_path / "hf", queries, qrels=[stray])
    errors = validate(root, "--split", "test")
    assert len(errors) == 2, errors
    assert errors[0].endswith("missing field 'text'")
    assert f"qrels/test.jsonl:5: judgement for query 'q9', {UNKNOWN}" in errors[1]


@pytest.mark.parametrize(
    "broken",
    [
        '{"text": "What fading model is assumed?"}',  # no id: which query it was is unknown
        '{"id": "q2", "text": "What fading model',  # not JSON
    ],
)
def test_a_row_that_names_no_query_hides_the_unknown_query_errors(
    tmp_path: Path, broken: str
) -> None:
    root = hf_with(tmp_path / "hf", HF_QUERIES["test"])
    lines = (root / "queries" / "test.jsonl").read_text().splitlines()
    lines[1] = broken
    (root / "queries" / "test.jsonl").write_text("\n".join(lines) + "\n")
    errors = validate(root, "--split", "test")
    assert len(errors) == 1, errors
    assert errors[0].startswith(f"error: {root}/queries/test.jsonl:2: ")


def test_a_split_without_query_files_is_one_error(tmp_path: Path) -> None:
    root = hf_with(tmp_path / "hf", HF_QUERIES["test"])
    (root / "queries" / "dev.jsonl").unlink()
    errors = validate(root)
    assert errors == [f"error: {root}/queries: no query files for split 'dev'"]


def test_beir_judgements_of_a_refused_query(tmp_path: Path) -> None:
    root = write_beir(
        tmp_path / "beir",
        corpus=BEIR_CORPUS,
        queries=[{"_id": "1", "title": "no text"}, {"_id": "2", "text": "beams"}],
        qrels={"test": [("1", "d1", 1), ("1", "d2", 1), ("2", "d3", 1)]},
    )
    errors = validate(root)
    assert errors == [f"error: {root}/queries.jsonl:1: missing field 'text'"]


def test_missing_qrels_are_one_error_not_a_warning_per_query(tmp_path: Path) -> None:
    import shutil

    root = hf_with(tmp_path / "hf", HF_QUERIES["test"])
    shutil.rmtree(root / "qrels")
    result = CliRunner().invoke(main, ["validate", "--data", str(root), "--split", "test"])
    said = unfold(result.output)
    assert result.exit_code == 1 and "no qrels files for split 'test'" in said
    assert "has no judgements" not in said and "no query has judgements" not in said


def test_empty_qrels_are_one_warning_not_one_per_query(tmp_path: Path) -> None:
    root = hf_with(tmp_path / "hf", HF_QUERIES["test"])
    for file in (root / "qrels").iterdir():
        file.write_text("", encoding="utf-8")
    result = CliRunner().invoke(main, ["validate", "--data", str(root), "--split", "test"])
    said = unfold(result.output)
    assert "has no judgements" not in said
    assert said.count("no query has judgements: none of its") == 1
