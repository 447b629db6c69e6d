"""The terminal report on a narrow screen: every figure whole, every run name whole.

The figures are checked against summary.json as `score` writes it for the example outputs,
so a table that cuts, wraps or drops one of them fails here.
"""

from __future__ import annotations

import io
import json
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner
from messages import assert_folded
from rich.cells import cell_len
from rich.console import Console
from test_report import BASIC, PAIR_A, PAIR_B, make_run

from tfce_eval.cli import main
from tfce_eval.model import CATEGORY_ORDER, ErrorCode
from tfce_eval.report import RunView, load_run, render_table

REPO = Path(__file__).resolve().parents[1]
EXAMPLE = REPO / "examples" / "outputs.jsonl"
DASH = "—"


def printed(runs: list[RunView], width: int, **options: Any) -> str:
    console = Console(file=io.StringIO(), width=width, color_system=None)
    console.print(render_table(runs, **options))
    text = console.file.getvalue()  # type: ignore[attr-defined]
    assert isinstance(text, str)
    return text


def assert_fits(text: str, width: int) -> None:
    widest = max(cell_len(line.rstrip()) for line in text.splitlines())
    assert widest <= width, text
    assert "…" not in text, text


def pct(value: float) -> str:
    return f"{100 * value:.1f}%"


def ci(block: dict[str, Any]) -> str:
    lo, hi = block["ci95"]
    return f"[{100 * lo:.1f}, {100 * hi:.1f}]"


def exec_cell(block: Any) -> str:
    if not isinstance(block, dict) or not block.get("covered"):
        return DASH
    return f"{pct(block['accuracy'])} ({block['correct']}/{block['covered']})"


def rows(text: str, label: str) -> list[list[str]]:
    """The cells of every line whose first cell is `label` (cells: 2+ spaces apart)."""
    out = []
    for line in text.splitlines():
        cells = [c for c in line.strip().split("  ") if c]
        if cells and cells[0].strip() == label:
            out.append([c.strip() for c in cells])
    return out


def check_every_figure(text: str, summary: dict[str, Any]) -> None:
    """Each figure of summary.json in its row, whole, in the accuracy and error tables."""
    categories = [str(c) for c in CATEGORY_ORDER if str(c) in summary]
    for cat in categories:
        block = summary[cat]
        (row,) = rows(text, cat)
        assert row == [
            cat,
            str(block["total"]),
            str(block["correct"]),
            pct(block["accuracy"]),
            ci(block),
            exec_cell(block.get("exec")),
        ]
    overall = summary["overall"]
    micro = overall["micro"]
    assert rows(text, "overall (micro)") == [
        [
            "overall (micro)",
            str(micro["total"]),
            str(micro["correct"]),
            pct(micro["accuracy"]),
            ci(micro),
            exec_cell(overall.get("exec")),
        ]
    ]
    assert rows(text, "overall (macro)")[0][3] == pct(overall["macro"]["accuracy"])
    for code in ErrorCode:
        counts = [summary[c]["errors"].get(str(code), 0) for c in categories]
        if code is ErrorCode.REQUEST_ERROR:
            counts = [summary[c]["request_errors"] for c in categories]
        elif not any(counts):
            assert rows(text, str(code)) == []
            continue
        assert rows(text, str(code)) == [[str(code), *map(str, counts), str(sum(counts))]]
    totals = [summary[c]["model_errors"] for c in categories]
    assert rows(text, "model errors") == [["model errors", *map(str, totals), str(sum(totals))]]


@pytest.fixture(scope="module")
def example_run(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, str]:
    """The example outputs scored by `score`, and what `score` printed at 80 columns."""
    out = tmp_path_factory.mktemp("example") / "scored"
    result = CliRunner().invoke(
        main, ["score", str(EXAMPLE), "--out", str(out)], env={"COLUMNS": "80"}
    )
    assert result.exit_code == 0, result.output
    return out, result.stdout


def test_score_prints_a_table_that_fits_80_columns(example_run: tuple[Path, str]) -> None:
    out, stdout = example_run
    table, written = stdout.split("written to ")
    assert_fits(table, 80)
    assert_folded("written to " + written)
    assert " ".join(written.split()) == f"{out}: scores.jsonl, summary.json, report.md, report.html"
    check_every_figure(table, json.loads((out / "summary.json").read_text(encoding="utf-8")))


@pytest.mark.parametrize("width", [80, 100, 140])
def test_every_figure_whole_at_any_common_width(example_run: tuple[Path, str], width: int) -> None:
    out, _ = example_run
    text = printed([load_run(out)], width)
    assert_fits(text, width)
    check_every_figure(text, json.loads((out / "summary.json").read_text(encoding="utf-8")))


def test_a_narrower_screen_gets_narrower_tables_not_cut_figures(
    example_run: tuple[Path, str],
) -> None:
    out, _ = example_run
    summary = json.loads((out / "summary.json").read_text(encoding="utf-8"))
    text = printed([load_run(out)], 60)
    assert_fits(text, 60)
    simple = summary["simple"]
    # exec accuracy moves to a table of its own; errors are listed one per line
    assert rows(text, "simple")[0] == [
        "simple",
        str(simple["total"]),
        str(simple["correct"]),
        pct(simple["accuracy"]),
        ci(simple),
    ]
    assert ["simple", exec_cell(simple["exec"])] in rows(text, "simple")
    assert ["simple", "parse_error", "2"] in rows(text, "simple")
    assert ["value_error", "1"] in rows(text, "value_error")


def test_usage_figures_fit_80_columns(tmp_path: Path) -> None:
    from tfce_eval.report import Prices

    run = load_run(make_run(tmp_path, "a-run-whose-name-is-rather-long-for-a-column", BASIC))
    text = printed([run], 80, prices=Prices(3.0, 15.0))
    assert_fits(text, 80)
    # 14 items x (1000 in, 200 out); latencies 0.5 .. 13.5 s
    for figure in ("14,000", "2,800", "7.00 s", "12.85 s", "$0.0840"):
        assert figure in text


LONG = "2024-06-01-gpt-4o-mini-function-calling-temperature-0-seed-"


@pytest.mark.parametrize("width", [80, 140])
@pytest.mark.parametrize("count", [2, 3])
def test_runs_are_lettered_and_their_names_never_cut(
    tmp_path: Path, width: int, count: int
) -> None:
    verdicts = [PAIR_A, PAIR_B, BASIC]
    runs = [load_run(make_run(tmp_path, f"{LONG}{i}", verdicts[i])) for i in range(count)]
    text = printed(runs, width)
    assert_fits(text, width)
    lines = text.splitlines()
    for letter, run in zip("ABC", runs, strict=False):
        assert f"{letter} = {run.name}" in lines  # the legend: each name whole, on its line
    # The tables tell the runs apart by letter: each run's simple accuracy under its letter.
    wanted = dict(list({"A": "81.2%", "B": "31.2%", "C": "80.0%"}.items())[:count])
    at = next(i for i, line in enumerate(lines) if line.startswith("simple "))
    block = [[c.strip() for c in line.strip().split("  ") if c] for line in lines[at:]]
    if block[0][1] == "A":  # narrow: one row per run within each category
        for row, (letter, acc) in zip(block, wanted.items(), strict=False):
            assert row[row[0] == "simple" :][:3:2] == [letter, acc], text
    else:  # wide: one column group per run, lettered in the header
        assert list(wanted) in [line.split() for line in lines], text
        assert [c for c in block[0] if c.endswith("%")] == list(wanted.values()), text


def test_two_runs_side_by_side_when_there_is_room(tmp_path: Path) -> None:
    a = load_run(make_run(tmp_path, f"{LONG}a", PAIR_A))
    b = load_run(make_run(tmp_path, f"{LONG}b", PAIR_B))
    text = printed([a, b], 140)
    simple = rows(text, "simple")[0]
    assert simple[:4] == ["simple", "13/16", "81.2%", "[57.0, 93.4]"]
    assert "5/16" in simple and "31.2%" in simple
    assert "Paired comparison of A and B" in text and "0.0386" in text


def test_failures_fold_long_questions_rather_than_cut_them(
    example_run: tuple[Path, str],
) -> None:
    out, _ = example_run
    text = printed([load_run(out)], 80, failures=2)
    assert_fits(text, 80)
    # base_simple_4's question is Chinese without spaces: folded over lines, every character kept
    from tfce_eval.dataset.load import load_dataset

    question = load_dataset().get("base_simple_4").question
    assert isinstance(question, str) and "频段" in question
    block = text.split("base_simple_4")[1].split("expected")[0]
    assert "".join(question.split()) in "".join(block.replace("question", "").split())
