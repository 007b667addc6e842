"""The request gate, as plain ASGI (no per-request thread or task): authentication, rate
limits with `X-RateLimit-*` headers on every response, and seeded fault injection.

Order: a body over its route's limit (`body_limit`) is refused first, 413 in the spec's
envelope, unread (a declared Content-Length) or as soon as a chunked body passes it; the
public routes (`public.PUBLIC_ROUTES`: docs, checkout and 3-D Secure pages) pass; the
`api-key` header is resolved (401 AU_01 / AU_02, `prd_` refused); the key's minute window is
counted (429 RL_01), a refused or missing key in the one window all failures share (so
made-up keys cost no memory: they are neither cached nor given a window each; 429 once that
window is spent); a publishable key is held to the SDK flow's two routes (403); a fault
may be drawn; then the app runs. Handlers read the caller from
`principal_of(request)`.

Every 429 carries `Retry-After` (whole seconds, never past `X-RateLimit-Reset`) and
`X-RateLimit-Remaining: 0`. Faults (`--fault-rate`, `limits.FAULT_KINDS`): 500, 502, 503 and 429
answers (503 and 429 with `Retry-After: 1`) and a dropped connection are drawn before the
handler runs, so nothing is processed; "lost" runs the handler, waits for its commit, and then
drops the connection: the change is made and its answer never arrives, which is what makes a
client's retries create twice unless they are idempotent. A dropped connection sends no byte of
answer (no status line): the server's `DROP_CONNECTION` scope extension closes it
(`payscope.core.asgi_server`; on a server without it, a 500 answers instead).
"""

from __future__ import annotations

import re
import sqlite3
from collections.abc import Awaitable, Callable, MutableMapping
from typing import Any

from payscope.core.asgi_server import DROP_CONNECTION
from payscope.sandbox import keys
from payscope.sandbox.errors import (
    API,
    AUTH,
    CONNECTOR,
    INVALID,
    RATE_LIMIT,
    SandboxError,
    forbidden,
)
from payscope.sandbox.limits import FAILED_AUTH
from payscope.sandbox.public import is_public
from payscope.sandbox.state import SandboxState

Scope = MutableMapping[str, Any]
Message = MutableMapping[str, Any]
Receive = Callable[[], Awaitable[Message]]
Send = Callable[[Message], Awaitable[None]]
ASGIApp = Callable[[Scope, Receive, Send], Awaitable[None]]

_PUBLISHABLE_ROUTES = re.compile(r"^/payments/(?!list$|session_tokens$)[^/]+(/confirm)?$")
# The browser SDK's other calls, each checking the payment's client_secret itself.
_PUBLISHABLE_SDK = frozenset(
    {("GET", "/account/payment_methods"), ("POST", "/payments/session_tokens")}
)
# Stored keys cached by value at most (a cache of real keys only; cleared when keys change).
_KEY_CACHE_SIZE = 1024
# The largest request body a route takes: the first matching path prefix decides.
MAX_BODY_BYTES = 1024 * 1024
_BODY_LIMITS: tuple[tuple[str, int], ...] = ()
# Up to this many declared bytes, a refused body is read and discarded by the server and the
# connection kept; beyond it the connection is closed after the 413.
_DRAIN_LIMIT = 8 * MAX_BODY_BYTES
_CLOSE = ((b"connection", b"close"),)


def body_limit(path: str) -> int:
    """The most bytes of request body `path` accepts."""
    for prefix, limit in _BODY_LIMITS:
        if path.startswith(prefix):
            return limit
    return MAX_BODY_BYTES


def _too_large(limit: int, size: int | None) -> SandboxError:
    said = f" ({size} bytes)" if size is not None else ""
    return SandboxError(
        413,
        INVALID,
        "IR_04",
        f"Request body too large{said}: this route takes at most {limit} bytes.",
    )


def _header(scope: Scope, name: bytes) -> str | None:
    for key, value in scope["headers"]:
        if key == name:
            return str(value.decode("latin-1"))
    return None


def authenticate(state: SandboxState, key: str | None) -> keys.Principal:
    """Resolve the `api-key` header to a principal, or raise the spec's 401."""
    creds = state.credentials
    if not key:
        raise SandboxError(
            401,
            AUTH,
            "AU_01",
            "API key not provided: send your sandbox secret key in the 'api-key' header "
            "(payscope sandbox prints it at start).",
        )
    if key == creds.api_key:
        return keys.Principal(keys.SECRET, creds.merchant_id)
    if key == creds.publishable_key:
        return keys.Principal(keys.PUBLISHABLE, creds.merchant_id)
    if key.startswith(("prd_", "pk_prd_")):
        raise SandboxError(
            401,
            AUTH,
            "AU_01",
            "This is a local sandbox: production keys (prd_) are never accepted here and "
            "nothing is charged. Use the sandbox key (snd_...) printed by payscope sandbox.",
        )
    record = state.key_cache.get(key)
    if record is None:
        record = keys.find(state.db.conn, key)
        if record is not None:  # unknown keys are not cached: there is no end to them
            if len(state.key_cache) >= _KEY_CACHE_SIZE:
                state.key_cache.clear()
            state.key_cache[key] = record
    if record is None:
        raise SandboxError(
            401,
            AUTH,
            "AU_01",
            "Invalid API key: no key of this sandbox matches it. Check for a typo or use "
            "the key printed by payscope sandbox.",
        )
    if record.revoked:
        raise SandboxError(
            401, AUTH, "AU_02", "This API key was revoked: create a new one under /api_keys."
        )
    if record.expiration is not None and record.expiration <= state.clock.now_iso():
        raise SandboxError(
            401, AUTH, "AU_01", f"This API key expired at {record.expiration}: create a new one."
        )
    return keys.Principal(keys.SECRET, record.merchant_id, record.key_id)


class SandboxMiddleware:
    """Wraps the FastAPI app; see the module docstring."""

    def __init__(self, app: ASGIApp, state: SandboxState) -> None:
        self.app = app
        self.state = state

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        state = self.state
        state.ensure_worker()
        path: str = scope["path"]
        limit = body_limit(path)
        chunked = False
        for name, value in scope["headers"]:
            if name == b"content-length":
                size = int(value) if value.isdigit() else 0
                if size > limit:
                    # Far past the limit, the rest is not drained (it may never come): the
                    # connection closes after the answer instead of waiting for it.
                    close = _CLOSE if size > _DRAIN_LIMIT else ()
                    await _send_error(send, _too_large(limit, size), close)
                    return
            elif name == b"transfer-encoding":
                chunked = True
        if chunked:  # no length announced: count the body as it comes
            gate = _BodyLimit(receive, send, limit)
            try:
                await self._gate(scope, gate.receive, gate.send)
            except Exception:
                if not gate.refused:  # the app's own failure, not the refused body's echo
                    raise
            return
        await self._gate(scope, receive, send)

    async def _gate(self, scope: Scope, receive: Receive, send: Send) -> None:
        state = self.state
        path: str = scope["path"]
        if is_public(scope["method"], path):
            await self.app(scope, receive, send)
            return
        key = _header(scope, b"api-key")
        try:
            principal: keys.Principal | None = authenticate(state, key)
            refused = None
        except SandboxError as exc:
            principal, refused = None, exc
        # A window per real key; every refused or missing key shares one.
        allowed, limit, remaining, reset = state.limiter.hit(
            FAILED_AUTH if principal is None or key is None else key
        )
        extra = [
            (b"x-ratelimit-limit", str(limit).encode()),
            (b"x-ratelimit-remaining", str(remaining).encode()),
            (b"x-ratelimit-reset", str(reset).encode()),
        ]

        unstored = False

        async def send_with_limits(message: Message) -> None:
            nonlocal unstored
            if unstored:  # the app's own answer, replaced by the 503 below: dropped
                return
            if message["type"] == "http.response.start":
                message["headers"] = [*message.get("headers", ()), *extra]
                # Nothing is acknowledged before it is committed (group commit, see db.py).
                try:
                    await state.db.committed()
                except sqlite3.Error as exc:  # not stored, so not acknowledged: 503
                    unstored = True
                    await _send_error(send, not_stored(state, exc), _RETRY_LATER)
                    return
            await send(message)

        try:
            if not allowed:  # remaining is 0 already; Retry-After: when the window resets
                extra.append((b"retry-after", str(state.limiter.retry_after(reset)).encode()))
            if principal is None:
                if not allowed:
                    raise SandboxError(
                        429,
                        RATE_LIMIT,
                        "RL_01",
                        f"Too many failed authentications: {limit} per minute in all. "
                        f"Wait until X-RateLimit-Reset ({reset}) and retry with a valid key.",
                    )
                assert refused is not None
                raise refused
            if not allowed:
                raise SandboxError(
                    429,
                    RATE_LIMIT,
                    "RL_01",
                    f"Rate limit exceeded: {limit} requests per minute for this key. "
                    f"Wait until X-RateLimit-Reset ({reset}) and retry.",
                )
            if (
                principal.kind == keys.PUBLISHABLE
                and not (
                    _PUBLISHABLE_ROUTES.match(path)
                    and (scope["method"] == "GET") != path.endswith("/confirm")
                )
                and (scope["method"], path) not in _PUBLISHABLE_SDK
            ):
                raise forbidden(
                    "A publishable key (pk_snd_) may only retrieve or confirm the payment whose "
                    "client_secret it presents (the browser SDK flow). Use the secret key "
                    "(snd_) from your server for anything else."
                )
        except SandboxError as exc:
            await _send_error(send_with_limits, exc)
            return
        scope.setdefault("state", {})["principal"] = principal
        if state.faults.rate > 0 and not path.startswith("/_sandbox/"):
            fault = state.faults.draw()
            if fault == "lost":
                await self._commit_then_drop(scope, receive, send_with_limits)
                return
            if fault is not None:
                if fault == "429":  # as the limiter's own 429 says it (see the docstring)
                    wait = min(_FAULT_RETRY_AFTER, state.limiter.retry_after(reset))
                    extra[1] = (b"x-ratelimit-remaining", b"0")
                    extra.append((b"retry-after", str(wait).encode()))
                await _send_fault(scope, receive, send_with_limits, fault)
                return
        await self.app(scope, receive, send_with_limits)

    async def _commit_then_drop(self, scope: Scope, receive: Receive, send: Send) -> None:
        """The "lost" fault: the app handles the request and its change is committed; then the
        connection is dropped, and not a byte of the answer leaves."""
        db = self.state.db

        async def swallow(message: Message) -> None:
            if message["type"] == "http.response.start":
                await db.committed()  # the change is durable before its answer is lost

        drop = _dropper(scope)
        try:
            await self.app(scope, receive, swallow)
        finally:
            if drop is not None:
                drop()
        if drop is None:  # a server that cannot drop a connection: a 500 hides the change
            await _send_error(send, _FAULTS["500"])


class _BodyLimit:
    """`receive` that answers 413 once a chunked body passes `limit` (and then tells the app
    the client left), and `send` that drops what the app still sends after that answer."""

    __slots__ = ("_receive", "_send", "limit", "refused", "seen")

    def __init__(self, receive: Receive, send: Send, limit: int) -> None:
        self._receive = receive
        self._send = send
        self.limit = limit
        self.seen = 0
        self.refused = False

    async def receive(self) -> Message:
        message = await self._receive()
        if message["type"] == "http.request" and not self.refused:
            self.seen += len(message.get("body", b""))
            if self.seen > self.limit:
                self.refused = True
                # The server discards the rest of the body and keeps the connection.
                await _send_error(self._send, _too_large(self.limit, None))
                return {"type": "http.disconnect"}
        return message

    async def send(self, message: Message) -> None:
        if not self.refused:
            await self._send(message)


async def _send_error(
    send: Send, exc: SandboxError, headers: tuple[tuple[bytes, bytes], ...] = ()
) -> None:
    body = exc.body()
    await send(
        {
            "type": "http.response.start",
            "status": exc.status,
            "headers": [
                (b"content-type", b"application/json"),
                (b"content-length", str(len(body)).encode()),
                *headers,
            ],
        }
    )
    await send({"type": "http.response.body", "body": body})


_FAULTS = {
    "500": SandboxError(500, API, "HE_00", "Injected fault (--fault-rate): internal error."),
    "502": SandboxError(
        502, CONNECTOR, "CE_01", "Injected fault (--fault-rate): the processor is unavailable."
    ),
    "503": SandboxError(
        503, API, "HE_00", "Injected fault (--fault-rate): temporary outage, retry shortly."
    ),
    "429": SandboxError(
        429, RATE_LIMIT, "RL_01", "Injected fault (--fault-rate): rate limited, retry shortly."
    ),
}


# The `Retry-After` of a 503 for a write that could not be stored (a full disk).
_RETRY_LATER = ((b"retry-after", b"30"),)


def not_stored(state: SandboxState, exc: BaseException) -> SandboxError:
    """The 503 for a change the database could not commit (its disk full, most often)."""
    state.db.note_failure(exc)
    full = state.db.disk_full
    if full is not None:
        return SandboxError(503, API, "HE_00", full)
    return SandboxError(
        503,
        API,
        "HE_00",
        f"The sandbox could not store this change ({exc}); nothing of it was kept. Retry.",
    )


# The `Retry-After` of the injected 429 and 503 (seconds).
_FAULT_RETRY_AFTER = 1


def _dropper(scope: Scope) -> Callable[[], None] | None:
    """The server's function that closes this request's connection unanswered, if it has one."""
    entry = scope.get("extensions", {}).get(DROP_CONNECTION)
    drop = entry.get("drop") if isinstance(entry, dict) else None
    return drop if callable(drop) else None


async def _send_fault(scope: Scope, receive: Receive, send: Send, kind: str) -> None:
    if kind == "drop":
        drop = _dropper(scope)
        if drop is not None:
            # Read the request to its end (closing on unread bytes would reset the connection),
            # then close it: not a byte of answer, not even a status line.
            while (await receive()).get("more_body"):
                pass
            drop()
            return
        kind = "500"  # a server that cannot drop a connection
    # 503 says Retry-After itself; the 429's (with its X-RateLimit-*) is added by the caller.
    retry_after = ((b"retry-after", str(_FAULT_RETRY_AFTER).encode()),) if kind == "503" else ()
    await _send_error(send, _FAULTS[kind], retry_after)
