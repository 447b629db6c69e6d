"""Hostile text in reports: dataset fields, ids, questions, model output and run names.

Every text format (terminal table, Markdown, HTML, CSV) shows such text as typed and
inert: rich markup is not read, control characters are shown as escapes, Markdown and
HTML cannot be injected, a spreadsheet computes no formula. JSON keeps the text itself.
Each test goes through the command line, as a user would.
"""

from __future__ import annotations

import csv
import io
import json
import re
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner, Result
from messages import unfold

from tfce_eval.cli import main
from tfce_eval.report.document import csv_cell, printable
from tfce_eval.report.markdown import fenced

ESC = "\x1b"
#: Characters no text format may write: C0 but newline and tab, DEL, C1, bidi controls.
UNSHOWN = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069]")

LINK = "[link=x]y[/]"
CLOSE = "[/bold]"
#: QA difficulties: markup, HTML, spreadsheet formulas, a number, controls.
DIFFICULTIES = (
    LINK,
    CLOSE,
    "<img src=x>|`x`&amp;",
    "=1+1",
    "-1+1",
    "+x",
    "@SUM(A1)",
    "-2",
    "q\x1b\u202e",
)


def invoke(*args: str | Path) -> Result:
    return CliRunner().invoke(main, [str(a) for a in args])


def ok(*args: str | Path) -> Result:
    result = invoke(*args)
    assert result.exit_code == 0, (result.output, result.exception)
    return result


def assert_shown(text: str) -> None:
    """No control character reaches the reader: each is written as its escape."""
    assert not UNSHOWN.search(text), repr(UNSHOWN.findall(text))


# ---- question answering: a Document ---------------------------------------------------------


@pytest.fixture
def qa_run(tmp_path: Path) -> Path:
    """A scored QA run (through `score`) whose items' difficulties are hostile."""
    records = [
        {
            "question_id": f"m{n}",
            "question": f"Question {n}?",
            "answer_type": "mc",
            "options": {"A": "right", "B": "wrong"},
            "reference_answer": "A",
            "difficulty": difficulty,
            "canonical_source": "TS 23.501 (Rel-17)",
            "chunk_id": "23501-h00_0004",
        }
        for n, difficulty in enumerate(DIFFICULTIES)
    ]
    data = tmp_path / "qa"
    data.mkdir()
    doc = {"_corpus": "3gpp", "_description": "d", "_generated": "g", "questions": records}
    (data / "set_7.json").write_text(json.dumps(doc), encoding="utf-8")
    preds = tmp_path / "preds.jsonl"
    preds.write_text(
        "".join(json.dumps({"id": f"m{n}", "response": "ANSWER: A"}) + "\n" for n in range(9)),
        encoding="utf-8",
    )
    out = tmp_path / "run<b>[bold]"
    printed = ok("score", preds, "--data", data, "--out", out).stdout
    assert LINK in printed and CLOSE in printed  # markup read would crash or make a link
    return out


def test_qa_terminal_report_shows_markup_as_typed(qa_run: Path) -> None:
    out = ok("report", qa_run).stdout
    assert LINK in out and CLOSE in out
    assert "run<b>[bold]" in out.splitlines()[0]
    assert "q\\x1b\\u202e" in out
    assert_shown(out)


def test_qa_markdown_escapes_html_backticks_and_controls(qa_run: Path) -> None:
    for md in (ok("report", qa_run, "--format", "md").stdout, (qa_run / "report.md").read_text()):
        assert md.startswith("# QA report: run&lt;b&gt;[bold]\n")
        assert "<img" not in md and "&lt;img src=x&gt;\\|\\`x\\`&amp;amp;" in md
        assert "q\\\\x1b\\\\u202e" in md
        assert_shown(md)
        # Every row of the difficulty table has its seven columns.
        rows = [line for line in md.splitlines() if line.startswith("| ") and "0.207" in line]
        assert len(rows) == len(DIFFICULTIES)
        assert {len(re.split(r"(?<!\\) \| ", row)) for row in rows} == {7}


def test_qa_html_and_csv_are_inert(qa_run: Path) -> None:
    page = ok("report", qa_run, "--format", "html").stdout
    assert "<img" not in page and "q\\x1b\\u202e" in page
    assert_shown(page)
    text = ok("report", qa_run, "--format", "csv").stdout
    assert_shown(text)
    cells = {row[1]: row for row in csv.reader(io.StringIO(text)) if row[0] == "difficulty"}
    for formula in ("=1+1", "-1+1", "+x", "@SUM(A1)"):
        assert "'" + formula in cells and formula not in cells
    assert "-2" in cells  # a number is not a formula
    assert cells["'=1+1"][2:4] == ["1", "1"]  # figures as they are


def test_qa_json_keeps_the_text(qa_run: Path) -> None:
    data = json.loads(ok("report", qa_run, "--format", "json").stdout)
    assert "q\x1b\u202e" in data["runs"][0]["summary"]["by"]["difficulty"]


def test_failures_of_a_qa_run_are_listed_and_prices_noted(qa_run: Path) -> None:
    plain = ok("report", qa_run)
    result = ok("report", qa_run, "--failures", "3")
    assert result.stdout.startswith(plain.stdout) and "Failures: none" in result.stdout
    assert result.stderr == plain.stderr == ""
    priced = ok("report", qa_run, "--price-in", "1", "--format", "md", "--data", qa_run)
    assert unfold(priced.stderr) == "note: --price-in/--price-out: for function-calling runs only"


# ---- retrieval: warnings name the run's query ids --------------------------------------------


def test_a_retrieval_warning_shows_a_query_id_as_escapes(tmp_path: Path) -> None:
    run = tmp_path / "run.trec"
    run.write_text(
        "paper01-q1 Q0 paper01_p14 1 3.0 t\n\x1b[2J<b>q\u202e Q0 paper01_abs 1 4.2 t\n",
        encoding="utf-8",
    )
    out = tmp_path / "out"
    printed = ok("score", run, "--data", "builtin:qasper-rag", "--out", out).stdout
    shown = "(\\x1b[2J<b>q\\u202e)"
    assert f"Warning: 1 query of the run not in the gold, ignored {shown}" in unfold(printed)
    assert_shown(printed)
    md = (out / "report.md").read_text(encoding="utf-8")
    assert "ignored (\\\\x1b[2J&lt;b&gt;q\\\\u202e)" in md
    assert_shown(md)
    assert_shown((out / "report.html").read_text(encoding="utf-8"))
    as_json = ok("score", run, "--data", "builtin:qasper-rag", "--out", out, "--json")
    assert shown in as_json.stderr and ESC not in as_json.stderr
    assert "\x1b[2J<b>q\u202e" in json.loads(as_json.stdout)["warnings"][0]
    for fmt in ("table", "md", "html", "csv"):
        assert_shown(ok("report", out, "--format", fmt).output)


# ---- function calling: ids, questions and answers from a model -------------------------------


def write_fc(root: Path, run_name: str, outputs: list[dict[str, Any]]) -> Path:
    """A three-item dataset (hostile ids and questions) and `outputs` in a run directory."""
    doc = {
        "name": "f",
        "description": "d",
        "parameters": {"type": "dict", "properties": {"x": {"type": "integer"}}, "required": ["x"]},
    }
    (root / "data" / "questions").mkdir(parents=True)
    (root / "data" / "answers").mkdir()
    with (
        (root / "data" / "questions" / "simple.jsonl").open("w", encoding="utf-8") as fq,
        (root / "data" / "answers" / "simple.jsonl").open("w", encoding="utf-8") as fa,
    ):
        for item_id in FC_IDS:
            question = f"Q\x1b[31m\u202e {CLOSE} {item_id}"
            q = {"id": item_id, "category": "simple", "question": question, "function": [doc]}
            fq.write(json.dumps(q, ensure_ascii=False) + "\n")
            fa.write(json.dumps({"id": item_id, "ground_truth": {"f": {"x": 1}}}) + "\n")
    run = root / run_name
    run.mkdir()
    lines = "".join(json.dumps(o) + "\n" for o in outputs)
    (run / "outputs.jsonl").write_text(lines, encoding="utf-8")
    return run


FC_IDS = ("simple_0\x1b[2J", "simple_1\u202e", "simple_2")
#: A called function's name with a terminal hyperlink, an answer with lone CRs.
FC_OUTPUTS = [
    {"id": FC_IDS[0], "calls": [{"name": "f\x1b]8;;http://evil\x07x", "arguments": {"x": 1}}]},
    {"id": FC_IDS[1], "content": "[f(\x1b[2J\r<img src=x onerror=alert(1)>\r```\r# h"},
]


def test_fc_terminal_reports_show_controls_as_escapes(tmp_path: Path) -> None:
    run = write_fc(tmp_path, "run\x1b[31m\u202e", FC_OUTPUTS)
    scored = ok("score", run / "outputs.jsonl", "--data", tmp_path / "data")
    assert scored.stdout.startswith("run\\x1b[31m\\u202e: dataset")
    assert "written to" in scored.stdout
    assert_shown(scored.stdout)
    assert_shown(scored.stderr)
    out = ok("report", run, "--failures", "3").stdout
    assert out.startswith("run\\x1b[31m\\u202e: dataset")
    assert "simple_0\\x1b[2J  wrong_function" in out
    assert "f\\x1b]8;;http://evil\\x07x(x=1)" in out  # the call received
    assert "[f(\\x1b[2J\\r<img src=x onerror=alert(1)>\\r```\\r# h" in out  # as sent
    assert f"Q\\x1b[31m\\u202e {CLOSE} simple_1\\u202e" in out
    assert_shown(out)
    written = ok("report", run, "--format", "md", "-o", tmp_path / "r\x1b[2J.md")
    assert "written: " in written.stderr and "r\\x1b[2J.md" in written.stderr
    assert_shown(written.stderr)
    gone = invoke("report", tmp_path / "gone\x1b[2J")
    assert gone.exit_code == 1
    assert "gone\\x1b[2J: run directory not found" in unfold(gone.stderr)
    assert_shown(gone.stderr)


def test_fc_markdown_fences_hold_an_answer_with_carriage_returns(tmp_path: Path) -> None:
    run = write_fc(tmp_path, "run", FC_OUTPUTS)
    ok("score", run / "outputs.jsonl", "--data", tmp_path / "data")
    for md in (
        (run / "report.md").read_text(encoding="utf-8"),
        ok("report", run, "--failures", "3", "--format", "md").stdout,
    ):
        assert "\r" not in md
        lines = md.split("\n")
        at = lines.index("  answer as sent:")
        assert lines[at + 2 : at + 5] == [
            "  ````text",
            "  [f(\\x1b[2J\\r<img src=x onerror=alert(1)>\\r```\\r# h",
            "  ````",
        ]
        assert_shown(md)


def test_fc_html_and_csv_show_controls_as_escapes_and_no_formula(tmp_path: Path) -> None:
    run = write_fc(tmp_path, "=1+2\x1b[2J", FC_OUTPUTS)
    ok("score", run / "outputs.jsonl", "--data", tmp_path / "data")
    for page in ((run / "report.html").read_text(), ok("report", run, "--failures", "3").stdout):
        assert_shown(page)
    page = ok("report", run, "--failures", "3", "--format", "html").stdout
    assert "f\\x1b]8;;http://evil\\x07x" in page and "<img" not in page
    assert_shown(page)
    text = ok("report", run, "--format", "csv").stdout
    assert_shown(text)
    rows = list(csv.DictReader(io.StringIO(text)))
    assert {row["run"] for row in rows} == {"'=1+2\\x1b[2J"}
    assert rows[0]["n"] == "3" and rows[0]["accuracy"] == "0.0"
    data = json.loads(ok("report", run, "--format", "json").stdout)
    assert data["runs"][0]["name"] == "=1+2\x1b[2J"


# ---- the functions every format shares -------------------------------------------------------


def test_printable_escapes_every_control_but_newline_and_tab() -> None:
    controls = [chr(c) for c in (*range(0x20), *range(0x7F, 0xA0))]
    controls += [chr(c) for c in (*range(0x202A, 0x202F), *range(0x2066, 0x206A))]
    shown = printable("".join(controls))
    assert "\n" in shown and "\t" in shown
    assert not UNSHOWN.search(shown)
    assert printable("a\x1b[2J\r\x7f\x9b\u202e\u2069b") == "a\\x1b[2J\\r\\x7f\\x9b\\u202e\\u2069b"
    assert printable("中文 é\u200b") == "中文 é\u200b"


@pytest.mark.parametrize(
    ("value", "written"),
    [
        ("=1+1", "'=1+1"),
        ("-1+1", "'-1+1"),
        ("+x", "'+x"),
        ("@x", "'@x"),
        ("\tx", "'\tx"),
        ("-2", "-2"),
        ("+1.5e3", "+1.5e3"),
        ("-.5", "-.5"),
        (-2.5, -2.5),
        (3, 3),
        ("a=1", "a=1"),
        ("\x1b=x", "\\x1b=x"),
    ],
)
def test_csv_cell_neutralises_formulas_not_numbers(value: Any, written: Any) -> None:
    assert csv_cell(value) == written


def test_a_fence_is_not_closed_by_any_line_end() -> None:
    # CommonMark ends a line at CRLF, LF and a lone CR: each is a line of the block.
    assert fenced("a\r```\rb\r\n```\nc").split("\n") == [
        "````text",
        "a",
        "```",
        "b",
        "```",
        "c",
        "````",
    ]
