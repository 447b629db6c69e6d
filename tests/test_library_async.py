"""The library inside a running event loop (Jupyter, an async application).

The entry points that run a loop of their own refuse at once with a UsageError naming
the async one to await, before writing anything; the async ones run in the caller's loop.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

import pytest
from fakeserver import FakeConfig, FakeServer, qa_items
from smallrun import DATA, config

from tfce_eval.dataset.load import load_dataset
from tfce_eval.errors import UsageError
from tfce_eval.qa import (
    load_telco,
    read_predictions,
    score_outputs,
    score_outputs_async,
    score_predictions,
    score_predictions_async,
)
from tfce_eval.run.config import RunConfig
from tfce_eval.run.runner import run_eval, run_eval_async
from tfce_eval.tasks import builtin

TELCO = builtin("telco-qna").path / "set_24.json"


@pytest.fixture(autouse=True)
def keys(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test-openai")


def in_loop(call: Callable[[], Any]) -> Any:
    """`call()` made from inside a running event loop, as a notebook cell makes it."""

    async def main() -> Any:
        return call()

    return asyncio.run(main())


def test_run_eval_in_a_loop_says_to_await_and_writes_nothing(tmp_path: Path) -> None:
    with FakeServer(FakeConfig(load_dataset(DATA))) as server:
        with pytest.raises(UsageError, match=r"await run_eval_async\(\.\.\.\)"):
            in_loop(lambda: run_eval(config(server, tmp_path)))
        assert not server.log
    assert list(tmp_path.iterdir()) == []


def test_run_eval_async_runs_in_the_callers_loop(tmp_path: Path) -> None:
    with FakeServer(FakeConfig(load_dataset(DATA))) as server:
        result = asyncio.run(run_eval_async(config(server, tmp_path)))
        again = asyncio.run(run_eval_async(config(server, tmp_path)))
    assert result.score.summary["overall"]["micro"]["accuracy"] == 1.0
    assert result.asked == result.selected and result.request_errors == 0
    meta = json.loads((result.run_dir / "run.json").read_text(encoding="utf-8"))
    assert meta["status"] == "finished"
    assert (again.asked, again.resumed) == (0, result.selected)


def test_a_cancelled_async_run_is_saved_as_interrupted_and_resumes(tmp_path: Path) -> None:
    with FakeServer(FakeConfig(load_dataset(DATA), latency_s=0.2)) as server:
        cfg = config(server, tmp_path, concurrency=1)

        async def cancel_soon() -> None:
            task = asyncio.create_task(run_eval_async(cfg))
            await asyncio.sleep(0.7)
            task.cancel()
            await task

        with pytest.raises(asyncio.CancelledError):
            asyncio.run(cancel_soon())
        (run_dir,) = tmp_path.iterdir()
        meta = json.loads((run_dir / "run.json").read_text(encoding="utf-8"))
        assert meta["status"] == "interrupted"
        kept = (run_dir / "outputs.jsonl").read_text(encoding="utf-8").splitlines()
        assert 0 < len(kept) < len(load_dataset(DATA))
        result = asyncio.run(run_eval_async(cfg))
    assert result.resumed == len(kept) and result.request_errors == 0


def test_a_qa_run_in_the_callers_loop_asks_the_judge_there(tmp_path: Path) -> None:
    fake = FakeConfig(load_dataset(None), qa=qa_items(TELCO), judge_grade="P")
    with FakeServer(fake) as server:
        cfg = RunConfig(
            model="vllm/qa-model",
            data="builtin:telco-qna",  # type: ignore[arg-type]
            base_url=server.base_url,
            out=tmp_path,
            judge="vllm/judge",
            judge_base_url=server.base_url,
        )
        with pytest.raises(UsageError, match="run_eval_async"):
            in_loop(lambda: run_eval(cfg))
        assert list(tmp_path.iterdir()) == []
        result = asyncio.run(run_eval_async(cfg))
    answers = result.score.summary["answer_types"]
    assert answers["mc"]["accuracy"] == 1.0 and answers["open"]["mean"] == 0.5


def write_predictions(tmp_path: Path) -> Path:
    data = load_telco(TELCO)
    path = tmp_path / "preds.jsonl"
    path.write_text(
        "".join(json.dumps({"id": i.id, "answer": i.reference}) + "\n" for i in data.items)
    )
    return path


@pytest.mark.parametrize(
    ("name", "call"),
    [
        ("score_predictions_async", lambda p, d, o: score_predictions(p, d, out_dir=o)),
        (
            "score_outputs_async",
            lambda p, d, o: score_outputs(
                read_predictions(p, {i.id for i in d.items}).outputs, d, out_dir=o
            ),
        ),
    ],
)
def test_qa_scoring_in_a_loop_says_to_await(
    tmp_path: Path, name: str, call: Callable[[Path, Any, Path], Any]
) -> None:
    preds = write_predictions(tmp_path)
    out = tmp_path / "scored"
    with pytest.raises(UsageError, match=rf"await {name}\(\.\.\.\)"):
        in_loop(lambda: call(preds, load_telco(TELCO), out))
    assert not out.exists()


@pytest.mark.parametrize("score", [score_predictions_async, None])
def test_qa_scoring_awaited_in_the_loop(
    tmp_path: Path, score: Callable[..., Awaitable[Any]] | None
) -> None:
    preds = write_predictions(tmp_path)
    data = load_telco(TELCO)

    async def main() -> Any:
        if score is not None:
            return await score(preds, data, out_dir=tmp_path / "scored")
        outputs = read_predictions(preds, {i.id for i in data.items}).outputs
        return await score_outputs_async(outputs, data, out_dir=tmp_path / "scored")

    result = asyncio.run(main())
    assert result.summary["answer_types"]["mc"]["accuracy"] == 1.0
    assert (tmp_path / "scored" / "summary.json").is_file()
