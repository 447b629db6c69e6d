"""`tfce-eval score` end to end: CliRunner and a real subprocess, on real files."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from tests.gt_outputs import write_perfect_outputs
from tests.messages import unfold
from tfce_eval.cli import main
from tfce_eval.dataset.load import load_dataset
from tfce_eval.dataset.paths import builtin_data_dir

REPO = Path(__file__).resolve().parents[1]


def run_cli(*args: str) -> Any:
    return CliRunner().invoke(main, list(args), catch_exceptions=False)


def read_scores(path: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]


@pytest.mark.parametrize("shape", ["calls", "tool_calls", "content"])
def test_builtin_ground_truth_scores_100_percent(tmp_path: Path, shape: str) -> None:
    outputs = write_perfect_outputs(load_dataset(), tmp_path / "gt.jsonl", shape=shape)
    result = run_cli("score", str(outputs), "--out", str(tmp_path / "out"))
    assert result.exit_code == 0, result.output
    summary = json.loads((tmp_path / "out" / "summary.json").read_text(encoding="utf-8"))
    assert summary["categories"]
    for cat in summary["categories"]:
        block = summary[cat]
        assert block["accuracy"] == 1.0, (cat, block)
        assert block["errors"] == {}
        if cat != "irrelevance":
            # Every built-in function is implemented, so exec covers every item.
            assert block["exec"]["covered"] == block["total"]
            assert block["exec"]["accuracy"] == 1.0, block["exec"]
    assert summary["overall"]["micro"]["accuracy"] == 1.0
    scores = read_scores(tmp_path / "out" / "scores.jsonl")
    assert len(scores) == len(load_dataset())
    assert all(s["valid"] for s in scores)


def test_scores_are_sorted_by_natural_id_and_complete(tmp_path: Path) -> None:
    dataset = load_dataset()
    outputs = write_perfect_outputs(dataset, tmp_path / "gt.jsonl")
    lines = outputs.read_text(encoding="utf-8").splitlines()
    outputs.write_text("\n".join(reversed(lines)) + "\n", encoding="utf-8")
    assert run_cli("score", str(outputs), "--check", "ast").exit_code == 0
    ids = [s["id"] for s in read_scores(tmp_path / "scores.jsonl")]
    assert ids == dataset.ids()
    assert set(read_scores(tmp_path / "scores.jsonl")[0]) == {
        "id",
        "category",
        "valid",
        "error_type",
        "error",
        "exec_valid",
        "details",
    }


def test_default_out_is_beside_the_outputs_file(tmp_path: Path) -> None:
    outputs = write_perfect_outputs(load_dataset(), tmp_path / "gt.jsonl")
    assert run_cli("score", str(outputs), "--check", "ast").exit_code == 0
    assert (tmp_path / "scores.jsonl").is_file() and (tmp_path / "summary.json").is_file()


def test_json_flag_prints_summary(tmp_path: Path) -> None:
    outputs = write_perfect_outputs(load_dataset(), tmp_path / "gt.jsonl")
    result = run_cli("score", str(outputs), "--json", "--check", "ast")
    assert result.exit_code == 0
    summary = json.loads(result.stdout)
    assert summary["overall"]["micro"]["accuracy"] == 1.0


def test_missing_items_count_as_no_call_or_are_skipped(tmp_path: Path) -> None:
    dataset = load_dataset()
    outputs = write_perfect_outputs(dataset, tmp_path / "gt.jsonl")
    simple = [i for i in dataset.ids() if dataset.category_of(i) == "simple"]
    kept = [
        ln
        for ln in outputs.read_text(encoding="utf-8").splitlines()
        if json.loads(ln)["id"] not in simple[:3]
    ]
    outputs.write_text("\n".join(kept) + "\n", encoding="utf-8")

    result = run_cli("score", str(outputs), "--check", "ast", "--out", str(tmp_path / "a"))
    assert result.exit_code == 0
    assert "3 items have no output" in result.stderr and simple[0] in result.stderr
    summary = json.loads((tmp_path / "a" / "summary.json").read_text(encoding="utf-8"))
    assert summary["simple"]["total"] == len(simple)
    assert summary["simple"]["errors"] == {"no_call": 3}

    result = run_cli(
        "score", str(outputs), "--check", "ast", "--missing", "skip", "--out", str(tmp_path / "b")
    )
    summary = json.loads((tmp_path / "b" / "summary.json").read_text(encoding="utf-8"))
    assert summary["simple"]["total"] == len(simple) - 3
    assert summary["simple"]["accuracy"] == 1.0
    assert summary["missing"]["count"] == 3


def test_category_without_outputs_is_not_applicable(tmp_path: Path) -> None:
    dataset = load_dataset()
    outputs = write_perfect_outputs(dataset, tmp_path / "gt.jsonl")
    kept = [
        ln
        for ln in outputs.read_text(encoding="utf-8").splitlines()
        if dataset.category_of(json.loads(ln)["id"]) != "parallel"
    ]
    outputs.write_text("\n".join(kept) + "\n", encoding="utf-8")
    result = run_cli("score", str(outputs), "--check", "ast")
    assert result.exit_code == 0
    summary = json.loads((tmp_path / "summary.json").read_text(encoding="utf-8"))
    assert summary["parallel"] is None
    assert "parallel" not in summary["categories"]
    assert summary["overall"]["micro"]["accuracy"] == 1.0


def test_category_option_selects(tmp_path: Path) -> None:
    outputs = write_perfect_outputs(load_dataset(), tmp_path / "gt.jsonl")
    result = run_cli("score", str(outputs), "--check", "ast", "--category", "simple,parallel")
    assert result.exit_code == 0
    summary = json.loads((tmp_path / "summary.json").read_text(encoding="utf-8"))
    assert summary["categories"] == ["simple", "parallel"]
    assert run_cli("score", str(outputs), "--category", "nonsense").exit_code == 2


@pytest.mark.parametrize(
    ("content", "expect"),
    [
        (b'{"id": "base_simple_0", "calls": []}\n{"id": oops}\n', ["line 2", "JSON"]),
        (
            b'{"id": "no_such_item", "calls": []}\n',
            ["line 1", "no_such_item", "not in the dataset"],
        ),
        (b'{"calls": []}\n', ["line 1", "no id"]),
        (b'{"id": "base_simple_0", "text": "\xff\xfe"}\n', ["line 1", "UTF-8"]),
        (b'["not", "an", "object"]\n', ["line 1", "object"]),
    ],
    ids=["bad_json", "unknown_id", "no_id", "not_utf8", "not_object"],
)
def test_bad_outputs_exit_1_naming_file_and_line(
    tmp_path: Path, content: bytes, expect: list[str]
) -> None:
    outputs = tmp_path / "bad.jsonl"
    outputs.write_bytes(content)
    result = run_cli("score", str(outputs))
    assert result.exit_code == 1
    assert str(outputs) in result.stderr
    for fragment in expect:
        assert fragment in result.stderr, result.stderr
    assert not (tmp_path / "scores.jsonl").exists()
    assert not (tmp_path / "summary.json").exists()


def test_previous_results_survive_a_failed_score(tmp_path: Path) -> None:
    outputs = write_perfect_outputs(load_dataset(), tmp_path / "gt.jsonl")
    assert run_cli("score", str(outputs), "--check", "ast").exit_code == 0
    before = (tmp_path / "scores.jsonl").read_bytes()
    with outputs.open("a", encoding="utf-8") as fh:
        fh.write('{"id": "ghost", "calls": []}\n')
    assert run_cli("score", str(outputs), "--check", "ast").exit_code == 1
    assert (tmp_path / "scores.jsonl").read_bytes() == before


def test_hostile_output_is_data(tmp_path: Path) -> None:
    marker = tmp_path / "pwned"
    hostile = [
        f"[f(x=__import__('os').system('touch {marker}'))]",
        "[f(x=9**9**9**9)]",
        "[" * 10000 + "]" * 10000,
        "[f(x=" + "[" * 10000 + "]" * 10000 + ")]",
        "x" * 10_000_000,
    ]
    dataset = load_dataset()
    simple = [i for i in dataset.ids() if dataset.category_of(i) == "simple"]
    outputs = tmp_path / "hostile.jsonl"
    with outputs.open("w", encoding="utf-8") as fh:
        for item_id, text in zip(simple, hostile, strict=False):
            fh.write(json.dumps({"id": item_id, "text": text}) + "\n")
    result = run_cli(
        "score", str(outputs), "--check", "ast", "--category", "simple", "--missing", "skip"
    )
    assert result.exit_code == 0, result.output
    scores = {s["id"]: s for s in read_scores(tmp_path / "scores.jsonl")}
    for item_id in simple[:4]:
        assert scores[item_id]["error_type"] == "parse_error", scores[item_id]
    assert scores[simple[4]]["error_type"] in ("parse_error", "no_call")
    assert not marker.exists()


def test_conformance_style_bfcl_dataset(tmp_path: Path) -> None:
    # BFCL style: alternatives per parameter, "" meaning may be omitted.
    root = tmp_path / "data"
    (root / "questions").mkdir(parents=True)
    (root / "possible_answer").mkdir()
    doc = {
        "name": "f",
        "description": "",
        "parameters": {
            "type": "dict",
            "properties": {"x": {"type": "integer"}, "unit": {"type": "string", "default": "m"}},
            "required": ["x"],
        },
    }
    (root / "questions" / "parallel.json").write_text(
        json.dumps(
            {
                "id": "parallel_0",
                "question": [[{"role": "user", "content": "q"}]],
                "function": [doc],
            }
        )
        + "\n",
        encoding="utf-8",
    )
    (root / "possible_answer" / "parallel.json").write_text(
        json.dumps(
            {
                "id": "parallel_0",
                "ground_truth": [
                    {"f": {"x": [1, 2], "unit": ["m", ""]}},
                    {"f": {"x": [1], "unit": ["m", ""]}},
                ],
            }
        )
        + "\n",
        encoding="utf-8",
    )
    outputs = tmp_path / "out.jsonl"
    outputs.write_text(
        json.dumps(
            {
                "id": "parallel_0",
                "calls": [
                    {"name": "f", "arguments": {"x": 1}},
                    {"name": "f", "arguments": {"x": 2}},
                ],
            }
        )
        + "\n",
        encoding="utf-8",
    )
    result = run_cli("score", str(outputs), "--data", str(root))
    assert result.exit_code == 0, result.output
    assert read_scores(tmp_path / "scores.jsonl")[0]["valid"] is True


def _installed_command() -> list[str]:
    script = Path(sys.executable).parent / "tfce-eval"
    if script.exists():
        return [str(script)]
    found = shutil.which("tfce-eval")
    assert found is not None, "the tfce-eval console script is not installed (pip install -e .)"
    return [found]


def test_installed_command_in_a_subprocess(tmp_path: Path) -> None:
    outputs = write_perfect_outputs(load_dataset(), tmp_path / "gt.jsonl", shape="tool_calls")
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    proc = subprocess.run(
        [*_installed_command(), "score", str(outputs), "--check", "ast"],
        capture_output=True,
        text=True,
        cwd=tmp_path,
        env=env,
        timeout=120,
    )
    assert proc.returncode == 0, proc.stderr
    assert "overall" in proc.stdout
    summary = json.loads((tmp_path / "summary.json").read_text(encoding="utf-8"))
    assert summary["overall"]["micro"]["accuracy"] == 1.0

    proc = subprocess.run(
        [sys.executable, "-m", "tfce_eval", "score", str(tmp_path / "nope")],
        capture_output=True,
        text=True,
        cwd=REPO,
        timeout=120,
    )
    # A missing file is bad input: exit 1 with one line naming it, as the README says.
    assert proc.returncode == 1
    message = unfold(proc.stderr)
    assert message.count("\n") == 1 and "nope: no such file" in message
    assert "Traceback" not in proc.stderr


def test_builtin_data_is_found() -> None:
    root = builtin_data_dir()
    assert (root / "questions").is_dir() and (root / "answers").is_dir()
    assert (root / "functions" / "__init__.py").is_file()


def test_records_in_memory_keep_details_only_for_the_first_failures(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import tfce_eval.scoring.score as scoring
    from tfce_eval.scoring.options import ScoreOptions

    monkeypatch.setattr(scoring, "KEEP_DETAILS", 1)
    examples = REPO / "examples" / "outputs.jsonl"
    result = scoring.score_outputs(examples, load_dataset(), ScoreOptions(), tmp_path / "out")
    on_disk = read_scores(tmp_path / "out" / "scores.jsonl")
    assert [r.id for r in result.records] == [r["id"] for r in on_disk]
    failing = [r for r in result.records if not r.valid]
    with_details = [r for r in failing if r.details and "expected" in r.details]
    assert len({r.category for r in failing}) == len(with_details)  # one per category
    ast_failures = [r for r in on_disk if not r["valid"] and not r["error_type"].startswith("exec")]
    assert all("expected" in r["details"] for r in ast_failures)
    # The summary still counts exec errors of records whose details were left out.
    exec_errors = sum(1 for r in on_disk if r["details"].get("exec", {}).get("valid") is False)
    summary = result.summary["overall"]["exec"]
    assert summary["covered"] - summary["correct"] == exec_errors


def test_failing_records_show_both_sides_next_to_the_problems(tmp_path: Path) -> None:
    examples = REPO / "examples" / "outputs.jsonl"
    assert run_cli("score", str(examples), "--check", "ast", "--out", str(tmp_path)).exit_code == 0
    records = {r["id"]: r for r in read_scores(tmp_path / "scores.jsonl")}
    by_code: dict[str, dict[str, Any]] = {}
    for r in records.values():
        if not r["valid"]:
            by_code.setdefault(r["error_type"], r)
    parse = by_code["parse_error"]["details"]
    assert parse["calls"] is None and parse["expected"]
    pairing = by_code["value_error"]["details"]
    assert list(pairing)[:2] == ["expected", "calls"]
    assert {"matching", "unmatched", "problems", "closest_call"} <= set(pairing)
    assert pairing["expected"][0]["name"] == pairing["calls"][pairing["closest_call"]]["name"]
    valid = next(r for r in records.values() if r["valid"])
    assert set(valid["details"]) == {"matching"}


def test_a_bfcl_result_files_token_counts_and_latency_are_read(tmp_path: Path) -> None:
    """BFCL writes {"id", "result", "input_token_count", "output_token_count", "latency"}."""
    perfect = write_perfect_outputs(load_dataset(), tmp_path / "gt.jsonl", shape="calls")
    lines = []
    for n, line in enumerate(perfect.read_text(encoding="utf-8").splitlines()):
        record = json.loads(line)
        result = [{c["name"]: c["arguments"]} for c in record["calls"]]
        lines.append(
            {
                "id": record["id"],
                "result": result,
                "input_token_count": 100 + n,
                "output_token_count": 10,
                "latency": 0.5,
            }
        )
    outputs = tmp_path / "bfcl.jsonl"
    outputs.write_text("".join(json.dumps(r) + "\n" for r in lines), encoding="utf-8")
    result = run_cli("score", str(outputs), "--out", str(tmp_path / "out"), "--json")
    assert result.exit_code == 0, result.output
    overall = json.loads(result.stdout)["overall"]
    assert overall["micro"]["accuracy"] == 1.0
    n = len(lines)
    assert overall["tokens"] == {
        "input": sum(100 + i for i in range(n)),
        "output": 10 * n,
        "total": sum(100 + i for i in range(n)) + 10 * n,
        "items": n,
    }
    assert overall["latency_s"]["median"] == 0.5


@pytest.mark.parametrize("data", [None, "builtin:tfce", "root"])
def test_the_builtin_dataset_is_recorded_by_name(tmp_path: Path, data: str | None) -> None:
    # However it is named (nothing, builtin:tfce, the folder the install keeps it in), a
    # summary names it builtin:tfce: an upgrade or another environment moves the folder.
    outputs = Path(__file__).resolve().parent.parent / "examples" / "outputs.jsonl"
    given = [] if data is None else ["--data", str(builtin_data_dir()) if data == "root" else data]
    result = CliRunner().invoke(main, ["score", str(outputs), *given, "--out", str(tmp_path)])
    assert result.exit_code == 0, result.output
    summary = json.loads((tmp_path / "summary.json").read_text(encoding="utf-8"))
    assert summary["dataset"]["path"] == "builtin:tfce"


def test_a_scores_file_given_as_outputs_is_refused(tmp_path: Path) -> None:
    example = REPO / "examples" / "outputs.jsonl"
    first = tmp_path / "first"
    assert run_cli("score", str(example), "--out", str(first)).exit_code == 0
    kept = (first / "summary.json").read_bytes()
    # With --out (without it, the scores would overwrite themselves: refused already).
    again = tmp_path / "again"
    result = run_cli("score", str(first / "scores.jsonl"), "--out", str(again))
    assert result.exit_code == 1
    said = unfold(result.output)
    assert said.startswith(
        f"error: {first / 'scores.jsonl'}, line 1: this is a line of the scores.jsonl "
        "that `score` writes, not an answer"
    ), said
    assert f"tfce-eval report {first}" in said
    assert not again.exists()
    assert (first / "summary.json").read_bytes() == kept
    # A copy away from its summary.json: no directory to name.
    copy = tmp_path / "copy" / "scores.jsonl"
    copy.parent.mkdir()
    shutil.copy(first / "scores.jsonl", copy)
    said = unfold(run_cli("score", str(copy), "--out", str(again)).output)
    assert "read the scores with `tfce-eval report DIR`, DIR holding its summary.json" in said
    # Outputs merely named scores.jsonl are still scored.
    named = tmp_path / "mine" / "scores.jsonl"
    named.parent.mkdir()
    shutil.copy(example, named)
    result = run_cli("score", str(named), "--out", str(tmp_path / "mine-out"))
    assert result.exit_code == 0, result.output


def test_an_answer_cut_before_any_call_is_a_parse_error_not_a_refusal(tmp_path: Path) -> None:
    thinking = {"type": "thinking", "thinking": "Should I call a function?", "signature": "s"}
    lines = [
        # Cut mid-thought: neither a call nor a refusal, on an irrelevance item too.
        {"id": "base_irrelevance_0", "content": "Let me see whether", "finish_reason": "length"},
        {"id": "base_irrelevance_1", "raw": {"content": [thinking], "stop_reason": "max_tokens"}},
        {"id": "base_simple_0", "content": "<think>The user wants", "finish_reason": "length"},
        # The same, as a whole completion and as an OpenAI Responses object.
        {
            "id": "base_irrelevance_4",
            "result": {"choices": [{"message": {"content": "Hm"}, "finish_reason": "length"}]},
        },
        {
            "id": "base_multiple_0",
            "raw": {
                "object": "response",
                "status": "incomplete",
                "incomplete_details": {"reason": "max_output_tokens"},
                "output": [],
            },
        },
        # Finished without a call: a refusal, as before.
        {"id": "base_irrelevance_2", "content": "No function fits.", "finish_reason": "stop"},
        {"id": "base_irrelevance_3", "content": "No function fits."},
    ]
    outputs = tmp_path / "outputs.jsonl"
    outputs.write_text("".join(json.dumps(x) + "\n" for x in lines), encoding="utf-8")
    result = CliRunner().invoke(
        main, ["score", str(outputs), "--out", str(tmp_path / "s"), "--missing", "skip"]
    )
    assert result.exit_code == 0, result.output
    by_id = {r["id"]: r for r in read_scores(tmp_path / "s" / "scores.jsonl")}
    for item_id, reason in (
        ("base_irrelevance_0", "length"),
        ("base_irrelevance_1", "max_tokens"),
        ("base_simple_0", "length"),
        ("base_irrelevance_4", "length"),
        ("base_multiple_0", "max_output_tokens"),
    ):
        assert by_id[item_id]["valid"] is False
        assert by_id[item_id]["error_type"] == "parse_error"
        assert by_id[item_id]["error"] == (
            f"the answer was cut at the token limit (finish reason {reason}) before any "
            "call: it neither calls nor declines"
        )
    assert by_id["base_irrelevance_2"]["valid"] is True
    assert by_id["base_irrelevance_3"]["valid"] is True
    said = unfold(result.stderr)
    assert (
        "warning: 5 answers were cut at the token limit before any call and count as "
        "parse_error (base_irrelevance_0, base_irrelevance_1, base_irrelevance_4, "
        "base_multiple_0, base_simple_0); a larger --max-tokens lets them finish"
    ) in said


def test_a_call_that_finished_before_the_cut_is_scored(tmp_path: Path) -> None:
    dataset = load_dataset()
    item = next(i for i in dataset.iter_items() if i.id == "base_simple_0")
    gt = tmp_path / "gt.jsonl"
    write_perfect_outputs(dataset, gt, shape="calls")
    line = next(json.loads(x) for x in gt.read_text().splitlines() if item.id in x)
    line["finish_reason"] = "length"
    outputs = tmp_path / "outputs.jsonl"
    outputs.write_text(json.dumps(line) + "\n", encoding="utf-8")
    result = run_cli("score", str(outputs), "--out", str(tmp_path / "s"), "--missing", "skip")
    assert result.exit_code == 0, result.output
    (record,) = read_scores(tmp_path / "s" / "scores.jsonl")
    assert record["valid"] is True


def test_calls_in_openais_parallel_wrapper_are_the_calls_it_wraps(tmp_path: Path) -> None:
    dataset = load_dataset()
    gt = write_perfect_outputs(dataset, tmp_path / "gt.jsonl", shape="calls")
    lines = [json.loads(x) for x in gt.read_text(encoding="utf-8").splitlines()]
    line = next(x for x in lines if x["id"].startswith("base_parallel_") and len(x["calls"]) > 1)
    uses = [
        {"recipient_name": f"functions.{c['name']}", "parameters": c["arguments"]}
        for c in line["calls"]
    ]
    wrapper = {"name": "multi_tool_use.parallel", "arguments": json.dumps({"tool_uses": uses})}
    message = {
        "role": "assistant",
        "content": None,
        "tool_calls": [{"id": "c1", "type": "function", "function": wrapper}],
    }
    as_text = json.dumps({"name": wrapper["name"], "arguments": {"tool_uses": uses}})
    for answer in (
        {"raw": message},  # a tool call of the message
        {"calls": [{**wrapper, "arguments": {"tool_uses": uses}}]},  # a plain call
        {"content": f"<tool_call>{as_text}</tool_call>"},  # text, in a tag
        {"content": as_text},  # text, as JSON
    ):
        outputs = tmp_path / "outputs.jsonl"
        outputs.write_text(json.dumps({"id": line["id"], **answer}) + "\n", encoding="utf-8")
        out = tmp_path / "s"
        result = run_cli("score", str(outputs), "--out", str(out), "--missing", "skip")
        assert result.exit_code == 0, result.output
        (record,) = read_scores(out / "scores.jsonl")
        assert record["valid"] is True, (answer, record)
