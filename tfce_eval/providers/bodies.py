"""Every body a server sends is read within `MAX_BODY_BYTES`, as decoded (gzip...).

An answer (a 2xx) is read by `SdkProvider.send` through `bounded_body`. Any other status
the SDKs turn into their status error, reading the whole body first, however long: so the
HTTP client each SDK is given (`http_client`) reads that body itself, within the bound, in
a response hook, before the SDK sees the response. A body past the bound stops the read
(the connection is closed) with `ResponseTooLarge` naming the status; one within it is
kept on the response, where the SDK reads it as it always does.
"""

from __future__ import annotations

import contextlib
from types import ModuleType
from typing import TYPE_CHECKING, Any, TypeVar

from tfce_eval.providers.base import MAX_BODY_BYTES, ResponseTooLarge

E = TypeVar("E", bound=BaseException)

if TYPE_CHECKING:
    import httpx2


async def bounded_body(http: httpx2.Response, limit: int, status: int | None = None) -> bytes:
    """The body of a streamed response, decoded as sent (gzip...), within `limit` bytes:
    ResponseTooLarge before a byte is read when it declares more (and is not compressed),
    else as soon as more arrives. `status` is named in the error (an error status's body).
    """
    declared = (http.headers.get("content-length") or "").strip()
    coding = (http.headers.get("content-encoding") or "identity").strip().lower()
    if declared.isdigit() and int(declared) > limit and coding == "identity":
        raise ResponseTooLarge(int(declared), limit, status)
    parts: list[bytes] = []
    size = 0
    async with contextlib.aclosing(http.aiter_bytes()) as chunks:
        async for chunk in chunks:
            size += len(chunk)
            if size > limit:
                raise ResponseTooLarge(None, limit, status)
            parts.append(chunk)
    return b"".join(parts)


async def read_error_body(response: httpx2.Response) -> None:
    """The response hook: an error status's body read here, within `MAX_BODY_BYTES`.

    A 2xx is left to be streamed by `send`. The body read is kept where `aread` keeps it,
    so that the SDK, which reads it next, finds it read (and closed: the connection is
    already back in the pool).
    """
    if response.is_success:
        return
    response._content = await bounded_body(response, MAX_BODY_BYTES, response.status_code)


def http_client(sdk: ModuleType) -> Any:
    """The SDK's own default async HTTP client (its timeouts, connection limits, proxies
    from the environment), with `read_error_body` as its response hook."""
    return sdk.DefaultAsyncHttpxClient(event_hooks={"response": [read_error_body]})


def in_chain(exc: BaseException, kind: type[E]) -> E | None:
    """The first exception of `kind` in `exc`'s chain of causes and contexts, or None: the
    SDKs wrap what went wrong several layers deep (a refused connection, the
    ResponseTooLarge raised in the HTTP client's hook, which Anthropic's SDK wraps in its
    connection error and OpenAI's does not)."""
    seen: set[int] = set()
    node: BaseException | None = exc
    while node is not None and id(node) not in seen:
        if isinstance(node, kind):
            return node
        seen.add(id(node))
        node = node.__cause__ or node.__context__
    return None
