"""`doctor` on a question-answering dataset: can this server answer a QA run?

A QA run in fc mode needs one thing a function-calling run does not: the server must honour
a tool choice that names one tool (`answer`). In prompt mode it needs nothing but text, and
the answer must be readable from it (`ANSWER: B`). This module asks one multiple-choice
item both ways and turns what comes back into findings; a wrong answer is the model's, not
the setup's, and is only a warning.
"""

from __future__ import annotations

import asyncio
import dataclasses
from pathlib import Path

from tfce_eval.decode.answer import decode_output
from tfce_eval.errors import UsageError
from tfce_eval.model import Finding, Level
from tfce_eval.providers.base import Provider, RequestOptions, message_text
from tfce_eval.providers.doctor import (
    _PARSER_HINTS,
    DoctorReport,
    _ask,
    _clip,
    _error_finding,
    _structured_count,
)
from tfce_eval.providers.registry import make_provider
from tfce_eval.qa import AnswerType, QaItem, chat_parts, extract_answer, read_answer
from tfce_eval.schema.wire import name_map
from tfce_eval.tasks.load import load_qa_dataset

_FORCE_HINTS = {
    "vllm": "vLLM honours a named tool_choice with guided decoding; update vLLM, or run with "
    "--mode prompt",
    "llamacpp": "llama-server needs --jinja for tool_choice; or run with --mode prompt",
    "ollama": "Ollama ignores tool_choice; run with --mode prompt",
}


def pick_qa_item(items: tuple[QaItem, ...], item_id: str | None) -> QaItem:
    """The given item, or the first multiple-choice one (the most telling check)."""
    if item_id is not None:
        for item in items:
            if item.id == item_id:
                return item
        raise UsageError(f"--item: no item {item_id!r} in the dataset")
    for item in items:
        if item.answer_type is AnswerType.MC:
            return item
    if not items:
        raise UsageError("the dataset has no question")
    return items[0]


def diagnose_qa(
    model: str,
    *,
    data: Path,
    base_url: str | None = None,
    item_id: str | None = None,
    split: str | None = None,
    timeout_s: float = 60.0,
) -> DoctorReport:
    """Ask one question with the forced `answer` tool and once as text; judge both."""
    item = pick_qa_item(load_qa_dataset(data, split=split).items, item_id)
    provider = make_provider(model, base_url=base_url, timeout_s=timeout_s)
    findings: list[Finding] = []
    problem = provider.credentials_problem()
    structured: int | None = None
    if problem:
        findings.append(Finding(Level.ERROR, problem))
    else:
        structured, found = _forced(provider, item)
        findings.extend(found)
        findings.extend(_prompted(provider, item))
    return DoctorReport(
        provider.name, provider.model, provider.base_url, item.id, 1, structured, tuple(findings)
    )


def _forced(provider: Provider, item: QaItem) -> tuple[int | None, list[Finding]]:
    messages, functions, force = chat_parts(item, (), fc=True)
    request = provider.build_chat(messages, RequestOptions(), functions=functions, force=force)
    raw, error = asyncio.run(_ask(provider, request))
    if raw is None:
        assert error is not None
        return None, [_in_mode("fc mode", _error_finding(provider, error))]
    count = _structured_count(raw)
    if count == 0:
        hint = _FORCE_HINTS.get(provider.name) or _PARSER_HINTS.get(
            provider.name, "check that the model supports tool calling, or use --mode prompt"
        )
        message = f"fc mode: no `answer` tool call came back (answer: {_clip(raw)})"
        return 0, [Finding(Level.ERROR, message, item_id=item.id, hint=hint)]
    decoded = decode_output(raw, name_map=name_map(functions), item_id=item.id)
    calls = [c for c in decoded.calls or () if c.name == force]
    if not calls or "answer" not in calls[0].arguments:
        message = "fc mode: a tool call came back, but not `answer` with its argument"
        return count, [Finding(Level.ERROR, message, item_id=item.id)]
    found = [Finding(Level.OK, "fc mode: the forced `answer` tool was called", item_id=item.id)]
    got = read_answer(item, calls[0].arguments["answer"])
    found.append(_verdict("fc mode", item, got.answer))
    return count, found


def _prompted(provider: Provider, item: QaItem) -> list[Finding]:
    messages, _, _ = chat_parts(item, (), fc=False)
    raw, error = asyncio.run(_ask(provider, provider.build_chat(messages, RequestOptions())))
    if raw is None:
        assert error is not None
        return [_in_mode("prompt mode", _error_finding(provider, error))]
    extraction = extract_answer(item, message_text(raw))
    if extraction.answer is None:
        return [
            Finding(
                Level.WARNING,
                f"prompt mode: no answer could be read ({extraction.error}); the model did "
                "not end with an ANSWER: line, which a run counts as a parse_error",
                item_id=item.id,
            )
        ]
    return [
        Finding(Level.OK, "prompt mode: the ANSWER: line was read", item_id=item.id),
        _verdict("prompt mode", item, extraction.answer),
    ]


def _in_mode(mode: str, finding: Finding) -> Finding:
    """A finding of one of the two requests, saying which (their errors may read alike)."""
    return dataclasses.replace(finding, message=f"{mode}: {finding.message}")


def _verdict(mode: str, item: QaItem, answer: str | None) -> Finding:
    if answer is not None and answer == item.reference:
        return Finding(Level.OK, f"{mode}: the answer is right", item_id=item.id)
    return Finding(
        Level.WARNING,
        f"{mode}: the answer {answer!r} is not the reference {item.reference!r}; "
        "this is the model's answer, not the setup",
        item_id=item.id,
    )
