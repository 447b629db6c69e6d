"""Closed choices given as text by a library caller: parsed once, applied as the enum is.

`ScoreOptions(check="ast")` must score as `CheckMode.AST` does, not run exec while the
summary says "ast"; a wrong word is a UsageError naming the field and the choices.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from decimal import Decimal
from pathlib import Path
from typing import Any

import pytest
from fakeserver import FakeConfig, FakeServer
from smallrun import DATA, config

from tfce_eval.dataset.load import load_dataset
from tfce_eval.errors import UsageError
from tfce_eval.model import Category, OptionalParams, Policy, TaskKind
from tfce_eval.providers import Mode, RequestOptions, ToolChoice
from tfce_eval.qa import load_telco, score_predictions
from tfce_eval.report.document import Document, render_document
from tfce_eval.retrieval import RunForm, read_run
from tfce_eval.run.config import Context, ContextSpec, RunConfig
from tfce_eval.run.retry import RetryPolicy
from tfce_eval.run.runner import run_eval
from tfce_eval.scoring.options import CheckMode, MissingMode, ScoreOptions
from tfce_eval.scoring.score import score_outputs

ROOT = Path(__file__).resolve().parents[1]
EXAMPLES = ROOT / "examples" / "outputs.jsonl"


def verdicts(options: ScoreOptions, out: Path) -> dict[str, Any]:
    result = score_outputs(EXAMPLES, load_dataset(), options, out)
    records = {r.id: (r.valid, r.error_type, r.exec_valid) for r in result.records}
    return {"records": records, "check": result.summary["check"]}


@pytest.mark.parametrize("mode", list(CheckMode))
def test_a_check_given_as_text_scores_as_the_enum_does(mode: CheckMode, tmp_path: Path) -> None:
    as_enum = verdicts(ScoreOptions(check=mode), tmp_path / "enum")
    as_text = verdicts(ScoreOptions(check=str(mode)), tmp_path / "text")  # type: ignore[arg-type]
    assert as_text == as_enum
    assert as_text["check"] == str(mode)
    assert ScoreOptions(check=str(mode)).check is mode  # type: ignore[arg-type]


def test_the_three_checks_differ_on_the_examples(tmp_path: Path) -> None:
    """So that the test above tells them apart: ast runs nothing, exec judges by results."""
    found = [verdicts(ScoreOptions(check=m), tmp_path / str(m))["records"] for m in CheckMode]
    ast, exec_, both = found
    assert all(exec_valid is None for _, _, exec_valid in ast.values())
    assert ast != both and exec_ != both


def test_a_policy_given_as_text_is_applied(tmp_path: Path) -> None:
    options = ScoreOptions(check="ast", policy=Policy(optional_params="any"))  # type: ignore[arg-type]
    assert options.policy.optional_params is OptionalParams.ANY
    strict = verdicts(ScoreOptions(check=CheckMode.AST), tmp_path / "default")
    loose = verdicts(options, tmp_path / "any")
    # base_multiple_5 sends an optional parameter with a value other than its default.
    assert strict["records"]["base_multiple_5"][:2] == (False, "unexpected_param")
    assert loose["records"]["base_multiple_5"][:2] == (True, None)


def test_categories_and_missing_given_as_text(tmp_path: Path) -> None:
    options = ScoreOptions(check="ast", categories={"simple"}, missing="skip")  # type: ignore[arg-type]
    assert options.categories == frozenset({Category.SIMPLE})
    assert options.missing is MissingMode.SKIP
    result = score_outputs(EXAMPLES, load_dataset(), options, tmp_path)
    assert {r.category for r in result.records} == {Category.SIMPLE}
    assert result.summary["missing"]["mode"] == "skip"


@pytest.fixture
def keys(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test-openai")


def test_a_run_mode_given_as_text_sends_prompts(tmp_path: Path, keys: None) -> None:
    with FakeServer(FakeConfig(load_dataset(DATA))) as server:
        base = config(server, tmp_path, ids=("run_simple_0", "run_simple_1"))
        result = run_eval(RunConfig(**{**vars(base), "mode": "prompt"}))
        bodies = [r.body for r in server.log]
    assert bodies and all("tools" not in body for body in bodies)
    assert result.score.summary["run"]["mode"] == "prompt"
    meta = json.loads((result.run_dir / "run.json").read_text(encoding="utf-8"))
    assert meta["mode"] == "prompt"


def test_run_options_given_as_text_are_the_enums() -> None:
    cfg = RunConfig(
        model="openai/m",
        mode="prompt",  # type: ignore[arg-type]
        task="fc",  # type: ignore[arg-type]
        check="exec",  # type: ignore[arg-type]
        categories={"parallel"},  # type: ignore[arg-type]
        request=RequestOptions(tool_choice="required"),  # type: ignore[arg-type]
        policy=Policy(optional_params="forbid"),  # type: ignore[arg-type]
        out="somewhere",  # type: ignore[arg-type]
    )
    qa = RunConfig(model="openai/m", task="qa", context="gold")  # type: ignore[arg-type]
    assert cfg.mode is Mode.PROMPT and cfg.check is CheckMode.EXEC
    assert cfg.categories == frozenset({Category.PARALLEL})
    assert qa.context == ContextSpec(Context.GOLD) and qa.task is TaskKind.QA
    assert cfg.request.tool_choice is ToolChoice.REQUIRED
    assert cfg.policy.optional_params is OptionalParams.FORBID
    assert cfg.out == Path("somewhere")


def test_qa_missing_given_as_text_leaves_items_out(tmp_path: Path) -> None:
    data = load_telco("builtin:telco-qna")
    first = data.items[0]
    preds = tmp_path / "preds.jsonl"
    preds.write_text(json.dumps({"id": first.id, "answer": first.reference}) + "\n")
    skipped = score_predictions(preds, data, out_dir=None, missing="skip")  # type: ignore[arg-type]
    counted = score_predictions(preds, data, out_dir=None, missing=MissingMode.COUNT)
    assert [r.id for r in skipped.records] == [first.id]
    assert len(counted.records) == len(data.items)


def test_a_run_form_given_as_text_reads_the_run(tmp_path: Path) -> None:
    run = tmp_path / "run.txt"
    run.write_text("q1 Q0 d1 1 2.0 bm25\nq1 Q0 d2 2 1.0 bm25\n")
    assert read_run(run, form="trec").form is RunForm.TREC  # type: ignore[arg-type]


WRONG: list[tuple[str, Callable[[], object]]] = [
    ("check", lambda: ScoreOptions(check="fast")),  # type: ignore[arg-type]
    ("missing", lambda: ScoreOptions(missing="drop")),  # type: ignore[arg-type]
    ("categories", lambda: ScoreOptions(categories={"simpel"})),  # type: ignore[arg-type]
    ("optional_params", lambda: Policy(optional_params="some")),  # type: ignore[arg-type]
    ("mode", lambda: RunConfig(model="openai/m", mode="promt")),  # type: ignore[arg-type]
    ("task", lambda: RunConfig(model="openai/m", task="rag")),  # type: ignore[arg-type]
    ("tool_choice", lambda: RequestOptions(tool_choice="any")),  # type: ignore[arg-type]
    ("context", lambda: ContextSpec("wiki")),  # type: ignore[arg-type]
    ("form", lambda: read_run(EXAMPLES, form="csv")),  # type: ignore[arg-type]
    ("fmt", lambda: render_document(Document("t", ()), "pdf")),
]


@pytest.mark.parametrize(("field", "make"), WRONG, ids=[f for f, _ in WRONG])
def test_a_wrong_word_is_a_usage_error_naming_the_field(
    field: str, make: Callable[[], object]
) -> None:
    with pytest.raises(UsageError, match=rf"^{field}: '\w+' is not one of \w+, "):
        make()


def test_a_wrong_report_format_is_a_usage_error(tmp_path: Path) -> None:
    from tfce_eval.report import render
    from tfce_eval.report.runs import load_run

    score_outputs(EXAMPLES, load_dataset(), ScoreOptions(check="ast"), tmp_path)  # type: ignore[arg-type]
    run = load_run(tmp_path)
    assert render([run], "md").startswith("#")  # type: ignore[arg-type]
    with pytest.raises(UsageError, match="fmt: 'pdf' is not one of table, md, json, csv, html"):
        render([run], "pdf")  # type: ignore[arg-type]


BAD_NUMBERS: list[tuple[str, Callable[[], object]]] = [
    ("temperature", lambda: RequestOptions(temperature="hot")),  # type: ignore[arg-type]
    ("temperature", lambda: RequestOptions(temperature=2.5)),
    ("temperature", lambda: RequestOptions(temperature=float("nan"))),
    ("max_tokens", lambda: RequestOptions(max_tokens=-5)),
    ("max_tokens", lambda: RequestOptions(max_tokens=1.5)),  # type: ignore[arg-type]
    ("seed", lambda: RequestOptions(seed="s")),  # type: ignore[arg-type]
    ("max_retries", lambda: RetryPolicy(max_retries=-1)),
    ("base_delay_s", lambda: RetryPolicy(base_delay_s=-0.5)),
    ("concurrency", lambda: RunConfig(model="openai/m", concurrency=0)),
    ("concurrency", lambda: RunConfig(model="openai/m", concurrency="8")),  # type: ignore[arg-type]
    ("concurrency", lambda: RunConfig(model="openai/m", concurrency=True)),
    ("limit", lambda: RunConfig(model="openai/m", limit=0)),
    ("timeout_s", lambda: RunConfig(model="openai/m", timeout_s=0)),
    ("exec_timeout_s", lambda: RunConfig(model="openai/m", exec_timeout_s=-1)),
    ("exec_timeout_s", lambda: RunConfig(model="openai/m", exec_timeout_s=float("inf"))),
    ("exec_timeout_s", lambda: ScoreOptions(exec_timeout_s=float("inf"))),
    ("exec_timeout_s", lambda: ScoreOptions(exec_timeout_s=0.05)),  # --exec-timeout: 0.1
    ("exec_workers", lambda: ScoreOptions(exec_workers=0)),
    ("limit", lambda: RunConfig(model="openai/m", limit=-(10**5000))),
    ("concurrency", lambda: RunConfig(model="openai/m", concurrency=Decimal(3))),  # type: ignore[arg-type]
]


@pytest.mark.parametrize(("field", "make"), BAD_NUMBERS, ids=[f for f, _ in BAD_NUMBERS])
def test_a_number_the_command_line_refuses_is_refused_from_python_too(
    field: str, make: Callable[[], object]
) -> None:
    """A library caller gets what the command line gets: a value outside an option's range
    is a UsageError naming the field, before anything is sent or written."""
    with pytest.raises(
        UsageError, match=rf"^{field}: (.+ is not a (whole|finite) number|give a Python)"
    ):
        make()


def test_numbers_within_the_ranges_are_kept() -> None:
    request = RequestOptions(temperature=None, max_tokens=1, seed=-3)
    assert (request.temperature, request.max_tokens, request.seed) == (None, 1, -3)
    assert RetryPolicy(max_retries=0, base_delay_s=0).max_retries == 0
    cfg = RunConfig(model="openai/m", concurrency=1, limit=1, timeout_s=0.5, exec_timeout_s=2)
    assert (cfg.concurrency, cfg.limit, cfg.timeout_s) == (1, 1, 0.5)


def test_a_number_of_another_type_is_named_and_a_huge_one_is_not_printed() -> None:
    with pytest.raises(UsageError, match=r"^concurrency: give a Python int of at least 1, not Dec"):
        RunConfig(model="openai/m", concurrency=Decimal(3))  # type: ignore[arg-type]
    with pytest.raises(UsageError) as refused:
        RunConfig(model="openai/m", limit=-(10**5000))
    assert str(refused.value) == (
        "limit: it is not a whole number of at least 1 that fits in 64 bits (or None)"
    )
    # An int past a float's range is no timeout; a seed past 64 bits no seed.
    with pytest.raises(UsageError, match=r"^timeout_s: it is not a finite number"):
        RunConfig(model="openai/m", timeout_s=10**400)
    with pytest.raises(UsageError, match=r"^seed: 18446744073709551616 is not a whole number"):
        RequestOptions(seed=2**64)
    assert RequestOptions(seed=2**63 - 1).seed == 2**63 - 1
    with pytest.raises(UsageError, match=r"^exec_timeout_s: 1000000\.0 is not a finite number"):
        ScoreOptions(exec_timeout_s=1e6)  # more than a day: past what the exec pool can wait


@pytest.mark.parametrize("option", ["--exec-timeout", "--price-in"])
@pytest.mark.parametrize("value", ["nan", "inf"])
def test_the_command_line_refuses_numbers_that_are_not_finite(option: str, value: str) -> None:
    from click.testing import CliRunner

    from tfce_eval.cli import main

    verb = "score" if option == "--exec-timeout" else "report"
    result = CliRunner().invoke(main, [verb, str(EXAMPLES), option, value])
    assert result.exit_code == 2 and f"Invalid value for '{option}': " in result.output
    # nan passes click's range check: it is refused as not finite.
    assert value == "inf" or f"'{value}' is not a finite number" in result.output


@pytest.mark.parametrize("option", ["--max-tokens", "--limit", "--concurrency", "--max-retries"])
def test_a_count_past_64_bits_is_refused_by_its_option(option: str) -> None:
    """The command line refuses what its options feed the run's records would refuse, and
    names the option, not the record's field."""
    from click.testing import CliRunner

    from tfce_eval.cli import main

    result = CliRunner().invoke(main, ["run", "--model", "openai/m", option, str(2**64)])
    assert result.exit_code == 2
    said = " ".join(result.output.split())
    assert f"Invalid value for '{option}': {2**64} is not in the range" in said
