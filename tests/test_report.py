"""The report model and its five formats, from run directories written as a run writes them."""

from __future__ import annotations

import csv
import dataclasses
import io
import json
import re
from html import escape
from html.parser import HTMLParser
from pathlib import Path
from typing import Any

import pytest

from tfce_eval.dataset.load import load_dataset
from tfce_eval.errors import DataError
from tfce_eval.model import Category, ErrorCode, ScoreRecord
from tfce_eval.report import (
    FailureSource,
    Prices,
    ReportFormat,
    RunView,
    load_run,
    render,
    render_table,
    write_run_reports,
)
from tfce_eval.scoring.rundir import RunDir, write_json, write_scores
from tfce_eval.scoring.summary import UsageStats, summarize

ALL_CATEGORIES = (Category.SIMPLE, Category.MULTIPLE, Category.PARALLEL, Category.PARALLEL_MULTIPLE)
HOSTILE = '<script>alert("x")</script> | [bold]rich[/bold] <img src="https://evil.example/x.png">'


def make_records(verdicts: dict[str, list[Any]]) -> list[ScoreRecord]:
    """`{"simple": [True, "value_error", ...]}` -> records with ids simple_0, simple_1, ..."""
    records = []
    for cat, outcomes in verdicts.items():
        for i, outcome in enumerate(outcomes):
            ok = outcome is True
            details: dict[str, Any] = {"expected": [{"name": "f", "arguments": {"x": 1}}]}
            if outcome != "request_error":
                details["calls"] = [{"name": "f", "arguments": {"x": 1 if ok else 2}}]
            records.append(
                ScoreRecord(
                    id=f"{cat}_{i}",
                    category=Category(cat),
                    valid=ok,
                    error_type=None if ok else ErrorCode(outcome),
                    error=None if ok else f"x: expected 1, received 2 {HOSTILE}",
                    exec_valid=None,
                    details=details,
                )
            )
    return records


def make_run(
    root: Path,
    name: str,
    verdicts: dict[str, list[Any]],
    *,
    categories: tuple[Category, ...] = ALL_CATEGORIES,
    run_info: dict[str, Any] | None = None,
    tokens: tuple[int, int] | None = (1000, 200),
) -> Path:
    """A run directory as `run`/`score` leave it: scores.jsonl, summary.json, maybe run.json."""
    run_dir = root / name
    records = make_records(verdicts)
    usage = UsageStats()
    for i, _ in enumerate(records):
        usage.add(
            {"prompt_tokens": tokens[0], "completion_tokens": tokens[1]} if tokens else None,
            0.5 + i,
        )
    files = RunDir(run_dir)
    write_scores(files.scores, records)
    write_json(files.summary, summarize(records, dataset_categories=categories, usage=usage))
    if run_info is not None:
        write_json(files.run_json, run_info)
    return run_dir


# simple 8/10, multiple 1/4: micro 9/14 = 64.3 %, macro (80 + 25) / 2 = 52.5 %.
BASIC: dict[str, list[Any]] = {
    "simple": [True] * 8 + ["value_error", "wrong_count"],
    "multiple": [True, "value_error", "value_error", "request_error"],
}


@pytest.fixture
def basic(tmp_path: Path) -> RunView:
    return load_run(make_run(tmp_path, "model-a", BASIC))


class Page(HTMLParser):
    """Collects tags, attributes and text of an HTML page."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.tags: list[tuple[str, dict[str, str | None]]] = []
        self.text: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.tags.append((tag, dict(attrs)))

    def handle_data(self, data: str) -> None:
        self.text.append(data)

    @property
    def all_text(self) -> str:
        return "".join(self.text)


def parse_html(page: str) -> Page:
    parser = Page()
    parser.feed(page)
    parser.close()
    return parser


# ---- the model: micro, macro, N/A ----------------------------------------------------------


def test_micro_and_macro_differ_and_are_labelled(basic: RunView) -> None:
    summary = basic.summary
    assert summary["overall"]["micro"]["accuracy"] == pytest.approx(9 / 14)
    assert summary["overall"]["macro"]["accuracy"] == pytest.approx(0.525)
    for fmt in (ReportFormat.MD, ReportFormat.HTML):
        text = render([basic], fmt)
        assert "overall (micro, item-weighted)" in text
        assert "overall (macro, mean of categories)" in text
        assert "64.3%" in text
        assert "52.5%" in text
    # The terminal keeps its labels short and says what they mean below the table.
    table = render([basic], ReportFormat.TABLE)
    micro = next(line for line in table.splitlines() if line.startswith("overall (micro) "))
    macro = next(line for line in table.splitlines() if line.startswith("overall (macro) "))
    assert "64.3%" in micro and "52.5%" in macro
    assert "overall (micro): every item counts once" in table
    assert "overall (macro): the mean of the categories' accuracies" in table
    data = json.loads(render([basic], ReportFormat.JSON))
    overall = data["runs"][0]["overall"]
    assert overall["micro"]["accuracy"] == pytest.approx(9 / 14)
    assert overall["macro"] == {"accuracy": pytest.approx(0.525), "categories": 2}


def test_categories_not_run_are_na_everywhere(basic: RunView) -> None:
    for fmt in (ReportFormat.TABLE, ReportFormat.MD, ReportFormat.HTML):
        text = render([basic], fmt)
        assert "parallel_multiple" in text
        assert "N/A" in text
        assert "macro is the mean of the 2 categories run (of 4)" in text
    data = json.loads(render([basic], ReportFormat.JSON))
    assert data["runs"][0]["categories"]["parallel"] is None
    assert data["runs"][0]["categories"]["parallel_multiple"] is None
    rows = list(csv.DictReader(io.StringIO(render([basic], ReportFormat.CSV))))
    parallel = next(r for r in rows if r["category"] == "parallel")
    assert parallel["n"] == "" and parallel["note"].startswith("N/A")


def test_request_errors_are_apart_from_model_errors(basic: RunView) -> None:
    data = json.loads(render([basic], ReportFormat.JSON))
    multiple = data["runs"][0]["categories"]["multiple"]
    assert multiple["model_errors"] == {"value_error": 2}
    assert multiple["request_errors"] == 1
    table = render([basic], ReportFormat.TABLE).splitlines()
    # error x (simple, multiple, parallel, parallel_multiple, all)
    assert ["value_error", "1", "2", "N/A", "N/A", "3"] in [line.split() for line in table]
    assert ["model", "errors", "2", "2", "N/A", "N/A", "4"] in [line.split() for line in table]
    # request errors: a row of their own, after the model errors' total
    assert ["request_error", "0", "1", "N/A", "N/A", "1"] in [line.split() for line in table]


# ---- every format from the same summary ----------------------------------------------------


def test_every_format_shows_the_figures_of_the_summary(basic: RunView) -> None:
    simple = basic.summary["simple"]
    lo, hi = simple["ci95"]
    shown_ci = f"[{100 * lo:.1f}, {100 * hi:.1f}]"
    assert shown_ci == "[49.0, 94.3]"  # Wilson 8/10
    for fmt in (ReportFormat.TABLE, ReportFormat.MD, ReportFormat.HTML):
        text = render([basic], fmt)
        html_text = parse_html(text).all_text if fmt is ReportFormat.HTML else text
        for figure in ("80.0%", shown_ci, "25.0%", "64.3%", "value_error", "14,000", "2,800"):
            assert figure in html_text, (fmt, figure)
    data = json.loads(render([basic], ReportFormat.JSON))
    got = data["runs"][0]["categories"]["simple"]
    assert (got["correct"], got["total"], got["accuracy"]) == (8, 10, 0.8)
    assert got["ci95"] == pytest.approx([lo, hi])
    rows = list(csv.DictReader(io.StringIO(render([basic], ReportFormat.CSV))))
    row = next(r for r in rows if r["section"] == "category" and r["category"] == "simple")
    assert (row["n"], row["correct"], float(row["accuracy"])) == ("10", "8", 0.8)
    assert float(row["ci95_low"]) == pytest.approx(lo) and float(row["ci95_high"]) == pytest.approx(
        hi
    )
    assert (row["value_error"], row["wrong_count"], row["model_errors"]) == ("1", "1", "2")
    micro = next(r for r in rows if r["category"] == "micro")
    assert float(micro["accuracy"]) == pytest.approx(9 / 14)
    assert micro["input_tokens"] == "14000"


def test_latency_and_cost(tmp_path: Path) -> None:
    run = load_run(make_run(tmp_path, "priced", {"simple": [True, True, "value_error"]}))
    prices = Prices(input_per_million=2.5, output_per_million=10.0)
    # 3 items x (1000 in, 200 out): 3000 * 2.5 / 1e6 + 600 * 10 / 1e6 = 0.0075 + 0.006.
    data = json.loads(render([run], ReportFormat.JSON, prices=prices))
    assert data["runs"][0]["overall"]["cost_usd"] == pytest.approx(0.0135)
    table = render([run], ReportFormat.TABLE, prices=prices)
    assert "$0.0135" in table
    # latencies 0.5, 1.5, 2.5: median 1.5, p95 2.4 (linear interpolation)
    assert "1.50 s" in table and "2.40 s" in table
    unpriced = render([run], ReportFormat.MD)
    assert "## Tokens and latency" in unpriced and "cost" not in unpriced


def test_prices_past_any_models_are_refused_and_no_cost_reads_inf(tmp_path: Path) -> None:
    from tfce_eval.errors import UsageError

    for bad in (1e308, float("inf"), float("nan"), -1.0, "3"):
        with pytest.raises(UsageError, match=r"^input_per_million: "):
            Prices(input_per_million=bad)  # type: ignore[arg-type]
    with pytest.raises(UsageError, match=r"^output_per_million: "):
        Prices(output_per_million=2e6)
    # Counts no run could make (a summary edited by hand) give no cost, not $inf.
    run = load_run(make_run(tmp_path, "huge", {"simple": [True]}, tokens=(10**400, 1)))
    data = json.loads(render([run], ReportFormat.JSON, prices=Prices(1e6, 1e6)))
    assert data["runs"][0]["overall"]["cost_usd"] is None
    assert "inf" not in render([run], ReportFormat.TABLE, prices=Prices(1e6, 1e6))


def test_runs_without_usage_show_no_usage_table(tmp_path: Path) -> None:
    run = load_run(make_run(tmp_path, "plain", {"simple": [True]}, tokens=None))
    run = RunView(
        run.name,
        run.path,
        {**run.summary, "overall": {**run.summary["overall"], "latency_s": None}},
        run.records,
        None,
    )
    assert "Tokens and latency" not in render([run], ReportFormat.MD)


# ---- HTML -----------------------------------------------------------------------------------


def test_html_is_self_contained_escaped_and_holds_the_figures(tmp_path: Path) -> None:
    run = load_run(make_run(tmp_path, "model-a", BASIC))
    page = render([run], ReportFormat.HTML, failures=3)
    parsed = parse_html(page)
    tags = [t for t, _ in parsed.tags]
    assert "svg" in tags and "style" in tags and "table" in tags
    assert "script" not in tags and "link" not in tags and "img" not in tags
    for _, attrs in parsed.tags:
        for key in ("src", "href", "xlink:href", "action"):
            value = attrs.get(key) or ""
            assert "://" not in value and not value.startswith("//")
    # The only URL on the page is the escaped text of the hostile error message.
    assert "https://" not in page.replace(escape(HOSTILE), "")
    text = parsed.all_text
    assert HOSTILE in text  # shown, as text
    for figure in ("80.0%", "[49.0, 94.3]", "64.3%", "52.5%", "N/A", "value_error"):
        assert figure in text
    # one whisker per category run plus overall, each bar with its tooltip
    assert page.count("<rect x=") >= 3
    assert "95% Wilson interval" in text


def test_html_chart_has_a_bar_per_run_and_category(tmp_path: Path) -> None:
    a = load_run(make_run(tmp_path, "a", BASIC))
    b = load_run(make_run(tmp_path, "b", {"simple": [True] * 10}))
    page = render([a, b], ReportFormat.HTML)
    svg = page[page.index("<svg") : page.index("</svg>")]
    # bars: a simple, a multiple, a micro, b simple, b micro; b's multiple is N/A
    assert svg.count("<title>") == 5
    assert "N/A (not run)" in svg
    assert "a · simple: 80.0% [49.0, 94.3], 8/10" in svg


# ---- failures -------------------------------------------------------------------------------


def write_dataset(root: Path) -> Path:
    """A two-item TFCE-style dataset whose ids match make_records' simple_0, simple_1."""
    doc = {
        "name": "f",
        "description": "d",
        "parameters": {"type": "dict", "properties": {"x": {"type": "integer"}}, "required": ["x"]},
    }
    (root / "questions").mkdir(parents=True)
    (root / "answers").mkdir()
    with (
        (root / "questions" / "simple.jsonl").open("w", encoding="utf-8") as fq,
        (root / "answers" / "simple.jsonl").open("w", encoding="utf-8") as fa,
    ):
        for i in range(2):
            q = {
                "id": f"simple_{i}",
                "category": "simple",
                "question": f"问题{i} <b>x</b>",
                "function": [doc],
            }
            fq.write(json.dumps(q, ensure_ascii=False) + "\n")
            fa.write(json.dumps({"id": f"simple_{i}", "ground_truth": {"f": {"x": 1}}}) + "\n")
    return root


def test_failures_show_question_expected_received_and_error(tmp_path: Path) -> None:
    data = write_dataset(tmp_path / "data")
    run_dir = make_run(
        tmp_path,
        "fails",
        {"simple": ["value_error", "wrong_count"]},
        categories=(Category.SIMPLE,),
        run_info={"model": "vllm/m", "dataset": {"path": str(data), "sha256": "x"}},
    )
    run = load_run(run_dir)
    source = FailureSource(dataset=load_dataset(data))
    for fmt in (ReportFormat.TABLE, ReportFormat.MD, ReportFormat.HTML):
        text = render([run], fmt, failures=1, failure_source=source)
        text = parse_html(text).all_text if fmt is ReportFormat.HTML else text
        assert "1 of 2 failing" in text
        assert "问题0 <b>x</b>" in text  # the question, verbatim (escaped in HTML source)
        assert "f(x=1)" in text and "f(x=2)" in text
        assert "simple_1" not in text  # only one per category
    # Without a source, the dataset run.json names is loaded (its digest differs: said so).
    text = render([run], ReportFormat.MD, failures=2)
    assert "问题1" in text
    assert "changed since the run" in text


def test_failures_without_a_dataset_say_the_question_is_unavailable(tmp_path: Path) -> None:
    run_dir = make_run(
        tmp_path,
        "lost",
        {"simple": ["value_error"]},
        run_info={"dataset": {"path": str(tmp_path / "moved-away")}},
    )
    text = render([load_run(run_dir)], ReportFormat.MD, failures=3)
    assert "simple_0" in text
    assert "(unavailable)" in text
    assert "Questions: unavailable, could not load" in text
    assert "f(x=2)" in text  # received calls come from the record, not the dataset


def test_failures_list_model_errors_before_request_errors(tmp_path: Path) -> None:
    run_dir = make_run(tmp_path, "r", {"simple": ["request_error", "value_error", True]})
    data = json.loads(
        render(
            [load_run(run_dir)],
            ReportFormat.JSON,
            failures=1,
            failure_source=FailureSource(unavailable="none here"),
        )
    )
    shown = data["failures"][0]["categories"][0]
    assert shown["failing"] == 2
    assert [f["id"] for f in shown["shown"]] == ["simple_1"]


def test_raw_answer_is_shown_for_undecodable_items(tmp_path: Path) -> None:
    run_dir = make_run(tmp_path, "raw", {"simple": ["parse_error"]})
    lines = [json.loads(line) for line in (run_dir / "scores.jsonl").read_text().splitlines()]
    lines[0]["details"].pop("calls")
    (run_dir / "scores.jsonl").write_text("".join(json.dumps(x) + "\n" for x in lines))
    (run_dir / "outputs.jsonl").write_text(json.dumps({"id": "simple_0", "text": "f(2)"}) + "\n")
    text = render(
        [load_run(run_dir)],
        ReportFormat.TABLE,
        failures=1,
        failure_source=FailureSource(unavailable="none"),
    )
    assert "(no calls could be decoded)" in text
    assert "f(2)" in text


def test_terminal_table_prints_markup_literally(tmp_path: Path) -> None:
    run_dir = make_run(tmp_path, "m", {"simple": ["value_error"]})
    text = render(
        [load_run(run_dir)],
        ReportFormat.TABLE,
        failures=1,
        failure_source=FailureSource(unavailable="none"),
    )
    assert "[bold]rich[/bold]" in text


def test_markdown_cells_escape_pipes_and_html(tmp_path: Path) -> None:
    run_dir = make_run(tmp_path, "md", {"simple": ["value_error"]})
    text = render(
        [load_run(run_dir)],
        ReportFormat.MD,
        failures=1,
        failure_source=FailureSource(unavailable="none"),
    )
    head = next(line for line in text.splitlines() if line.startswith("- **simple_0**"))
    assert "<script>" not in head and "&lt;script&gt;" in head and "\\|" in head


# ---- two runs -------------------------------------------------------------------------------

# simple: 10 only A right, 2 only B right, 3 both right, 1 both wrong -> exact p = 0.0386.
PAIR_A: dict[str, list[Any]] = {
    "simple": [True] * 10 + ["value_error"] * 2 + [True] * 3 + ["no_call"],
    "multiple": [True, True],
}
PAIR_B: dict[str, list[Any]] = {
    "simple": ["value_error"] * 10 + [True] * 2 + [True] * 3 + ["no_call"],
    "multiple": [True, True, True],
}


def test_two_runs_get_a_paired_section(tmp_path: Path) -> None:
    a = load_run(make_run(tmp_path, "a", PAIR_A))
    b = load_run(make_run(tmp_path, "b", PAIR_B))
    data = json.loads(render([a, b], ReportFormat.JSON))
    rows = {r["category"]: r for r in data["paired"]["rows"]}
    simple = rows["simple"]
    assert (simple["n"], simple["both"], simple["only_a"], simple["only_b"], simple["neither"]) == (
        16,
        3,
        10,
        2,
        1,
    )
    assert simple["p_value"] == pytest.approx(0.03857421875)
    assert rows["multiple"]["p_value"] is None
    assert "different items (0 only in A, 1 only in B)" in rows["multiple"]["note"]
    assert rows["parallel"]["note"] == "not run in either run"
    for fmt in (ReportFormat.TABLE, ReportFormat.MD, ReportFormat.HTML):
        text = render([a, b], fmt)
        if fmt is ReportFormat.TABLE:  # the legend names the runs A and B above the tables
            assert "A = a\n" in text and "B = b\n" in text
            assert "Paired comparison of A and B" in text
        else:
            assert "Paired comparison: A = a, B = b" in text
        assert "0.0386" in text
        assert "McNemar" in text
        # The terminal stacks a long header over narrow figures.
        assert ("only A" if fmt is ReportFormat.TABLE else "only A right") in text
    rows_csv = [
        r
        for r in csv.DictReader(io.StringIO(render([a, b], ReportFormat.CSV)))
        if r["section"] == "paired"
    ]
    simple_csv = next(r for r in rows_csv if r["category"] == "simple")
    assert (simple_csv["only_a_right"], simple_csv["only_b_right"]) == ("10", "2")
    assert float(simple_csv["mcnemar_p"]) == pytest.approx(0.03857421875)


def test_side_by_side_has_a_column_group_per_run(tmp_path: Path) -> None:
    a = load_run(make_run(tmp_path, "a", PAIR_A))
    b = load_run(make_run(tmp_path, "b", PAIR_B))
    md = render([a, b], ReportFormat.MD)
    header = next(line for line in md.splitlines() if line.startswith("| category | a: "))
    assert "a: accuracy" in header and "b: accuracy" in header
    simple = next(line for line in md.splitlines() if line.startswith("| simple | 13/16"))
    assert "81.2%" in simple and "31.2%" in simple  # 13/16 and 5/16
    page = parse_html(render([a, b], ReportFormat.HTML))
    assert any(t == "th" and attrs.get("colspan") == "3" for t, attrs in page.tags)


def test_paired_test_refuses_different_datasets(tmp_path: Path) -> None:
    a = load_run(
        make_run(tmp_path, "a", PAIR_A, run_info={"dataset": {"path": "d", "sha256": "1" * 64}})
    )
    b = load_run(
        make_run(tmp_path, "b", PAIR_A, run_info={"dataset": {"path": "d", "sha256": "2" * 64}})
    )
    md = render([a, b], ReportFormat.MD)
    assert "The paired test does not apply: the runs used different datasets" in md


def test_paired_test_needs_scores(tmp_path: Path) -> None:
    a = load_run(make_run(tmp_path, "a", PAIR_A))
    b = load_run(make_run(tmp_path, "b", PAIR_B))
    b = RunView(b.name, b.path, b.summary, (), None)
    text = render([a, b], ReportFormat.TABLE)
    assert "does not apply: b has no per-item verdicts (scores.jsonl)" in text


def test_three_runs_are_side_by_side_without_paired_test(tmp_path: Path) -> None:
    runs = [load_run(make_run(tmp_path, n, PAIR_A)) for n in ("x", "y", "z")]
    md = render(runs, ReportFormat.MD)
    assert "Paired comparison" not in md
    assert "z: accuracy" in md


def test_same_directory_names_are_told_apart(tmp_path: Path) -> None:
    a = load_run(make_run(tmp_path / "one", "run", BASIC))
    b = load_run(make_run(tmp_path / "two", "run", BASIC))
    data = json.loads(render([a, b], ReportFormat.JSON))
    names = [r["name"] for r in data["runs"]]
    assert names[0] != names[1] and names[0].endswith("one/run")


# ---- reading run directories and writing reports --------------------------------------------


def test_write_run_reports_writes_md_and_html(tmp_path: Path, basic: RunView) -> None:
    assert basic.path is not None
    write_run_reports(basic.path, basic, failure_source=FailureSource(unavailable="none"))
    md = (basic.path / "report.md").read_text(encoding="utf-8")
    page = (basic.path / "report.html").read_text(encoding="utf-8")
    assert "64.3%" in md and "Failures (up to 5 per category)" in md
    assert "64.3%" in parse_html(page).all_text
    assert not list(basic.path.glob(".report*"))  # no temporary file left behind


def test_load_run_reads_run_json_and_recomputes_a_missing_summary(tmp_path: Path) -> None:
    info = {"provider": "vllm", "model": "Qwen", "mode": "fc", "status": "interrupted"}
    run_dir = make_run(tmp_path, "r", BASIC, run_info=info)
    run = load_run(run_dir / "summary.json")
    assert run.model == "Qwen" and run.name == "r"
    (run_dir / "summary.json").unlink()
    rebuilt = load_run(run_dir)
    assert rebuilt.summary["overall"]["micro"]["correct"] == 9
    md = render([rebuilt], ReportFormat.MD)
    assert "model vllm/Qwen; mode fc; status interrupted" in md


def test_a_dataset_given_as_separate_files_is_not_guessed(tmp_path: Path) -> None:
    info = {"dataset": {"path": ["q.jsonl", "a.jsonl"], "sha256": "x"}}
    run_dir = make_run(tmp_path, "files", {"simple": ["value_error"]}, run_info=info)
    md = render([load_run(run_dir)], ReportFormat.MD, failures=1)
    assert "Questions: unavailable, the run's dataset was given as separate files" in md


@pytest.mark.parametrize("setup", ["missing", "empty", "outputs_only"])
def test_load_run_errors_say_what_to_do(tmp_path: Path, setup: str) -> None:
    run_dir = tmp_path / "run"
    if setup != "missing":
        run_dir.mkdir()
    if setup == "outputs_only":
        (run_dir / "outputs.jsonl").write_text('{"id": "a"}\n')
    with pytest.raises(DataError) as err:
        load_run(run_dir)
    message = str(err.value)
    assert str(run_dir) in message
    assert "fix:" in message
    if setup == "outputs_only":
        assert "tfce-eval score" in message and "outputs.jsonl" in message


def test_render_table_is_a_renderable(basic: RunView) -> None:
    from rich.console import Console

    console = Console(file=io.StringIO(), width=160, color_system=None)
    console.print(render_table([basic]))
    assert "64.3%" in console.file.getvalue()  # type: ignore[attr-defined]


def test_a_run_with_nothing_scored_renders_in_every_format(tmp_path: Path) -> None:
    run_dir = tmp_path / "empty"
    write_json(RunDir(run_dir).summary, summarize([], dataset_categories=ALL_CATEGORIES))
    write_scores(RunDir(run_dir).scores, [])
    run = load_run(run_dir)
    for fmt in ReportFormat:
        text = render([run], fmt, failures=2)
        assert "simple" in text
    assert (
        json.loads(render([run], ReportFormat.JSON))["runs"][0]["overall"]["micro"]["accuracy"]
        is None
    )
    assert "N/A (not run)" in render([run], ReportFormat.HTML)


# ---- run files of the wrong types -----------------------------------------------------------


def _edit_summary(run_dir: Path, edit: Any) -> None:
    path = run_dir / "summary.json"
    summary = json.loads(path.read_text(encoding="utf-8"))
    edit(summary)
    path.write_text(json.dumps(summary), encoding="utf-8")


@pytest.mark.parametrize(
    ("field", "edit"),
    [
        ("simple.total", lambda s: s["simple"].update(total="10")),
        ("simple.correct", lambda s: s["simple"].update(correct=True)),
        ("simple.accuracy", lambda s: s["simple"].update(accuracy="0.8")),
        ("simple.accuracy", lambda s: s["simple"].update(accuracy=float("nan"))),
        ("simple.ci95", lambda s: s["simple"].update(ci95=[0.5])),
        ("simple.errors", lambda s: s["simple"].update(errors={"value_error": "1"})),
        ("multiple.request_errors", lambda s: s["multiple"].update(request_errors=-1)),
        ("simple.exec.covered", lambda s: s["simple"]["exec"].update(covered=1.5)),
        ("overall.micro.accuracy", lambda s: s["overall"]["micro"].update(accuracy="high")),
        ("overall.macro.categories", lambda s: s["overall"]["macro"].update(categories="2")),
        ("overall.tokens.input", lambda s: s["overall"]["tokens"].update(input="14000")),
        ("overall.latency_s.p95", lambda s: s["overall"]["latency_s"].update(p95=[1])),
        ("overall", lambda s: s.update(overall=[])),
        ("parallel", lambda s: s.update(parallel="N/A")),
    ],
)
def test_a_summary_with_a_mistyped_figure_is_refused(tmp_path: Path, field: str, edit: Any) -> None:
    run_dir = make_run(tmp_path, "typed", BASIC)
    _edit_summary(run_dir, edit)
    with pytest.raises(DataError) as err:
        load_run(run_dir)
    first = str(err.value).splitlines()[0]
    assert first.startswith(str(run_dir / "summary.json") + ": ")
    assert f"field {field} is " in first


@pytest.mark.parametrize(
    ("field", "value"),
    [("valid", "false"), ("valid", 0), ("exec_valid", "true"), ("id", 7), ("details", [])],
)
def test_a_score_record_with_a_mistyped_verdict_is_refused(
    tmp_path: Path, field: str, value: Any
) -> None:
    run_dir = make_run(tmp_path, "typed", BASIC)
    path = run_dir / "scores.jsonl"
    lines = path.read_text(encoding="utf-8").splitlines()
    third = json.loads(lines[2])
    third[field] = value
    lines[2] = json.dumps(third)
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    with pytest.raises(DataError) as err:
        load_run(run_dir)
    first = str(err.value).splitlines()[0]
    assert first.startswith(f"{path}, line 3: field {field} is ")


# ---- the HTML page in a 1400 px window ------------------------------------------------------

#: 13 px text: a generous average advance of one character, and a cell's padding and border.
CHAR_PX, CELL_PX = 8, 17
#: A 1400 px window: the page's column is at most 1100 px wide, less 2 x 28 px of padding.
CONTENT_PX = 1100 - 2 * 28


class TableWidths(HTMLParser):
    """The narrowest each table of a page can be: per column, its longest unbreakable run.

    A figure cell (`td.num`) does not wrap; other cells and headers break at spaces and at
    `<wbr>`. Headers spanning several columns are left out (their width is shared).
    """

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.tables: list[dict[int, int]] = []
        self._cell: list[str] | None = None
        self._nowrap = False
        self._col = 0

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        a = dict(attrs)
        if tag == "table":
            self.tables.append({})
        elif tag == "tr":
            self._col = 0
        elif tag in ("td", "th") and self.tables:
            spans = a.get("colspan") not in (None, "1")
            self._cell = None if spans else []
            self._nowrap = a.get("class") == "num"
            if spans:
                self._col += int(a.get("colspan") or 1)
        elif tag == "wbr" and self._cell is not None:
            self._cell.append(" ")

    def handle_data(self, data: str) -> None:
        if self._cell is not None:
            self._cell.append(data)

    def handle_endtag(self, tag: str) -> None:
        if tag in ("td", "th") and self._cell is not None:
            text = "".join(self._cell)
            runs = [text] if self._nowrap else text.split()
            px = max((len(r) for r in runs), default=0) * CHAR_PX + CELL_PX
            widths = self.tables[-1]
            widths[self._col] = max(widths.get(self._col, 0), px)
            self._col += 1
            self._cell = None


def narrowest_tables(page: str) -> list[int]:
    parser = TableWidths()
    parser.feed(page)
    return [sum(t.values()) for t in parser.tables]


EVERY_CODE = [str(c) for c in ErrorCode if c.is_model_error] + ["request_error", True, True]


@pytest.mark.parametrize("count", [1, 2, 3])
def test_html_tables_fit_a_1400_px_window(tmp_path: Path, count: int) -> None:
    verdicts = {"simple": EVERY_CODE, "multiple": EVERY_CODE, "parallel": EVERY_CODE}
    verdicts |= {"parallel_multiple": EVERY_CODE, "irrelevance": EVERY_CODE}
    runs = [load_run(make_run(tmp_path, f"model-{i}", verdicts)) for i in range(count)]
    page = render(runs, ReportFormat.HTML)
    widths = narrowest_tables(page)
    assert len(widths) >= 3
    assert max(widths) <= CONTENT_PX, widths
    # every table scrolls within the page rather than widening it, should a window be narrower
    assert page.count('<div class="scroll"><table>') == page.count("<table>")


def test_counts_of_one_are_singular_in_every_format(tmp_path: Path) -> None:
    data = write_dataset(tmp_path / "data")  # simple_0 and simple_1 only
    run_dir = make_run(
        tmp_path,
        "one",
        {"simple": [True, True, "value_error"]},  # simple_2 fails and is not in the dataset
        categories=(Category.SIMPLE, Category.MULTIPLE),
    )
    _edit_summary(run_dir, lambda s: s.update(missing={"mode": "count", "count": 1}))
    run = load_run(run_dir)
    source = FailureSource(dataset=load_dataset(data))
    for fmt in ReportFormat:
        text = render([run], fmt, failures=3, failure_source=source)
        if fmt is ReportFormat.HTML:
            text = parse_html(text).all_text
        text = " ".join(text.split())  # the terminal wraps lines
        assert not re.search(r"\b1 (items|categories|failing items|shown items)\b", text), fmt
        if fmt is ReportFormat.CSV:
            assert "mean of 1 category" in text
        elif fmt is not ReportFormat.JSON:
            assert "1 of 1 failing item" in text, fmt
            assert "1 of 1 shown item is not in" in text, fmt
            assert "missing outputs 1 item counted as wrong" in text, fmt
            assert "macro is the mean of the 1 category run (of 2)" in text, fmt


# ---- one failure block, every format ---------------------------------------------------------


def _labels(text: str, fmt: ReportFormat) -> list[str]:
    """The field labels of the failure blocks, in order, as the format shows them."""
    if fmt is ReportFormat.HTML:
        return re.findall(r"<dt>([^<]*)</dt>", text)
    if fmt is ReportFormat.MD:
        return re.findall(r"^  ([a-z ]+):$", text, flags=re.MULTILINE)
    labels = r"^  (error|question|expected|received|answer as sent|as sent) "
    return re.findall(labels, text.split("Failures")[1], flags=re.MULTILINE)


def test_every_format_shows_the_same_failure_block(tmp_path: Path) -> None:
    run_dir = make_run(tmp_path, "raw", {"simple": ["parse_error"]})
    lines = [json.loads(line) for line in (run_dir / "scores.jsonl").read_text().splitlines()]
    lines[0]["details"].pop("calls")
    (run_dir / "scores.jsonl").write_text("".join(json.dumps(x) + "\n" for x in lines))
    (run_dir / "outputs.jsonl").write_text(json.dumps({"id": "simple_0", "text": "f(2"}) + "\n")
    run = load_run(run_dir)
    for fmt in (ReportFormat.TABLE, ReportFormat.MD, ReportFormat.HTML):
        text = render([run], fmt, failures=1, failure_source=FailureSource(unavailable="none"))
        labels = [label for label in _labels(text, fmt) if label != "error"]
        assert labels == ["question", "expected", "received", "answer as sent"], fmt
        assert "simple: 1 of 1 failing item" in text, fmt


def test_failing_calls_with_any_value_are_written(tmp_path: Path) -> None:
    (first,) = make_records({"simple": ["value_error"]})
    calls = [{"name": "f", "arguments": {"x": "\ud83d", "y": 10**5000}}]
    records = [dataclasses.replace(first, details={**first.details, "calls": calls})]
    run = RunView("odd", tmp_path, summarize(records), tuple(records), None)
    write_run_reports(tmp_path, run, failures=1, failure_source=FailureSource(unavailable="-"))
    md = (tmp_path / "report.md").read_text(encoding="utf-8")
    assert 'f(x="\\ud83d", y=<an integer of about 5001 digits>)' in md
    assert "\\ud83d" in (tmp_path / "report.html").read_text(encoding="utf-8")
