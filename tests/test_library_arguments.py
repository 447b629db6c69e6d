"""What a program gives the commands' core functions is checked before anything is asked
or written: the wrong type of argument is one UsageError naming it, never a TypeError
from deep inside; a field for another task's datasets is refused, as the command line
refuses the option; a path that cannot serve is said before the model is asked."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.fakeserver import FakeConfig, FakeServer
from tfce_eval.dataset.load import load_dataset
from tfce_eval.errors import DataError, UsageError
from tfce_eval.run import RunConfig
from tfce_eval.verbs.report import report_runs
from tfce_eval.verbs.run import run_model
from tfce_eval.verbs.score import score_files
from tfce_eval.verbs.settings import ScoreSettings, ValidateSettings
from tfce_eval.verbs.validate import validate_data

REPO = Path(__file__).resolve().parent.parent
OUTPUTS = REPO / "examples" / "outputs.jsonl"


@pytest.fixture
def server(monkeypatch: pytest.MonkeyPatch) -> Iterator[FakeServer]:
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test")
    with FakeServer(FakeConfig(load_dataset(None))) as running:
        yield running


def _made(root: Path) -> list[str]:
    return sorted(str(p.relative_to(root)) for p in root.rglob("*"))


@pytest.mark.parametrize(
    ("make", "message"),
    [
        (lambda: ScoreSettings(functions_dir=5), r"^functions_dir: give a path"),  # type: ignore[arg-type]
        (lambda: ScoreSettings(qrels=5), r"^qrels: give a path"),  # type: ignore[arg-type]
        (lambda: ScoreSettings(run_file=[1]), r"^run_file: give a path"),  # type: ignore[arg-type]
        (lambda: ScoreSettings(judge=5), r"^judge: give text"),  # type: ignore[arg-type]
        (lambda: ScoreSettings(split=5), r"^split: give text"),  # type: ignore[arg-type]
        (lambda: ValidateSettings(functions_dir=5), r"^functions_dir: give a path"),  # type: ignore[arg-type]
        (lambda: ValidateSettings(split=["set_24"]), r"^split: give text"),  # type: ignore[arg-type]
        (lambda: ValidateSettings(exec_checks="no"), r"^exec_checks: give True or False"),  # type: ignore[arg-type]
        (lambda: RunConfig(model=5), r"^model: give text, not 5"),  # type: ignore[arg-type]
        (lambda: RunConfig(model="vllm/m", out=5), r"^out: give a path"),  # type: ignore[arg-type]
        (lambda: RunConfig(model="vllm/m", base_url=5), r"^base_url: give text"),  # type: ignore[arg-type]
        (lambda: RunConfig(model="vllm/m", ids=[5]), r"^ids: give ids as text"),  # type: ignore[list-item]
        (lambda: RunConfig(model="vllm/m", force="no"), r"^force: give True or False"),  # type: ignore[arg-type]
    ],
)
def test_a_record_given_the_wrong_type_names_the_field(
    make: Callable[[], object], message: str
) -> None:
    with pytest.raises(UsageError, match=message):
        make()


def test_a_run_config_refuses_the_fields_of_another_tasks_datasets() -> None:
    with pytest.raises(UsageError) as fc:
        RunConfig(model="vllm/m", split="x", context="bm25", judge="openai/j")
    assert str(fc.value) == (
        "split, context and judge are for question-answering datasets; builtin:tfce is a "
        "function-calling dataset"
    )
    with pytest.raises(UsageError) as qa:
        RunConfig(model="vllm/m", data="builtin:telco-qna", check="ast", categories={"simple"})
    assert str(qa.value) == (
        "categories and check are for function-calling datasets; builtin:telco-qna is a "
        "question-answering dataset"
    )
    # Given empty, as the command line passes an option given empty: not given.
    assert RunConfig(model="vllm/m", split="", judge="").split is None
    assert ScoreSettings(split="", corpus="", judge="").split is None
    from tfce_eval.retrieval import load_retrieval

    assert load_retrieval("builtin:qasper-rag", split="").split == "test"  # the default
    assert RunConfig(model="vllm/m", out="").out == Path("results")
    with pytest.raises(UsageError, match=r"^out: give the directory runs go into, not None"):
        RunConfig(model="vllm/m", out=None)  # type: ignore[arg-type]
    with pytest.raises(UsageError, match=r"; x\.json is a function-calling dataset$"):
        RunConfig(model="vllm/m", questions=["x.json"], split="dev")
    assert RunConfig(model="vllm/m", categories=[]).categories is None  # all


@pytest.mark.parametrize("wrong", ["config", "progress"])
def test_run_model_refuses_what_is_no_config_or_progress_before_writing(
    server: FakeServer, tmp_path: Path, wrong: str
) -> None:
    config = RunConfig(model="vllm/m", base_url=server.base_url, out=tmp_path / "o", limit=1)
    args: dict[str, Any] = {"config": None} if wrong == "config" else {"progress": 5}
    with pytest.raises(UsageError, match=f"^{wrong}: give a run."):
        run_model(args.get("config", config), progress=args.get("progress"))
    assert not server.log and _made(tmp_path) == []


def test_a_run_with_no_functions_package_stops_before_asking(
    server: FakeServer, tmp_path: Path
) -> None:
    missing = tmp_path / "nowhere"
    config = RunConfig(
        model="vllm/m", base_url=server.base_url, out=tmp_path / "o", functions_dir=missing
    )
    with pytest.raises(DataError, match="no functions package here"):
        run_model(config)
    assert not server.log and _made(tmp_path) == []


def test_validate_says_a_functions_dir_that_is_not_there(tmp_path: Path) -> None:
    with pytest.raises(UsageError, match=r"^functions_dir: .*nowhere is not a directory"):
        validate_data(None, ValidateSettings(functions_dir=tmp_path / "nowhere"))
    (tmp_path / "empty").mkdir()  # no functions package in it, as run and score say
    with pytest.raises(DataError, match=r"(?s)empty: no functions package here.*--no-exec"):
        validate_data(None, ValidateSettings(functions_dir=tmp_path / "empty"))
    # Not asked to check against implementations: nothing to say about them.
    unchecked = ValidateSettings(functions_dir=tmp_path / "nowhere", exec_checks=False)
    assert validate_data(None, unchecked).errors == ()


def test_score_files_and_report_runs_check_their_own_arguments(tmp_path: Path) -> None:
    with pytest.raises(UsageError, match=r"^out_dir: give a path"):
        score_files([OUTPUTS], None, None, 5)  # type: ignore[arg-type]
    assert _made(tmp_path) == []
    scored = score_files([OUTPUTS], None, ScoreSettings(categories=[]), tmp_path / "s")
    every = score_files([OUTPUTS], None, None, tmp_path / "all")
    assert scored.summary["overall"] == every.summary["overall"]  # none given: all
    with pytest.raises(UsageError, match=r"^on_note: give a function"):
        report_runs([tmp_path / "s"], on_note=5)  # type: ignore[arg-type]


def test_the_async_run_is_named_at_the_top() -> None:
    import tfce_eval
    from tfce_eval.verbs.run import run_model_async

    assert tfce_eval.run_model_async is run_model_async
    assert "run_model_async" in tfce_eval.__all__


def test_a_qa_score_in_a_running_loop_is_awaited_with_the_same_files(tmp_path: Path) -> None:
    import asyncio
    import json

    from tfce_eval.qa import load_telco
    from tfce_eval.verbs.score import score_files_async

    data = load_telco("builtin:telco-qna")
    preds = tmp_path / "preds.jsonl"
    lines = [json.dumps({"id": item.id, "answer": item.reference}) for item in data.items]
    preds.write_text("\n".join(lines) + "\n", encoding="utf-8")

    async def in_a_notebook() -> tuple[object, object]:
        with pytest.raises(UsageError, match=r"^score_files\(\) .* `await score_files_async"):
            score_files([preds], "builtin:telco-qna", out_dir=tmp_path / "sync")
        assert not (tmp_path / "sync").exists()  # refused before anything was written
        return await score_files_async([preds], "builtin:telco-qna", out_dir=tmp_path / "a")

    awaited = asyncio.run(in_a_notebook())
    called = score_files([preds], "builtin:telco-qna", out_dir=tmp_path / "b")
    assert awaited.summary == called.summary  # type: ignore[attr-defined]
    a, b = (tmp_path / d for d in "ab")
    assert (a / "scores.jsonl").read_bytes() == (b / "scores.jsonl").read_bytes()
    # The reports differ only where they name their directory (title, first line).
    shown = [(d / "report.md").read_text().splitlines()[3:] for d in (a, b)]
    assert shown[0] == shown[1] and (a / "report.html").is_file()


@pytest.mark.parametrize("verb", ["score", "validate"])
def test_a_split_given_empty_is_the_default_split(tmp_path: Path, verb: str) -> None:
    from click.testing import CliRunner

    from tfce_eval.cli import main

    args = ["--data", "builtin:qasper-rag", "--split", ""]
    if verb == "score":
        args = ["dataset", *args, "--out", str(tmp_path / "s")]
    done = CliRunner().invoke(main, [verb, *args])
    assert done.exit_code == 0, done.output
