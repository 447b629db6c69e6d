"""What the OpenAI and Anthropic providers share: keys, sending, error classification.

Both SDKs raise the same family of exceptions (a timeout, a connection error, a status error
carrying the response), so one classifier serves both. The key is read from the environment
once, handed to the SDK, and scrubbed from every message this package produces, in every
form it may come back in (`secrets`); so are the credentials of a base URL, which is shown
and recorded only as `secrets.shown_url` shows it (`base_url`).
"""

from __future__ import annotations

import importlib
import json
import time
from abc import abstractmethod
from collections.abc import Mapping, Sequence
from types import ModuleType
from typing import Any

from tfce_eval.decode.limits import MAX_INT_DIGITS
from tfce_eval.model import Item
from tfce_eval.providers.base import (
    MAX_BODY_BYTES,
    MAX_BODY_DEPTH,
    ErrorKind,
    MalformedResponse,
    Mode,
    Provider,
    ProviderError,
    RequestOptions,
    RequestTimeout,
    Response,
    ResponseTooLarge,
    Usage,
    nesting_depth,
)
from tfce_eval.providers.bodies import bounded_body, http_client, in_chain
from tfce_eval.providers.prompting import question_messages, system_prompt
from tfce_eval.providers.secrets import (
    answer_forms,
    key_problem,
    redact_urls,
    scrub_forms,
    secret_forms,
    shown_url,
    url_credentials,
)
from tfce_eval.providers.spec import PLACEHOLDER_KEY, ProviderSpec
from tfce_eval.providers.status import (
    ServerContext,
    classify_status,
    readable,
    server_message,
)
from tfce_eval.schema.wire import WireTool


def _long_int(digits: str) -> int:
    """An integer of a response body. One longer than Python reads from text
    (`sys.get_int_max_str_digits`, 4,300 digits) is kept as its first MAX_INT_DIGITS + 1
    digits: valid JSON is the model's answer, and the decoder refuses the cut integer as it
    refuses any past MAX_INT_DIGITS, while the outputs file can still hold it."""
    try:
        return int(digits)
    except ValueError:
        return int(digits[: digits.startswith("-") + MAX_INT_DIGITS + 1])


def _loads(text: str) -> Any:
    """`json.loads`, integers too long for Python's text conversion cut (`_long_int`): the
    usual parse is tried first, as it is faster and such integers are rare."""
    try:
        return json.loads(text)
    except json.JSONDecodeError:
        raise
    except ValueError:  # an integer past Python's digit limit, the only other ValueError
        return json.loads(text, parse_int=_long_int)


def _count(value: object) -> int | None:
    return value if isinstance(value, int) and not isinstance(value, bool) else None


class SdkProvider(Provider):
    """A provider backed by one of the vendor SDKs (imported on first use)."""

    #: The SDK's import name and distribution name.
    sdk_name: str
    #: The path requests are posted to, under the base URL.
    endpoint: str
    #: The response's usage fields for input and output tokens.
    usage_keys: tuple[str, str]

    def __init__(
        self,
        spec: ProviderSpec,
        model: str,
        base_url: str,
        api_key: str | None,
        *,
        key_env: str | None = None,
        explicit_url: bool = False,
        timeout_s: float = 60.0,
    ) -> None:
        self.spec = spec
        self.name = spec.name
        self.model = model
        self._url = base_url  # as given: only the SDK sees it
        self.base_url = shown_url(base_url)
        self.timeout_s = timeout_s
        self._key = api_key
        self.key_env = key_env or spec.key_env  # where the key was read
        self._credentials = url_credentials(base_url)
        secrets = [api_key] if api_key else []
        if self._credentials is not None:
            user, password = self._credentials.user, self._credentials.password
            secrets += [self._credentials.basic, user if password is None else password]
        self._forms = secret_forms(secrets)
        self._answer_forms = answer_forms(secrets)
        # A key is needed only for the vendors' own endpoints.
        self._needs_key = not spec.local and not explicit_url
        self._client: Any = None

    # --- keys -----------------------------------------------------------------------------

    @property
    def api_key(self) -> str:
        return self._key or PLACEHOLDER_KEY

    def key_problem(self) -> str | None:
        return None if self._key is None else key_problem(self._key, self.key_env)

    def credentials_problem(self) -> str | None:
        if self._key is None and self._needs_key:
            return (
                f"no API key: set {self.spec.key_env} (it is read from the environment and "
                "never written to any file)"
            )
        return self.key_problem()

    def scrub(self, text: str) -> str:
        """`text` with the secrets replaced, in any form, and every URL in it shown as
        `shown_url` shows it: for a message that may be shown or written."""
        if self._url != self.base_url:
            text = text.replace(self._url, self.base_url)
        return redact_urls(scrub_forms(text, self._forms))

    def scrub_value(self, value: Any) -> Any:
        """`value` (parsed JSON, depth already bounded) with the secrets replaced in every
        string (URLs are left as they are: they are the model's answer).

        A server or a model may echo the key in an answer; the answer is kept in files.
        Only secrets long enough to be nothing else are replaced, as written (see
        `secrets.answer_forms`): a scrubbed answer is a changed answer.
        """
        forms = self._answer_forms
        if not forms:
            return value
        if isinstance(value, str):
            return scrub_forms(value, forms)
        if isinstance(value, dict):
            return {scrub_forms(str(k), forms): self.scrub_value(v) for k, v in value.items()}
        if isinstance(value, list):
            return [self.scrub_value(v) for v in value]
        return value

    def redacted_headers(self) -> dict[str, str]:
        if self._credentials is not None:
            # The HTTP client sends the base URL's user and password as Basic
            # authentication, in place of the key.
            source = "user:password" if self._credentials.password is not None else "user"
            auth = f"Basic <base64 of the {source} in the base URL>"
        elif self._key:
            auth = f"Bearer <${self.key_env}>"
        else:
            auth = f"Bearer <placeholder {PLACEHOLDER_KEY!r}>"
        return {"Authorization": auth, "Content-Type": "application/json"}

    # --- requests -------------------------------------------------------------------------

    def build_request(self, item: Item, options: RequestOptions, mode: Mode) -> dict[str, Any]:
        messages = question_messages(item.question)
        if mode is Mode.PROMPT:
            # The docs go in a system prompt ahead of the item's own system messages.
            prompt = {"role": "system", "content": system_prompt(item)}
            return self.build_chat([prompt, *messages], options)
        return self.build_chat(
            messages, options, functions=item.functions, parallel=item.category.is_parallel
        )

    @staticmethod
    def forced_wire_name(tools: Sequence[WireTool], force: str | None) -> str | None:
        """The wire name of the forced function; ValueError when it is not offered."""
        if force is None:
            return None
        for tool in tools:
            if tool.original_name == force:
                return tool.name
        offered = ", ".join(t.original_name for t in tools) or "none"
        raise ValueError(f"cannot force {force!r}: the functions offered are {offered}")

    # --- SDK ------------------------------------------------------------------------------

    def sdk_versions(self) -> dict[str, str]:
        # Imported when a run starts: `run --help` and --dump-request need no metadata.
        from importlib import metadata

        versions: dict[str, str] = {}
        for dist in (self.sdk_name, "httpx2"):
            try:
                versions[dist] = metadata.version(dist)
            except metadata.PackageNotFoundError:
                continue
        return versions

    @abstractmethod
    def _sdk_client(self) -> Any:
        """The SDK's async client, created on first use (the SDK's own retries off), on
        `_http_client`."""

    def _http_client(self) -> Any:
        """The HTTP client the SDK is given: its own default, reading an error status's
        body within MAX_BODY_BYTES (`bodies.http_client`)."""
        return http_client(importlib.import_module(self.sdk_name))

    def request_url(self) -> str:
        return self.base_url + self.endpoint

    async def send(self, request: Mapping[str, Any]) -> Response:
        # Imported here, not at the top: the HTTP client and asyncio are heavy, and commands
        # that send nothing (--help, score, report) should not pay for them.
        import asyncio

        import httpx2

        client = self._sdk_client()
        start = time.perf_counter()
        try:
            # The SDK's timeout bounds each read; this bounds the whole request, so that a
            # server sending a byte now and then cannot hold a run forever.
            async with asyncio.timeout(self.timeout_s):
                # Posted as built, not re-shaped by the SDK's typed `create`: what
                # --dump-request shows is byte for byte what is sent, and no time goes to
                # re-validating it.
                # Redirects are not followed: the SDKs would follow one to any host, with
                # the key in the headers. classify_status says where it pointed.
                # Streamed, so that a body past MAX_BODY_BYTES is refused as it comes,
                # never held (an error status's body: by the client's hook, `bodies`).
                http = await client.post(
                    self.endpoint,
                    body=dict(request),
                    cast_to=httpx2.Response,
                    options={"follow_redirects": False},
                    stream=True,
                )
                try:
                    data = await bounded_body(http, MAX_BODY_BYTES)
                finally:
                    await http.aclose()
        except TimeoutError:
            raise RequestTimeout(f"no answer within {self.timeout_s:g} s") from None
        latency = time.perf_counter() - start
        text = data.decode(http.encoding or "utf-8", errors="replace")
        body = self.scrub_value(self._json_body(text))
        usage = self._usage(body, *self.usage_keys)
        return Response(body, usage, latency, self.finish_reason(body))

    def classify(self, exc: BaseException) -> ProviderError:
        return self.classify_with(importlib.import_module(self.sdk_name), exc)

    @staticmethod
    def _json_body(text: str) -> dict[str, Any]:
        try:
            body = _loads(text)
        except ValueError as exc:
            raise MalformedResponse(f"the response body is not valid JSON ({exc})") from None
        except RecursionError:
            raise MalformedResponse(
                f"the body nests deeper than {MAX_BODY_DEPTH} levels", retry=False
            ) from None
        if nesting_depth(body, MAX_BODY_DEPTH) > MAX_BODY_DEPTH:
            raise MalformedResponse(
                f"the body nests deeper than {MAX_BODY_DEPTH} levels", retry=False
            )
        if not isinstance(body, dict):
            raise MalformedResponse(
                f"the response body is a JSON {type(body).__name__}, not an object"
            )
        return body

    def server_says(self, body: Mapping[str, Any]) -> str:
        """`; the server says: ...` when a 200 body that is no answer holds an error
        message (`{"error": {"message"}}` and kin), one line, bounded, secrets scrubbed;
        "" when it holds none."""
        words = server_message(body, "", self.scrub)
        return f"; the server says: {words}" if words else ""

    @staticmethod
    def _usage(body: Mapping[str, Any], input_key: str, output_key: str) -> Usage:
        usage = body.get("usage")
        if not isinstance(usage, Mapping):
            return Usage()
        return Usage(_count(usage.get(input_key)), _count(usage.get(output_key)))

    async def aclose(self) -> None:
        client, self._client = self._client, None
        if client is not None:
            await client.close()

    # --- errors ---------------------------------------------------------------------------

    def _context(self) -> ServerContext:
        return ServerContext(
            self.name,
            self.model,
            self.base_url,
            self.key_env,
            self.spec.local,
            self._credentials is not None,
        )

    def classify_with(self, sdk: ModuleType, exc: BaseException) -> ProviderError:
        error = self._classify(sdk, exc)
        return ProviderError(
            error.kind,
            self.scrub(error.message),
            error.status,
            error.retry_after,
            error.param,
            None if error.hint is None else self.scrub(error.hint),
            error.refused,
        )

    def _classify(self, sdk: ModuleType, exc: BaseException) -> ProviderError:
        large = in_chain(
            exc, ResponseTooLarge
        )  # an answer's body past the bound, or an error status's
        if large is not None:
            # Never retried, whatever the status: a server that sent a body past the bound
            # will again (each try fetching up to the bound for nothing), and the words the
            # status rules read (quota, setup, a refused field) are in the body not kept.
            return ProviderError(ErrorKind.ITEM, str(large))
        if isinstance(exc, MalformedResponse):
            kind = ErrorKind.RETRYABLE if exc.retry else ErrorKind.ITEM
            return ProviderError(kind, f"malformed response: {exc}")
        if isinstance(exc, sdk.APITimeoutError | RequestTimeout):
            return ProviderError(
                ErrorKind.RETRYABLE, f"no answer within {self.timeout_s:g} s (--timeout)"
            )
        if isinstance(exc, sdk.APIConnectionError):
            if in_chain(exc, ConnectionRefusedError) is not None:
                return ProviderError(
                    ErrorKind.RETRYABLE,
                    f"connection to {self.base_url} refused: nothing is listening there",
                    hint="start the server, or check --base-url",
                    refused=True,
                )
            cause = exc.__cause__ or exc.__context__
            detail = readable(self.scrub(f"{type(cause).__name__}: {cause}" if cause else str(exc)))
            return ProviderError(
                ErrorKind.RETRYABLE, f"connection to {self.base_url} failed ({detail})"
            )
        if isinstance(exc, sdk.APIStatusError):
            headers = getattr(exc.response, "headers", None)
            return classify_status(
                exc.status_code, exc.body, headers, str(exc.message), self._context(), self.scrub
            )
        if isinstance(exc, UnicodeEncodeError):  # the request itself cannot be sent
            return ProviderError(
                ErrorKind.FATAL,
                f"the request cannot be sent: {exc.reason} ({exc.encoding} cannot encode a "
                "character of a header)",
                hint=f"check {self.key_env} and the base URL for characters that are not ASCII",
            )
        if isinstance(exc, ValueError):  # a body the SDK itself could not decode
            return ProviderError(ErrorKind.RETRYABLE, f"malformed response: {exc}")
        return ProviderError(
            ErrorKind.FATAL,
            f"{type(exc).__name__}: {exc}",
            hint=f"unexpected error from the {self.sdk_name} SDK; check --model, --base-url "
            f"and {self.spec.key_env}",
        )
