"""gpt-oss's Harmony messages left in the text (docs/decoding.md 4.3).

`<|start|>assistant<|channel|>commentary to=functions.f <|constrain|>json<|message|>{...}
<|call|>` is a call; the analysis channel is reasoning. The messages are cut in time linear
in the length of the text; `templates` reads the calls from them.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass

from tfce_eval.decode.textparts import Places

MESSAGE = "<|message|>"
CALL = "<|call|>"
#: What begins a Harmony message's header: a bare `<|message|>` is not Harmony.
_HEADS = ("<|start|>", "<|channel|>", "to=functions.")
_END = re.compile(r"<\|(?:end|call|return|start|channel|message)\|>")
_CLOSERS = frozenset({"<|end|>", "<|call|>", "<|return|>"})
_TO = re.compile(r"(?:^|[\s>])to=([^\s<]++)")
_CHANNEL = re.compile(r"<\|channel\|>\s*+(\w*+)")


def drop_analysis(text: str) -> str:
    """A Harmony answer without the messages of its analysis channel, which are reasoning;
    any other text as it is."""
    start = answer_start(text, Places(text)) if "<|" in text else -1
    if start < 0:
        return text
    kept = [text[:start]]
    for message in messages(text, start):
        if message.recipient is not None or message.channel != "analysis":
            kept.append(text[message.start : message.end])
    return "".join(kept)


def answer_start(text: str, places: Places) -> int:
    """Where a Harmony answer begins: its first header in a template's position, when a
    `<|message|>` follows it; -1 for text that is not one."""
    head = places.first_of(_HEADS)
    if head is None or text.find(MESSAGE, head[0]) < 0:
        return -1
    return head[0]


@dataclass(frozen=True)
class Message:
    """One Harmony message: where it starts and ends (its closing token included), its
    recipient and channel, and its body."""

    start: int
    end: int
    recipient: str | None
    channel: str | None
    body: str


def messages(text: str, start: int) -> Iterator[Message]:
    """The messages from `start` on. A message ends at <|end|>, <|call|> or <|return|>;
    <|start|>, <|channel|> and <|message|> begin the next one, so no body holds a
    <|message|>. Each search starts past the last token found: the scan is linear."""
    position = start
    while (opened := text.find(MESSAGE, position)) >= 0:
        header = text[position:opened]
        body_start = opened + len(MESSAGE)
        token = _END.search(text, body_start)
        token_end = token.start() if token else len(text)
        end = token.end() if token and token.group() in _CLOSERS else token_end
        recipient = _TO.search(header)
        channel = _CHANNEL.search(header)
        yield Message(
            position,
            end,
            None if recipient is None else recipient.group(1),
            None if channel is None else channel.group(1),
            text[body_start:token_end],
        )
        if token is None:
            return
        position = end
