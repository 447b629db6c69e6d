"""What a run is given: the task as a TaskKind and --context parsed once into a ContextSpec."""

from __future__ import annotations

from pathlib import Path

import pytest

from tfce_eval.errors import UsageError
from tfce_eval.run.config import Context, ContextSpec, RunConfig
from tfce_eval.run.runner import run_directory
from tfce_eval.tasks import TaskKind


def test_a_config_is_a_function_calling_run_without_context_by_default() -> None:
    config = RunConfig(model="openai/m")
    assert config.task is TaskKind.FC
    assert config.context == ContextSpec(Context.NONE)
    assert run_directory(config) == Path("results") / "openai-m-fc"


@pytest.mark.parametrize("context", ["none", "gold", "bm25", "run"])
def test_a_qa_run_is_named_by_its_task_and_context_kind(context: str, tmp_path: Path) -> None:
    text = context
    if context == "run":
        run_file = tmp_path / "ranked.trec"
        run_file.write_text("q1 Q0 d1 1 1.0 t\n")
        text = f"run:{run_file}"
    spec = ContextSpec.parse(text, 3)
    assert spec.kind is Context(context) and spec.k == 3
    config = RunConfig(model="openai/m", task=TaskKind.QA, context=spec)
    assert run_directory(config).name == f"openai-m-fc-qa-{context}"


def test_a_context_is_refused_when_it_names_nothing_known(tmp_path: Path) -> None:
    with pytest.raises(UsageError, match="choose none, gold, bm25 or run:FILE"):
        ContextSpec.parse("wiki", 5)
    with pytest.raises(UsageError, match="no such run file"):
        ContextSpec.parse(f"run:{tmp_path / 'absent.trec'}", 5)


def test_a_context_records_k_only_when_chunks_are_retrieved(tmp_path: Path) -> None:
    assert ContextSpec.parse("gold", 7).to_json() == {
        "context": "gold",
        "k": None,
        "run_file": None,
    }
    assert ContextSpec.parse("bm25", 7).to_json() == {
        "context": "bm25",
        "k": 7,
        "run_file": None,
    }


def test_the_task_may_be_named_as_the_command_line_names_it() -> None:
    assert RunConfig(model="openai/m", task="qa").task is TaskKind.QA  # type: ignore[arg-type]
    with pytest.raises(UsageError, match="task: 'q' is not one of fc, qa, retrieval"):
        RunConfig(model="openai/m", task="q")  # type: ignore[arg-type]


def test_a_retrieval_dataset_without_answers_is_not_run(tmp_path: Path) -> None:
    from click.testing import CliRunner

    from tfce_eval.cli import main

    # ConditionalQA has queries but no answers: nothing to ask a model, and no option of
    # the user's to blame ("check --ids and --limit" was said before).
    result = CliRunner().invoke(
        main,
        ["run", "--data", "builtin:conditionalqa", "--model", "openai/m", "--out", str(tmp_path)],
    )
    assert result.exit_code == 2
    said = " ".join(result.output.split())
    assert "a retrieval dataset without answers" in said and "tfce-eval retrieve" in said
    assert "--limit" not in said and list(tmp_path.iterdir()) == []
