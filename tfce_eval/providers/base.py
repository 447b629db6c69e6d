"""The one small interface every model provider implements, and the records it speaks in.

A provider turns chat messages, with or without functions offered as tools, into the exact
JSON body of a request (`build_chat`, pure; `build_request` does it for a function-calling
item in either mode), sends it through its SDK (`send`, the only I/O, with the SDK's own
retries off: the runner has the one retry layer), turns a response body into what the
shared decoder reads (`to_decoder_input`, pure) and says what an exception means for the
run (`classify`): retry it, record it against the item, or stop the run.

The status rules shared by the SDKs are in `status` (`classify_status`), so that
OpenAI-compatible servers and the Anthropic API are judged alike.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, fields, replace
from enum import StrEnum
from types import TracebackType
from typing import Any

from tfce_eval.errors import check_number
from tfce_eval.model import FunctionDoc, Item, parse_choice


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

    def __post_init__(self) -> None:
        choice = parse_choice(ToolChoice, self.tool_choice, "tool_choice")
        object.__setattr__(self, "tool_choice", choice)
        check_number(self.temperature, "temperature", 0, 2, optional=True)
        check_number(self.max_tokens, "max_tokens", 1, whole=True, optional=True)
        check_number(self.seed, "seed", whole=True, optional=True)

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
    """One successful exchange: the parsed response body, its token usage, its wall time,
    and why the model stopped, in the API's own word (OpenAI's `finish_reason`: "stop",
    "length", "tool_calls"...; Anthropic's `stop_reason`: "end_turn", "max_tokens",
    "tool_use"...), None when the body does not say."""

    body: dict[str, Any]
    usage: Usage
    latency_s: float
    finish_reason: str | None = None


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


class ResponseTooLarge(Exception):
    """The server answered with a body over `MAX_BODY_BYTES`: refused before it is kept.

    A failure of the server, not the model's answer; never retried (a server that sent it
    once will again). `size` is the length it declared, None when it declared none;
    `status` the error status it came with, None for an answer.
    """

    def __init__(self, size: int | None, limit: int, status: int | None = None) -> None:
        told = f"is {size:,} bytes, more than" if size is not None else "goes past"
        if status is None:
            head, fix = "response too large: the body", "check the server, or lower --max-tokens"
        else:
            head, fix = f"HTTP {status}: response too large: the error body", "check the server"
        super().__init__(f"{head} {told} the limit of {limit:,} bytes; not retried: {fix}")
        self.size = size
        self.limit = limit
        self.status = status


class RequestTimeout(Exception):
    """No whole answer within the request's time limit (`--timeout`), however it trickled."""


#: A response body nested deeper than this is refused: a chat response is a few levels
#: deep plus the model's arguments, and everything after the provider (decoding, the
#: outputs file, scoring) can then work on it without running out of stack.
MAX_BODY_DEPTH = 128


#: A response body longer than this (in bytes, as decoded) is refused as it arrives, before
#: it is parsed: the longest answers are some tens of kilobytes, and an outputs line keeps
#: the text twice (the message, then its text or calls), so an answer within the bound
#: stays well under the 1 MiB line that `score` reads.
MAX_BODY_BYTES = 256 * 1024


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


class Provider(ABC):
    """One model behind one SDK. Create it, then use it as an async context manager to send."""

    #: Short provider name as in `--model provider/name` (openai, anthropic, vllm, ...).
    name: str
    model: str
    #: The effective base URL as it may be shown and recorded: its credentials hidden
    #: (`secrets.shown_url`); the SDK alone is given the URL as written.
    base_url: str

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

    def finish_reason(self, body: Mapping[str, Any]) -> str | None:
        """Why the model stopped, as the body says it (a string of at most 64 characters),
        or None. Pure; an API without such a field keeps this default."""
        return None

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
        """What to fix when no key is available where one is needed, or the key cannot be
        sent (`key_problem`); None when all is well. Never quotes the key."""

    def key_problem(self) -> str | None:
        """What to fix when the key given cannot be sent in a header (white space at an
        end, control or non-ASCII characters); None when it can, or none is given."""
        return None

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
