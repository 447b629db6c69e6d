"""The one small interface every model provider implements, and the records it speaks in.

A provider turns chat messages, with or without functions offered as tools, into the exact
JSON body of a request (`build_chat`, pure; `build_request` does it for a function-calling
item in either mode),
sends it through its SDK (`send`, the only I/O, with the SDK's own retries off: the runner
has the one retry layer), turns a response body into what the shared decoder reads
(`to_decoder_input`, pure) and says what an exception means for the run (`classify`):
retry it, record it against the item, or stop the run.

The status rules shared by the SDKs live here (`classify_status`), so that OpenAI-compatible
servers and the Anthropic API are judged alike.
"""

from __future__ import annotations

import email.utils
import math
import re
import time
from abc import ABC, abstractmethod
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, fields, replace
from enum import StrEnum
from types import TracebackType
from typing import Any
from urllib.parse import urljoin, urlsplit

from tfce_eval.model import FunctionDoc, Item


class Mode(StrEnum):
    """How the functions reach the model."""

    FC = "fc"  # native function calling: the functions as tools
    PROMPT = "prompt"  # the docs in a system prompt, the answer in Python call syntax


class ToolChoice(StrEnum):
    AUTO = "auto"
    REQUIRED = "required"
    NONE = "none"


#: Request fields a server may refuse; the runner drops one for the rest of the run when a
#: 400 names it (and records why in run.json).
DROPPABLE_PARAMS = ("temperature", "seed", "parallel_tool_calls")


@dataclass(frozen=True)
class RequestOptions:
    """What is asked of the model besides the item. Recorded in run.json; part of a run's identity.

    `parallel_tool_calls`: send `parallel_tool_calls: true` for the parallel categories
    (OpenAI-style servers; the Anthropic API allows parallel calls by default).
    `max_tokens` None: the server's default (the Anthropic API requires a value: 4096 is sent).
    """

    temperature: float | None = 0.0
    max_tokens: int | None = None
    seed: int | None = None
    tool_choice: ToolChoice = ToolChoice.AUTO
    parallel_tool_calls: bool = True

    def to_json(self) -> dict[str, Any]:
        return {
            "temperature": self.temperature,
            "max_tokens": self.max_tokens,
            "seed": self.seed,
            "tool_choice": str(self.tool_choice),
            "parallel_tool_calls": self.parallel_tool_calls,
        }

    def without(self, names: frozenset[str] | set[str]) -> RequestOptions:
        """These options with the named droppable fields left out of requests."""
        changes: dict[str, Any] = {}
        for f in fields(self):
            if f.name in names and f.name in DROPPABLE_PARAMS:
                changes[f.name] = False if f.name == "parallel_tool_calls" else None
        return replace(self, **changes)


@dataclass(frozen=True)
class Usage:
    input_tokens: int | None = None
    output_tokens: int | None = None

    def to_json(self) -> dict[str, int | None]:
        return {"input_tokens": self.input_tokens, "output_tokens": self.output_tokens}


@dataclass(frozen=True)
class Response:
    """One successful exchange: the parsed response body, its token usage, its wall time."""

    body: dict[str, Any]
    usage: Usage
    latency_s: float


class ErrorKind(StrEnum):
    RETRYABLE = "retryable"  # try the same request again after a delay
    ITEM = "item"  # this item cannot be asked: record request_error, go on
    FATAL = "fatal"  # no item can be asked (key, model, quota, server setup): stop the run


@dataclass(frozen=True)
class ProviderError:
    """What an exception from `send` means. `message` never holds a key."""

    kind: ErrorKind
    message: str
    status: int | None = None
    retry_after: float | None = None  # seconds, from Retry-After / retry-after-ms
    param: str | None = None  # a request field the server refused, when it names one
    hint: str | None = None  # what the user can do about it (for fatal errors)
    refused: bool = False  # the connection was refused: nothing listens at the address

    def render(self) -> str:
        return self.message + (f"\n  fix: {self.hint}" if self.hint else "")


class MalformedResponse(Exception):
    """The server answered 200 with a body that is not the expected JSON.

    `retry`: whether asking again may help (a cut body may; a body nested too deep to keep
    is what the server will send again, so the item is recorded at once).
    """

    def __init__(self, message: str, *, retry: bool = True) -> None:
        super().__init__(message)
        self.retry = retry


class RequestTimeout(Exception):
    """No whole answer within the request's time limit (`--timeout`), however it trickled."""


#: A response body nested deeper than this is refused: a chat response is a few levels
#: deep plus the model's arguments, and everything after the provider (decoding, the
#: outputs file, scoring) can then work on it without running out of stack.
MAX_BODY_DEPTH = 128


def nesting_depth(value: object, limit: int) -> int:
    """How deep containers nest in `value` (a scalar: 0), counted up to `limit` + 1."""
    deepest = 0
    stack: list[tuple[object, int]] = [(value, 0)]
    while stack:
        node, depth = stack.pop()
        if isinstance(node, dict | list):
            depth += 1
            if depth > limit:
                return depth
            deepest = max(deepest, depth)
            stack.extend(
                (child, depth) for child in (node.values() if isinstance(node, dict) else node)
            )
    return deepest


def message_text(message: Mapping[str, Any]) -> str:
    """The text of a kept response message (`to_decoder_input`), whichever API gave it.

    OpenAI-style `content` is a string (or a list of text parts); Anthropic's is a list of
    blocks, of which the `text` blocks are joined in order. Tool calls are not text: read
    them with `decode_output`.
    """
    content = message.get("content")
    if isinstance(content, str):
        return content
    if not isinstance(content, list):
        return ""
    return "".join(
        part["text"]
        for part in content
        if isinstance(part, Mapping)
        and part.get("type", "text") == "text"
        and isinstance(part.get("text"), str)
    )


def parse_retry_after(
    headers: Mapping[str, str] | None, *, now: float | None = None
) -> float | None:
    """Seconds to wait from `retry-after-ms` or `Retry-After` (seconds or an HTTP date)."""
    if not headers:
        return None
    lowered = {k.lower(): v for k, v in headers.items()}
    ms = lowered.get("retry-after-ms")
    if ms is not None:
        try:
            value = float(ms) / 1000
        except ValueError:
            value = math.nan
        if math.isfinite(value) and value >= 0:
            return value
    text = lowered.get("retry-after")
    if text is None:
        return None
    try:
        value = float(text)
    except ValueError:
        try:
            when = email.utils.parsedate_to_datetime(text)
        except (TypeError, ValueError):
            return None
        return max(0.0, when.timestamp() - (time.time() if now is None else now))
    return value if math.isfinite(value) and value >= 0 else None


# Quota exhaustion, as opposed to a rate limit: waiting does not help.
_QUOTA_MARKERS = ("insufficient_quota", "billing", "credit balance")
_PARAM_REFUSALS = (
    "unsupported",
    "not supported",
    "does not support",
    "deprecated",
    "not permitted",
    "unrecognized",
    "unknown",
    "extra",
    "invalid",
    "not allowed",
)


def refused_param(message: str, param: object) -> str | None:
    """The droppable request field a 400 is about, if it names one."""
    if isinstance(param, str) and param in DROPPABLE_PARAMS:
        return param
    lowered = message.lower()
    if not any(word in lowered for word in _PARAM_REFUSALS):
        return None
    for name in DROPPABLE_PARAMS:
        # A whole word only: a function named `set_temperature` is not the field.
        if re.search(rf"(?<![\w.]){name}(?!\w)", lowered):
            return name
    return None


def server_message(
    body: object, fallback: str, scrub: Callable[[str], str] = lambda text: text
) -> str:
    """The human part of an error body: OpenAI/Anthropic `{"error": {"message"}}` and kin.

    `scrub` removes secrets; it is applied before a plain-text body is cut to 500
    characters, so that no part of a secret survives the cut.
    """
    if isinstance(body, Mapping):
        err = body.get("error", body)
        if isinstance(err, Mapping):
            msg = err.get("message") or err.get("detail")
            if isinstance(msg, str) and msg:
                return scrub(msg)
        elif isinstance(err, str) and err:
            return scrub(err)
        for key in ("message", "detail"):
            if isinstance(body.get(key), str) and body[key]:
                return scrub(str(body[key]))
    if isinstance(body, str) and body.strip():
        return scrub(body.strip())[:500]
    return scrub(fallback)


def _error_code(body: object) -> str:
    if isinstance(body, Mapping):
        err = body.get("error", body)
        if isinstance(err, Mapping):
            return " ".join(str(err.get(k) or "") for k in ("type", "code")).lower()
    return ""


@dataclass(frozen=True)
class ServerContext:
    """What a fatal error's hint needs to name: who was asked, for which model, with which key."""

    provider: str
    model: str
    base_url: str
    key_env: str
    local: bool


def classify_status(
    status: int,
    body: object,
    headers: Mapping[str, str] | None,
    fallback: str,
    ctx: ServerContext,
    scrub: Callable[[str], str] = lambda text: text,
) -> ProviderError:
    """The shared rules for an HTTP error status (SPEC 7): retry, record, or stop."""
    text = server_message(body, fallback, scrub)
    message = f"HTTP {status}: {text}"
    lowered = f"{text} {_error_code(body)}".lower()
    setup = _server_setup_error(lowered, ctx)
    if setup is not None:
        return ProviderError(ErrorKind.FATAL, message, status, hint=setup)
    if status in (400, 402, 429) and any(m in lowered for m in _QUOTA_MARKERS):
        return ProviderError(
            ErrorKind.FATAL,
            message,
            status,
            hint="the account's quota or credit is used up: add credit, raise "
            "the limit, or use another key; then run the same command again",
        )
    if 300 <= status < 400:
        return ProviderError(ErrorKind.ITEM, _redirect_message(status, headers, ctx))
    if status in (408, 409, 429) or status >= 500:
        return ProviderError(
            ErrorKind.RETRYABLE, message, status, retry_after=parse_retry_after(headers)
        )
    if status == 401:
        if ctx.local:
            hint = (
                f"the server at {ctx.base_url} wants an API key: set {ctx.key_env} to the "
                "key it was started with (vLLM: --api-key)"
            )
        else:
            hint = f"set {ctx.key_env} to a valid API key"
        return ProviderError(ErrorKind.FATAL, message, status, hint=hint)
    if status == 403:
        return ProviderError(
            ErrorKind.FATAL,
            message,
            status,
            hint=f"the key in {ctx.key_env} may not use model {ctx.model!r}; "
            "check the key's permissions and the model name",
        )
    if status == 404:
        return ProviderError(
            ErrorKind.FATAL,
            message,
            status,
            hint=f"check the model name ({ctx.model!r}) with GET "
            f"{ctx.base_url.rstrip('/')}/models, and the base URL (OpenAI-"
            "compatible servers serve under /v1)",
        )
    return ProviderError(
        ErrorKind.ITEM, message, status, param=refused_param(text, _field(body, "param"))
    )


def _redirect_message(status: int, headers: Mapping[str, str] | None, ctx: ServerContext) -> str:
    """What a redirect pointed at, naming both hosts when it leaves the server."""
    lowered = {k.lower(): v for k, v in (headers or {}).items()}
    here = urlsplit(ctx.base_url).netloc or ctx.base_url
    location = lowered.get("location")
    if not location:
        return f"HTTP {status}: {here} answered with a redirect that names no address"
    target = urljoin(ctx.base_url, location)
    there = urlsplit(target).netloc
    if there != here:
        return (
            f"HTTP {status}: {here} redirects to another host, {there}; requests are not "
            "sent on (if that is the server, give its address with --base-url)"
        )
    return (
        f"HTTP {status}: {here} redirects to {target}; requests are not sent on (give "
        "the address it names with --base-url)"
    )


def _field(body: object, name: str) -> object:
    if isinstance(body, Mapping):
        err = body.get("error", body)
        if isinstance(err, Mapping):
            return err.get(name)
    return None


def _server_setup_error(lowered: str, ctx: ServerContext) -> str | None:
    """A hint when the error says the server was started without tool calling."""
    if "enable-auto-tool-choice" in lowered or "tool-call-parser" in lowered:
        return (
            "start vLLM with --enable-auto-tool-choice --tool-call-parser <parser for the "
            "model> (hermes for Qwen, llama3_json for Llama 3.x, mistral for Mistral), or "
            "use --mode prompt"
        )
    if "--jinja" in lowered:
        return "start llama-server with --jinja (tool calls need the model's chat template)"
    if "does not support tools" in lowered:
        return (
            f"the model {ctx.model!r} has no tool support on this server (Ollama: its "
            "template has no tools); choose a tool-capable model or use --mode prompt"
        )
    return None


class Provider(ABC):
    """One model behind one SDK. Create it, then use it as an async context manager to send."""

    #: Short provider name as in `--model provider/name` (openai, anthropic, vllm, ...).
    name: str
    model: str
    base_url: str  # the effective base URL ("" when the SDK's default is used)

    @abstractmethod
    def build_chat(
        self,
        messages: Sequence[Mapping[str, str]],
        options: RequestOptions,
        *,
        functions: Sequence[FunctionDoc] = (),
        force: str | None = None,
        parallel: bool = False,
    ) -> dict[str, Any]:
        """The exact JSON body of one chat request, model included. Pure.

        `messages` are `{"role", "content"}` in order (system messages included: each API
        puts them where it takes them). `functions` are offered as tools under their wire
        names; none: no tool fields at all. `force` names one of `functions` (its name in
        the docs) that the model must call, overriding `options.tool_choice`; a name not
        offered is a ValueError. `parallel`: ask for parallel calls where the API has a
        field for it and `options.parallel_tool_calls` allows it.
        """

    @abstractmethod
    def build_request(self, item: Item, options: RequestOptions, mode: Mode) -> dict[str, Any]:
        """The exact JSON body sent for a function-calling `item`, model included. Pure."""

    @abstractmethod
    def to_decoder_input(self, body: Mapping[str, Any]) -> dict[str, Any]:
        """The response message as `decode_output` reads it (and as outputs.jsonl keeps it).

        Raises MalformedResponse when the body has no message. Pure.
        """

    @abstractmethod
    async def send(self, request: Mapping[str, Any]) -> Response:
        """Send one request through the SDK (no SDK retries). Exceptions go to `classify`."""

    @abstractmethod
    def classify(self, exc: BaseException) -> ProviderError:
        """What an exception raised by `send` means for the item and the run."""

    @abstractmethod
    def request_url(self) -> str:
        """The URL requests go to (for --dump-request)."""

    @abstractmethod
    def redacted_headers(self) -> dict[str, str]:
        """The authentication headers sent, with the secret replaced by where it comes from."""

    @abstractmethod
    def credentials_problem(self) -> str | None:
        """What to fix when no key is available where one is needed; None when all is well."""

    @abstractmethod
    def sdk_versions(self) -> dict[str, str]:
        """Name -> version of the SDK (and HTTP client) in use, for run.json."""

    def fixed_notes(self, options: RequestOptions) -> dict[str, str]:
        """Options this provider never sends, with the reason (recorded in run.json)."""
        return {}

    @abstractmethod
    async def aclose(self) -> None:
        """Release the SDK client (connections)."""

    async def __aenter__(self) -> Provider:
        return self

    async def __aexit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        await self.aclose()
