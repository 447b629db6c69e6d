"""What a model is asked: the `answer` tool (fc mode) and the `ANSWER:` template (prompt mode).

Both are pure functions of the item and the context passages, so a run's request can be
shown (`--dump-request`) and reproduced. fc mode offers one tool, `answer`, with one
required string parameter whose `enum` is the item's own option labels (mc) or
`["true", "false"]` (tf), free for open; the caller forces it with the tool choice. Prompt
mode asks for a last line `ANSWER: <label>`, `ANSWER: True` / `ANSWER: False` or
`ANSWER: <answer>`, read back by `extract.extract_answer`.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from tfce_eval.model import FunctionDoc
from tfce_eval.qa.items import AnswerType, QaItem

#: The name of the one tool of fc mode.
TOOL_NAME = "answer"

_TOOL_DESCRIPTION = {
    AnswerType.MC: "The label of the correct option.",
    AnswerType.TF: '"true" if the statement is true, "false" if it is false.',
    AnswerType.OPEN: "Your answer: short, complete, without the reasoning.",
}


def answer_tool(item: QaItem) -> dict[str, Any]:
    """The function doc of the `answer` tool for this item (BFCL/TFCE shape, type "dict")."""
    parameter: dict[str, Any] = {
        "type": "string",
        "description": _TOOL_DESCRIPTION[item.answer_type],
    }
    if item.answer_type is AnswerType.MC:
        parameter["enum"] = list(item.labels)
    elif item.answer_type is AnswerType.TF:
        parameter["enum"] = ["true", "false"]
    return {
        "name": TOOL_NAME,
        "description": "Give your final answer to the question.",
        "parameters": {
            "type": "dict",
            "properties": {"answer": parameter},
            "required": ["answer"],
        },
    }


def _body(item: QaItem, contexts: Sequence[str]) -> list[str]:
    parts: list[str] = []
    if contexts:
        parts.append("Use the context passages below where they help.\n")
        parts.append("Context:")
        parts.extend(f"[{n}] {text.strip()}" for n, text in enumerate(contexts, start=1))
        parts.append("")
    if item.answer_type is AnswerType.TF:
        parts.append("Is the following statement true or false?\n")
        parts.append(f"Statement: {item.question.strip()}")
    else:
        parts.append(f"Question: {item.question.strip()}")
    if item.answer_type is AnswerType.MC:
        parts.append("\nOptions:")
        parts.extend(f"{label}. {text}" for label, text in item.options)
    return parts


def prompt_text(item: QaItem, contexts: Sequence[str] = ()) -> str:
    """The user message of prompt mode: context, question, options, the ANSWER: template."""
    parts = _body(item, contexts)
    parts.append("")
    if item.answer_type is AnswerType.MC:
        labels = ", ".join(item.labels)
        parts.append(
            "Think it through if you need to, then finish your reply with a line of the form\n"
            f"ANSWER: <label>\nwhere <label> is one of {labels}."
        )
    elif item.answer_type is AnswerType.TF:
        parts.append(
            "Think it through if you need to, then finish your reply with the line\n"
            "ANSWER: True\nor the line\nANSWER: False"
        )
    else:
        parts.append(
            "Think it through if you need to, then finish your reply with a line of the form\n"
            "ANSWER: <answer>\nwhere <answer> is your short answer."
        )
    return "\n".join(parts)


def fc_message(item: QaItem, contexts: Sequence[str] = ()) -> str:
    """The user message of fc mode: context, question, options; answered through the tool."""
    parts = _body(item, contexts)
    parts.append("")
    parts.append(f"Give your answer by calling the {TOOL_NAME} tool.")
    return "\n".join(parts)


def chat_parts(
    item: QaItem, contexts: Sequence[str], *, fc: bool
) -> tuple[list[dict[str, str]], list[FunctionDoc], str | None]:
    """What a chat request for this item holds, whichever API it goes to: the messages,
    the functions offered and the one forced (fc mode), or none (prompt mode)."""
    if not fc:
        return [{"role": "user", "content": prompt_text(item, contexts)}], [], None
    doc = answer_tool(item)
    function = FunctionDoc(doc["name"], doc["description"], doc)
    return [{"role": "user", "content": fc_message(item, contexts)}], [function], TOOL_NAME
