"""The built-in Telco-Retrieve-shaped split and its chunk corpus (builtin:telco-qna)."""

from __future__ import annotations

import csv
import json
from collections import Counter
from pathlib import Path
from typing import Any

import pytest

from tfce_eval.qa import (
    AnswerType,
    QaOutput,
    RetrievedChunk,
    load_telco,
    normalise_spec,
    prompt_text,
    score_outputs,
    validate_qa,
)

ROOT = Path(__file__).resolve().parent.parent / "tfce_eval" / "builtin" / "telco-qna"

#: Every field of the dataset card's record table.
CARD_FIELDS = {
    "question_id",
    "question",
    "reference_answer",
    "answer_type",
    "difficulty",
    "keywords",
    "corpus",
    "canonical_source",
    "release",
    "spec_version",
    "chunk_id",
    "source_document",
    "source_text",
    "generated",
    "validated",
    "validation_passed",
    "validation_note",
    "domain_relevance_passed",
    "faithfulness_passed",
    "semantic_correctness_passed",
    "relevance_passed",
    "competitor_chunks",
    "competitor_correct_ratio",
    "competitor_threshold_used",
    "jury_no_context_score",
    "jury_with_context_score",
    "no_context_threshold_used",
    "empirical_difficulty",
    "review_status",
    "reviewer",
    "review_notes",
}

#: The answers, checked by hand against the cited specifications.
EXPECTED = {
    "registration management, connection management": "Access and Mobility Management Function",
    "UE IP address allocation": "Session Management Function (SMF)",
    "numerology mu = 1 use": "30 kHz",
    "slots does one 1 ms subframe contain": "4",
    "no RRC connection is established": "RRC_IDLE",
    "header compression with the ROHC": "PDCP",
    "maps QoS flows to data radio bearers": "SDAP",
    "retransmits missing RLC PDUs": "Acknowledged Mode (AM)",
    "concealed SUPI": "SUCI",
    "Mobile Country Code (MCC)": "Three",
    "410 MHz to 7125 MHz": "FR1",
    "packet routing and forwarding is a function of the UPF": "true",
    "NAS ciphering and integrity protection are terminated in the SMF": "false",
    "an NR slot consists of 14 OFDM symbols": "true",
    "radio frame lasts 20 ms": "false",
    "computes the SUCI using the Home Network Public Key": "true",
    "RRC_INACTIVE has no RRC connection": "false",
    "(MNC) of an IMSI consists of two or three": "true",
    "ciphering of user plane data is performed by the RLC": "false",
    "acronym PDCP": "Packet Data Convergence Protocol",
    "answers NF discovery requests": "The Network Repository Function (NRF)",
    "numerology mu = 3 use": "120 kHz",
    "reference point between the SMF and the UPF": "N4",
    "connects a gNB-CU to its gNB-DUs": "The F1 interface",
}


def corpus() -> list[dict[str, Any]]:
    lines = (ROOT / "corpus" / "corpus.jsonl").read_text(encoding="utf-8").splitlines()
    return [json.loads(line) for line in lines]


def test_split_loads_clean_with_every_answer_type() -> None:
    data = load_telco(ROOT)
    assert data.split == "set_24" and validate_qa(ROOT) == []
    counts = Counter(i.answer_type for i in data.items)
    assert counts == {AnswerType.MC: 11, AnswerType.TF: 8, AnswerType.OPEN: 5}
    labels = {i.labels for i in data.items if i.answer_type is AnswerType.MC}
    assert ("A", "B", "C", "D", "E") in labels
    assert ("1", "2", "3", "4") in labels
    assert ("A", "B") in labels
    assert {i.series for i in data.items} == {"23", "33", "38"}


def test_every_card_field_in_every_record() -> None:
    doc = json.loads((ROOT / "set_24.json").read_text(encoding="utf-8"))
    assert set(doc) == {"_corpus", "_description", "_generated", "questions"}
    for rec in doc["questions"]:
        missing = CARD_FIELDS - set(rec)
        assert not missing, (rec["question_id"], missing)
        assert ("options" in rec) == (rec["answer_type"] == "mc")
        assert ("explanation" in rec) == (rec["answer_type"] == "tf")
        assert len(rec["question_id"]) == 12 and int(rec["question_id"], 16) >= 0


def test_references_are_the_hand_checked_answers() -> None:
    data = load_telco(ROOT)
    seen = set()
    for item in data.items:
        (key,) = [k for k in EXPECTED if k in item.question]
        seen.add(key)
        answer = dict(item.options)[item.reference] if item.options else item.reference
        assert answer.startswith(EXPECTED[key]), item.question
    assert seen == set(EXPECTED)


def test_sources_ground_every_question_in_the_corpus() -> None:
    data = load_telco(ROOT)
    chunks = {c["_id"]: c for c in corpus()}
    for item in data.items:
        chunk = chunks[item.chunk_id]
        assert item.source_text == chunk["text"]
        assert normalise_spec(chunk["source"]) == item.spec == normalise_spec(item.chunk_id)
        assert item.release in item.chunk_id  # "rel17" for Rel-17


def test_corpus_is_beir_shaped_with_distractors() -> None:
    docs = corpus()
    assert 90 <= len(docs) <= 120
    assert all(set(d) == {"_id", "title", "text", "source"} for d in docs)
    assert len({d["_id"] for d in docs}) == len(docs)
    gold = {i.chunk_id for i in load_telco(ROOT).items}
    assert len(docs) - len(gold) >= 70
    assert len({normalise_spec(d["source"]) for d in docs}) >= 20


def test_corpus_queries_and_qrels_match_the_split() -> None:
    data = load_telco(ROOT)
    queries = [json.loads(x) for x in (ROOT / "corpus" / "queries.jsonl").read_text().splitlines()]
    assert {q["_id"]: q["text"] for q in queries} == {i.id: i.question for i in data.items}
    with (ROOT / "corpus" / "qrels" / "set_24.tsv").open(encoding="utf-8") as handle:
        rows = list(csv.reader(handle, delimiter="\t"))
    assert rows[0] == ["query-id", "corpus-id", "score"]
    assert {(r[0], r[1]) for r in rows[1:]} == {(i.id, i.chunk_id) for i in data.items}


def test_bm25_finds_every_gold_chunk_in_the_top_five() -> None:
    import bm25s

    docs = corpus()
    ids = [d["_id"] for d in docs]
    retriever = bm25s.BM25()
    texts = [d["title"] + " " + d["text"] for d in docs]
    retriever.index(bm25s.tokenize(texts, stopwords="en", show_progress=False), show_progress=False)
    for item in load_telco(ROOT).items:
        query = bm25s.tokenize([item.question], stopwords="en", show_progress=False)
        found, _ = retriever.retrieve(query, k=5, show_progress=False)
        assert item.chunk_id in [ids[i] for i in found[0]], item.question


@pytest.mark.parametrize("with_context", [False, True])
def test_perfect_answers_score_perfectly(with_context: bool) -> None:
    data = load_telco(ROOT)
    outputs = []
    for item in data.items:
        prompt = prompt_text(item, [item.source_text] if with_context else [])
        assert item.question.strip() in prompt
        answer = (
            item.reference.capitalize() if item.answer_type is AnswerType.TF else item.reference
        )
        chunks = (RetrievedChunk(item.chunk_id),) if with_context else None
        outputs.append(
            QaOutput(item.id, response=f"Reasoning.\nANSWER: {answer}", retrieved=chunks)
        )
    result = score_outputs(outputs, data, out_dir=None)
    assert result.summary["overall"]["accuracy"] == 1.0
    assert result.summary["answer_types"]["open"]["exact_match"] == 1.0
    hit = result.summary["canonical_hit"]
    if with_context:
        assert (hit["rate"], hit["chunk_hit"]["rate"]) == (1.0, 1.0)
    else:
        assert hit is None
