"""The judge of open answers retries as a run's requests do (run.retry.with_retries)."""

from __future__ import annotations

import asyncio
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import pytest

from tfce_eval.providers.base import ErrorKind, ProviderError, Response, Usage
from tfce_eval.qa import AnswerType, QaItem
from tfce_eval.run.judge import JudgeFailed, ProviderJudge
from tfce_eval.run.retry import RetryPolicy

ITEM = QaItem("o1", "What does the AMF manage?", AnswerType.OPEN, "registration")
QUICK = RetryPolicy(max_retries=2, base_delay_s=0.001, max_delay_s=0.001)


class Flaky:
    """A provider whose first sends fail with the errors given, then answer "C"."""

    def __init__(self, *failures: ErrorKind) -> None:
        self.failures = list(failures)
        self.sent = 0

    def build_chat(self, messages: Any, options: Any, **_: Any) -> dict[str, Any]:
        return {"messages": messages}

    async def send(self, request: Mapping[str, Any]) -> Response:
        self.sent += 1
        if self.failures:
            raise RuntimeError(self.failures.pop(0))
        return Response({"content": "C"}, Usage(), 0.0)

    def classify(self, exc: BaseException) -> ProviderError:
        return ProviderError(ErrorKind(str(exc)), f"failed: {exc}")

    def to_decoder_input(self, body: Mapping[str, Any]) -> Mapping[str, Any]:
        return body


def grade(provider: Flaky) -> str:
    judge = ProviderJudge(provider, "judge/m", retry=QUICK)  # type: ignore[arg-type]
    return asyncio.run(judge.grade(ITEM, "it manages registration"))


def test_retryable_failures_are_tried_again_until_the_judge_answers() -> None:
    provider = Flaky(ErrorKind.RETRYABLE, ErrorKind.RETRYABLE)
    assert grade(provider) == "C"
    assert provider.sent == 3


def test_the_judge_fails_once_its_retries_are_spent() -> None:
    provider = Flaky(ErrorKind.RETRYABLE, ErrorKind.RETRYABLE, ErrorKind.RETRYABLE)
    with pytest.raises(JudgeFailed, match="failed: retryable"):
        grade(provider)
    assert provider.sent == 3  # the first try and max_retries more


def test_an_error_that_is_not_retryable_fails_at_once() -> None:
    provider = Flaky(ErrorKind.ITEM)
    with pytest.raises(JudgeFailed, match="failed: item"):
        grade(provider)
    assert provider.sent == 1


@pytest.mark.parametrize(
    ("judge", "said"),
    [("nonsense", "write it as provider/name"), ("bogus/x", "unknown provider 'bogus'")],
)
def test_a_judge_written_wrong_is_named_as_the_judge(judge: str, said: str, tmp_path: Path) -> None:
    from click.testing import CliRunner

    from tfce_eval.cli import main

    predictions = tmp_path / "p.jsonl"
    predictions.write_text('{"id": "x", "response": "ANSWER: A"}\n', encoding="utf-8")
    result = CliRunner().invoke(
        main,
        ["score", str(predictions), "--data", "builtin:telco-qna", "--judge", judge],
    )
    text = " ".join(result.output.split())
    assert result.exit_code == 2, result.output
    assert f"error: --judge '{judge}': {said}" in text and "--model" not in text
