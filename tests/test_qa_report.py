"""Reports of scored QA runs: one run, the RAG lift of two, several side by side."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from tfce_eval.errors import DataError, UsageError
from tfce_eval.qa import (
    AnswerType,
    QaDataset,
    QaItem,
    QaOutput,
    RetrievedChunk,
    load_qa_run,
    score_outputs,
)
from tfce_eval.qa.report import qa_document
from tfce_eval.report.document import render_document
from tfce_eval.scoring.options import MissingMode
from tfce_eval.stats import mcnemar_exact_p, paired_randomization_p


def mc_item(n: int) -> QaItem:
    return QaItem(
        id=f"m{n:02d}",
        question=f"Question {n}?",
        answer_type=AnswerType.MC,
        reference="A",
        options=(("A", "right"), ("B", "wrong")),
        difficulty="hard" if n % 2 else "easy",
        canonical_source="TS 38.331 (Rel-17)",
        series="38",
        spec="38.331",
        release="17",
        chunk_id=f"38331-h00_{n:04d}",
        evidence=(f"38331-h00_{n:04d}",),
    )


def tf_item(n: int) -> QaItem:
    return QaItem(
        id=f"t{n:02d}",
        question=f"Statement {n}.",
        answer_type=AnswerType.TF,
        reference="true",
        series="23",
        spec="23.501",
    )


def open_item(n: int) -> QaItem:
    return QaItem(
        id=f"o{n}",
        question=f"Open {n}?",
        answer_type=AnswerType.OPEN,
        reference="packet data convergence protocol",
        series="38",
        spec="38.323",
    )


DATA = QaDataset(
    path="set.json",
    split="set",
    items=tuple(
        [mc_item(n) for n in range(12)]
        + [tf_item(n) for n in range(6)]
        + [open_item(n) for n in range(4)]
    ),
    sha256="ab" * 32,
)

# Closed book: mc right on 0-3, tf right on 0-2; RAG: mc right on 0-9, tf right on 1-5.
CLOSED_MC = set(range(4))
RAG_MC = set(range(10))
CLOSED_TF = {0, 1, 2}
RAG_TF = {1, 2, 3, 4, 5}
CLOSED_OPEN = ["packet", "nothing", "data protocol", "packet data convergence protocol"]
RAG_OPEN = ["packet data convergence protocol"] * 3 + ["nothing"]


def outputs(mc_right: set[int], tf_right: set[int], opens: list[str], rag: bool) -> list[Any]:
    out: list[Any] = []
    for n in range(12):
        chunks = (RetrievedChunk(f"38331-h00_{n:04d}"),) if rag else None
        out.append(QaOutput(f"m{n:02d}", answer="A" if n in mc_right else "B", retrieved=chunks))
    out += [QaOutput(f"t{n:02d}", answer=n in tf_right) for n in range(6)]
    out += [QaOutput(f"o{n}", response=f"ANSWER: {t}") for n, t in enumerate(opens)]
    return out


@pytest.fixture
def runs(tmp_path: Path) -> tuple[Path, Path]:
    closed, rag = tmp_path / "closed", tmp_path / "rag"
    score_outputs(outputs(CLOSED_MC, CLOSED_TF, CLOSED_OPEN, False), DATA, out_dir=closed)
    score_outputs(outputs(RAG_MC, RAG_TF, RAG_OPEN, True), DATA, out_dir=rag)
    return closed, rag


def assert_fits(text: str) -> None:
    widths = [len(line) for line in text.splitlines()]
    assert max(widths) <= 80, text


def test_one_run_report(runs: tuple[Path, Path]) -> None:
    run = load_qa_run(runs[1])
    assert run.name == "rag" and len(run.records) == 22
    doc = qa_document([run])
    text = render_document(doc, "table")
    assert_fits(text)
    keys = [t.key for t in doc.tables]
    assert keys == ["types", "open", "difficulty", "series", "canonical_hit"]
    types = doc.tables[0]
    assert types.rows[0][:4] == ("mc", 12, 10, pytest.approx(10 / 12))
    assert types.rows[2][0] == "mc+tf" and types.rows[2][2] == 15
    open_row = doc.tables[1].rows[0]
    assert open_row[0] == 4 and open_row[1] is None  # no judge
    assert open_row[4] == pytest.approx(0.75)
    assert "lexical" in doc.tables[1].note
    # A table's note ends it: a blank line comes before the next table's title.
    lines = text.splitlines()
    note_end = lines.index("Parse and request errors count as wrong.")
    assert lines[note_end + 1 : note_end + 3] == ["", doc.tables[1].title]
    hit = doc.tables[4].rows
    # The interval column is figures ("-" where there is none): right-aligned throughout.
    canonical, chunk = (
        next(x for x in lines if x.startswith(f"  {kind} ")) for kind in ("canonical", "chunk")
    )
    assert chunk.endswith(" -") and len(chunk) == len(canonical), (canonical, chunk)
    assert hit[0][:5] == ("canonical", 5, 12, 12, 1.0)
    assert hit[1][:5] == ("chunk", 5, 12, 12, 1.0)
    for fmt in ("md", "csv", "html", "json"):
        assert render_document(doc, fmt)
    data = json.loads(render_document(doc, "json"))
    assert data["runs"][0]["summary"]["answer_types"]["mc"]["correct"] == 10


def test_two_runs_rag_lift_and_paired_shape(runs: tuple[Path, Path]) -> None:
    closed, rag = load_qa_run(runs[0]), load_qa_run(runs[1])
    doc = qa_document([closed, rag])
    text = render_document(doc, "table")
    assert_fits(text)
    assert "A: closed" in text and "B: rag" in text
    paired = json.loads(render_document(doc, "json"))["paired"]
    rows = {r["category"]: r for r in paired["rows"]}
    mc = rows["mc"]
    assert (mc["n"], mc["both"], mc["only_a"], mc["only_b"], mc["neither"]) == (12, 4, 0, 6, 2)
    assert mc["p_value"] == mcnemar_exact_p(0, 6)
    tf = rows["tf"]
    assert (tf["both"], tf["only_a"], tf["only_b"], tf["neither"]) == (2, 1, 3, 0)
    assert tf["p_value"] == mcnemar_exact_p(1, 3)
    overall = paired["overall"]
    assert (overall["n"], overall["only_a"], overall["only_b"]) == (18, 1, 9)
    assert overall["p_value"] == mcnemar_exact_p(1, 9)
    op = rows["open"]
    assert op["measure"] == "token F1 (lexical)" and op["test"] == "paired randomization"
    closed_f1 = [r.token_f1 or 0.0 for r in closed.records if r.id.startswith("o")]
    rag_f1 = [r.token_f1 or 0.0 for r in rag.records if r.id.startswith("o")]
    assert op["p_value"] == paired_randomization_p(closed_f1, rag_f1)
    assert op["mean_a"] == pytest.approx(sum(closed_f1) / 4)
    lift = {row[0]: row for row in doc.tables[0].rows}
    assert lift["mc"][2:5] == (pytest.approx(4 / 12), pytest.approx(10 / 12), pytest.approx(0.5))
    assert lift["mc+tf"][1] == 18


def test_pairing_refused_for_other_datasets_and_items(
    runs: tuple[Path, Path], tmp_path: Path
) -> None:
    closed = load_qa_run(runs[0])
    other = QaDataset("x.json", "x", DATA.items, sha256="cd" * 32)
    score_outputs(outputs(RAG_MC, RAG_TF, RAG_OPEN, True), other, out_dir=tmp_path / "other")
    doc = qa_document([closed, load_qa_run(tmp_path / "other")])
    data = doc.data["paired"]
    assert data["rows"] == [] and "different datasets" in data["reason"]
    fewer = QaDataset("set.json", "set", DATA.items, sha256=DATA.sha256)
    score_outputs(
        outputs(RAG_MC, RAG_TF, RAG_OPEN, True)[1:],
        fewer,
        out_dir=tmp_path / "f",
        missing=MissingMode.SKIP,
    )
    doc = qa_document([closed, load_qa_run(tmp_path / "f")])
    rows = {r["category"]: r for r in doc.data["paired"]["rows"]}
    assert rows["mc"]["p_value"] is None and "1 only in A" in rows["mc"]["note"]
    assert rows["tf"]["p_value"] is not None
    assert any("the test needs the same items" in n for n in doc.notes)


def test_three_runs_side_by_side(runs: tuple[Path, Path]) -> None:
    three = [load_qa_run(runs[0]), load_qa_run(runs[1]), load_qa_run(runs[0], name="again")]
    doc = qa_document(three)
    text = render_document(doc, "table")
    assert_fits(text)
    assert doc.tables[0].columns == ("measure", "A", "B", "C")
    assert doc.notes[:3] == (
        f"A: closed, {runs[0]}",
        f"B: rag, {runs[1]}",
        f"C: again, {runs[0]}",
    )
    rows = {row[0]: row for row in doc.tables[0].rows}
    assert rows["mc n"] == ("mc n", 12, 12, 12) and rows["open n"] == ("open n", 4, 4, 4)
    mc_row = rows["mc accuracy"]
    assert mc_row == (
        "mc accuracy",
        pytest.approx(4 / 12),
        pytest.approx(10 / 12),
        pytest.approx(4 / 12),
    )


def test_judged_run_reports_judge_and_digest(tmp_path: Path) -> None:
    class Judge:
        async def grade(self, item: QaItem, response: str) -> str:
            return "GRADE: C" if "convergence" in response else "GRADE: I"

    score_outputs(
        outputs(RAG_MC, RAG_TF, RAG_OPEN, True),
        DATA,
        out_dir=tmp_path / "j",
        judge=Judge(),
        judge_name="judge-x",
    )
    doc = qa_document([load_qa_run(tmp_path / "j")])
    assert doc.tables[1].rows[0][1] == pytest.approx(0.75)
    assert any(n.startswith("judge judge-x, prompt sha256 ") for n in doc.notes)
    assert doc.tables[2].columns[-1] == "open mean"


def test_summary_recomputed_from_scores_alone(runs: tuple[Path, Path]) -> None:
    (runs[1] / "summary.json").unlink()
    run = load_qa_run(runs[1])
    assert run.summary["answer_types"]["mc"]["correct"] == 10
    assert run.summary["answer_types"]["open"]["token_f1"] == pytest.approx(0.75)


@pytest.mark.parametrize(
    ("change", "message"),
    [
        (lambda r: r.update(answer_type="essay"), "answer_type"),
        (lambda r: r.update(score=2), "'score' must be a number from 0 to 1"),
        (lambda r: r.update(correct="yes"), "'correct' must be true, false or null"),
        (lambda r: r.update(error_type="boom"), "a known value"),
        (lambda r: r.pop("id"), "'id' must be text"),
    ],
)
def test_bad_scores_file_names_line_and_field(
    runs: tuple[Path, Path], change: Any, message: str
) -> None:
    scores = runs[0] / "scores.jsonl"
    lines = scores.read_text(encoding="utf-8").splitlines()
    rec = json.loads(lines[2])
    change(rec)
    lines[2] = json.dumps(rec)
    scores.write_text("\n".join(lines) + "\n", encoding="utf-8")
    with pytest.raises(DataError) as exc:
        load_qa_run(runs[0])
    assert exc.value.line == 3 and message in str(exc.value)


def test_not_a_qa_run(tmp_path: Path) -> None:
    with pytest.raises(DataError, match="run directory not found"):
        load_qa_run(tmp_path / "nope")
    with pytest.raises(DataError, match=r"neither summary\.json nor scores\.jsonl"):
        load_qa_run(tmp_path)
    (tmp_path / "summary.json").write_text('{"task": "retrieval"}', encoding="utf-8")
    with pytest.raises(DataError, match="a scored retrieval run, not a qa one"):
        load_qa_run(tmp_path)
    with pytest.raises(UsageError, match="no runs to report on"):
        qa_document([])


def test_a_group_of_open_items_only_has_no_interval_in_any_format(tmp_path: Path) -> None:
    lone = QaItem(
        id="o9", question="Open?", answer_type=AnswerType.OPEN, reference="x", series="99"
    )
    data = QaDataset(path="set.json", split="set", items=(mc_item(0), lone), sha256="cd" * 32)
    out = tmp_path / "run"
    score_outputs([QaOutput("m00", answer="A"), QaOutput("o9", response="x")], data, out_dir=out)
    doc = qa_document([load_qa_run(out)])
    series = next(t for t in doc.tables if t.key == "series")
    assert series.rows[1][:5] == ("99", 0, 0, None, None)  # no mc or tf item: no interval
    # Blank in CSV (both bounds), as a missing accuracy is; `-` in the table, as it is too.
    assert "series,99,0,0,,,,1,1.0" in render_document(doc, "csv").splitlines()
    table = render_document(doc, "table").splitlines()
    assert next(line for line in table if line.strip().startswith("99 ")).split()[3:5] == [
        "-",
        "-",
    ]


def test_a_run_named_by_its_own_name_is_not_named_twice(
    runs: tuple[Path, Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(runs[0].parent)
    doc = qa_document([load_qa_run(Path("closed")), load_qa_run(Path("rag"))])
    assert doc.notes[:2] == ("A: closed", "B: rag")


@pytest.mark.parametrize(("lost", "said"), [(1, "1 item had"), (2, "2 items had")])
def test_items_without_output_are_said_once_in_words(tmp_path: Path, lost: int, said: str) -> None:
    score_outputs(outputs(RAG_MC, RAG_TF, RAG_OPEN, True)[lost:], DATA, out_dir=tmp_path / "r")
    notes = qa_document([load_qa_run(tmp_path / "r")]).notes
    # The score's warning names them; the report does not say it a second time.
    assert [n for n in notes if "no output" in n] == [
        next(n for n in notes if n.startswith(f"{lost} item") and "no output" in n)
    ]
    # A summary without that warning (an older one) still says it, in words.
    path = tmp_path / "r" / "summary.json"
    summary = json.loads(path.read_text(encoding="utf-8"))
    summary["warnings"] = []
    path.write_text(json.dumps(summary), encoding="utf-8")
    assert f"{said} no output (count)." in qa_document([load_qa_run(tmp_path / "r")]).notes


def test_open_items_pair_on_the_judge_only_when_both_runs_were_judged(
    tmp_path: Path,
) -> None:
    class Judge:
        def __init__(self, fails: str | None = None) -> None:
            self.fails = fails

        async def grade(self, item: QaItem, response: str) -> str:
            if item.id == self.fails:
                raise RuntimeError("judge timed out")
            return "GRADE: C" if "convergence" in response else "GRADE: I"

    opens = (CLOSED_OPEN, RAG_OPEN)
    for name, judge, answers in (("a", Judge("o3"), opens[0]), ("b", Judge(), opens[1])):
        score_outputs(
            outputs(CLOSED_MC, CLOSED_TF, answers, False),
            DATA,
            out_dir=tmp_path / name,
            judge=judge,
            judge_name="judge-x",
        )
    score_outputs(outputs(CLOSED_MC, CLOSED_TF, RAG_OPEN, False), DATA, out_dir=tmp_path / "c")
    a, b, c = (load_qa_run(tmp_path / n) for n in "abc")
    rows = {r["category"]: r for r in qa_document([a, b]).data["paired"]["rows"]}
    op = rows["open"]
    # A's judge failed on o3: the three items both runs graded are paired.
    assert (op["measure"], op["n"]) == ("judge score", 3)
    assert op["note"] == "1 item ungraded in a run is left out"
    assert (op["mean_a"], op["mean_b"]) == (0.0, 1.0)  # o0-o2: A all I, B all C
    # One run without a judge: both are paired on the lexical score, every item.
    rows = {r["category"]: r for r in qa_document([b, c]).data["paired"]["rows"]}
    assert (rows["open"]["measure"], rows["open"]["n"]) == ("token F1 (lexical)", 4)
    assert rows["open"]["note"] is None
