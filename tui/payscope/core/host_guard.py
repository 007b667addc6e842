"""A server bound to loopback answers only loopback names in `Host` (a DNS-rebinding guard).

A web page in the user's browser can make its own name (`evil.example`) resolve to 127.0.0.1
and then talk to a local port as a same-origin page: the request still says
`Host: evil.example`. The local sandbox and the webhook listeners, bound to loopback, therefore
answer only requests whose `Host` is a loopback name: `localhost` (and `*.localhost`, which
resolves to loopback by definition), an IPv4 address in 127.0.0.0/8, or `[::1]`, with or
without a port. Anything else gets 400 with the spec's error envelope
(`{"error": {"type", "code", "message"}}`), before the app sees the request.

Which address the server is bound to is read from the ASGI scope's `server` (the listening
socket's own address): a server bound to another address (`--host 0.0.0.0`) is not held to
loopback names. A request with no `Host` at all (HTTP/1.0, a raw socket) is let through:
browsers always send one, so it cannot be a rebinding page. Plain ASGI, no Starlette internals.
"""

from __future__ import annotations

import json
from collections.abc import Awaitable, Callable, MutableMapping
from typing import Any

from payscope.core.hosts import is_loopback_host

Scope = MutableMapping[str, Any]
Message = MutableMapping[str, Any]
Receive = Callable[[], Awaitable[Message]]
Send = Callable[[Message], Awaitable[None]]
ASGIApp = Callable[[Scope, Receive, Send], Awaitable[None]]

# Host values already judged loopback (bounded: only accepted values are kept, and few exist).
_ACCEPTED: set[bytes] = set()
_ACCEPTED_MAX = 256


def split_host(value: str) -> tuple[str, str | None]:
    """`Host` header -> (name, port or None); `[::1]:80` -> ("[::1]", "80")."""
    if value.startswith("["):
        end = value.find("]")
        if end == -1:
            return value, None
        rest = value[end + 1 :]
        return value[: end + 1], (rest[1:] if rest.startswith(":") else None)
    if value.count(":") == 1:
        name, port = value.split(":")
        return name, port
    return value, None


def is_loopback_host_header(value: str) -> bool:
    """True when a `Host` header names loopback: localhost, *.localhost, 127.x.y.z or [::1],
    with or without a port (digits only)."""
    name, port = split_host(value.strip())
    if port is not None and not (port.isdigit() and len(port) <= 5):
        return False
    if ":" in name and not name.startswith("["):
        return False  # a bare IPv6 address is not a valid Host
    return is_loopback_host(name)


def host_header(scope: Scope) -> bytes | None:
    for key, value in scope.get("headers", ()):
        if key == b"host":
            return bytes(value)
    return None


def refusal(host: str, what: str) -> tuple[int, bytes]:
    """The status and envelope body of a refused `Host`."""
    shown = host.encode("ascii", "backslashreplace").decode("ascii")[:200]
    message = (
        f"Host {shown!r} is not a name of this {what}: it listens on loopback and answers only "
        "127.0.0.1, localhost or [::1] (with or without a port). A web page that made its own "
        "name point here (DNS rebinding) is refused; use http://127.0.0.1:PORT."
    )
    body = {"error": {"type": "invalid_request", "code": "IR_04", "message": message}}
    return 400, json.dumps(body).encode()


def bound_to_loopback(scope: Scope) -> bool:
    server = scope.get("server")
    if not server:
        return False
    return is_loopback_host(str(server[0]))


def refused_host(scope: Scope) -> str | None:
    """The `Host` of a request to refuse (decoded), or None when it may be answered."""
    value = host_header(scope)
    if value is None or value in _ACCEPTED:
        return None
    if not bound_to_loopback(scope):
        return None
    text = value.decode("latin-1")
    if is_loopback_host_header(text):
        if len(_ACCEPTED) < _ACCEPTED_MAX:
            _ACCEPTED.add(value)
        return None
    return text


class LoopbackHostGuard:
    """ASGI middleware: see the module docstring. `what` names the server in the message."""

    def __init__(self, app: ASGIApp, what: str = "server") -> None:
        self.app = app
        self.what = what

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] in ("http", "websocket"):
            refused = refused_host(scope)
            if refused is not None:
                await self._refuse(scope, send, refused)
                return
        await self.app(scope, receive, send)

    async def _refuse(self, scope: Scope, send: Send, host: str) -> None:
        status, body = refusal(host, self.what)
        if scope["type"] == "websocket":
            await send({"type": "websocket.close", "code": 1008})
            return
        await send(
            {
                "type": "http.response.start",
                "status": status,
                "headers": [
                    (b"content-type", b"application/json"),
                    (b"content-length", str(len(body)).encode()),
                ],
            }
        )
        await send({"type": "http.response.body", "body": body})
