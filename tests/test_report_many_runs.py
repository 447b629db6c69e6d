"""`tfce-eval report` over several runs reads each scores.jsonl once and keeps only what
the report shows; its output is byte for byte what it was when every record was kept.

The expected outputs in fixtures/report_many_runs/ were written by the report as it was
before, from the runs `build_runs` makes; `python tests/test_report_many_runs.py` writes
them again (only when the report is meant to change).
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from tfce_eval import __version__
from tfce_eval.cli.report import report_command
from tfce_eval.model import Category, ErrorCode, ScoreRecord
from tfce_eval.report import load_run
from tfce_eval.scoring.rundir import RunDir, write_json, write_scores
from tfce_eval.scoring.summary import UsageStats, summarize

EXPECTED = Path(__file__).parent / "fixtures" / "report_many_runs"
CATEGORIES = (Category.SIMPLE, Category.MULTIPLE, Category.PARALLEL, Category.IRRELEVANCE)
OUTCOMES = (
    "ok",
    "value_error",
    "ok",
    "type_error",
    "ok",
    "request_error",
    "exec_error",
    "ok",
    "skipped",
    "wrong_count",
)


def _record(category: Category, i: int, outcome: str) -> ScoreRecord:
    """One item's record with the details a score writes: calls, expected, exec."""
    valid = outcome in ("ok", "skipped", "exec_error")
    details: dict[str, Any] = {"expected": [{"name": f"f_{category}", "arguments": {"x": i}}]}
    if outcome != "request_error":
        got = i if valid else i + 1
        details["calls"] = [{"name": f"f_{category}", "arguments": {"x": got}}]
    exec_valid: bool | None = None
    if outcome == "exec_error":
        exec_valid = False
        details["exec"] = {"valid": False, "error_type": "exec_error", "error": "boom"}
    elif outcome == "skipped":
        details["exec"] = {"valid": None, "skipped": "a ground-truth call fails"}
    elif valid and i % 3 == 0:
        exec_valid = True
        details["exec"] = {"valid": True}
    code = None if valid else ErrorCode(outcome)
    return ScoreRecord(
        id=f"{category}_{i:03d}",
        category=category,
        valid=valid,
        error_type=code,
        error=None if valid else f"x: expected {i}, received {i + 1}",
        exec_valid=exec_valid,
        details=details,
    )


def _records(shift: int, count: int) -> list[ScoreRecord]:
    """`count` items a category; `shift` turns the outcomes so runs differ item by item."""
    return [
        _record(category, i, OUTCOMES[(i * 7 + shift + n) % len(OUTCOMES)])
        for n, category in enumerate(CATEGORIES)
        for i in range(count)
    ]


def build_runs(root: Path) -> dict[str, Path]:
    """Runs a, b, c with summaries; d with scores.jsonl only (its summary recomputed)."""
    runs = {}
    for name, shift, count in (("a", 0, 40), ("b", 3, 40), ("c", 5, 40), ("d", 8, 25)):
        files = RunDir(root / name)
        records = _records(shift, count)
        write_scores(files.scores, records)
        # A dataset that is gone: failures say so, naming no path of this machine.
        write_json(files.run_json, {"model": f"m-{name}", "dataset": {"path": "gone"}})
        if name != "d":
            usage = UsageStats()
            for i, _ in enumerate(records):
                usage.add({"prompt_tokens": 900 + i, "completion_tokens": 40}, 0.25 * i)
            write_json(files.summary, summarize(records, usage=usage))
        runs[name] = files.path
    return runs


#: (file the output is kept in, runs, options)
CASES: list[tuple[str, list[str], list[str]]] = [
    ("ab.md", ["a", "b"], ["--format", "md"]),
    ("ab-failures.json", ["a", "b"], ["--format", "json", "--failures", "2"]),
    ("abc.csv", ["a", "b", "c"], ["--format", "csv"]),
    ("abcd.txt", ["a", "b", "c", "d"], ["--format", "table", "-o", "{out}"]),
    ("abcd.json", ["a", "b", "c", "d"], ["--format", "json"]),
    ("abcd-failures.html", ["a", "b", "c", "d"], ["--format", "html", "--failures", "1"]),
    ("d-failures.md", ["d"], ["--format", "md", "--failures", "3"]),
]


def report(runs: list[str], options: list[str]) -> str:
    """What `tfce-eval report` prints (or writes with -o) for `runs`, named as paths
    relative to the working directory (the JSON report shows them as given)."""
    out = "report.out"
    args = runs + [o.format(out=out) for o in options]
    result = CliRunner().invoke(report_command, args)
    assert result.exit_code == 0, result.output
    text = Path(out).read_text(encoding="utf-8") if "-o" in options else result.stdout
    # The HTML page's footer names the version, which is not what these outputs are about.
    return text.replace(f"<footer>tfce-eval {__version__}<", "<footer>tfce-eval VERSION<")


@pytest.mark.parametrize(("kept", "runs", "options"), CASES, ids=[c[0] for c in CASES])
def test_the_report_is_byte_for_byte_as_before(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, kept: str, runs: list[str], options: list[str]
) -> None:
    monkeypatch.chdir(tmp_path)
    build_runs(tmp_path)
    assert report(runs, options) == (EXPECTED / kept).read_text(encoding="utf-8")


def test_the_library_keeps_every_detail_unless_told(tmp_path: Path) -> None:
    runs = build_runs(tmp_path)
    written = _records(0, 40)
    assert load_run(runs["a"]).records == tuple(written)
    slim = load_run(runs["a"], keep_details=1).records
    assert [(r.id, r.valid, r.error_type, r.error, r.exec_valid) for r in slim] == [
        (r.id, r.valid, r.error_type, r.error, r.exec_valid) for r in written
    ]
    # The first failure of each category and kind keeps its calls; no other record does.
    with_calls = [r.id for r in slim if "expected" in r.details]
    assert with_calls == [
        "simple_003",
        "simple_005",
        "multiple_000",
        "multiple_002",
        "parallel_001",
        "parallel_009",
        "irrelevance_000",
        "irrelevance_006",
    ]
    none = load_run(runs["a"], keep_details=0).records
    assert not [r.id for r in none if "calls" in r.details or "expected" in r.details]


def test_figures_recomputed_from_slim_records_are_the_full_ones(tmp_path: Path) -> None:
    runs = build_runs(tmp_path)
    full = load_run(runs["d"]).summary
    # What the summary reads of the details: exec error codes, items the check skipped.
    assert full["simple"]["exec"]["errors"] == {"exec_error": 3}
    assert full["simple"]["exec"]["dataset_problems"] == 3
    assert load_run(runs["d"], keep_details=0).summary == full


def _spoil(path: Path, line: int, edit: Any) -> None:
    lines = path.read_text(encoding="utf-8").splitlines()
    record = json.loads(lines[line - 1])
    edit(record)
    lines[line - 1] = json.dumps(record)
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")


@pytest.mark.parametrize(
    ("edit", "message"),
    [
        (lambda r: r.update(valid="false"), 'field valid is "false" (a string), not true or false'),
        (lambda r: r.update(valid=1), "field valid is 1 (an integer), not true or false"),
        (lambda r: r.update(category=None), "field category is None (null), not a string"),
        (lambda r: r.update(error_type=3), "field error_type is 3 (an integer), not a string"),
        (lambda r: r.update(details=[1]), "field details is [1] (an array), not an object"),
        (lambda r: r.update(exec_valid="no"), 'field exec_valid is "no" (a string), not true or '),
    ],
)
def test_a_mistyped_record_deep_in_a_run_is_named_as_before(
    tmp_path: Path, edit: Any, message: str
) -> None:
    runs = build_runs(tmp_path)
    path = runs["b"] / "scores.jsonl"
    _spoil(path, 137, edit)
    args = [str(runs[r]) for r in "abc"]
    result = CliRunner().invoke(report_command, args)
    assert result.exit_code == 1 and result.stdout == ""
    err = " ".join(line.strip() for line in result.stderr.splitlines())
    assert err.startswith(f"error: {path}, line 137: {message}")
    assert "fix: the file was edited or damaged; score the run again to rewrite it" in err


def test_a_record_missing_an_optional_field_is_read(tmp_path: Path) -> None:
    runs = build_runs(tmp_path)
    path = runs["a"] / "scores.jsonl"
    _spoil(path, 4, lambda r: [r.pop("exec_valid"), r.pop("error"), r.pop("details")])
    record = load_run(runs["a"], keep_details=0).records[3]
    assert (record.exec_valid, record.error, record.details) == (None, None, {})


def _write_expected() -> None:
    """Write the expected outputs from the report as it is now."""
    import os
    import tempfile

    EXPECTED.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory() as scratch:
        root = Path(scratch)
        os.chdir(root)
        build_runs(root)
        for kept, runs, options in CASES:
            (EXPECTED / kept).write_text(report(runs, options), encoding="utf-8")


if __name__ == "__main__":
    sys.exit(_write_expected())
