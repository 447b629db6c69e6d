"""The one retry layer of a run: which errors are tried again, and how long to wait.

Retryable errors (connection errors, timeouts, malformed bodies, 408, 409, 429 and 5xx, as
the provider classifies them) are tried again up to `max_retries` times. The wait honours the
server's Retry-After (capped); otherwise it is exponential backoff with full jitter, so that
many workers hitting the same limit do not come back in step. Anything else ends the attempt
at once: the SDKs' own retries are off, so nothing retries twice.
"""

from __future__ import annotations

import asyncio
import random
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any, TypeVar

from tfce_eval.errors import check_number
from tfce_eval.providers.base import ErrorKind, ProviderError

T = TypeVar("T")


@dataclass(frozen=True)
class RetryPolicy:
    max_retries: int = 4  # tries after the first one
    base_delay_s: float = 1.0  # the first backoff's ceiling; doubles each retry
    max_delay_s: float = 30.0  # ceiling of any backoff
    max_retry_after_s: float = 60.0  # a longer Retry-After is cut to this

    def __post_init__(self) -> None:
        check_number(self.max_retries, "max_retries", 0, whole=True)
        for name in ("base_delay_s", "max_delay_s", "max_retry_after_s"):
            check_number(getattr(self, name), name, 0)

    def to_json(self) -> dict[str, Any]:
        return {
            "max_retries": self.max_retries,
            "base_delay_s": self.base_delay_s,
            "max_delay_s": self.max_delay_s,
            "max_retry_after_s": self.max_retry_after_s,
        }


def retry_delay(
    policy: RetryPolicy, retry: int, retry_after: float | None, rng: random.Random
) -> float:
    """Seconds to wait before retry number `retry` (1-based)."""
    if retry_after is not None:
        # The server's wait, plus a little jitter so that waiting workers do not return at once.
        return min(retry_after, policy.max_retry_after_s) + rng.uniform(
            0, min(policy.base_delay_s, 1.0)
        )
    ceiling = min(policy.max_delay_s, policy.base_delay_s * 2 ** (retry - 1))
    return rng.uniform(0, ceiling)


class GaveUp(Exception):
    """The request was not answered: the last error, and how many attempts were made."""

    def __init__(self, error: ProviderError, attempts: int) -> None:
        super().__init__(error.message)
        self.error = error
        self.attempts = attempts


async def with_retries(
    attempt: Callable[[], Awaitable[T]],
    classify: Callable[[BaseException], ProviderError],
    policy: RetryPolicy,
    rng: random.Random,
    *,
    sleep: Callable[[float], Awaitable[Any]] = asyncio.sleep,
) -> T:
    """Run `attempt` until it succeeds; GaveUp with the last error when it should not go on."""
    retries = 0
    while True:
        try:
            return await attempt()
        except asyncio.CancelledError:
            raise
        except Exception as exc:  # `classify` (the provider's) words every failure of a send
            error = classify(exc)
        if error.kind is not ErrorKind.RETRYABLE or retries >= policy.max_retries:
            raise GaveUp(error, retries + 1)
        retries += 1
        await sleep(retry_delay(policy, retries, error.retry_after, rng))
