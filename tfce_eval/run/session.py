"""The asynchronous part of a run: ask every item once, at most `concurrency` at a time.

Items are streamed from the dataset to worker tasks; each worker asks its item through the
retry layer and hands the finished record to the appender. An item that cannot be answered is
recorded as `request_error` and the run goes on; an error that concerns every item (key,
model, quota, server setup) stops the session at once, as do a refused connection before
any item is answered (no server is running there) and a start where the first items all
fail. A request field the server refuses (temperature, seed, parallel_tool_calls) is
dropped for the rest of the run, the request is sent again, and the reason is recorded.
"""

from __future__ import annotations

import asyncio
import functools
import random
from collections.abc import Iterable
from dataclasses import dataclass, field, replace
from typing import Any

from tfce_eval import stopping
from tfce_eval.providers.base import (
    ErrorKind,
    Provider,
    ProviderError,
    RequestOptions,
    Response,
)
from tfce_eval.qa.predictions import MAX_LINE
from tfce_eval.run.appender import OutputsAppender, encode_line
from tfce_eval.run.asking import Asker
from tfce_eval.run.progress import NullProgress, ProgressSink
from tfce_eval.run.retry import GaveUp, RetryPolicy, with_retries

#: When this many items have finished and every one failed, the rest will too: stop.
EARLY_FAILURES = 5


class SessionStopped(Exception):
    """The session stopped before its items were all asked: the error that concerns them all."""

    def __init__(self, error: ProviderError) -> None:
        super().__init__(error.message)
        self.error = error


@dataclass
class SessionStats:
    asked: int = 0
    answered: int = 0
    request_errors: int = 0
    dropped: dict[str, str] = field(default_factory=dict)


class Session:
    def __init__(
        self,
        provider: Provider,
        asker: Asker,
        options: RequestOptions,
        *,
        concurrency: int,
        retry: RetryPolicy,
        appender: OutputsAppender,
        progress: ProgressSink | None = None,
        dropped: dict[str, str] | None = None,
        rng: random.Random | None = None,
    ) -> None:
        self.provider = provider
        self.asker = asker
        self.requested = options
        self.concurrency = max(1, concurrency)
        self.retry = retry
        self.appender = appender
        self.progress = progress or NullProgress()
        self.stats = SessionStats(dropped=dict(dropped or {}))
        self.rng = rng or random.Random()
        self._options = options.without(set(self.stats.dropped))

    async def run(self, items: Iterable[Any]) -> SessionStats:
        """Ask every item; returns the counts, or raises SessionStopped / CancelledError."""
        work: asyncio.Queue[Any] = asyncio.Queue(maxsize=2 * self.concurrency)
        producer = asyncio.create_task(self._produce(items, work))
        workers = [asyncio.create_task(self._work(work)) for _ in range(self.concurrency)]
        tasks = [producer, *workers]
        try:
            await asyncio.gather(*tasks)
        except BaseException:
            # Stopped, interrupted or failed: abandon the requests in flight.
            for task in tasks:
                task.cancel()
            await asyncio.gather(*tasks, return_exceptions=True)
            raise
        return self.stats

    async def _produce(self, items: Iterable[Any], work: asyncio.Queue[Any]) -> None:
        for item in items:
            await work.put(item)
        for _ in range(self.concurrency):
            await work.put(None)

    async def _work(self, work: asyncio.Queue[Any]) -> None:
        while (item := await work.get()) is not None:
            if stopping.asked() is not None:
                # A stop was heard but its cancellation did not reach this task (some
                # code absorbed it): no more items are asked all the same.
                raise asyncio.CancelledError
            record, line = self._within_line(item, await self.ask(item))
            self.appender.put_line(line)
            failed = record["error"] is not None
            self.stats.request_errors += failed
            self.stats.answered += not failed
            self.progress.advance(failed=failed)
            if failed and not self.stats.answered and self.stats.request_errors >= EARLY_FAILURES:
                raise SessionStopped(self._early_failure(record["error"]))

    def _early_failure(self, last: str) -> ProviderError:
        return ProviderError(
            ErrorKind.FATAL,
            f"the first {self.stats.request_errors} items all failed; the last: {last}",
            hint="fix the cause (server running? model loaded? --base-url?); the failed "
            "items are asked again when the run resumes",
        )

    async def ask(self, item: Any) -> dict[str, Any]:
        """One item's record: its answer, or a request_error. SessionStopped if nothing can be."""
        self.stats.asked += 1
        while True:
            request = self.asker.request(self.provider, item, self._options)
            try:
                response, raw = await with_retries(
                    functools.partial(self._attempt, request),
                    self._classify,
                    self.retry,
                    self.rng,
                )
            except GaveUp as gave_up:
                error = gave_up.error
                if error.kind is ErrorKind.FATAL:
                    raise SessionStopped(error) from None
                if error.param is not None and error.param in request:
                    self._drop(error.param, error.message)
                    continue
                return self.asker.error(item, error, gave_up.attempts)
            return self.asker.answer(item, raw, response)

    def _within_line(self, item: Any, record: dict[str, Any]) -> tuple[dict[str, Any], bytes]:
        """`record` and its line, or a request_error's when the line would be longer than
        `score` reads (an answer within the provider's body bound, escaped to more)."""
        line = encode_line(record)
        size = len(line)
        if size <= MAX_LINE:
            return record, line
        error = ProviderError(
            ErrorKind.ITEM,
            f"response too large: its outputs line would be {size:,} bytes, more than the "
            f"{MAX_LINE:,} that score reads; not retried: check the server, or lower "
            "--max-tokens",
        )
        record = self.asker.error(item, error, 1)
        return record, encode_line(record)

    def _classify(self, exc: BaseException) -> ProviderError:
        error = self.provider.classify(exc)
        if error.refused and not self.stats.answered:
            # Nothing listens at the address and nothing has been answered: the server is
            # not running, and asking the other items (and retrying) would only wait.
            return replace(error, kind=ErrorKind.FATAL)
        return error

    async def _attempt(self, request: dict[str, Any]) -> tuple[Response, dict[str, Any]]:
        response = await self.provider.send(request)
        # A body without a message is a malformed answer: classified and retried like one.
        return response, self.provider.to_decoder_input(response.body)

    def _drop(self, param: str, reason: str) -> None:
        if param in self.stats.dropped:
            return
        self.stats.dropped[param] = reason
        self._options = self.requested.without(set(self.stats.dropped))
        self.progress.message(f"{param} dropped for this run: the server refused it ({reason})")
