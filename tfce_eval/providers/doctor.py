"""`doctor`: send one parallel item and say whether the server returns structured tool calls.

The usual reasons an OpenAI-compatible server scores zero in fc mode are in its setup, not
the model: vLLM started without `--enable-auto-tool-choice --tool-call-parser`, llama.cpp
without `--jinja`, a chat template that allows one call at a time. This module asks once and
turns what comes back into findings (the shared `model.Finding`: an error, a warning, or a
check that passed) that name the fix. It returns data; the command prints.
"""

from __future__ import annotations

import asyncio
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from tfce_eval.check.item import check_item
from tfce_eval.dataset.load import Dataset, load_dataset
from tfce_eval.decode.answer import decode_output
from tfce_eval.errors import UsageError
from tfce_eval.model import Category, Finding, Item, Level
from tfce_eval.providers.base import ErrorKind, Mode, Provider, ProviderError, RequestOptions
from tfce_eval.providers.registry import make_provider
from tfce_eval.schema.wire import name_map
from tfce_eval.words import counted


@dataclass(frozen=True)
class DoctorReport:
    provider: str
    model: str
    base_url: str
    item_id: str | None
    expected_calls: int
    structured_calls: int | None  # None: no answer came back
    findings: tuple[Finding, ...] = field(default_factory=tuple)

    @property
    def ok(self) -> bool:
        return all(f.level is not Level.ERROR for f in self.findings)


#: How each local server is told to parse tool calls out of the model's text.
_PARSER_HINTS = {
    "vllm": "start vLLM with --enable-auto-tool-choice --tool-call-parser <parser> (hermes for "
    "Qwen2.5/Qwen3, llama3_json for Llama 3.x, mistral for Mistral)",
    "sglang": "start SGLang with --tool-call-parser <parser> (qwen25, llama3, mistral, ...)",
    "llamacpp": "start llama-server with --jinja (and, if needed, --chat-template-file with a "
    "tool-capable template)",
    "ollama": "use a model whose Ollama template supports tools (ollama show <model> lists "
    "'tools' under capabilities)",
    "lmstudio": "load a model LM Studio marks as tool-capable",
}
_PARALLEL_HINTS = {
    "vllm": "the request asked for parallel_tool_calls; check that the --tool-call-parser "
    "matches the model and that the chat template allows several calls",
    "llamacpp": "llama-server needs --jinja and a template that allows several calls per turn",
    "ollama": "some Ollama templates return one call per turn; try another model or tag",
}


def pick_item(dataset: Dataset, item_id: str | None = None) -> Item:
    """The given item, or the first parallel item with the most expected calls."""
    if item_id is not None:
        if item_id not in dataset:
            raise UsageError(f"--item: no item {item_id!r} in the dataset")
        return dataset.get(item_id)
    for category in (Category.PARALLEL, Category.PARALLEL_MULTIPLE):
        best: Item | None = None
        for item in dataset.iter_items(categories=[category]):
            if best is None or len(item.expected) > len(best.expected):
                best = item
        if best is not None:
            return best
    raise UsageError("the dataset has no parallel item; choose one with --item")


def _structured_count(raw: Mapping[str, Any]) -> int:
    tool_calls = raw.get("tool_calls")
    if isinstance(tool_calls, list):
        return len(tool_calls)
    content = raw.get("content")
    if isinstance(content, list):
        return sum(1 for b in content if isinstance(b, Mapping) and b.get("type") == "tool_use")
    return 0


async def _ask(
    provider: Provider, request: dict[str, Any]
) -> tuple[dict[str, Any] | None, ProviderError | None]:
    async with provider:
        try:
            response = await provider.send(request)
            return provider.to_decoder_input(response.body), None
        except asyncio.CancelledError:
            raise
        except Exception as exc:  # the provider classifies every failure of `send`
            return None, provider.classify(exc)


def diagnose(
    model: str,
    *,
    base_url: str | None = None,
    data: Path | None = None,
    item_id: str | None = None,
    timeout_s: float = 60.0,
) -> DoctorReport:
    """Ask the server one parallel item in fc mode and judge what comes back."""
    dataset = load_dataset(data)
    item = pick_item(dataset, item_id)
    provider = make_provider(model, base_url=base_url, timeout_s=timeout_s)
    findings: list[Finding] = []

    def report(structured: int | None, found: list[Finding]) -> DoctorReport:
        return DoctorReport(
            provider.name,
            provider.model,
            provider.base_url,
            item.id,
            len(item.expected),
            structured,
            tuple(found),
        )

    problem = provider.credentials_problem()
    if problem:
        return report(None, [Finding(Level.ERROR, problem)])
    options = RequestOptions()
    raw, error = None, None
    for _ in range(3):  # at most: as asked, without temperature, without parallel_tool_calls
        request = provider.build_request(item, options, Mode.FC)
        raw, error = asyncio.run(_ask(provider, request))
        if error is None or error.param is None or error.param not in request:
            break
        findings.append(
            Finding(
                Level.WARNING,
                f"the server refuses {error.param} ({error.message});"
                " runs drop it automatically and record it in run.json",
                item_id=item.id,
            )
        )
        options = options.without({error.param})
    if raw is None:
        assert error is not None
        return report(None, [*findings, _error_finding(provider, error)])
    findings.extend(_judge(provider, item, raw))
    return report(_structured_count(raw), findings)


def _error_finding(provider: Provider, error: ProviderError) -> Finding:
    """The failed request as a finding, with the fix that suits how it failed. doctor asks
    once: a failure a run would retry is named as such."""
    hint = error.hint
    if hint is None and error.kind is not ErrorKind.FATAL:
        hint = _retryable_hint(provider, error)
    return Finding(Level.ERROR, f"the request failed: {error.message}", hint=hint)


def _retryable_hint(provider: Provider, error: ProviderError) -> str | None:
    if error.message.startswith("malformed response"):
        return (
            "the server answered, but not in the API's shape: is --base-url the API's "
            f"root ({provider.base_url})?"
        )
    if error.message.startswith("no answer within"):
        return "the server is slow or stuck: try again, or give a longer --timeout"
    if error.status == 429:
        return "the server is limiting requests: wait and try again (a run waits and retries)"
    if error.status is not None and error.status >= 500:
        return "the server failed this request: try again (a run retries such failures)"
    if error.status is None and error.kind is ErrorKind.RETRYABLE:
        return f"is the server running at {provider.base_url}?"
    return None


def _judge(provider: Provider, item: Item, raw: Mapping[str, Any]) -> list[Finding]:
    expected = len(item.expected)
    structured = _structured_count(raw)
    decoded = decode_output(dict(raw), name_map=name_map(item.functions))
    in_text = len(decoded.calls or ()) if structured == 0 else 0
    findings: list[Finding] = []
    if structured == 0 and in_text:
        hint = _PARSER_HINTS.get(provider.name, "check the server's tool-call parsing")
        findings.append(
            Finding(
                Level.ERROR,
                "no structured tool calls came back, but "
                f"{counted(in_text, 'call was', 'calls were')} written as text: the server "
                "does not parse tool calls "
                "for this model",
                item_id=item.id,
                hint=f"{hint} (or run with --mode prompt)",
            )
        )
    elif structured == 0:
        hint = _PARSER_HINTS.get(provider.name, "check that the model supports tool calling")
        findings.append(
            Finding(
                Level.ERROR,
                f"no tool calls came back (answer: {_clip(raw)})",
                item_id=item.id,
                hint=hint,
            )
        )
    elif structured < expected:
        # Structured calls came back, so the server parses them: fewer than asked for is
        # usually the model's choice (small models often make one), not a setup fault.
        hint = _PARALLEL_HINTS.get(provider.name, "check that the server allows parallel calls")
        calls = "call came" if structured == 1 else "calls came"
        findings.append(
            Finding(
                Level.WARNING,
                f"{structured} structured tool {calls} back, {expected} expected: the server "
                "returns structured calls, so fewer is likely the model's choice",
                item_id=item.id,
                hint=f"if a strong model does this, parallel calls may be off: {hint}",
            )
        )
    else:
        findings.append(
            Finding(
                Level.OK,
                f"{counted(structured, 'structured tool call')} came back ({expected} expected)",
                item_id=item.id,
            )
        )
    if structured >= expected:
        verdict = check_item(item, decoded)
        if verdict.valid:
            findings.append(Finding(Level.OK, "the calls match the ground truth", item_id=item.id))
        else:
            findings.append(
                Finding(
                    Level.WARNING,
                    f"the calls do not match the ground truth ({verdict.error_type}"
                    f": {verdict.error}); this is the model's answer, not the "
                    "setup",
                    item_id=item.id,
                )
            )
    return findings


def _clip(raw: Mapping[str, Any], limit: int = 160) -> str:
    content = raw.get("content")
    if isinstance(content, list):
        content = " ".join(str(b.get("text", "")) for b in content if isinstance(b, Mapping))
    text = str(content or "").strip().replace("\n", " ")
    return (text[:limit] + "...") if len(text) > limit else (text or "empty")
