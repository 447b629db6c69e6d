"""Loading and validating Telco-Retrieve QnA split files, and QASPER answers as items."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from tests.fakeserver import qa_items
from tfce_eval.errors import DataError, UsageError
from tfce_eval.model import Level
from tfce_eval.qa import (
    AnswerType,
    builtin_telco_dir,
    is_telco_dataset,
    load_telco,
    normalise_spec,
    parse_canonical_source,
    qasper_dataset,
    same_spec,
    score_predictions,
    validate_qa,
)
from tfce_eval.scoring.options import MissingMode


def mc(qid: str = "a1", reference: Any = "B", **extra: Any) -> dict[str, Any]:
    record = {
        "question_id": qid,
        "question": "Which network function handles registration management?",
        "answer_type": "mc",
        "options": {"A": "SMF", "B": "AMF", "C": "UPF", "D": "PCF"},
        "reference_answer": reference,
        "difficulty": "hard",
        "canonical_source": "TS 23.501 (Rel-17)",
        "release": "Rel-17",
        "chunk_id": "23501-h00_0004",
        "source_text": "The AMF includes registration management.",
        "keywords": ["AMF", "registration"],
    }
    record.update(extra)
    return record


def tf(qid: str = "t1", reference: Any = "True", **extra: Any) -> dict[str, Any]:
    record = {
        "question_id": qid,
        "question": "The AMF terminates NAS signalling.",
        "answer_type": "tf",
        "reference_answer": reference,
        "explanation": "TS 23.501 lists NAS termination among AMF functions.",
        "canonical_source": "TS 23.501 (Rel-18)",
    }
    record.update(extra)
    return record


def open_item(qid: str = "o1", **extra: Any) -> dict[str, Any]:
    record = {
        "question_id": qid,
        "question": "What does PDCP stand for?",
        "answer_type": "open",
        "reference_answer": "Packet Data Convergence Protocol",
        "canonical_source": "TS 38.323 (Rel-16)",
    }
    record.update(extra)
    return record


def split_file(path: Path, records: list[Any]) -> Path:
    doc = {
        "_corpus": "3gpp",
        "_description": "test split",
        "_generated": "2026-01-01T00:00:00Z",
        "questions": records,
    }
    path.write_text(json.dumps(doc, indent=2), encoding="utf-8")
    return path


def test_split_object_loads_every_field(tmp_path: Path) -> None:
    path = split_file(tmp_path / "set_3.json", [mc(), tf(), open_item()])
    data = load_telco(path)
    assert data.split == "set_3"
    assert data.description == "test split"
    assert len(data.sha256) == 64
    first, second, third = data.items
    assert first.answer_type is AnswerType.MC
    assert first.options == (("A", "SMF"), ("B", "AMF"), ("C", "UPF"), ("D", "PCF"))
    assert first.labels == ("A", "B", "C", "D")
    assert (first.reference, first.series, first.spec, first.release) == ("B", "23", "23.501", "17")
    assert first.difficulty == "hard"
    assert first.chunk_id == "23501-h00_0004"
    assert first.evidence == ("23501-h00_0004",)
    assert first.keywords == ("AMF", "registration")
    assert second.reference == "true" and second.release == "18"
    assert second.explanation.startswith("TS 23.501")
    assert second.difficulty == "unspecified"
    assert third.answer_type is AnswerType.OPEN
    assert third.reference == "Packet Data Convergence Protocol"


def test_json_lines_file(tmp_path: Path) -> None:
    path = tmp_path / "pool.jsonl"
    lines = [json.dumps(r) for r in (mc(), tf(), open_item())]
    path.write_text("\n".join(lines[:2]) + "\n\n" + lines[2] + "\n", encoding="utf-8")
    data = load_telco(path)
    assert [i.id for i in data.items] == ["a1", "t1", "o1"]


@pytest.mark.parametrize(
    ("given", "label"),
    [("B", "B"), ("b", "B"), ("AMF", "B"), ("amf.", "B"), ("(B)", "B"), ("B) AMF", "B")],
)
def test_mc_reference_as_label_or_text(tmp_path: Path, given: str, label: str) -> None:
    data = load_telco(split_file(tmp_path / "s.json", [mc(reference=given)]))
    assert data.items[0].reference == label


def test_numeric_labels_and_text_reference(tmp_path: Path) -> None:
    record = mc(options={"1": "15 kHz", "2": "30 kHz", "3": "60 kHz"}, reference="30 kHz")
    data = load_telco(split_file(tmp_path / "s.json", [record]))
    assert data.items[0].reference == "2"


@pytest.mark.parametrize(
    ("given", "ref"), [("TRUE", "true"), ("false", "false"), (True, "true"), (False, "false")]
)
def test_tf_reference_any_case_or_boolean(tmp_path: Path, given: Any, ref: str) -> None:
    data = load_telco(split_file(tmp_path / "s.json", [tf(reference=given)]))
    assert data.items[0].reference == ref


def test_directory_split_by_stem(tmp_path: Path) -> None:
    split_file(tmp_path / "3gpp_question_set_105.json", [mc("x")])
    split_file(tmp_path / "3gpp_question_set_84.json", [mc("y")])
    split_file(tmp_path / "question_pool_3gpp.json", [mc("z")])
    (tmp_path / "README.md").write_text("card", encoding="utf-8")
    assert load_telco(tmp_path, "3gpp_question_set_84").items[0].id == "y"
    assert load_telco(tmp_path, "set_105").items[0].id == "x"
    assert load_telco(tmp_path, "question_pool").items[0].id == "z"
    with pytest.raises(DataError) as exc:
        load_telco(tmp_path)
    text = str(exc.value)
    assert "3 split files" in text
    # Offered by the card's config names, each of which chooses its file.
    assert "give --split with one of: question_pool, set_105, set_84" in text
    with pytest.raises(UsageError, match="no split 'set_9'; its splits: question_pool, set_105"):
        load_telco(tmp_path, "set_9")
    offered = text.split("one of: ", 1)[1].split(", ")
    assert [load_telco(tmp_path, name).items[0].id for name in offered] == ["z", "x", "y"]


def test_a_card_name_two_files_would_share_is_offered_by_stem(tmp_path: Path) -> None:
    split_file(tmp_path / "3gpp_question_set_84.json", [mc("x")])
    split_file(tmp_path / "set_84.json", [mc("y")])
    split_file(tmp_path / "3gpp_question_set_105.json", [mc("z")])
    with pytest.raises(DataError, match=r"one of: 3gpp_question_set_84, set_105, set_84$"):
        load_telco(tmp_path)
    assert load_telco(tmp_path, "set_84").items[0].id == "y"
    assert load_telco(tmp_path, "3gpp_question_set_84").items[0].id == "x"


def test_every_name_offered_chooses_its_file(tmp_path: Path) -> None:
    # set_84 also begins set_84_extra: the card name offered still chooses its own file.
    split_file(tmp_path / "3gpp_question_set_84.json", [mc("x")])
    split_file(tmp_path / "set_84_extra.json", [mc("y")])
    split_file(tmp_path / "question_pool_3gpp.json", [mc("z")])
    split_file(tmp_path / "question_pool_old.json", [mc("w")])
    with pytest.raises(DataError) as exc:
        load_telco(tmp_path)
    offered = str(exc.value).split("one of: ", 1)[1].split(", ")
    assert offered == ["question_pool", "question_pool_old", "set_84", "set_84_extra"]
    assert [load_telco(tmp_path, name).items[0].id for name in offered] == ["z", "w", "x", "y"]


def test_two_split_files_of_one_name_are_refused(tmp_path: Path) -> None:
    split_file(tmp_path / "set_84.json", [mc("x")])
    (tmp_path / "set_84.jsonl").write_text(json.dumps(mc("y")) + "\n", encoding="utf-8")
    with pytest.raises(DataError, match=r"two split files are named set_84: set_84\.json and"):
        load_telco(tmp_path, "set_84")


def test_directory_with_one_file_needs_no_split(tmp_path: Path) -> None:
    split_file(tmp_path / "set_24.json", [mc()])
    (tmp_path / "corpus").mkdir()
    (tmp_path / "corpus" / "corpus.jsonl").write_text("{}\n", encoding="utf-8")
    assert load_telco(tmp_path).split == "set_24"


def test_load_raises_on_first_problem_naming_file_and_record(tmp_path: Path) -> None:
    path = split_file(tmp_path / "s.json", [mc(), mc("a2", reference="Z")])
    with pytest.raises(DataError) as exc:
        load_telco(path)
    text = str(exc.value)
    assert str(path) in text and "record 2" in text and "id a2" in text
    assert "matches no option" in text and "A, B, C, D" in text


def test_load_jsonl_error_names_line(tmp_path: Path) -> None:
    path = tmp_path / "s.jsonl"
    path.write_text(json.dumps(mc()) + "\n" + '{"question_id": "x",\n', encoding="utf-8")
    with pytest.raises(DataError) as exc:
        load_telco(path)
    assert exc.value.line == 2 and "not JSON" in str(exc.value)


def test_validate_reports_every_problem(tmp_path: Path) -> None:
    records: list[Any] = [
        mc(),
        mc("a2", reference="E"),
        tf("t1", reference="maybe"),
        {"question_id": "m1", "answer_type": "mc", "reference_answer": "A"},
        mc("a1"),
        open_item("o1", canonical_source=""),
        open_item("o2", answer_type="essay"),
        [1, 2],
        mc("a3", options={"A": "x", "B": "x"}, reference="A"),
    ]
    path = split_file(tmp_path / "s.json", records)
    problems = validate_qa(path)
    # A record of a JSON document has no line: the path names it.
    assert all(p.line is None and p.path and p.hint for p in problems)
    found = [(p.path, p.item_id, p.level, p.message) for p in problems]
    errors = [f for f in found if f[2] is Level.ERROR]
    assert [(where, i) for where, i, _, _ in errors] == [
        (f"{path}, record 2", "a2"),
        (f"{path}, record 3", "t1"),
        (f"{path}, record 4", "m1"),
        (f"{path}, record 5", "a1"),
        (f"{path}, record 7", "o2"),
        (f"{path}, record 8", None),
    ]
    messages = " | ".join(m for *_, m in errors)
    assert "matches no option" in messages
    assert "is not true or false" in messages
    assert "no question text" in messages and "needs options" not in messages
    assert "duplicate question_id (first at record 1)" in messages
    assert "answer_type 'essay'" in messages
    warnings = [(where, m) for where, _, level, m in found if level is Level.WARNING]
    assert (
        f"{path}, record 6",
        "no canonical_source and no chunk_id: no series, no canonical hit",
    ) in warnings
    assert (f"{path}, record 9", "two options have the same text") in warnings
    assert str(problems[0]) == (
        f"error: {path}, record 2 (a2): reference_answer 'E' matches no option\n"
        "  fix: give the correct option's label (A, B, C, D) or its exact text"
    )


def test_validate_jsonl_names_the_line_and_loading_keeps_warnings(tmp_path: Path) -> None:
    path = tmp_path / "s.jsonl"
    records = [mc(), open_item("o1", canonical_source=""), tf("t1", reference="maybe")]
    path.write_text("".join(json.dumps(r) + "\n" for r in records), encoding="utf-8")
    warning, error = validate_qa(path)
    assert (warning.level, warning.path, warning.line, warning.item_id) == (
        Level.WARNING,
        str(path),
        2,
        "o1",
    )
    assert (error.level, error.line, error.item_id) == (Level.ERROR, 3, "t1")
    assert error.hint == 'write "true" or "false" (any case) or a JSON boolean'
    with pytest.raises(DataError) as exc:
        load_telco(path)
    assert str(exc.value).startswith(f"{path}, line 3 (id t1): tf reference_answer 'maybe'")
    path.write_text("".join(json.dumps(r) + "\n" for r in records[:2]), encoding="utf-8")
    assert load_telco(path).warnings == (
        f"{path}:2 (o1): no canonical_source and no chunk_id: no series, no canonical hit "
        '(fix: add e.g. "canonical_source": "TS 38.331 (Rel-17)")',
    )


def test_a_missing_canonical_source_warns_what_the_series_comes_from(tmp_path: Path) -> None:
    records = [
        open_item("o1", canonical_source="", chunk_id="38331-j00_0001"),
        open_item("o2", canonical_source="", chunk_id="chunk_00012"),
        open_item("o3", canonical_source="the RRC spec", chunk_id="38331-j00_0002"),
        open_item("o4", canonical_source="the RRC spec"),
    ]
    path = split_file(tmp_path / "s.json", records)
    assert [(p.item_id, p.message, p.hint) for p in validate_qa(path)] == [
        (
            "o1",
            "no canonical_source: series 38 and spec 38.331 taken from chunk_id '38331-j00_0001'",
            'add e.g. "canonical_source": "TS 38.331 (Rel-17)"',
        ),
        (
            "o2",
            "no canonical_source and none in chunk_id 'chunk_00012': no series, no canonical hit",
            'add e.g. "canonical_source": "TS 38.331 (Rel-17)"',
        ),
        (
            "o3",
            "no spec number in canonical_source 'the RRC spec': series 38 and spec 38.331 "
            "taken from chunk_id '38331-j00_0002'",
            'write it as "TS 38.331 (Rel-17)"',
        ),
        (
            "o4",
            "no spec number in canonical_source 'the RRC spec' and no chunk_id: no series, "
            "no canonical hit",
            'write it as "TS 38.331 (Rel-17)"',
        ),
    ]
    # What the warning says is what the score record holds.
    preds = tmp_path / "preds.jsonl"
    lines = [
        {"id": "o1", "answer": "PDCP", "retrieved": [{"chunk_id": "38331-j00_0001"}]},
        {"id": "o2", "answer": "PDCP", "retrieved": [{"chunk_id": "38331-j00_0001"}]},
    ]
    preds.write_text("".join(json.dumps(line) + "\n" for line in lines), encoding="utf-8")
    data = load_telco(path)
    result = score_predictions(preds, data, out_dir=tmp_path / "out", missing=MissingMode.SKIP)
    first, second = result.records[:2]
    assert (first.series, first.spec, first.canonical_hit) == ("38", "38.331", True)
    assert (second.series, second.spec, second.canonical_hit) == ("", "", None)


def test_a_duplicate_id_is_found_when_a_copy_has_other_errors(tmp_path: Path) -> None:
    records = [
        mc("a1", reference="Z"),
        mc("a1"),
        tf("t1"),
        tf("t1", reference="maybe"),
    ]
    path = split_file(tmp_path / "s.json", records)
    found = [(p.path, p.item_id, p.message) for p in validate_qa(path)]
    assert found == [
        (f"{path}, record 1", "a1", "reference_answer 'Z' matches no option"),
        (f"{path}, record 2", "a1", "duplicate question_id (first at record 1)"),
        (f"{path}, record 4", "t1", "tf reference_answer 'maybe' is not true or false"),
        (f"{path}, record 4", "t1", "duplicate question_id (first at record 3)"),
    ]


def test_a_reference_that_is_the_text_of_several_options(tmp_path: Path) -> None:
    record = mc(options={"A": "AMF", "B": "SMF", "C": "amf.", "D": "UPF"}, reference="AMF")
    path = split_file(tmp_path / "s.json", [record])
    problems = validate_qa(path)
    assert [(p.level, p.message, p.hint) for p in problems] == [
        (Level.WARNING, "two options have the same text", "make every option distinct"),
        (
            Level.ERROR,
            "reference_answer 'AMF' is the text of options A, C",
            "give the correct option's label (A, B, C, D) or make the texts differ",
        ),
    ]
    with pytest.raises(DataError, match="is the text of options A, C"):
        load_telco(path)
    record["reference_answer"] = "C"  # the label decides
    assert load_telco(split_file(path, [record])).items[0].reference == "C"


def test_the_fake_server_reads_references_as_the_loader_does(tmp_path: Path) -> None:
    """The fake server is an oracle with its own reader: every form of reference the
    loader accepts, it reads as the same label."""
    forms = ["a", "B", "(c)", "d.", "Option A", "amf", "  SMF. ", "b) amf", "C) UPF", "[D]"]
    records = [mc(f"m{n}", reference=form) for n, form in enumerate(forms)]
    records += [tf("t1", reference=True), tf("t2", reference="FALSE")]
    path = split_file(tmp_path / "s.json", records)
    assert validate_qa(path) == []
    truths = {t.id: t.reference for t in qa_items(path)}
    assert truths == {item.id: item.reference for item in load_telco(path).items}
    assert [truths[f"m{n}"] for n in range(len(forms))] == list("ABCDABABCD")


def test_validate_mc_without_options(tmp_path: Path) -> None:
    record = mc()
    del record["options"]
    problems = validate_qa(split_file(tmp_path / "s.json", [record]))
    assert [p.message for p in problems] == [
        "an mc item needs options: an object of at least two label -> text"
    ]


def test_validate_unreadable_files(tmp_path: Path) -> None:
    bad = tmp_path / "bad.json"
    bad.write_text('{"questions": [\n{"question_id": 1,}\n]}', encoding="utf-8")
    (problem,) = validate_qa(bad)
    assert problem.line == 2 and problem.message.startswith("not JSON")
    latin = tmp_path / "latin.jsonl"
    latin.write_bytes(b'{"question": "caf\xe9"}\n')
    (problem,) = validate_qa(latin)
    assert "not UTF-8" in problem.message
    other = tmp_path / "other.json"
    other.write_text('{"data": 1}', encoding="utf-8")
    (problem,) = validate_qa(other)
    assert "no list of records under 'questions'" in problem.message
    (missing,) = validate_qa(tmp_path / "missing")
    assert (missing.level, missing.path) == (Level.ERROR, str(tmp_path / "missing"))
    assert missing.message == "no such file or directory" and missing.hint


def test_validate_clean_file_has_no_problems(tmp_path: Path) -> None:
    assert validate_qa(split_file(tmp_path / "s.json", [mc(), tf(), open_item()])) == []


@pytest.mark.parametrize(
    ("text", "spec"),
    [
        ("TS 38.331", "38.331"),
        ("38331-j00", "38.331"),
        ("38.331", "38.331"),
        ("3GPP TS 38.331 V17.3.0 (2023-01)", "38.331"),
        ("TS 38.101-1 (Rel-17)", "38.101-1"),
        ("38101-1-i40", "38.101-1"),
        ("36331-800.zip", "36.331"),
        ("TR 38.901", "38.901"),
        ("23501-h00_0004", "23.501"),
        ("2026-08-27", ""),
        ("chunk_00012", ""),
        ("Rel-18", ""),
    ],
)
def test_normalise_spec(text: str, spec: str) -> None:
    assert normalise_spec(text) == spec


def test_parse_canonical_source() -> None:
    assert parse_canonical_source("TS 28.312 (Rel-18)") == ("28", "28.312", "18")
    assert parse_canonical_source("TS 38.300 (Release 15)") == ("38", "38.300", "15")
    assert parse_canonical_source("TS 33.501") == ("33", "33.501", "")
    assert parse_canonical_source("somewhere") == ("", "", "")


def test_same_spec() -> None:
    assert same_spec("38.331", "38.331")
    assert same_spec("38.101", "38.101-1")
    assert not same_spec("38.101-1", "38.101-2")
    assert not same_spec("38.331", "36.331")
    assert not same_spec("", "")


def test_qasper_dataset_from_mappings() -> None:
    queries = {"q2": "What corpus is used?", "q1": "Which model?", "q3": "Unanswered?"}
    answers = {"q1": "BERT", "q2": "Wikipedia, news"}
    qrels = {"q1": {"p_3": 1, "p_1": 1, "p_9": 0}, "q2": {"p_2": 2}}
    data = qasper_dataset(
        queries, answers, qrels, split="test", chunk_text={"p_1": "one", "p_3": "three"}
    )
    assert data.kind == "qasper"
    assert [i.id for i in data.items] == ["q1", "q2"]
    first = data.items[0]
    assert first.answer_type is AnswerType.OPEN and first.reference == "BERT"
    assert first.evidence == ("p_1", "p_3")
    assert first.source_text == "one\n\nthree"
    assert data.warnings == ("1 query has no answer and is left out (q3)",)


def test_is_telco_dataset(tmp_path: Path) -> None:
    assert is_telco_dataset(builtin_telco_dir())
    assert is_telco_dataset(builtin_telco_dir() / "set_24.json")
    lines = tmp_path / "lines"
    lines.mkdir()
    (lines / "pool.jsonl").write_text(json.dumps(mc()) + "\n", encoding="utf-8")
    assert is_telco_dataset(lines)
    fc = tmp_path / "fc"
    fc.mkdir()
    (fc / "simple.jsonl").write_text('{"id": "x", "question": "q", "function": []}\n')
    assert not is_telco_dataset(fc)
    assert not is_telco_dataset(builtin_telco_dir() / "corpus")
    assert not is_telco_dataset(tmp_path / "missing")
