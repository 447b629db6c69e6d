"""The question-answering and retrieval tasks through the real command line.

Each test runs `tfce-eval` as a user would (click's runner on the real `main`, or a
subprocess for the installed entry point) on the built-in datasets or on files written
here, and reads back the files the command wrote.
"""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from tfce_eval.cli import main

BUILTIN = Path(__file__).resolve().parent.parent / "tfce_eval" / "builtin"


def invoke(*args: str, code: int = 0) -> Any:
    result = CliRunner().invoke(main, list(args))
    assert result.exit_code == code, (result.exit_code, result.output, result.exception)
    return result


@pytest.fixture
def cache(tmp_path: Path) -> Path:
    return tmp_path / "cache"


def fits(text: str, tmp_path: Path) -> bool:
    """Every line fits 80 columns, but for lines naming a (long) temporary path."""
    return all(len(line) <= 80 for line in text.splitlines() if str(tmp_path) not in line)


def unfolded(text: str) -> str:
    """validate's findings with their folded lines joined again."""
    return text.replace("\n       ", " ").replace("\n    ", " ")


def read_json(path: Path) -> Any:
    return json.loads(path.read_text(encoding="utf-8"))


def test_datasets_lists_every_builtin_with_counts() -> None:
    out = invoke("datasets", "--json").output
    rows = {row["name"]: row for row in json.loads(out)}
    assert set(rows) == {
        "builtin:tfce",
        "builtin:telco-qna",
        "builtin:qasper-rag",
        "builtin:conditionalqa",
    }
    assert rows["builtin:tfce"]["task"] == "fc" and rows["builtin:tfce"]["counts"]["items"] > 0
    assert rows["builtin:telco-qna"]["counts"]["questions"] == 24
    assert rows["builtin:qasper-rag"]["counts"]["chunks"] >= 100
    assert rows["builtin:conditionalqa"]["task"] == "retrieval"
    # A retrieval size names the split its queries are of (validate counts every split).
    queries = rows["builtin:qasper-rag"]["counts"]["queries"]
    assert rows["builtin:qasper-rag"]["size"].startswith(f"{queries} test queries, ")
    table = invoke("datasets").output
    assert all(len(line) <= 80 for line in table.splitlines())
    assert all(line == line.rstrip() for line in table.splitlines())  # no trailing spaces
    assert "builtin:qasper-rag" in table


def test_retrieve_then_score_the_builtin_qasper(tmp_path: Path, cache: Path) -> None:
    run_dir = tmp_path / "bm25"
    out = invoke(
        "retrieve",
        "--data",
        "builtin:qasper-rag",
        "--out",
        str(run_dir),
        "--cache-dir",
        str(cache),
    ).output
    assert "index built" in out
    meta = read_json(run_dir / "run.json")
    assert meta["method"] == "bm25" and len(meta["corpus_sha256"]) == 64
    again = invoke(
        "retrieve",
        "--data",
        "builtin:qasper-rag",
        "--out",
        str(run_dir),
        "--cache-dir",
        str(cache),
    ).output
    assert "index reused" in again
    scored = invoke("score", str(run_dir / "run.trec"), "--data", "builtin:qasper-rag").output
    assert "nDCG@10" in scored and fits(scored, tmp_path)
    summary = read_json(run_dir / "summary.json")
    assert summary["task"] == "retrieval"
    assert summary["coverage"]["answered"] == summary["coverage"]["total"] == summary["queries"]
    ndcg = summary["measures"]["nDCG@10"]
    assert 0.0 < ndcg["mean"] <= 1.0 and ndcg["ci95"][0] <= ndcg["mean"] <= ndcg["ci95"][1]
    records = [json.loads(x) for x in (run_dir / "scores.jsonl").read_text().splitlines()]
    assert len(records) == summary["queries"]
    assert {"qid", "measures", "n_relevant", "n_retrieved"} <= set(records[0])
    assert (run_dir / "report.md").is_file() and (run_dir / "report.html").is_file()


def test_two_retrieval_runs_are_compared_with_paired_tests(tmp_path: Path, cache: Path) -> None:
    a, b = tmp_path / "a", tmp_path / "b"
    invoke("retrieve", "--data", "builtin:qasper-rag", "--out", str(a), "--cache-dir", str(cache))
    invoke(
        "retrieve",
        "--data",
        "builtin:qasper-rag",
        "--candidates",
        "--out",
        str(b),
        "--cache-dir",
        str(cache),
    )
    for run in (a, b):
        invoke(
            "score",
            str(run / "run.trec"),
            "--data",
            "builtin:qasper-rag",
            "--measures",
            "nDCG@10 R@100",
        )
    data = json.loads(invoke("report", str(a), str(b), "--format", "json").output)
    rows = {row["measure"]: row for row in data["paired"]["rows"]}
    assert set(rows) == {"nDCG@10", "R@100"}
    for row in rows.values():
        assert 0.0 < row["p_randomization"] <= 1.0
        assert row["n"] == read_json(a / "summary.json")["queries"]
    for fmt in ("md", "csv", "html", "table"):
        text = invoke("report", str(a), str(b), "--format", fmt, "-o", str(tmp_path / fmt)).output
        assert (tmp_path / fmt).read_text(encoding="utf-8").strip(), text


def test_score_the_datasets_own_retrieved_docs(tmp_path: Path) -> None:
    out = tmp_path / "own"
    printed = invoke("score", "dataset", "--data", "builtin:qasper-rag", "--out", str(out))
    summary = read_json(out / "summary.json")
    assert summary["run"]["form"] == "dataset"
    # Named as the user named it, wherever the package is installed.
    assert summary["dataset"]["name"] == "builtin:qasper-rag"
    # Titled by its directory, as `report` titles it.
    assert printed.stdout.startswith("Retrieval: own\n")
    assert invoke("report", str(out)).output.startswith("Retrieval: own\n")


def test_span_gold_scores_spancov(tmp_path: Path, cache: Path) -> None:
    run_dir = tmp_path / "cqa"
    invoke(
        "retrieve",
        "--data",
        "builtin:conditionalqa",
        "--out",
        str(run_dir),
        "--cache-dir",
        str(cache),
    )
    invoke(
        "score",
        str(run_dir / "run.trec"),
        "--data",
        "builtin:conditionalqa",
        "--measures",
        "nDCG@10 SpanCov@10",
    )
    summary = read_json(run_dir / "summary.json")
    assert 0.0 <= summary["measures"]["SpanCov@10"]["mean"] <= 1.0
    coref = tmp_path / "coref"
    invoke(
        "retrieve",
        "--data",
        "builtin:conditionalqa",
        "--corpus",
        "documents_coref",
        "--out",
        str(coref),
        "--cache-dir",
        str(cache),
    )
    invoke(
        "score",
        str(coref / "run.trec"),
        "--data",
        "builtin:conditionalqa",
        "--corpus",
        "documents_coref",
    )


@pytest.mark.parametrize(
    ("content", "needle"),
    [
        ("q1 Q0 d1 1\n", "line 1"),
        ("", "empty"),
        ("q1 Q0 d1 1 2.0 t\nq1 Q0 d1 2 1.0 t\n", "line 2"),
    ],
)
def test_a_bad_run_is_one_line_and_writes_nothing(
    tmp_path: Path, content: str, needle: str
) -> None:
    run = tmp_path / "run.trec"
    run.write_text(content, encoding="utf-8")
    result = invoke("score", str(run), "--data", "builtin:qasper-rag", code=1)
    assert result.output.startswith("error: ") and "Traceback" not in result.output
    assert needle in result.output.lower() or needle in result.output
    assert not (tmp_path / "summary.json").exists()


def test_validate_other_tasks() -> None:
    assert "0 errors" in invoke("validate", "--data", "builtin:telco-qna").output
    assert "0 errors" in invoke("validate", "--data", "builtin:conditionalqa").output
    out = invoke("validate", "--data", "builtin:qasper-rag").output
    # Two warnings (tied scores), each with its fix, folded at 80 columns.
    assert out.count("warning: ") == 2 and out.count("  fix: nothing to do") == 2
    assert out.endswith(
        "retrieval dataset builtin:qasper-rag: 48 queries (dev 13, test 35):\n"
        "    0 errors, 2 warnings\n"
    )
    # The package's own folder is named as the user named it, whatever the install path.
    assert "warning: builtin:qasper-rag/retrieved_docs/dev.jsonl: 5" in out
    assert all(len(line) <= 80 for line in out.splitlines())


def test_validate_reports_a_broken_split(tmp_path: Path) -> None:
    split = {
        "questions": [
            {
                "question_id": "a1",
                "question": "Which?",
                "answer_type": "mc",
                "options": {"A": "x", "B": "y"},
                "reference_answer": "C",
            },
            {
                "question_id": "a2",
                "question": "Is it?",
                "answer_type": "tf",
                "reference_answer": "maybe",
            },
        ]
    }
    file = tmp_path / "set_2.json"
    file.write_text(json.dumps(split), encoding="utf-8")
    out = invoke("validate", "--data", str(tmp_path), code=1).output
    assert fits(out, tmp_path)
    out = unfolded(out)
    # Each finding names the file, the record and the id, then the fix on its own line.
    assert f"error: {file}, record 1 (a1): reference_answer 'C'" in out
    assert "  fix: give the correct option's label (A, B) or its exact text" in out
    assert f"error: {file}, record 2 (a2): tf reference_answer 'maybe'" in out
    assert out.endswith(f"qa dataset {tmp_path}: 2 errors, 0 warnings\n")
    report = json.loads(invoke("validate", "--data", str(tmp_path), "--json", code=1).stdout)
    assert [(f["level"], f["path"], f["line"], f["id"]) for f in report["findings"]] == [
        ("error", f"{file}, record 1", None, "a1"),
        ("error", f"{file}, record 2", None, "a2"),
    ]


def test_validate_reports_a_broken_retrieval_dataset(tmp_path: Path) -> None:
    from tests.retrieval_fixtures import sample_hf, write_table

    root = sample_hf(tmp_path / "hf", "parquet")
    qrels = [
        {"query_id": "q1", "corpus_id": "p1_0", "score": 1},
        {"query_id": "zz", "corpus_id": "p1_0", "score": 1},
    ]
    parquet = write_table(root / "qrels" / "test-00000-of-00001", qrels, "parquet")
    out = invoke("validate", "--data", str(root), code=1).output
    assert fits(out, tmp_path)
    out = unfolded(out)
    # A parquet row is named as pandas counts it, from 0; the fix follows.
    assert f"error: {parquet}, row 1: judgement for query" in out
    assert "  fix: add the query to the queries file, or remove the judgement" in out
    assert "query 'q2' has no judgements" in out and "1 error, 2 warnings" in out


def _predictions(path: Path, *, wrong_every: int) -> dict[str, Any]:
    data = read_json(BUILTIN / "telco-qna" / "set_24.json")
    truth = {}
    with path.open("w", encoding="utf-8") as out:
        for i, q in enumerate(data["questions"]):
            kind, ref = q["answer_type"], q["reference_answer"]
            if kind == "mc":
                label = (
                    ref
                    if ref in q["options"]
                    else next(k for k, v in q["options"].items() if v == ref)
                )
                if i % wrong_every == 0:
                    label = next(k for k in q["options"] if k != label)
                text = f"Let me think. **ANSWER: {label}**"
            elif kind == "tf":
                text = f"<think>hmm</think>ANSWER: {ref}"
            else:
                text = f"ANSWER: {ref}"
            truth[q["question_id"]] = kind
            out.write(json.dumps({"id": q["question_id"], "response": text}) + "\n")
    return truth


def test_score_qa_predictions_on_the_builtin_split(tmp_path: Path) -> None:
    preds = tmp_path / "preds.jsonl"
    _predictions(preds, wrong_every=3)
    out = invoke("score", str(preds), "--data", "builtin:telco-qna").output
    assert "mc" in out and fits(out, tmp_path)
    summary = read_json(tmp_path / "summary.json")
    assert summary["task"] == "qa"
    mc, tf = summary["answer_types"]["mc"], summary["answer_types"]["tf"]
    assert tf["accuracy"] == 1.0 and 0 < mc["accuracy"] < 1.0
    assert mc["ci95"][0] < mc["accuracy"] < mc["ci95"][1]
    assert summary["answer_types"]["open"]["exact_match"] == 1.0
    records = [json.loads(x) for x in (tmp_path / "scores.jsonl").read_text().splitlines()]
    assert [r["id"] for r in records] == sorted(r["id"] for r in records)


def test_rag_lift_report_pairs_two_qa_runs(tmp_path: Path) -> None:
    closed, rag = tmp_path / "closed", tmp_path / "rag"
    for folder, wrong in ((closed, 2), (rag, 5)):
        folder.mkdir()
        _predictions(folder / "preds.jsonl", wrong_every=wrong)
        invoke("score", str(folder / "preds.jsonl"), "--data", "builtin:telco-qna")
    data = json.loads(invoke("report", str(closed), str(rag), "--format", "json").output)
    rows = {row["category"]: row for row in data["paired"]["rows"]}
    assert rows["mc"]["n"] == 11 and rows["mc"]["only_b"] >= 1
    assert 0.0 < rows["mc"]["p_value"] <= 1.0


def test_mixed_tasks_are_refused(tmp_path: Path, cache: Path) -> None:
    preds = tmp_path / "qa" / "preds.jsonl"
    preds.parent.mkdir()
    _predictions(preds, wrong_every=3)
    invoke("score", str(preds), "--data", "builtin:telco-qna")
    run_dir = tmp_path / "r"
    invoke(
        "retrieve", "--data", "builtin:qasper-rag", "--out", str(run_dir), "--cache-dir", str(cache)
    )
    invoke("score", str(run_dir / "run.trec"), "--data", "builtin:qasper-rag")
    # A usage mistake (exit 2), with what to do.
    out = invoke("report", str(preds.parent), str(run_dir), code=2).output
    assert "different tasks" in out and "\n  fix: report the runs of each task apart" in out


def test_installed_entry_point_scores_a_retrieval_run(tmp_path: Path, cache: Path) -> None:
    exe = Path(sys.executable).parent / "tfce-eval"
    run_dir = tmp_path / "r"
    env_args = ["--cache-dir", str(cache)]
    subprocess.run(
        [str(exe), "retrieve", "--data", "builtin:qasper-rag", "--out", str(run_dir), *env_args],
        check=True,
        capture_output=True,
        timeout=300,
    )
    proc = subprocess.run(
        [str(exe), "score", str(run_dir / "run.trec"), "--data", "builtin:qasper-rag", "--json"],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert proc.returncode == 0, proc.stderr
    assert json.loads(proc.stdout)["task"] == "retrieval"


@pytest.mark.parametrize(
    ("name", "content"),
    [
        ("run.json", '{"paper01-q1": {"c1": 1' + "0" * 400 + "}}"),
        (
            "run.jsonl",
            '{"query_id": "paper01-q1", "corpus_id": "c1", "rank": 1, '
            '"retrieval_score": 1' + "0" * 400 + "}\n",
        ),
        ("run.trec", "paper01-q1 Q0 c1 1 nan t\n"),
        ("run.jsonl", "[" * 100_000 + "\n"),
    ],
)
def test_hostile_runs_are_one_line(tmp_path: Path, name: str, content: str) -> None:
    run = tmp_path / name
    run.write_text(content, encoding="utf-8")
    result = invoke("score", str(run), "--data", "builtin:qasper-rag", code=1)
    assert result.output.startswith("error: ") and "Traceback" not in result.output
    assert "fix:" in result.output
    assert not (tmp_path / "summary.json").exists()


def test_hostile_predictions_are_judged_or_refused(tmp_path: Path) -> None:
    preds = tmp_path / "p.jsonl"
    preds.write_text(
        json.dumps({"id": "9139aeb42eee", "response": "\ud83d ANSWER: \ud83d"})
        + "\n"
        + json.dumps({"id": "10ffc24bd4e2", "answer": 10**40})
        + "\n",
        encoding="utf-8",
    )
    invoke("score", str(preds), "--data", "builtin:telco-qna")
    records = {
        r["id"]: r
        for r in map(
            json.loads, (tmp_path / "scores.jsonl").read_text(encoding="utf-8").splitlines()
        )
    }
    assert records["9139aeb42eee"]["correct"] is False
    assert records["10ffc24bd4e2"]["error_type"] in ("parse_error", None)


def test_a_run_scored_without_data_says_what_to_give(tmp_path: Path) -> None:
    run = tmp_path / "run.trec"
    run.write_text("paper01-q1 Q0 c1 1 2.5 bm25\n", encoding="utf-8")
    result = invoke("score", str(run), code=1)
    assert "TREC run" in result.output and "--data" in result.output


@pytest.mark.parametrize("shape", ["jsonl", "array", "array on one line"])
def test_bfcl_layout_with_question_files_at_the_top_is_function_calling(
    tmp_path: Path, shape: str
) -> None:
    """BFCL's own data/ folder: BFCL_v3_<category>.json beside possible_answer/, the
    question files as JSON Lines or as a JSON array (pretty-printed, or on one line)."""
    repo = Path(__file__).resolve().parents[1]
    data = tmp_path / "data"
    (data / "possible_answer").mkdir(parents=True)
    for source in sorted((repo / "questions").glob("*.jsonl")):
        name = f"BFCL_v3_{source.stem}.json"
        if shape == "jsonl":
            shutil.copy(source, data / name)
        else:
            records = [json.loads(line) for line in source.read_text("utf-8").splitlines()]
            indent = 2 if shape == "array" else None
            text = json.dumps(records, ensure_ascii=False, indent=indent)
            (data / name).write_text(text, encoding="utf-8")
        answers = repo / "answers" / source.name
        if answers.exists():
            shutil.copy(answers, data / "possible_answer" / name)
    checked = invoke("validate", "--data", str(data))
    assert "0 errors" in " ".join(checked.output.split())
    outputs = str(repo / "examples" / "outputs.jsonl")
    ast = ("--check", "ast", "--json")  # the copy has no functions/ to exec-check with
    mine = invoke("score", outputs, "--data", str(data), "--out", str(tmp_path / "a"), *ast)
    builtin = invoke("score", outputs, "--out", str(tmp_path / "b"), *ast)
    assert json.loads(mine.stdout)["overall"] == json.loads(builtin.stdout)["overall"]


def _qasper_predictions(path: Path) -> list[str]:
    """Predictions for the built-in QASPER-RAG's questions: every answer its reference."""
    from tfce_eval.retrieval import load_retrieval

    data = load_retrieval(BUILTIN / "qasper-rag")
    with path.open("w", encoding="utf-8") as out:
        for qid, answer in data.answers.items():
            out.write(json.dumps({"id": qid, "response": f"ANSWER: {answer}"}) + "\n")
    return sorted(data.answers)


def test_qasper_predictions_are_scored_as_qa_without_task(tmp_path: Path) -> None:
    preds = tmp_path / "qp.jsonl"
    ids = _qasper_predictions(preds)
    data = ("--data", "builtin:qasper-rag")
    invoke("score", str(preds), *data, "--out", str(tmp_path / "found"))
    invoke("score", str(preds), *data, "--task", "qa", "--out", str(tmp_path / "told"))
    found, told = (
        read_json(tmp_path / "found/summary.json"),
        read_json(tmp_path / "told/summary.json"),
    )
    assert found["task"] == "qa" and found == told
    assert found["qasper"]["answer_f1"] == 1.0 and found["qasper"]["questions"] == len(ids)
    scores = (tmp_path / "found/scores.jsonl").read_text(encoding="utf-8")
    assert scores == (tmp_path / "told/scores.jsonl").read_text(encoding="utf-8")
    # Its options of question answering are not refused either: a run's chunks, --k.
    run = tmp_path / "ctx.trec"
    run.write_text(f"{ids[0]} Q0 paper01_abs 1 2.0 bm25\n", encoding="utf-8")
    invoke("score", str(preds), *data, "--run", str(run), "--k", "1", "--out", str(tmp_path / "r"))
    ranked = read_json(tmp_path / "r/summary.json")
    assert ranked["task"] == "qa" and ranked["retrieval_run"]["path"] == str(run)
    assert ranked["canonical_hit"]["chunk_hit"]["hits"] == 1


@pytest.mark.parametrize(
    "line",
    [
        {"query_id": "paper01-q1", "corpus_id": "paper01_abs", "rank": 1, "retrieval_score": 2.0},
        {"qid": "paper01-q1", "docids": ["paper01_abs"]},
    ],
)
def test_a_run_in_json_lines_is_still_a_retrieval_run(tmp_path: Path, line: Any) -> None:
    run = tmp_path / "run.jsonl"
    run.write_text(json.dumps(line) + "\n", encoding="utf-8")
    invoke("score", str(run), "--data", "builtin:qasper-rag", "--out", str(tmp_path / "o"))
    summary = read_json(tmp_path / "o/summary.json")
    assert summary["task"] == "retrieval" and summary["coverage"]["answered"] == 1


def test_qa_predictions_for_a_dataset_without_answers_are_refused(tmp_path: Path) -> None:
    preds = tmp_path / "qp.jsonl"
    preds.write_text('{"id": "0", "answer": "yes"}\n', encoding="utf-8")
    out = invoke("score", str(preds), "--data", "builtin:conditionalqa", code=1).output
    assert "not a retrieval run: builtin:conditionalqa is a retrieval dataset" in unfolded(out)
