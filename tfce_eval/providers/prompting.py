"""The text a model is given, whichever SDK carries it: chat messages and the prompt-mode prompt.

A question is a string (one user message) or BFCL's list of turns, each a list of chat
messages, which is flattened in order. In prompt mode the function docs go in a system
prompt as JSON and the answer is asked for in Python call syntax, which the shared decoder
reads back.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from typing import Any

from tfce_eval.model import FunctionDoc, Item

PROMPT_INSTRUCTIONS = """\
You are given a question and a set of functions, listed below as JSON. Answer the question \
by calling the functions.

Reply with the function calls only, in Python call syntax, as one list:
[func_name1(param_name1=value1, param_name2=value2), func_name2(param_name=value)]

- Use keyword arguments and literal values only: strings in quotes, numbers, True/False/None, \
lists and dicts.
- Call a function once for each result the question asks for; calls may repeat a function.
- Leave out optional parameters the question does not determine.
- Write nothing else: no explanation, no code fence.
- If none of the functions can answer the question, reply with [].

Functions:
"""


def plain(value: Any) -> Any:
    """A JSON-ready copy: mappings become dicts and tuples lists, recursively."""
    if isinstance(value, Mapping):
        return {str(k): plain(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [plain(v) for v in value]
    return value


def unique_docs(docs: Sequence[FunctionDoc]) -> list[FunctionDoc]:
    """Docs in order, a repeated name kept once (as the wire tools are)."""
    seen: set[str] = set()
    out: list[FunctionDoc] = []
    for doc in docs:
        if doc.name not in seen:
            seen.add(doc.name)
            out.append(doc)
    return out


def system_prompt(item: Item) -> str:
    """The prompt-mode system prompt: instructions, then the item's docs as JSON."""
    docs = [plain(doc.raw) for doc in unique_docs(item.functions)]
    return PROMPT_INSTRUCTIONS + json.dumps(docs, ensure_ascii=False, indent=2)


def _content(value: Any) -> str:
    return value if isinstance(value, str) else json.dumps(plain(value), ensure_ascii=False)


def question_messages(question: str | Sequence[Any]) -> list[dict[str, str]]:
    """The question as chat messages `{"role", "content"}`, BFCL turns flattened in order."""
    if isinstance(question, str):
        return [{"role": "user", "content": question}]
    messages: list[dict[str, str]] = []

    def add(entry: Any) -> None:
        if isinstance(entry, str):
            messages.append({"role": "user", "content": entry})
        elif isinstance(entry, Mapping):
            role = entry.get("role")
            messages.append(
                {
                    "role": role if isinstance(role, str) and role else "user",
                    "content": _content(entry.get("content", "")),
                }
            )
        elif isinstance(entry, list | tuple):
            for inner in entry:
                add(inner)

    add(question)
    return messages


def split_system(messages: list[dict[str, str]]) -> tuple[str | None, list[dict[str, str]]]:
    """System messages joined apart from the others (the Anthropic API takes them separately)."""
    system = [m["content"] for m in messages if m["role"] == "system"]
    rest = [m for m in messages if m["role"] != "system"]
    return ("\n\n".join(system) if system else None), rest
