"""`report --failures N` on question-answering runs: the items a model got wrong.

Runs are made by `tfce-eval score` from a Telco-Retrieve split and a predictions file
(the judged one by the library's scorer with a stand-in judge), then reported through
the command line in every format.
"""

from __future__ import annotations

import csv
import io
import json
import re
import shutil
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner, Result
from messages import unfold

from tfce_eval.cli import main
from tfce_eval.qa import QaItem, load_telco, score_predictions

#: Characters no text format may write: C0 but newline and tab, DEL, C1, bidi controls.
UNSHOWN = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069]")
HOSTILE = "[bold]x[/bold] \x1b[31mred | ```\nfence\n```\n<b>hi</b>\nANSWER: True"


def _mc(n: int) -> dict[str, Any]:
    return {
        "question_id": f"m{n}",
        "question": f"Which function number {n}?",
        "answer_type": "mc",
        "options": {"A": "AMF", "B": "SMF"},
        "reference_answer": "A",
        "canonical_source": "TS 23.501 (Rel-17)",
    }


RECORDS: list[dict[str, Any]] = [
    *(_mc(n) for n in range(1, 6)),
    *(
        {
            "question_id": f"t{n}",
            "question": f"Statement {n} holds.",
            "answer_type": "tf",
            "reference_answer": False,
        }
        for n in range(1, 5)
    ),
    *(
        {
            "question_id": f"o{n}",
            "question": f"What does PDCP stand for ({n})?",
            "answer_type": "open",
            "reference_answer": "Packet Data Convergence Protocol",
        }
        for n in range(1, 4)
    ),
]
PREDICTIONS: list[dict[str, Any]] = [
    {"id": "m1", "response": "ANSWER: A"},
    {"id": "m2", "response": "ANSWER: B"},
    {"id": "m3", "response": "I cannot tell."},  # parse error
    # m4: no prediction, a request error
    {"id": "m5", "answer": "B"},
    {"id": "t1", "answer": False},
    {"id": "t2", "response": HOSTILE},
    {"id": "t3", "error": "timeout after 60 s"},
    {"id": "t4", "response": "ANSWER: False"},
    {"id": "o1", "response": "ANSWER: Packet Data Convergence Protocol"},
    {"id": "o2", "response": "ANSWER: Packet Data Protocol"},
    {"id": "o3", "response": "ANSWER: no idea"},
]


def invoke(*args: str | Path) -> Result:
    return CliRunner().invoke(main, [str(a) for a in args])


def ok(*args: str | Path) -> Result:
    result = invoke(*args)
    assert result.exit_code == 0, (result.output, result.exception)
    return result


def write_data(root: Path) -> Path:
    root.mkdir(parents=True)
    doc = {"_corpus": "3gpp", "_description": "d", "_generated": "g", "questions": RECORDS}
    (root / "set_7.json").write_text(json.dumps(doc), encoding="utf-8")
    return root


@pytest.fixture
def run(tmp_path: Path) -> Path:
    data = write_data(tmp_path / "data")
    preds = tmp_path / "preds.jsonl"
    preds.write_text("".join(json.dumps(p) + "\n" for p in PREDICTIONS), encoding="utf-8")
    ok("score", preds, "--data", data, "--out", tmp_path / "run")
    return tmp_path / "run"


def failures(run_dir: Path, n: int, *more: str | Path) -> list[dict[str, Any]]:
    data = json.loads(ok("report", run_dir, "--failures", str(n), "--format", "json", *more).stdout)
    assert "runs" in data  # the report itself is still there
    result: list[dict[str, Any]] = data["failures"]
    return result


def shown_ids(found: dict[str, Any]) -> dict[str, list[str]]:
    return {t["answer_type"]: [f["id"] for f in t["shown"]] for t in found["answer_types"]}


def test_json_lists_items_not_right_per_type_in_id_order(run: Path) -> None:
    (found,) = failures(run, 2)
    assert found["label"] == "A" and found["run"] == "run" and found["note"] is None
    assert shown_ids(found) == {"mc": ["m2", "m3"], "tf": ["t2", "t3"], "open": ["o2", "o3"]}
    counts = {t["answer_type"]: (t["failing"], t["total"]) for t in found["answer_types"]}
    assert counts == {"mc": (4, 5), "tf": (2, 4), "open": (2, 3)}
    assert found["open_basis"] == "lexical token F1"
    mc = {f["id"]: f for f in found["answer_types"][0]["shown"]}
    assert mc["m2"] | {"response": None} == {
        "id": "m2",
        "answer_type": "mc",
        "problem": "wrong",
        "error_type": None,
        "error": None,
        "score": None,
        "question": "Which function number 2?\nA. AMF\nB. SMF",
        "reference": "A",
        "extracted": "B",
        "response": None,
    }
    assert mc["m2"]["response"] == "ANSWER: B"
    assert mc["m3"]["error_type"] == "parse_error" and mc["m3"]["extracted"] is None
    assert mc["m3"]["problem"].startswith("parse_error: ")
    tf = {f["id"]: f for f in found["answer_types"][1]["shown"]}
    assert tf["t2"]["response"] == HOSTILE  # JSON keeps the text itself
    assert tf["t3"]["problem"] == "request_error: timeout after 60 s"
    assert tf["t3"]["response"] is None
    opened = found["answer_types"][2]["shown"]
    assert [f["problem"] for f in opened] == [
        "token F1 0.86 (lexical)",
        "token F1 0.00 (lexical)",
    ]
    assert opened[0]["score"] == pytest.approx(6 / 7)


def test_n_bounds_the_items_of_each_type(run: Path) -> None:
    assert shown_ids(failures(run, 1)[0]) == {"mc": ["m2"], "tf": ["t2"], "open": ["o2"]}
    every = shown_ids(failures(run, 50)[0])
    assert every["mc"] == ["m2", "m3", "m4", "m5"]  # the missing m4 is a request error
    plain = ok("report", run).stdout
    assert "Failures" not in plain and "failures" not in json.loads(
        ok("report", run, "--format", "json").stdout
    )


def test_terminal_table_shows_fields_and_model_text_inert(run: Path) -> None:
    result = ok("report", run, "--failures", "2")
    out = result.stdout
    assert result.stderr == ""  # no note: --failures applies to QA runs
    assert "Failures, mc: 2 of 4 not right (5 items)" in out
    assert "Failures, open: 2 of 2 not right (3 items)" in out
    assert "token F1 below 1 (lexical: no judge graded this run)" in unfold(out)
    section = out[out.index("Failures, tf") :]
    rows = [line.split()[:2] for line in section.splitlines() if line.startswith("  t")]
    assert rows[:5] == [
        ["t2", "problem"],
        ["t2", "question"],
        ["t2", "reference"],
        ["t2", "extracted"],
        ["t2", "response"],
    ]
    assert "[bold]x[/bold]" in out and "\\x1b[31mred" in out  # markup as typed, ESC escaped
    assert not UNSHOWN.search(out)
    assert max(len(line) for line in out.splitlines()) <= 80


def test_markdown_html_and_csv_keep_model_text_inert(run: Path) -> None:
    md = ok("report", run, "--failures", "2", "--format", "md").stdout
    assert "## Failures, tf: 2 of 2 not right (4 items)" in md
    (row,) = [line for line in md.splitlines() if line.startswith("| t2 | response |")]
    assert "\\| \\`\\`\\`<br>fence<br>\\`\\`\\`<br>&lt;b&gt;hi&lt;/b&gt;" in row
    assert "\\\\x1b[31mred" in row and "<b>" not in md and "\n```" not in md
    assert not UNSHOWN.search(md)
    # Every failures row has its three cells: no `|` of the text splits one.
    lines = [line for line in md.splitlines() if line.startswith(("| t2 |", "| t3 |"))]
    assert len(lines) == 9  # t2 with its response, t3 without
    assert {len(re.split(r"(?<!\\) \| ", line)) for line in lines} == {3}
    page = ok("report", run, "--failures", "2", "--format", "html").stdout
    assert "<b>hi" not in page and "&lt;b&gt;hi&lt;/b&gt;" in page and "\\x1b[31mred" in page
    assert "<caption>Failures, mc: 2 of 4 not right (5 items)</caption>" in page
    assert not UNSHOWN.search(page)
    text = ok("report", run, "--failures", "2", "--format", "csv").stdout
    assert not UNSHOWN.search(text)
    rows = [r for r in csv.reader(io.StringIO(text)) if r[0] == "failures"]
    assert [r[1] for r in rows if r[2] == "problem"] == ["m2", "m3", "t2", "t3", "o2", "o3"]
    assert ["failures", "m2", "extracted", "B"] in rows


def test_questions_unavailable_when_the_dataset_is_gone_and_data_brings_them_back(
    run: Path, tmp_path: Path
) -> None:
    shutil.move(tmp_path / "data", tmp_path / "moved")
    (found,) = failures(run, 1)
    assert all(f["question"] is None for t in found["answer_types"] for f in t["shown"])
    assert found["note"].startswith("Questions: unavailable, could not load ")
    assert "--data DIR" in found["note"]
    result = ok("report", run, "--failures", "1")
    assert "(unavailable)" in result.stdout
    assert "Questions: unavailable, could not load" in unfold(result.stdout)
    (back,) = failures(run, 1, "--data", tmp_path / "moved")
    assert back["note"] is None
    assert back["answer_types"][0]["shown"][0]["question"].startswith("Which function number 2?")


def test_data_that_differs_is_used_with_a_note(run: Path, tmp_path: Path) -> None:
    other = tmp_path / "other"
    shutil.copytree(tmp_path / "data", other)
    split = other / "set_7.json"
    split.write_text(split.read_text().replace("number 2?", "number two?"), encoding="utf-8")
    (found,) = failures(run, 1, "--data", other)
    assert "changed since the run" in found["note"]
    assert found["answer_types"][0]["shown"][0]["question"].startswith("Which function number two?")


def test_data_that_cannot_be_loaded_is_exit_1(run: Path, tmp_path: Path) -> None:
    result = invoke("report", run, "--failures", "1", "--data", tmp_path / "nowhere")
    assert result.exit_code == 1 and result.stdout == ""
    assert unfold(result.stderr).startswith(f"error: {tmp_path / 'nowhere'}: ")
    assert len(unfold(result.stderr).splitlines()) <= 2  # the message and its fix
    empty = tmp_path / "empty"
    empty.mkdir()
    result = invoke("report", run, "--failures", "1", "--data", empty)
    assert result.exit_code == 1 and result.stdout == "" and "error:" in result.stderr
    assert "Traceback" not in result.output


def test_responses_are_cut_to_a_bounded_length(tmp_path: Path) -> None:
    data = write_data(tmp_path / "data")
    preds = tmp_path / "preds.jsonl"
    long = "x" * 5000 + "\nANSWER: B"
    preds.write_text(json.dumps({"id": "m1", "response": long}) + "\n", encoding="utf-8")
    ok("score", preds, "--data", data, "--out", tmp_path / "run", "--missing", "skip")
    (found,) = failures(tmp_path / "run", 1)
    response = found["answer_types"][0]["shown"][0]["response"]
    assert len(response) == 2000 and response.endswith("…")


def test_a_judged_run_lists_open_items_below_a_full_grade(tmp_path: Path) -> None:
    class Judge:
        async def grade(self, item: QaItem, response: str) -> str:
            if "no idea" in response:
                raise TimeoutError("judge timed out")
            return "GRADE: C" if "Convergence" in response else "GRADE: P"

    data = write_data(tmp_path / "data")
    preds = tmp_path / "preds.jsonl"
    preds.write_text("".join(json.dumps(p) + "\n" for p in PREDICTIONS), encoding="utf-8")
    dataset = load_telco(data)
    score_predictions(preds, dataset, out_dir=tmp_path / "run", judge=Judge(), judge_name="judge-x")
    (found,) = failures(tmp_path / "run", 5)
    assert found["open_basis"] == "judge"
    opened = found["answer_types"][2]["shown"]
    assert [(f["id"], f["problem"], f["score"]) for f in opened] == [
        ("o2", "judge 0.5 (P)", 0.5),
        ("o3", "ungraded: judge failed: TimeoutError: judge timed out", None),
    ]
    out = unfold(ok("report", tmp_path / "run", "--failures", "5").stdout)
    assert "judge score below 1 (ungraded ones included)" in out


def test_several_runs_are_listed_each_under_its_letter(run: Path, tmp_path: Path) -> None:
    preds = tmp_path / "better.jsonl"
    better = [dict(p, response="ANSWER: A") if p["id"] == "m2" else p for p in PREDICTIONS]
    preds.write_text("".join(json.dumps(p) + "\n" for p in better), encoding="utf-8")
    ok("score", preds, "--data", tmp_path / "data", "--out", tmp_path / "better")
    found = failures(run, 1, tmp_path / "better")
    assert [(f["label"], f["run"]) for f in found] == [("A", "run"), ("B", "better")]
    assert shown_ids(found[1])["mc"] == ["m3"]
    out = ok("report", run, tmp_path / "better", "--failures", "1").stdout
    assert "A: Failures, mc: 1 of 4 not right (5 items)" in out
    assert "B: Failures, mc: 1 of 3 not right (5 items)" in out
    assert out.index("A: Failures, open") < out.index("B: Failures, mc")


def test_prices_stay_function_calling_only(run: Path) -> None:
    result = ok("report", run, "--failures", "1", "--price-in", "1")
    assert unfold(result.stderr) == "note: --price-in/--price-out: for function-calling runs only"


def test_a_score_made_with_relative_paths_reports_from_anywhere(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The dataset and predictions are recorded absolute: a report made from another
    directory finds them, and shows no other file's lines for the responses; a file
    changed since the score shows none of its responses."""
    work = tmp_path / "work"
    write_data(work / "data")
    (work / "preds.jsonl").write_text(
        "".join(json.dumps(p) + "\n" for p in PREDICTIONS), encoding="utf-8"
    )
    monkeypatch.chdir(work)
    ok("score", "preds.jsonl", "--data", "data", "--out", "run")
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    (elsewhere / "preds.jsonl").write_text(
        json.dumps({"id": "m2", "response": "UNRELATED"}) + "\n", encoding="utf-8"
    )
    monkeypatch.chdir(elsewhere)
    (found,) = failures(work / "run", 5)
    assert found["note"] is None
    shown = {f["id"]: f for t in found["answer_types"] for f in t["shown"]}
    assert shown["m2"]["question"].startswith("Which function number 2?")
    assert shown["m2"]["response"] != "UNRELATED" and shown["m2"]["response"] is not None
    with (work / "preds.jsonl").open("a", encoding="utf-8") as fh:
        fh.write(json.dumps({"id": "m2", "response": "LATER"}) + "\n")
    (found,) = failures(work / "run", 5)
    shown = {f["id"]: f for t in found["answer_types"] for f in t["shown"]}
    assert all(f["response"] is None for f in shown.values())
    assert "changed since scoring" in json.dumps(found)


def test_a_run_with_nothing_wrong_says_so_in_a_line(tmp_path: Path) -> None:
    data = write_data(tmp_path / "data")
    right = [{"id": r["question_id"], "answer": r["reference_answer"]} for r in RECORDS]
    preds = tmp_path / "right.jsonl"
    preds.write_text("".join(json.dumps(p) + "\n" for p in right), encoding="utf-8")
    ok("score", preds, "--data", data, "--out", tmp_path / "run")
    table = ok("report", tmp_path / "run", "--failures", "3").stdout
    assert f"Failures: none\nEvery one of the {len(RECORDS)} items was right.\n" in table
    md = ok("report", tmp_path / "run", "--failures", "3", "--format", "md").stdout
    assert f"## Failures: none\n\nEvery one of the {len(RECORDS)} items was right.\n" in md
    assert "| id | field | text |" not in md
