"""What a run asks of one item and what it keeps: the seam between a task and the session.

The session (retries, concurrency, the appender, progress) is the same for every task; an
`Asker` says how one item becomes a request and how an answer, or a request that could not
be made, becomes its outputs.jsonl line. Function calling's asker is `FcAsker`; question
answering's is in `run.qa`.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Protocol

from tfce_eval.decode.answer import decode_output
from tfce_eval.model import Item
from tfce_eval.providers.base import Mode, Provider, ProviderError, RequestOptions, Response
from tfce_eval.schema.wire import name_map


class Asker(Protocol):
    """How one item of a task is asked and recorded (every record has "id" and "error")."""

    def request(self, provider: Provider, item: Any, options: RequestOptions) -> dict[str, Any]:
        """The exact request body for `item`. Pure."""
        ...

    def answer(self, item: Any, raw: dict[str, Any], response: Response) -> dict[str, Any]:
        """The outputs line of an answered item."""
        ...

    def error(self, item: Any, error: ProviderError, attempts: int) -> dict[str, Any]:
        """The outputs line of an item that could not be asked: a request_error."""
        ...


def tries(attempts: int) -> str:
    return f" (after {attempts} attempts)" if attempts > 1 else ""


@dataclass(frozen=True, slots=True)
class FcAsker:
    """Function calling: the item's functions as tools (fc mode) or in the prompt."""

    mode: Mode

    def request(self, provider: Provider, item: Item, options: RequestOptions) -> dict[str, Any]:
        return provider.build_request(item, options, self.mode)

    def answer(self, item: Item, raw: dict[str, Any], response: Response) -> dict[str, Any]:
        """The outputs.jsonl line of an answered item (docs/files.md 8.2)."""
        decoded = decode_output(raw, name_map=name_map(item.functions), item_id=item.id)
        return {
            "id": item.id,
            "category": str(item.category),
            "raw": raw,
            "calls": None if decoded.calls is None else [c.to_json() for c in decoded.calls],
            "error": None,
            "usage": response.usage.to_json(),
            "latency_s": round(response.latency_s, 4),
            "finish_reason": response.finish_reason,
        }

    def error(self, item: Item, error: ProviderError, attempts: int) -> dict[str, Any]:
        return {
            "id": item.id,
            "category": str(item.category),
            "raw": None,
            "calls": None,
            "error": error.message + tries(attempts),
            "usage": None,
            "latency_s": None,
            "finish_reason": None,
        }
