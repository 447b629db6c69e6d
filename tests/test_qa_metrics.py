"""Lexical scores, QASPER's Answer-F1 and Evidence-F1, and the judge's pure parts."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path
from typing import Any

import pytest

from tfce_eval.errors import UsageError
from tfce_eval.qa import (
    JUDGE_PROMPT_SHA256,
    JUDGE_TEMPLATE,
    AnswerType,
    Grade,
    QaItem,
    Verdict,
    VerdictCache,
    VerdictKey,
    answer_f1,
    check_judge,
    evidence_f1,
    exact_match,
    judge_prompt,
    normalize_answer,
    paragraph_f1,
    parse_verdict,
    response_sha256,
    token_f1,
)


def test_normalize_answer_is_squads() -> None:
    assert normalize_answer("The  Packet-Data, Convergence Protocol!") == (
        "packetdata convergence protocol"
    )
    assert normalize_answer("An apple a day") == "apple day"
    assert normalize_answer("theory and another") == "theory and another"


def test_exact_match_max_over_references() -> None:
    assert exact_match("the AMF.", ["SMF", "AMF"]) == 1.0
    assert exact_match("AMF function", ["AMF"]) == 0.0
    assert exact_match("x", []) == 0.0


@pytest.mark.parametrize("score", [token_f1, exact_match, answer_f1])
def test_references_given_as_one_string_are_refused(score: Any) -> None:
    """A lone string would be read as one reference per letter: `token_f1("c", "a cat")`
    would be 1.0. It is a UsageError instead, as `ids="x"` is."""
    with pytest.raises(UsageError, match="references: give a list of answers"):
        score("a cat", "a cat")
    with pytest.raises(UsageError, match="references: give a list of answers"):
        score("a cat", b"a cat")
    with pytest.raises(UsageError, match="a prediction and a list of str"):
        score("a cat", [1])
    with pytest.raises(UsageError) as long:
        score("a cat", "x" * 1000)
    assert len(str(long.value)) < 120
    assert score("a cat", ["a cat"]) == 1.0
    assert score("a cat", (r for r in ["a cat"])) == 1.0  # an iterator is read once


def test_token_f1_values() -> None:
    # 4 shared tokens of 5 predicted and 4 reference: P = 4/5, R = 1, F1 = 8/9.
    ref = ["Packet Data Convergence Protocol"]
    assert token_f1("the Packet Data Convergence Protocol layer", ref) == pytest.approx(8 / 9)
    # Repeated tokens count as a multiset: "x b b" vs "b c": shared 1, P = 1/3, R = 1/2.
    assert token_f1("x b b", ["b c"]) == pytest.approx(0.4)
    # Both repeat "b": shared 2 (a set would share 1), P = 2/3, R = 2/2, F1 = 0.8.
    assert token_f1("x b b", ["b b"]) == pytest.approx(0.8)
    assert token_f1("nothing shared", ["AMF"]) == 0.0
    # The best reference counts.
    assert token_f1("AMF", ["SMF", "the AMF"]) == 1.0
    # SQuAD v1.1: two empty strings share nothing, so 0.
    assert token_f1("the", ["a"]) == 0.0


def test_qasper_answer_f1_is_the_best_reference() -> None:
    assert answer_f1("BERT base", ["BERT", "RoBERTa base"]) == pytest.approx(2 / 3)


def test_qasper_paragraph_and_evidence_f1() -> None:
    # precision divides by the predicted list's length (a duplicate counts twice):
    # shared {p2}: P = 1/3, R = 1/2, F1 = 0.4.
    assert paragraph_f1(["p1", "p2", "p2"], ["p2", "p3"]) == pytest.approx(0.4)
    assert paragraph_f1([], []) == 1.0
    assert paragraph_f1([], ["p1"]) == 0.0
    assert paragraph_f1(["p1"], []) == 0.0
    assert evidence_f1(["p1"], [["p2"], ["p1", "p3"]]) == pytest.approx(2 / 3)
    assert evidence_f1(["p1"], []) == 0.0


ITEM = QaItem(
    id="o1",
    question="What does PDCP stand for?",
    answer_type=AnswerType.OPEN,
    reference="Packet Data Convergence Protocol",
    source_text="PDCP: Packet Data Convergence Protocol (TS 38.323).",
)


def test_judge_prompt_and_digest() -> None:
    text = judge_prompt(ITEM, "  Packet data protocol  ")
    assert "Question:\nWhat does PDCP stand for?" in text
    assert "Reference answer:\nPacket Data Convergence Protocol" in text
    assert "PDCP: Packet Data Convergence Protocol (TS 38.323)." in text
    assert "Answer to grade:\nPacket data protocol\n" in text
    assert text.rstrip().endswith("GRADE: C, GRADE: P or GRADE: I")
    assert hashlib.sha256(JUDGE_TEMPLATE.encode()).hexdigest() == JUDGE_PROMPT_SHA256
    # An answer holding a placeholder is not filled in a second time.
    assert "Answer to grade:\n{reference}\n" in judge_prompt(ITEM, "{reference}")
    bare = QaItem(id="x", question="q", answer_type=AnswerType.OPEN, reference="r")
    assert "(none)" in judge_prompt(bare, "a")


@pytest.mark.parametrize(
    ("reply", "grade"),
    [
        ("GRADE: C", Grade.C),
        ("grade: p", Grade.P),
        ("GRADE: I", Grade.I),
        ("**GRADE:** C", Grade.C),
        ("The answer names all three words.\nGRADE: C", Grade.C),
        ("GRADE: P\nOn reflection it misses nothing.\nGRADE: C", Grade.C),
        ("<think>maybe GRADE: I</think>GRADE: C", Grade.C),
        ("GRADE: (P)", Grade.P),
        ("GRADE: Partially correct", Grade.P),
        ("GRADE: incorrect.", Grade.I),
        ("C", Grade.C),
        ("Correct.", Grade.C),
        ("partially correct", Grade.P),
        ("GRADE: C because it is right", Grade.C),
    ],
)
def test_parse_verdict(reply: str, grade: Grade) -> None:
    assert parse_verdict(reply) is grade


@pytest.mark.parametrize(
    "reply",
    [
        "",
        "I think it is C",
        "The answer is fine.",
        "GRADE: X",
        "GRADE: C or P",
        "GRADE: C/P",
        "GRADE:",
        "Correct and incorrect",
        "<think>GRADE: C",
    ],
)
def test_parse_verdict_none(reply: str) -> None:
    assert parse_verdict(reply) is None


def test_grade_scores() -> None:
    assert [g.score for g in Grade] == [1.0, 0.5, 0.0]


def test_verdict_cache_round_trip_and_torn_line(tmp_path: Path) -> None:
    path = tmp_path / "run" / "judge_verdicts.jsonl"
    cache = VerdictCache(path)
    key = VerdictKey("o1", response_sha256("PDCP"), "openai/gpt-4o-mini")
    other = VerdictKey("o2", response_sha256("x"), "openai/gpt-4o-mini")
    cache.put(key, Verdict(Grade.C, "GRADE: C"))
    cache.put(other, Verdict(None, "no idea"))
    # An interruption tore the last line.
    with path.open("a", encoding="utf-8") as out:
        out.write('{"id": "o3", "respon')
    again = VerdictCache(path)
    assert again.torn == 1 and len(again) == 2
    assert again.get(key) == Verdict(Grade.C, "GRADE: C")
    assert again.get(other) == Verdict(None, "no idea")
    assert again.get(VerdictKey("o1", response_sha256("PDCP"), "another-judge")) is None
    assert again.get(VerdictKey("o1", response_sha256("PDCP"), key.judge, "0" * 64)) is None
    third = VerdictKey("o3", response_sha256("y"), key.judge)
    again.put(third, Verdict(Grade.I, "GRADE: I"))
    lines = path.read_text(encoding="utf-8").split("\n")
    assert lines[2] == '{"id": "o3", "respon'  # the torn line stays a line of its own
    assert json.loads(lines[3])["grade"] == "I"
    final = VerdictCache(path)
    assert (final.torn, len(final)) == (1, 3)


def test_memory_cache_writes_nothing(tmp_path: Path) -> None:
    cache = VerdictCache(None)
    cache.put(VerdictKey("a", "b", "c"), Verdict(Grade.P, "P"))
    assert len(cache) == 1 and list(tmp_path.iterdir()) == []


def test_check_judge() -> None:
    check_judge("gpt-4o", "gpt-4o-mini")
    check_judge("gpt-4o", "openai/gpt-4o", allow_self_judge=True)
    with pytest.raises(UsageError, match="--allow-self-judge"):
        check_judge("gpt-4o", "openai/GPT-4o")
