"""Bad options to `score --measures`, `retrieve` and `validate` through the real command
line: one message naming what is wrong and the usage (2) or data (1) exit code, never a
traceback nor an interpreter aborted by trec_eval's C code."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from tfce_eval.cli import main

BUILTIN = Path(__file__).resolve().parent.parent / "tfce_eval" / "builtin"
QASPER = ("--data", "builtin:qasper-rag")


def invoke(*args: str, code: int) -> Any:
    result = CliRunner().invoke(main, list(args))
    assert result.exit_code == code, (result.exit_code, result.output, result.exception)
    assert "Traceback" not in result.output
    # Lines fit 80 columns, but for those naming a (long) temporary path.
    lines = [line for line in result.output.splitlines() if "/tmp" not in line]
    assert all(len(line) <= 80 for line in lines), result.output
    return result


def score_own_run(tmp_path: Path, measures: str, code: int = 0) -> Any:
    """`score dataset`: the dataset's own retrieved_docs, so no retrieval is needed."""
    out = str(tmp_path / "scored")
    return invoke("score", "dataset", *QASPER, "--out", out, "--measures", measures, code=code)


@pytest.mark.parametrize("measure", ["nDCG@0", "P@0", "R@0", "Success@0", "AP@0", "nDCG@00"])
def test_a_cutoff_of_0_is_a_usage_error_not_an_abort(tmp_path: Path, measure: str) -> None:
    # trec_eval asserts in C on a cutoff of 0: only a subprocess survives that.
    exe = Path(sys.executable).parent / "tfce-eval"
    proc = subprocess.run(
        [str(exe), "score", "dataset", *QASPER, "--out", str(tmp_path), "--measures", measure],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert proc.returncode == 2, proc.stderr
    base = measure.partition("@")[0]
    assert proc.stderr == (
        f"error: measure {measure!r}: the cutoff k must be an integer >= 1, as {base}@10\n"
    )
    assert not (tmp_path / "summary.json").exists()


@pytest.mark.parametrize(
    ("measure", "says"),
    [
        ("Judged@0", "the cutoff k must be an integer >= 1, as Judged@10"),
        ("RR@0", "the cutoff k must be an integer >= 1, as RR@10"),
        ("nDCG@-1", "the cutoff k must be"),
        ("nDCG@3.0", "the cutoff k must be"),
        ("nDCG@True", "the cutoff k must be"),
        ("R(rel=0)@5", "the relevance level rel must be an integer >= 1"),
        ("RR(rel=0)@5", "the relevance level rel must be an integer >= 1"),
        # Past 64 bits trec_eval wrapped the cutoff to 0 (a mean of 0) and pytrec_eval
        # failed on rel with a traceback.
        ("nDCG@9223372036854775808", "the cutoff k must be at most 9223372036854775807"),
        ("RR@99999999999999999999", "the cutoff k must be at most 9223372036854775807"),
        ("P(rel=99999999999999999999)@5", "the relevance level rel must be at most"),
        ("nDCG(rel=2)@10", "nDCG has no parameter rel (its parameters: dcg,"),
        ("P", "needs its cutoff, as P@10"),
        ("IPrec", "needs its recall, as IPrec@0.5"),
        ("SetF(beta=2)", "beta is a decimal number; write beta=2.0"),
    ],
)
def test_bad_measure_parameters_are_usage_errors(tmp_path: Path, measure: str, says: str) -> None:
    out = score_own_run(tmp_path, f"nDCG@10 {measure}", code=2).output
    assert out.startswith(f"error: measure {measure!r}: ") or out.startswith(
        f"error: measure {measure!r} needs"
    )
    assert says in " ".join(out.split())
    assert not (tmp_path / "scored" / "summary.json").exists()


@pytest.mark.parametrize(
    ("measure", "says"),
    [
        ("SpanCov@0", "the cutoff k must be an integer >= 1, as SpanCov@10"),
        ("SpanCov(rel=0)@5", "the relevance level rel must be an integer >= 1"),
    ],
)
def test_bad_span_coverage_parameters(tmp_path: Path, measure: str, says: str) -> None:
    run = tmp_path / "run.trec"
    run.write_text("q Q0 rural-grant-0 1 1.0 t\n", encoding="utf-8")
    args = ("--data", "builtin:conditionalqa", "--measures", measure)
    out = invoke("score", str(run), *args, "--out", str(tmp_path / "s"), code=2).output
    assert " ".join(out.split()).startswith(f"error: measure {measure!r}: {says}")


def test_measures_separated_by_commas_or_spaces(tmp_path: Path) -> None:
    score_own_run(tmp_path, "nDCG@10,RR@10, P(rel=2, judged_only=True)@5")
    summary = json.loads((tmp_path / "scored" / "summary.json").read_text(encoding="utf-8"))
    assert list(summary["measures"]) == ["nDCG@10", "RR@10", "P(rel=2,judged_only=True)@5"]


def test_the_known_list_names_what_is_accepted(tmp_path: Path) -> None:
    import ir_measures

    out = " ".join(score_own_run(tmp_path, "nDGC@10", code=2).output.split())
    listed = out.partition("error: unknown measure 'nDGC@10'; known: ")[2]
    # Every measure trec_eval computes is named, and every name listed is accepted.
    provider = ir_measures.providers.registry["pytrec_eval"]
    words = set(re.findall(r"[A-Za-z]+", listed))
    counts = {"NumRet", "NumRel", "NumQ"}  # sums, refused below
    assert ({m.NAME for m in provider.SUPPORTED_MEASURES} - counts) | {"Judged", "MAP"} <= words
    assert not counts & words
    names = [
        name.replace("@k", "@10").replace("@r", "@0.5")
        for part in listed.replace(" and ", ", ").split("; ")[:2]
        for name in part.removeprefix("also ").split(", ")
    ]
    names = [name.partition(" ")[0] for name in names]
    assert {"MAP", "Bpref", "AP@10", "nDCG@10", "Judged", "IPrec@0.5"} <= set(names)
    score_own_run(tmp_path, " ".join(names))
    summary = json.loads((tmp_path / "scored" / "summary.json").read_text(encoding="utf-8"))
    assert len(summary["measures"]) == len(set(names)) - 1  # MAP is AP


def test_retrieve_refuses_the_function_calling_dataset(tmp_path: Path) -> None:
    out = invoke("retrieve", "--data", "builtin:tfce", "--out", str(tmp_path), code=1).output
    assert out == (
        "error: builtin:tfce: not a retrieval dataset (it is for function calling)\n"
        "  fix: point --data at a retrieval dataset: builtin:qasper-rag,\n"
        "       builtin:conditionalqa or a directory (tfce-eval datasets lists them)\n"
    )
    assert not list(tmp_path.iterdir())


@pytest.mark.parametrize(
    ("args", "task"),
    [
        (("validate", "--task", "retrieval"), "retrieval"),
        (("validate", "--data", "builtin:tfce", "--task", "qa"), "qa"),
        (("score", "run.trec", "--data", "builtin:tfce", "--task", "retrieval"), "retrieval"),
    ],
)
def test_the_function_calling_dataset_read_as_another_task(
    args: tuple[str, ...], task: str
) -> None:
    out = invoke(*args, code=1).output
    assert out.startswith(f"error: builtin:tfce: not a {task} dataset (it is for function")


def trec_qrels(path: Path, split: str, extra: str = "") -> Path:
    """The built-in QASPER-RAG's judgements of one split as a TREC qrels file."""
    lines = []
    with (BUILTIN / "qasper-rag" / "qrels" / f"{split}.jsonl").open(encoding="utf-8") as fh:
        for line in fh:
            row = json.loads(line)
            lines.append(f"{row['query_id']} 0 {row['corpus_id']} {row['score']}\n")
    path.write_text("".join(lines) + extra, encoding="utf-8")
    return path


def test_validate_applies_qrels_to_the_split_score_reads(tmp_path: Path) -> None:
    test = trec_qrels(tmp_path / "test.qrels", "test")
    out = invoke("validate", *QASPER, "--qrels", str(test), code=0).output
    said = " ".join(out.split())
    assert said.endswith(
        "dataset builtin:qasper-rag: 48 queries (dev 13, test 35): 0 errors, 2 warnings"
    )
    invoke("score", "dataset", *QASPER, "--qrels", str(test), "--out", str(tmp_path / "s"), code=0)
    # Its problems are reported; the dev split is still checked against its own gold.
    bad = trec_qrels(tmp_path / "bad.qrels", "test", "paper01-q1 0 nowhere 1\n")
    out = " ".join(invoke("validate", *QASPER, "--qrels", str(bad), code=1).output.split())
    assert f"error: {bad}:" in out and "document 'nowhere', which is not in the corpus" in out
    assert out.endswith("1 error, 2 warnings")
    # Named with --split, the file is that split's gold.
    dev = trec_qrels(tmp_path / "dev.qrels", "dev")
    invoke("validate", *QASPER, "--split", "dev", "--qrels", str(dev), code=0)
    invoke("validate", *QASPER, "--split", "test", "--qrels", str(dev), code=1)


@pytest.mark.parametrize("command", ["validate", "retrieve", "score"])
def test_an_unknown_split_is_a_usage_error_everywhere(tmp_path: Path, command: str) -> None:
    args = {"validate": (), "retrieve": ("--out", str(tmp_path)), "score": ("dataset",)}
    out = invoke(command, *args[command], *QASPER, "--split", "nope", code=2).output
    assert out == "error: builtin:qasper-rag has no split 'nope'; its splits: dev, test\n"


@pytest.mark.parametrize(
    ("args", "says"),
    [
        (
            ("--split", "test"),
            "--split is for retrieval and question-answering datasets; builtin:tfce "
            "(the default --data) is a function-calling dataset",
        ),
        (
            ("--data", "builtin:tfce", "--corpus", "documents"),
            "--corpus is for retrieval datasets; --data is a function-calling dataset",
        ),
        (
            ("--data", "builtin:qasper-rag", "--functions", "."),
            "--functions is for function-calling datasets; --data is a retrieval dataset",
        ),
        (
            ("--data", "builtin:telco-qna", "--answer-style", "bfcl", "--questions", __file__),
            "--questions and --answer-style are for function-calling datasets; --data is "
            "a question-answering dataset",
        ),
        (
            ("--data", "builtin:telco-qna", "--qrels", __file__),
            "--qrels is for retrieval datasets; --data is a question-answering dataset",
        ),
    ],
)
def test_validate_refuses_options_of_another_task(args: tuple[str, ...], says: str) -> None:
    out = " ".join(invoke("validate", *args, code=2).output.split())
    assert out.startswith(f"error: {says}")


@pytest.mark.parametrize("command", ["validate", "run"])
def test_an_unknown_qa_split_is_a_usage_error_too(command: str) -> None:
    args = {"validate": (), "run": ("--model", "openai/x")}
    data = ("--data", "builtin:telco-qna", "--split", "nope")
    out = invoke(command, *args[command], *data, code=2).output
    assert out == "error: builtin:telco-qna has no split 'nope'; its splits: set_24\n"


def test_report_pairs_no_runs_scored_against_different_gold(tmp_path: Path) -> None:
    same = trec_qrels(tmp_path / "same.qrels", "test")
    graded = tmp_path / "graded.qrels"
    lines = same.read_text(encoding="utf-8").splitlines()
    graded.write_text("\n".join([*lines[:-1], lines[-1][:-1] + "2"]) + "\n", encoding="utf-8")
    runs = {}
    for name, qrels in (("builtin", None), ("same", same), ("graded", graded)):
        runs[name] = str(tmp_path / name)
        extra = ("--qrels", str(qrels)) if qrels else ()
        invoke("score", "dataset", *QASPER, *extra, "--out", runs[name], code=0)
    # The same judgements from another file pair; changed judgements do not.
    assert "p rand." in invoke("report", runs["builtin"], runs["same"], code=0).output
    out = " ".join(invoke("report", runs["builtin"], runs["graded"], code=0).output.split())
    assert "No paired test: the runs were scored against different gold (qrels;" in out
    assert "p rand." not in out


@pytest.mark.parametrize("measure", ["NumRet", "NumRel", "NumQ", "NumRet(rel=1)"])
def test_trec_evals_counts_are_refused_not_averaged(tmp_path: Path, measure: str) -> None:
    # trec_eval sums them over the queries: a mean under their name would not be its figure.
    said = " ".join(score_own_run(tmp_path, f"nDCG@10 {measure}", code=2).output.split())
    assert (
        f"error: measure {measure!r} is a count that trec_eval sums over the queries, and "
        "tfce-eval reports means: scores.jsonl has each query's n_relevant and n_retrieved"
    ) in said
    assert not (tmp_path / "scored").exists()
