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
    end = start
    for message in messages(text, start):
        if message.recipient is not None or message.channel != "analysis":
            kept.append(text[message.start : message.end])
        end = message.end
    if unread_recipient(text, end) is not None:
        kept.append(text[end:])  # a call cut off before its message: `templates` refuses it
    return "".join(kept)


def answer_start(text: str, places: Places) -> int:
    """Where a Harmony answer begins: its first header in a template's position, when a
    `<|message|>` or a recipient (`to=`) follows it; -1 for text that is not one."""
    head = places.first_of(_HEADS)
    if head is None:
        return -1
    if text.find(MESSAGE, head[0]) < 0 and unread_recipient(text, head[0]) is None:
        return -1
    return head[0]


def unread_recipient(text: str, position: int) -> str | None:
    """The recipient of a header after `position` that no `<|message|>` follows (a call cut
    off before its arguments: `to=functions.f <|constrain|>json` and nothing more), or
    None. From the end of the last message, or from a header with no message at all."""
    found = _TO.search(text, position)
    if found is None or text.find(MESSAGE, found.end()) >= 0:
        return None
    return found.group(1)


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
