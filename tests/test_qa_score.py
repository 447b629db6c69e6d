"""Scoring predictions files and run outputs: records, summary, judge and cache, bad input."""

from __future__ import annotations

import asyncio
import hashlib
import json
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner
from messages import unfold
from retrieval_fixtures import HF_CORPUS, HF_QRELS, HF_QUERIES, write_hf

from tfce_eval.cli import main
from tfce_eval.errors import DataError, UsageError
from tfce_eval.qa import (
    CACHE_NAME,
    JUDGE_PROMPT_SHA256,
    MAX_LINE,
    QaItem,
    QaOutput,
    RetrievedChunk,
    load_telco,
    qasper_dataset,
    score_outputs,
    score_outputs_async,
    score_predictions,
)
from tfce_eval.scoring.options import MissingMode
from tfce_eval.stats import wilson_interval

RECORDS: list[dict[str, Any]] = [
    {
        "question_id": "m1",
        "question": "Which function handles registration?",
        "answer_type": "mc",
        "options": {"A": "SMF", "B": "AMF", "C": "UPF"},
        "reference_answer": "B",
        "difficulty": "hard",
        "canonical_source": "TS 23.501 (Rel-17)",
        "chunk_id": "23501-h00_0004",
    },
    {
        "question_id": "m2",
        "question": "Which numerology gives 30 kHz?",
        "answer_type": "mc",
        "options": {"1": "mu = 0", "2": "mu = 1", "3": "mu = 2", "4": "mu = 3"},
        "reference_answer": "mu = 1",
        "difficulty": "easy",
        "canonical_source": "TS 38.211 (Rel-16)",
        "chunk_id": "38211-g00_0002",
    },
    {
        "question_id": "m3",
        "question": "Which function allocates UE IP addresses?",
        "answer_type": "mc",
        "options": {"A": "SMF", "B": "AMF"},
        "reference_answer": "A",
        "difficulty": "hard",
        "canonical_source": "TS 23.501 (Rel-17)",
        "chunk_id": "23501-h00_0005",
    },
    {
        "question_id": "t1",
        "question": "The AMF terminates NAS signalling.",
        "answer_type": "tf",
        "reference_answer": "TRUE",
        "difficulty": "easy",
        "canonical_source": "TS 23.501 (Rel-17)",
        "chunk_id": "23501-h00_0004",
    },
    {
        "question_id": "t2",
        "question": "RRC_INACTIVE was introduced in Rel-8.",
        "answer_type": "tf",
        "reference_answer": False,
        "difficulty": "hard",
        "canonical_source": "TS 38.331 (Rel-15)",
        "chunk_id": "38331-f00_0100",
    },
    {
        "question_id": "o1",
        "question": "What does PDCP stand for?",
        "answer_type": "open",
        "reference_answer": "Packet Data Convergence Protocol",
        "difficulty": "easy",
        "canonical_source": "TS 38.323 (Rel-16)",
        "source_text": "Packet Data Convergence Protocol (PDCP) specification.",
        "chunk_id": "38323-g00_0001",
    },
    {
        "question_id": "o2",
        "question": "Which entity performs ciphering of user plane data in NR?",
        "answer_type": "open",
        "reference_answer": "the PDCP entity",
        "difficulty": "hard",
        "canonical_source": "TS 38.323 (Rel-16)",
        "chunk_id": "38323-g00_0009",
    },
]


def dataset_file(tmp_path: Path) -> Path:
    path = tmp_path / "set_7.json"
    doc = {"_corpus": "3gpp", "_description": "d", "_generated": "g", "questions": RECORDS}
    path.write_text(json.dumps(doc), encoding="utf-8")
    return path


def write_lines(path: Path, rows: list[Any]) -> Path:
    path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    return path


def retrieved(*specs: str) -> list[dict[str, Any]]:
    return [{"chunk_id": s, "source": "", "score": 10.0 - n} for n, s in enumerate(specs)]


PREDICTIONS: list[dict[str, Any]] = [
    {
        "id": "m1",
        "response": "The AMF.\n\n**ANSWER: B**",
        "retrieved": retrieved("38300-h00_0001", "23501-h00_0004"),
    },
    {"question_id": "m2", "answer": "2", "retrieved": retrieved("38331-h00_0001")},
    {"id": "m3", "response": "I would say the first capital letter: A UE...", "retrieved": []},
    {"id": "t1", "answer": True},
    {"id": "t2", "response": "<think>hmm</think>ANSWER: True"},
    {"id": "o1", "response": "ANSWER: Packet Data Convergence Protocol"},
    {"id": "o2", "response": "ANSWER: PDCP"},
]


def test_score_predictions_records_and_summary(tmp_path: Path) -> None:
    data = load_telco(dataset_file(tmp_path))
    preds = write_lines(tmp_path / "preds.jsonl", PREDICTIONS)
    out = tmp_path / "scored"
    result = score_predictions(preds, data, out_dir=out, k=2)
    lines = (out / "scores.jsonl").read_text(encoding="utf-8").splitlines()
    records = [json.loads(line) for line in lines]
    assert [r["id"] for r in records] == ["m1", "m2", "m3", "o1", "o2", "t1", "t2"]
    by_id = {r["id"]: r for r in records}
    assert by_id["m1"]["extracted"] == "B" and by_id["m1"]["correct"] is True
    assert by_id["m1"]["canonical_hit"] is True and by_id["m1"]["chunk_hit"] is True
    assert by_id["m2"]["correct"] is True and by_id["m2"]["canonical_hit"] is False
    assert by_id["m3"]["error_type"] == "parse_error" and by_id["m3"]["correct"] is False
    assert by_id["m3"]["canonical_hit"] is False
    assert by_id["t1"]["extracted"] == "true" and by_id["t1"]["correct"] is True
    assert by_id["t2"]["extracted"] == "true" and by_id["t2"]["correct"] is False
    assert by_id["o1"]["exact_match"] == 1.0 and by_id["o1"]["score"] is None
    assert by_id["o2"]["token_f1"] == pytest.approx(2 / 3)
    summary = json.loads((out / "summary.json").read_text(encoding="utf-8"))
    assert summary == result.summary
    assert summary["task"] == "qa"
    mc = summary["answer_types"]["mc"]
    assert (mc["total"], mc["correct"], mc["parse_errors"], mc["request_errors"]) == (3, 2, 1, 0)
    assert mc["accuracy"] == pytest.approx(2 / 3)
    assert mc["ci95"] == list(wilson_interval(2, 3))
    tf = summary["answer_types"]["tf"]
    assert (tf["total"], tf["correct"], tf["accuracy"]) == (2, 1, 0.5)
    op = summary["answer_types"]["open"]
    assert op["mean"] is None and op["judge"] is None and op["ungraded"] == 0
    assert op["exact_match"] == 0.5
    assert op["lexical"].startswith("lexical")
    assert summary["overall"]["total"] == 5 and summary["overall"]["correct"] == 3
    hard = summary["by"]["difficulty"]["hard"]
    assert (hard["items"], hard["total"], hard["correct"], hard["open_total"]) == (4, 3, 1, 1)
    assert set(summary["by"]["series"]) == {"23", "38"}
    hit = summary["canonical_hit"]
    assert (hit["k"], hit["questions"], hit["hits"], hit["no_retrieval"]) == (2, 3, 1, 4)
    assert hit["rate"] == pytest.approx(1 / 3)
    assert hit["chunk_hit"] == {"questions": 3, "hits": 1, "rate": pytest.approx(1 / 3)}
    assert summary["predictions"]["lines"] == 7
    assert len(summary["predictions"]["sha256"]) == 64
    assert summary["dataset"]["split"] == "set_7" and summary["missing"] == 0


def test_token_f1_of_a_short_answer(tmp_path: Path) -> None:
    data = load_telco(dataset_file(tmp_path))
    result = score_outputs([QaOutput("o2", response="ANSWER: PDCP")], data, out_dir=None)
    (o2,) = [r for r in result.records if r.id == "o2"]
    # "pdcp" vs "pdcp entity" (the article removed): P = 1, R = 1/2, F1 = 2/3.
    assert o2.token_f1 == pytest.approx(2 / 3) and o2.exact_match == 0.0


def test_missing_items_count_or_skip(tmp_path: Path) -> None:
    data = load_telco(dataset_file(tmp_path))
    outputs = [QaOutput("m1", answer="B"), QaOutput("t1", error="HTTP 500 after 3 tries")]
    counted = score_outputs(outputs, data, out_dir=None)
    by_id = {r.id: r for r in counted.records}
    assert len(counted.records) == 7
    assert by_id["m2"].error_type == "request_error" and by_id["m2"].missing
    assert by_id["t1"].error == "HTTP 500 after 3 tries" and not by_id["t1"].missing
    assert counted.summary["missing"] == 5
    assert counted.summary["answer_types"]["mc"]["request_errors"] == 2
    assert counted.summary["answer_types"]["mc"]["accuracy"] == pytest.approx(1 / 3)
    assert (
        "5 items have no output and count as request errors (m2, m3, o1, o2, t2)"
        in counted.warnings
    )
    skipped = score_outputs(outputs, data, out_dir=None, missing=MissingMode.SKIP)
    assert [r.id for r in skipped.records] == ["m1", "t1"]
    assert skipped.summary["answer_types"]["mc"]["accuracy"] == 1.0
    assert skipped.summary["missing_policy"] == "skip"


def test_retrieved_mapping_and_chunk_hit_hidden_for_other_chunking(tmp_path: Path) -> None:
    data = load_telco(dataset_file(tmp_path))
    run = {"m1": [RetrievedChunk("my-chunk-7", "TS 23.501")], "t2": [RetrievedChunk("z")]}
    result = score_outputs(
        [QaOutput("m1", answer="B"), QaOutput("t2", answer=False)], data, out_dir=None, k=1
    )
    assert result.summary["canonical_hit"] is None
    result = score_outputs(
        [QaOutput("m1", answer="B"), QaOutput("t2", answer=False)],
        data,
        out_dir=None,
        k=1,
        retrieved=run,
    )
    hit = result.summary["canonical_hit"]
    assert (hit["questions"], hit["hits"], hit["chunk_hit"]) == (2, 1, None)
    assert all(r.chunk_hit is None for r in result.records)


class FakeJudge:
    def __init__(self, replies: dict[str, str | Exception]) -> None:
        self.replies = replies
        self.calls: list[tuple[str, str]] = []

    async def grade(self, item: QaItem, response: str) -> str:
        self.calls.append((item.id, response))
        await asyncio.sleep(0)
        reply = self.replies[item.id]
        if isinstance(reply, Exception):
            raise reply
        return reply


def test_judge_grades_and_the_cache_answers_a_rescore(tmp_path: Path) -> None:
    data = load_telco(dataset_file(tmp_path))
    preds = write_lines(tmp_path / "p.jsonl", PREDICTIONS)
    out = tmp_path / "run"
    judge = FakeJudge({"o1": "It matches.\nGRADE: C", "o2": "GRADE: P"})
    first = score_predictions(preds, data, out_dir=out, judge=judge, judge_name="judge-m")
    assert sorted(judge.calls) == [
        ("o1", "Packet Data Convergence Protocol"),
        ("o2", "PDCP"),
    ]
    op = first.summary["answer_types"]["open"]
    assert (op["mean"], op["graded"], op["grades"]) == (0.75, 2, {"C": 1, "P": 1, "I": 0})
    assert op["judge"] == "judge-m" and op["judge_prompt_sha256"] == JUDGE_PROMPT_SHA256
    assert first.summary["judge"] == {
        "model": "judge-m",
        "prompt_sha256": JUDGE_PROMPT_SHA256,
        "asked": 2,
        "cached": 0,
        "failed": 0,
        "unparseable": 0,
    }
    assert len((out / CACHE_NAME).read_text(encoding="utf-8").splitlines()) == 2
    again = FakeJudge({})
    second = score_predictions(preds, data, out_dir=out, judge=again, judge_name="judge-m")
    assert again.calls == []
    assert second.summary["answer_types"]["open"]["mean"] == 0.75
    assert second.summary["judge"]["cached"] == 2
    # Another judge model is not answered from the first one's verdicts.
    other = FakeJudge({"o1": "GRADE: I", "o2": "GRADE: I"})
    third = score_predictions(preds, data, out_dir=out, judge=other, judge_name="judge-2")
    assert len(other.calls) == 2 and third.summary["answer_types"]["open"]["mean"] == 0.0
    # With the name alone, cached verdicts still grade and nothing is asked.
    offline = score_predictions(preds, data, out_dir=out, judge_name="judge-m")
    assert offline.summary["answer_types"]["open"]["mean"] == 0.75


def test_judge_failures_are_ungraded_not_crashes(tmp_path: Path) -> None:
    data = load_telco(dataset_file(tmp_path))
    judge = FakeJudge({"o1": TimeoutError("judge timed out"), "o2": "Looks plausible to me."})
    outputs = [QaOutput("o1", response="ANSWER: x"), QaOutput("o2", response="ANSWER: y")]
    result = score_outputs(outputs, data, out_dir=tmp_path / "r", judge=judge, judge_name="j")
    by_id = {r.id: r for r in result.records}
    assert by_id["o1"].error_type == "ungraded" and by_id["o1"].score is None
    assert by_id["o1"].error == "judge failed: TimeoutError: judge timed out"
    assert by_id["o2"].error_type == "ungraded"
    assert by_id["o2"].error == "no grade in the judge's reply: 'Looks plausible to me.'"
    op = result.summary["answer_types"]["open"]
    assert (op["ungraded"], op["graded"], op["mean"]) == (2, 0, None)
    assert result.summary["judge"]["failed"] == 1
    assert result.summary["judge"]["unparseable"] == 1
    # Said where the user reads it, not only in scores.jsonl.
    assert (
        "the judge failed on 1 of 2 open answers: it is ungraded (left out of its mean); "
        "first: judge failed: TimeoutError: judge timed out"
    ) in result.warnings
    # Only the answered verdict is cached: the failure is asked again next time.
    judge2 = FakeJudge({"o1": "GRADE: C", "o2": "GRADE: C"})
    score_outputs(outputs, data, out_dir=tmp_path / "r", judge=judge2, judge_name="j")
    assert judge2.calls == [("o1", "x")]


def test_unanswered_open_items_score_zero_without_a_request(tmp_path: Path) -> None:
    data = load_telco(dataset_file(tmp_path))
    judge = FakeJudge({"o1": "GRADE: C"})
    outputs = [QaOutput("o1", response="ANSWER: PDCP"), QaOutput("o2", response="ANSWER:  ")]
    result = score_outputs(outputs, data, out_dir=None, judge=judge, judge_name="j")
    by_id = {r.id: r for r in result.records}
    assert by_id["o2"].error_type == "parse_error" and by_id["o2"].score == 0.0
    assert [c[0] for c in judge.calls] == ["o1"]
    assert result.summary["answer_types"]["open"]["mean"] == 0.5


def test_judge_needs_a_name(tmp_path: Path) -> None:
    data = load_telco(dataset_file(tmp_path))
    with pytest.raises(UsageError, match="judge_name"):
        score_outputs([], data, out_dir=None, judge=FakeJudge({}))


def test_async_scoring_inside_a_loop(tmp_path: Path) -> None:
    data = load_telco(dataset_file(tmp_path))

    async def main() -> float:
        result = await score_outputs_async([QaOutput("m1", answer="B")], data, out_dir=None)
        return float(result.summary["answer_types"]["mc"]["correct"])

    assert asyncio.run(main()) == 1.0


def test_a_score_cancelled_while_scoring_writes_nothing(tmp_path: Path) -> None:
    """Ctrl-C cancels the scoring task (asyncio's handler); scoring without a judge never
    awaited, so it used to write its files and only then stop. The earlier score's files
    stay as they were, its reports included."""
    data = load_telco(dataset_file(tmp_path))
    out = tmp_path / "scored"
    score_outputs([QaOutput("m1", answer="B")], data, out_dir=out)
    (out / "report.md").write_text("earlier report\n", encoding="utf-8")
    before = {p.name: p.read_bytes() for p in out.iterdir()}

    def outputs() -> Any:
        yield QaOutput("m1", answer="A")
        task = asyncio.current_task()
        assert task is not None
        task.cancel()  # what the SIGINT handler of asyncio.run does
        yield QaOutput("t1", answer=True)

    async def main() -> None:
        await score_outputs_async(outputs(), data, out_dir=out)

    with pytest.raises(asyncio.CancelledError):
        asyncio.run(main())
    assert {p.name: p.read_bytes() for p in out.iterdir()} == before


def test_a_new_score_removes_the_reports_of_an_earlier_one(tmp_path: Path) -> None:
    data = load_telco(dataset_file(tmp_path))
    out = tmp_path / "scored"
    out.mkdir()
    for name in ("report.md", "report.html"):
        (out / name).write_text("earlier\n", encoding="utf-8")
    score_outputs([QaOutput("m1", answer="B")], data, out_dir=out)
    assert sorted(p.name for p in out.iterdir()) == ["scores.jsonl", "summary.json"]


@pytest.mark.parametrize(
    ("content", "line", "message"),
    [
        ('{"id": "m1", "answer": "B"}\n{"id": "zz", "answer": "B"}\n', 2, "'zz' is not in"),
        ('{"id": "m1", "answer": "B"}\nnot json\n', 2, "not JSON"),
        ('["m1", "B"]\n', 1, "must be a JSON object"),
        ('{"id": "m1"}\n', 1, "neither a response nor an answer"),
        ('{"response": "B"}\n', 1, "no id"),
        ('{"id": "m1", "response": 3}\n', 1, "response must be text"),
        ('{"id": "m1", "answer": "B", "retrieved": [{"score": 1}]}\n', 1, "chunk_id"),
        ('{"id": "m1", "answer": "B", "evidence": "p1"}\n', 1, "evidence must be a list"),
        ('{"id": "m1", "answer": ' + "[" * 70 + "]" * 70 + "}\n", 1, "nested deeper"),
        ('{"id": "m1", "answer": ' + "[" * 100_000 + "]" * 100_000 + "}\n", 1, "nested deeper"),
        ('{"id": "m1", "response": "' + "x" * (MAX_LINE + 5) + '"}\n', 1, "longer than"),
    ],
)
def test_bad_predictions_stop_with_one_line_and_write_nothing(
    tmp_path: Path, content: str, line: int, message: str
) -> None:
    data = load_telco(dataset_file(tmp_path))
    out = tmp_path / "out"
    out.mkdir()
    (out / "summary.json").write_text("earlier", encoding="utf-8")
    preds = tmp_path / "p.jsonl"
    preds.write_text(content, encoding="utf-8")
    with pytest.raises(DataError) as exc:
        score_predictions(preds, data, out_dir=out)
    assert exc.value.line == line and message in str(exc.value)
    assert str(preds) in str(exc.value)
    assert "\n" not in exc.value.message
    assert (out / "summary.json").read_text(encoding="utf-8") == "earlier"
    assert sorted(p.name for p in out.iterdir()) == ["summary.json"]


def test_bad_utf8_and_duplicates(tmp_path: Path) -> None:
    data = load_telco(dataset_file(tmp_path))
    preds = tmp_path / "p.jsonl"
    preds.write_bytes(b'{"id": "m1", "response": "caf\xe9"}\n')
    with pytest.raises(DataError, match="not UTF-8"):
        score_predictions(preds, data, out_dir=tmp_path / "o")
    write_lines(preds, [{"id": "m1", "answer": "A"}, {"id": "m1", "answer": "B"}])
    result = score_predictions(preds, data, out_dir=tmp_path / "o")
    assert result.records[0].correct is True
    assert (
        "1 output repeats an id given earlier (m1); the later one counts"
        in (result.summary["warnings"])
    )


def test_qasper_answer_and_evidence_f1(tmp_path: Path) -> None:
    data = qasper_dataset(
        {"q1": "Which model?", "q2": "Which corpus?"},
        {"q1": "BERT base", "q2": "Wikipedia"},
        {"q1": {"p1": 1, "p2": 1}, "q2": {"p5": 1}},
        split="test",
    )
    outputs = [
        QaOutput("q1", response="ANSWER: BERT", evidence=("p1", "p3")),
        QaOutput("q2", answer="news"),
    ]
    result = score_outputs(outputs, data, out_dir=tmp_path / "q")
    q1, q2 = result.records
    assert q1.token_f1 == pytest.approx(2 / 3)
    assert q1.evidence_f1 == pytest.approx(0.5)  # P 1/2, R 1/2
    assert q2.evidence_f1 == 0.0  # cited nothing, as the official evaluator scores it
    assert result.summary["qasper"] == {
        "answer_f1": pytest.approx(1 / 3),
        "evidence_f1": pytest.approx(0.25),
        "questions": 2,
    }
    assert "mc" not in result.summary["answer_types"]
    assert result.summary["canonical_hit"] is None


# -- --run FILE: a retrieval run gives the chunks of the canonical hit rate --------------

#: A TREC run listed worst first: the scores, not the order of the lines, rank the chunks.
RUN = {
    "m1": [("23501-h00_0004", 8.0), ("38300-h00_0001", 9.0)],
    "m2": [("38331-h00_0001", 3.0)],
    "o1": [("38323-g00_0001", 1.5), ("36300-h00_0002", 0.5)],
}


def score_cli(*args: object, code: int = 0) -> Any:
    result = CliRunner().invoke(main, ["score", *map(str, args)])
    assert result.exit_code == code, (result.output, result.exception)
    return result


def download(tmp_path: Path) -> Path:
    """The test split beside another, as a Telco-Retrieve download holds several."""
    folder = tmp_path / "telco"
    folder.mkdir()
    dataset_file(folder).rename(folder / "3gpp_question_set_7.json")
    dataset_file(folder).rename(folder / "question_pool_3gpp.json")
    return folder


def trec_run(path: Path, run: dict[str, list[tuple[str, float]]]) -> Path:
    lines = [
        f"{q} Q0 {d} {n} {s} bm25"
        for q, ranked in run.items()
        for n, (d, s) in enumerate(ranked, 1)
    ]
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


def bare(predictions: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return [{k: v for k, v in p.items() if k != "retrieved"} for p in predictions]


def scored(out: Path) -> tuple[list[dict[str, Any]], dict[str, Any]]:
    lines = (out / "scores.jsonl").read_text(encoding="utf-8").splitlines()
    summary = json.loads((out / "summary.json").read_text(encoding="utf-8"))
    return [json.loads(line) for line in lines], summary


@pytest.mark.parametrize("k", [1, 2])
def test_a_run_file_gives_the_hit_rate_the_lines_retrieved_would(tmp_path: Path, k: int) -> None:
    data = download(tmp_path)
    run = trec_run(tmp_path / "ctx.trec", RUN)
    # The same chunks written into the lines, in the run's order (by score).
    ranked = {q: [d for d, _ in sorted(r, key=lambda e: -e[1])] for q, r in RUN.items()}
    inline = [
        {**p, "retrieved": ranked.get(str(p.get("id", p.get("question_id"))), [])}
        for p in bare(PREDICTIONS)
    ]
    with_lines = write_lines(tmp_path / "lines.jsonl", inline)
    with_run = write_lines(tmp_path / "preds.jsonl", bare(PREDICTIONS))
    split = ("--data", data, "--split", "set_7", "--k", k)
    score_cli(with_lines, *split, "--out", tmp_path / "a")
    printed = score_cli(with_run, *split, "--run", run, "--out", tmp_path / "b").output
    (a, summary_a), (b, summary_b) = scored(tmp_path / "a"), scored(tmp_path / "b")
    hits = [(r["id"], r["canonical_hit"], r["chunk_hit"]) for r in b]
    assert hits == [(r["id"], r["canonical_hit"], r["chunk_hit"]) for r in a]
    assert summary_b["canonical_hit"] == summary_a["canonical_hit"]
    by_id = {r["id"]: r for r in b}
    assert by_id["m1"]["canonical_hit"] is (k == 2)  # 23.501 ranks second
    assert by_id["o1"]["canonical_hit"] is True and by_id["m2"]["canonical_hit"] is False
    assert by_id["t1"]["canonical_hit"] is False  # ranked nothing: a miss
    assert summary_b["canonical_hit"]["questions"] == 7
    assert summary_b["retrieval_run"]["path"] == str(run.resolve())
    assert summary_b["retrieval_run"]["sha256"] == hashlib.sha256(run.read_bytes()).hexdigest()
    assert summary_b["retrieval_run"]["form"] == "trec"
    assert "retrieval_run" not in summary_a
    assert "the run ranks nothing for 4 of the 7 questions (m3, o2, t1, t2)" in unfold(printed)


def test_a_run_file_and_the_lines_own_chunks_are_not_mixed(tmp_path: Path) -> None:
    data = download(tmp_path)
    run = trec_run(tmp_path / "ctx.trec", RUN)
    preds = write_lines(tmp_path / "preds.jsonl", PREDICTIONS)  # m1 carries "retrieved"
    out = tmp_path / "o"
    result = score_cli(
        preds, "--data", data, "--split", "set_7", "--run", run, "--out", out, code=2
    )
    assert unfold(result.output) == (
        f'error: {preds}, line 1: carries its own "retrieved" and --run {run} gives the '
        "chunks too; the hit rate would mix two retrievals: give one of them"
    )
    assert not out.exists()


def test_a_run_file_for_other_questions_is_refused(tmp_path: Path) -> None:
    data = download(tmp_path)
    run = trec_run(tmp_path / "other.trec", {"x1": [("38331-h00_0001", 1.0)]})
    preds = write_lines(tmp_path / "preds.jsonl", bare(PREDICTIONS))
    out = tmp_path / "o"
    result = score_cli(
        preds, "--data", data, "--split", "set_7", "--run", run, "--out", out, code=1
    )
    assert unfold(result.output).splitlines() == [
        f"error: {run}: the run ranks none of the dataset's 7 questions (its query ids: x1)",
        "  fix: give a run made for this dataset's question ids and split",
    ]
    assert not out.exists()


def test_a_run_whose_chunk_ids_name_no_spec_says_so(tmp_path: Path) -> None:
    data = download(tmp_path)
    run = trec_run(tmp_path / "ids.trec", {"m1": [("d1", 1.0)], "m2": [("d2", 1.0)]})
    preds = write_lines(tmp_path / "preds.jsonl", bare(PREDICTIONS))
    args = (preds, "--data", data, "--split", "set_7", "--run", run, "--out", tmp_path / "o")
    said = unfold(score_cli(*args).output)
    assert "warning: no chunk id in the run's top 5 names a 3GPP spec (d1, d2)" in said
    assert scored(tmp_path / "o")[1]["canonical_hit"]["hits"] == 0


def test_run_is_for_question_answering_only(tmp_path: Path) -> None:
    run = trec_run(tmp_path / "ctx.trec", {"paper01-q1": [("paper01_abs", 1.0)]})
    result = score_cli(run, "--data", "builtin:conditionalqa", "--run", run, code=2)
    assert unfold(result.output) == (
        "error: --run is for question-answering datasets; --data is a retrieval dataset"
    )


def test_a_line_with_an_error_is_a_request_error_only_without_an_answer(
    tmp_path: Path,
) -> None:
    data = write_hf(
        tmp_path / "qasper",
        corpus=HF_CORPUS,
        queries={"test": HF_QUERIES["test"][:2]},
        qrels={"test": HF_QRELS["test"][:3]},
        answers={
            "test": [
                {"query_id": "q1", "answer": "A3 events"},
                {"query_id": "q2", "answer": "Rayleigh fading"},
            ]
        },
    )
    predictions = tmp_path / "p.jsonl"
    lines = [
        # An answer with a note in "error": the answer is scored, as in fc outputs.
        {"id": "q1", "answer": "A3 events", "evidence": ["p1_0"], "error": "retried once"},
        # A request error: nothing of it is the model's, its evidence included.
        {"id": "q2", "error": "HTTP 500", "evidence": ["p2_0", "p2_abs"]},
    ]
    predictions.write_text("".join(json.dumps(x) + "\n" for x in lines), encoding="utf-8")
    out = tmp_path / "s"
    score_cli(predictions, "--data", data, "--split", "test", "--out", out)
    records, summary = scored(out)
    by_id = {r["id"]: r for r in records}
    assert by_id["q1"]["error_type"] is None and by_id["q1"]["token_f1"] == 1.0
    assert by_id["q1"]["evidence_f1"] == 1.0
    assert by_id["q2"]["error_type"] == "request_error"
    assert by_id["q2"]["evidence_f1"] == 0.0
    assert summary["qasper"]["evidence_f1"] == 0.5


def test_what_is_not_answered_counts_in_the_groups_and_open_means(tmp_path: Path) -> None:
    # An open question with no difficulty and no spec, whose request failed: its lexical
    # scores are 0 (not missing), it is grouped as "unspecified" and series "unknown", it
    # lowers its groups' open token F1, and it is not a question "without retrieval"
    # (nothing was asked).
    extra = {
        "question_id": "o3",
        "question": "What does SDAP stand for?",
        "answer_type": "open",
        "reference_answer": "Service Data Adaptation Protocol",
    }
    path = tmp_path / "set_8.json"
    doc = {"_corpus": "3gpp", "_description": "d", "_generated": "g"}
    path.write_text(json.dumps({**doc, "questions": [*RECORDS, extra]}), encoding="utf-8")
    preds = [*PREDICTIONS, {"id": "o3", "error": "HTTP 500 (3 attempts)"}]
    preds.append({"id": "o2", "response": "ANSWER: nothing that I know"})  # F1 0, read
    out = tmp_path / "scored"
    score_predictions(write_lines(tmp_path / "p.jsonl", preds), load_telco(path), out_dir=out, k=2)
    records, summary = scored(out)
    by_id = {r["id"]: r for r in records}
    o3 = by_id["o3"]
    assert (o3["error_type"], o3["exact_match"], o3["token_f1"]) == ("request_error", 0.0, 0.0)
    for by, key in (("difficulty", "unspecified"), ("series", "unknown")):
        group = summary["by"][by][key]
        assert (group["items"], group["open_total"], group["open_token_f1"]) == (1, 1, 0.0)
    hard = summary["by"]["difficulty"]["hard"]
    assert (hard["open_total"], hard["open_token_f1"]) == (1, 0.0)
    assert summary["canonical_hit"]["no_retrieval"] == 4  # o3 not among them


def test_qasper_without_cited_evidence_has_no_evidence_f1(tmp_path: Path) -> None:
    data = write_hf(
        tmp_path / "qasper",
        corpus=HF_CORPUS,
        queries={"test": HF_QUERIES["test"][:2]},
        qrels={"test": HF_QRELS["test"][:3]},
        answers={"test": [{"query_id": "q1", "answer": "A3 events"}]},
    )
    predictions = write_lines(tmp_path / "p.jsonl", [{"id": "q1", "answer": "A3 events"}])
    out = tmp_path / "s"
    score_cli(predictions, "--data", data, "--split", "test", "--out", out)
    _, summary = scored(out)
    # No output cites paragraphs: Evidence-F1 is not measured, rather than 0.
    assert summary["qasper"]["evidence_f1"] is None
    assert summary["qasper"]["answer_f1"] == 1.0


def test_the_report_of_a_predictions_file_names_it_and_the_dataset(tmp_path: Path) -> None:
    predictions = write_lines(tmp_path / "p.jsonl", [{"id": "m1", "answer": "B"}])
    data = download(tmp_path)
    score_cli(predictions, "--data", data, "--split", "set_7", "--out", tmp_path / "out")
    summary = json.loads((tmp_path / "out" / "summary.json").read_text(encoding="utf-8"))
    dataset = summary["dataset"]
    about = f"- out: predictions {predictions.resolve()}; dataset {dataset['path']} "
    about += f"(sha256 {dataset['sha256'][:12]})"
    report = (tmp_path / "out" / "report.md").read_text(encoding="utf-8")
    assert report.splitlines()[2] == about, report
