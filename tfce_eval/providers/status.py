"""The shared rules for an HTTP error from any server: retry it, record it, or stop the run.

OpenAI-compatible servers and the Anthropic API are judged alike (README "Evaluating a model"):
408, 409, 429
and 5xx are retried (honouring Retry-After); a quota used up, a bad key, a model that is not
there and a server started without tool calling stop the run with a hint that names the
fix; a redirect is not followed and says where it pointed; anything else is this item's
request_error, naming the request field the server refused when it names one.
"""

from __future__ import annotations

import email.utils
import math
import re
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from urllib.parse import urljoin, urlsplit

from tfce_eval.providers.base import DROPPABLE_PARAMS, ErrorKind, ProviderError
from tfce_eval.providers.secrets import shown_url
from tfce_eval.report.document import printable


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


#: A server's words as a message shows them: at most this many characters in all, and no
#: word longer than fits a folded line (a message folds at 80 columns, indented 4; a
#: finding of `doctor` indented 9, under its mark: 70 leaves one column to spare).
_MESSAGE_CHARS = 300
_WORD_CHARS = 70
_HTML_PAGE = re.compile(r"\s*<(?:!doctype|html|head|body)\b", re.IGNORECASE)
_HTML_TITLE = re.compile(r"<title[^>]*>(.*?)</title>", re.IGNORECASE | re.DOTALL)


def readable(text: str) -> str:
    """`text` for a one-line message: an HTML page named by its title, whitespace
    collapsed, control characters as their escapes (`printable`), over-long words and the
    whole cut with an ellipsis."""
    if _HTML_PAGE.match(text):
        title = _HTML_TITLE.search(text)
        name = " ".join(title.group(1).split()) if title else ""
        text = f"an HTML page ({name})" if name else "an HTML page"
    words = [
        w if len(w) <= _WORD_CHARS else w[: _WORD_CHARS - 1] + "…" for w in printable(text).split()
    ]
    shown = " ".join(words)
    return shown if len(shown) <= _MESSAGE_CHARS else shown[: _MESSAGE_CHARS - 1] + "…"


def server_message(
    body: object, fallback: str, scrub: Callable[[str], str] = lambda text: text
) -> str:
    """The human part of an error body: OpenAI/Anthropic `{"error": {"message"}}` and kin,
    made readable in one message (see `readable`).

    `scrub` removes secrets; it is applied before anything is cut, so that no part of a
    secret survives the cut.
    """
    return readable(_server_words(body, fallback, scrub))


def _server_words(body: object, fallback: str, scrub: Callable[[str], str]) -> str:
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
        return scrub(body.strip())
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
    url_credentials: bool = False  # the base URL carries a user (and password)


def classify_status(
    status: int,
    body: object,
    headers: Mapping[str, str] | None,
    fallback: str,
    ctx: ServerContext,
    scrub: Callable[[str], str] = lambda text: text,
) -> ProviderError:
    """The shared rules for an HTTP error status (README "Evaluating a model"): retry, record, or
    stop."""
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
        if ctx.url_credentials:
            hint = (
                "the server refused the user and password of the base URL (sent as Basic "
                f"authentication, in place of {ctx.key_env}): check them"
            )
        elif ctx.local:
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
    here = _host(ctx.base_url)
    location = lowered.get("location")
    if not location:
        return f"HTTP {status}: {here} answered with a redirect that names no address"
    target = shown_url(urljoin(ctx.base_url, location))
    there = _host(target)
    if there != here:
        return (
            f"HTTP {status}: {here} redirects to another host, {there}; requests are not "
            "sent on (if that is the server, give its address with --base-url)"
        )
    return (
        f"HTTP {status}: {here} redirects to {target}; requests are not sent on (give "
        "the address it names with --base-url)"
    )


def _host(url: str) -> str:
    """The host (and port) of `url`, without any user info."""
    try:
        netloc = urlsplit(url).netloc
    except ValueError:
        return url
    return netloc.rpartition("@")[2] or url


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
