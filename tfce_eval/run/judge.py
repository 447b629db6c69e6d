"""The LLM judge of open answers, asked through the same provider layer as the model.

`ProviderJudge` implements `qa.Judge`: it sends the judge prompt as one user message (no
tools, temperature 0), retries what the provider classifies as retryable with the run's
backoff, and returns the judge's raw text. Any failure raises; the QA scorer records the
item as `ungraded` with the reason and never stops. A judge whose base URL or key cannot
work is refused when it is made, before anything is asked (`judge_for`).
"""

from __future__ import annotations

import asyncio
import random

from tfce_eval.errors import UsageError
from tfce_eval.providers import Provider, RequestOptions
from tfce_eval.providers.base import Response, message_text
from tfce_eval.providers.registry import make_provider
from tfce_eval.qa import QaItem, judge_prompt
from tfce_eval.run.retry import GaveUp, RetryPolicy, with_retries


class JudgeFailed(Exception):
    """The judge could not be asked (its error, already free of keys)."""


class ProviderJudge:
    """A judge model behind a provider; `name` is what summary.json records."""

    def __init__(
        self,
        provider: Provider,
        name: str,
        *,
        timeout_s: float = 60.0,
        retry: RetryPolicy | None = None,
        max_tokens: int = 512,
    ) -> None:
        self.provider = provider
        self.name = name
        self.timeout_s = timeout_s
        self.retry = retry or RetryPolicy()
        self.options = RequestOptions(temperature=0.0, max_tokens=max_tokens)
        self._rng = random.Random(0)

    @property
    def base_url(self) -> str:
        """The judge's base URL as it is recorded and shown (its credentials hidden)."""
        return self.provider.base_url

    async def grade(self, item: QaItem, response: str) -> str:
        body = self.provider.build_chat(
            [{"role": "user", "content": judge_prompt(item, response)}], self.options
        )

        async def send() -> Response:
            return await asyncio.wait_for(self.provider.send(body), self.timeout_s)

        try:
            reply = await with_retries(send, self.provider.classify, self.retry, self._rng)
        except GaveUp as gave_up:
            raise JudgeFailed(gave_up.error.message) from None
        return message_text(self.provider.to_decoder_input(reply.body))


def judge_for(
    name: str,
    base_url: str | None = None,
    *,
    timeout_s: float = 60.0,
    retry: RetryPolicy | None = None,
) -> ProviderJudge:
    """The judge `--judge NAME` names, at `--judge-base-url` when given. UsageError, before
    anything is asked, when that URL or the judge's key cannot work."""
    provider = make_provider(
        name,
        base_url=base_url,
        timeout_s=timeout_s,
        url_option="--judge-base-url",
        model_option="--judge",
    )
    problem = provider.key_problem()
    if problem is not None:
        raise UsageError(f"--judge {name}: {problem}")
    return ProviderJudge(provider, name, timeout_s=timeout_s, retry=retry)
