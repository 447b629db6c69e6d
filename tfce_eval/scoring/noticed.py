"""What a function-calling score notices about items while it scores them, and says once at
the end as warnings: items even their own ground truth cannot win, and answers cut at the
token limit before any call.

An answer cut at the token limit (`finish_reason` `length`, Anthropic's `max_tokens`) that
holds no call yet is not an answer of zero calls: the model may have been about to call a
function or to decline. It is a `parse_error` ("cut at the token limit"), so that on an
irrelevance item a model cut mid-thought is never credited with declining.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from tfce_eval.model import DecodeResult
from tfce_eval.words import counted, listed

#: The finish reasons that say the answer was cut at the token limit: OpenAI-compatible
#: servers' `length`, Anthropic's `max_tokens` and `model_context_window_exceeded`, the
#: OpenAI Responses API's `max_output_tokens`.
CUT_REASONS = frozenset(
    {"length", "max_tokens", "model_context_window_exceeded", "max_output_tokens"}
)


#: The keys of an outputs line that hold the answer as an object (docs/decoding.md 4.2).
_HOLDERS = ("raw", "result", "message", "response", "output")


def finish_reason(record: Mapping[str, Any]) -> object:
    """Why the model stopped: the line's `finish_reason` (what `run` writes), else what the
    answer kept says, in the shapes the decoder reads (docs/decoding.md 4.2): a message's
    `stop_reason` or `finish_reason`, a completion's first choice, a Responses object's
    `incomplete_details`; for the line itself or the answer object it holds."""
    held = (record.get(key) for key in _HOLDERS)
    for holder in (record, *(h for h in held if isinstance(h, Mapping))):
        for key in ("finish_reason", "stop_reason"):
            if holder.get(key) is not None:
                return holder[key]
        choices = holder.get("choices")
        first = choices[0] if isinstance(choices, list) and choices else None
        if isinstance(first, Mapping) and first.get("finish_reason") is not None:
            return first["finish_reason"]
        details = holder.get("incomplete_details")
        if holder.get("status") == "incomplete" and isinstance(details, Mapping):
            return details.get("reason")
    return None


def cut_before_any_call(record: Mapping[str, Any], decoded: DecodeResult) -> DecodeResult:
    """`decoded`, or a parse error when it holds no call and the answer was cut."""
    if decoded.calls or decoded.calls is None:
        return decoded
    reason = finish_reason(record)
    if not isinstance(reason, str) or reason not in CUT_REASONS:
        return decoded
    return DecodeResult(
        calls=None,
        error=f"the answer was cut at the token limit (finish reason {reason}) before "
        "any call: it neither calls nor declines",
    )


@dataclass
class Noticed:
    """Ids noticed while scoring, in the order scored."""

    #: Items whose own ground truth fails their check (a dataset problem).
    unwinnable: list[str] = field(default_factory=list)
    #: Answers cut at the token limit before any call.
    cut: list[str] = field(default_factory=list)

    def unless_cut(
        self, item_id: str, record: Mapping[str, Any], decoded: DecodeResult
    ) -> DecodeResult:
        """`decoded`, or the parse error of an answer cut before any call (noted)."""
        checked = cut_before_any_call(record, decoded)
        if checked is not decoded:
            self.cut.append(item_id)
        return checked

    def warnings(self) -> list[str]:
        found = []
        if self.unwinnable:
            found.append(
                f"{counted(len(self.unwinnable), 'item', 'items')} cannot be answered right "
                f"under these options ({listed(self.unwinnable)}): the ground truth fails "
                "its own check (a dataset problem, counted against the model as BFCL "
                "counts it); `tfce-eval validate` lists what is wrong in the data"
            )
        if self.cut:
            one = len(self.cut) == 1
            found.append(
                f"{counted(len(self.cut), 'answer was', 'answers were')} cut at the token "
                f"limit before any call and {'counts' if one else 'count'} as "
                f"parse_error ({listed(self.cut)}); a larger --max-tokens lets "
                f"{'it' if one else 'them'} finish"
            )
        return found
