"""A local address where nothing listens, for tests of a server that is not there."""

from __future__ import annotations

import socket


def closed_port() -> int:
    """A port on 127.0.0.1 that was free a moment ago: bound, then closed again at once,
    so a connection there is refused (a fixed port such as 9 may have a listener)."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def dead_url(path: str = "/v1", credentials: str = "") -> str:
    """`http://[credentials@]127.0.0.1:PORT/v1` with nothing listening at PORT."""
    at = f"{credentials}@" if credentials else ""
    return f"http://{at}127.0.0.1:{closed_port()}{path}"
