"""What `score` and `report` print and write, read as a person or a program reads it.

An interval of nothing is null and shows as no figure; the CSV's paired rows carry the
four counts the tables show; errors and headers fold at 80 columns under themselves; a
run's name is never split; no printed line ends in spaces; every written file ends with
one newline. The runs are the example outputs scored by `score`, and a second run that
answered fewer items and fewer of them right.
"""

from __future__ import annotations

import csv
import io
import json
from pathlib import Path

import pytest
from click.testing import CliRunner, Result

from tests.messages import assert_folded, unfold
from tfce_eval.cli import main

REPO = Path(__file__).resolve().parents[1]
EXAMPLE = REPO / "examples" / "outputs.jsonl"
DASH = "—"
#: Names as a served model's runs are often called: longer than a narrow column.
NAME_A = "vllm-Qwen_Qwen2.5-7B-Instruct-fc-base"
NAME_B = "vllm-Qwen_Qwen2.5-7B-Instruct-fc"
FORMATS = ("table", "md", "json", "csv", "html")


def cli(*args: str | Path, code: int = 0) -> Result:
    result = CliRunner().invoke(main, [str(a) for a in args], env={"COLUMNS": "80"})
    assert result.exit_code == code, result.output
    return result


@pytest.fixture(scope="module")
def runs(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    """A: the example outputs. B: two simple items left out (skipped, so the simple items
    differ) and every fourth answer replaced by text with no call."""
    root = tmp_path_factory.mktemp("runs")
    a, b = root / NAME_A, root / NAME_B
    cli("score", EXAMPLE, "--out", a)
    lines = []
    for n, line in enumerate(EXAMPLE.read_text(encoding="utf-8").splitlines()):
        record = json.loads(line)
        if record["id"] in ("base_simple_1", "base_simple_2"):
            continue
        if n % 4 == 0:
            record = {"id": record["id"], "text": "no call"}
        lines.append(json.dumps(record, ensure_ascii=False) + "\n")
    changed = root / "changed.jsonl"
    changed.write_text("".join(lines), encoding="utf-8")
    cli("score", changed, "--missing", "skip", "--out", b)
    return a, b


def trailing_spaces(text: str) -> list[str]:
    return [line for line in text.splitlines() if line != line.rstrip()]


# ---- an interval of nothing ----------------------------------------------------------------


def test_a_category_with_nothing_executed_has_no_interval_in_any_format(
    runs: tuple[Path, Path],
) -> None:
    a, _ = runs
    summary = json.loads((a / "summary.json").read_text(encoding="utf-8"))
    irrelevance = summary["irrelevance"]["exec"]
    assert irrelevance["covered"] == 0
    # The fields stay; an accuracy and an interval of no items are null, not 0 and [0, 0].
    assert irrelevance["accuracy"] is None and irrelevance["ci95"] is None
    assert summary["simple"]["exec"]["ci95"][0] > 0  # a category that ran keeps its interval

    table = cli("report", a).stdout
    (row,) = [line for line in table.splitlines() if line.startswith("irrelevance ")]
    assert row.split()[-1] == DASH
    md = cli("report", a, "--format", "md").stdout
    (row,) = [line for line in md.splitlines() if line.startswith("| irrelevance |")]
    assert row.endswith(f"| {DASH} |")
    html = cli("report", a, "--format", "html").stdout
    row = html.split("<td>irrelevance</td>")[1].split("</tr>")[0]
    assert row.endswith(f'<td class="num">{DASH}</td>')
    rows = csv.DictReader(io.StringIO(cli("report", a, "--format", "csv").stdout))
    (row_csv,) = [r for r in rows if r["category"] == "irrelevance"]
    assert [row_csv[k] for k in ("exec_covered", "exec_correct", "exec_accuracy")] == ["", "", ""]
    data = json.loads(cli("report", a, "--format", "json").stdout)
    assert data["runs"][0]["categories"]["irrelevance"]["exec"] is None


def test_a_qa_group_with_no_closed_item_has_no_interval(tmp_path: Path) -> None:
    from test_qa_report import open_item, tf_item

    from tfce_eval.qa import QaDataset, QaOutput, score_outputs

    # Series 38 holds only open items: no mc or tf item, so no accuracy and no interval.
    items = (tf_item(0), tf_item(1), open_item(0))
    data = QaDataset(path="set.json", split="set", items=items, sha256="ab" * 32)
    outputs = [QaOutput("t00", answer=True), QaOutput("t01", answer=False)]
    outputs.append(QaOutput("o0", response="ANSWER: packet"))
    score_outputs(outputs, data, out_dir=tmp_path / "qa")
    summary = json.loads((tmp_path / "qa" / "summary.json").read_text(encoding="utf-8"))
    series = summary["by"]["series"]
    assert series["38"]["total"] == 0
    assert series["38"]["accuracy"] is None and series["38"]["ci95"] is None
    assert len(series["23"]["ci95"]) == 2
    table = cli("report", tmp_path / "qa").stdout
    (row,) = [line.split() for line in table.splitlines() if line.split()[:1] == ["38"]]
    assert row[1:5] == ["0", "0", "-", "-"]


# ---- the CSV's paired rows -----------------------------------------------------------------


def test_csv_paired_rows_have_every_count_the_tables_show(runs: tuple[Path, Path]) -> None:
    text = cli("report", *runs, "--format", "csv").stdout
    # Columns are only added at the end: a program reading them by position still works.
    header = text.splitlines()[0]
    assert header.endswith(",only_a_right,only_b_right,mcnemar_p,note,both_right,both_wrong")
    rows_csv = [r for r in csv.DictReader(io.StringIO(text)) if r["section"] == "paired"]
    paired = {r["category"]: r for r in rows_csv}
    rows = json.loads(cli("report", *runs, "--format", "json").stdout)["paired"]["rows"]
    by_category = {r["category"]: r for r in rows}
    for category in ("multiple", "parallel", "parallel_multiple", "irrelevance"):
        row, counts = paired[category], by_category[category]
        got = [row[k] for k in ("n", "both_right", "only_a_right", "only_b_right", "both_wrong")]
        assert got == [str(counts[k]) for k in ("n", "both", "only_a", "only_b", "neither")]
        assert sum(map(int, got[1:])) == int(row["n"])
    # Not paired (different items): no counts at all, the note says why.
    assert paired["simple"]["both_right"] == paired["simple"]["both_wrong"] == ""
    assert paired["simple"]["note"].startswith("different items")


# ---- folded at 80 columns, names whole -----------------------------------------------------


def test_a_report_error_folds_at_80_columns(tmp_path: Path) -> None:
    empty = tmp_path / "empty"
    empty.mkdir()
    err = cli("report", empty, code=1).stderr
    assert len(f"error: {empty}: no summary.json") > 80 - len(" or scores.jsonl")
    assert_folded(err)
    assert err.splitlines()[1].startswith("    ")
    assert unfold(err).splitlines()[0] == (
        f"error: {empty}: no summary.json or scores.jsonl in this directory"
    )


def test_the_header_folds_under_itself(runs: tuple[Path, Path]) -> None:
    a, b = runs
    lines = cli("report", a).stdout.splitlines()
    assert lines[0].startswith(f"{NAME_A}: dataset builtin:tfce")
    # The line does not fit: it continues indented, like every folded message.
    header = lines[: lines.index("")]
    assert len(header) > 1 and all(line.startswith("    ") for line in header[1:])
    assert " ".join(" ".join(header).split()).endswith("strict_strings=False")
    lines = cli("report", a, b).stdout.splitlines()
    at = lines.index(f"B = {NAME_B}")
    details = lines[at + 1 : lines.index("", at)]
    assert len(details) > 1 and all(line.startswith("    ") for line in details)
    assert "missing outputs 2 items left out" in " ".join(" ".join(details).split())


def test_run_names_are_never_split(runs: tuple[Path, Path], tmp_path: Path) -> None:
    text = cli("report", *runs).stdout
    assert_folded(text)
    # Wherever a piece of a run's name is printed, the whole name is.
    for word in text.split():
        if "Qwen" in word:
            assert NAME_A in word or NAME_B in word, text
    # The paired notes name the runs by the letters the columns use.
    assert "only in A" in " ".join(text.split())
    # One run with its token counts: its name does not fit beside them, so the table
    # leaves it to the header rather than split it.
    usage = []
    for line in EXAMPLE.read_text(encoding="utf-8").splitlines():
        record = json.loads(line)
        record["usage"] = {"input_tokens": 123_456, "output_tokens": 2_345}
        record["latency_s"] = 1.5
        usage.append(json.dumps(record, ensure_ascii=False) + "\n")
    outputs = tmp_path / "usage.jsonl"
    outputs.write_text("".join(usage), encoding="utf-8")
    name = "vllm-Qwen_Qwen2.5-7B-Instruct-fc-with-token-counts-recorded"
    cli("score", outputs, "--out", tmp_path / name)
    for args in ([], ["--price-in", "1.5", "--price-out", "3"]):
        text = cli("report", tmp_path / name, *args).stdout
        assert "6,543,168" in text  # 53 x 123,456 input tokens
        for word in text.split():
            if "Qwen" in word:
                assert name in word, text


# ---- no trailing spaces, one final newline -------------------------------------------------


def test_no_printed_line_ends_in_spaces(runs: tuple[Path, Path], tmp_path: Path) -> None:
    a, b = runs
    texts = [cli("score", EXAMPLE, "--out", tmp_path / "again").stdout]
    texts += [cli("report", a).stdout, cli("report", a, b, "--failures", "2").stdout]
    cli("retrieve", "--data", "builtin:qasper-rag", "--out", tmp_path / "bm25")
    run = tmp_path / "bm25" / "run.trec"
    scored = cli("score", run, "--data", "builtin:qasper-rag", "--out", tmp_path / "ret")
    texts += [scored.stdout, cli("report", tmp_path / "ret", tmp_path / "ret").stdout]
    for text in texts:
        assert text.strip() and trailing_spaces(text) == [], text


def test_every_written_report_ends_with_one_newline(
    runs: tuple[Path, Path], tmp_path: Path
) -> None:
    a, b = runs
    for dirs in ([a], [a, b]):
        for fmt in FORMATS:
            out = tmp_path / f"{len(dirs)}.{fmt}"
            cli("report", *dirs, "--format", fmt, "-o", out)
            text = out.read_text(encoding="utf-8")
            assert text.endswith("\n") and not text.endswith("\n\n"), (fmt, text[-200:])
            if fmt == "table":
                assert trailing_spaces(text) == []
