"""The webhook listener: `POST /webhooks`, verified, deduplicated, journaled, streamed.

Public API (used by the TUI and `payscope listen`; keep it stable)::

    listener = Listener(data_dir, secrets=None, forward_to=None, routes=None,
                        max_age=DEFAULT_MAX_AGE)   # None: no freshness check
    url = await listener.start(host="127.0.0.1", port=8787, fallback_to_free_port=True,
                               own_thread=False)   # True: its own thread and loop
    # (the TUI runs it in a process of its own instead: tui/payscope/webhooks/process.py)
    listener.url          # ".../webhooks", or None before start
    listener.port         # the port actually bound (differs from the one asked when it was taken)
    listener.secrets      # the accepted signing secrets (never log them)
    listener.stats        # ListenerStats(accepted, rejected, duplicates, failed), since start
    listener.app          # the raw ASGI callable, to mount on another server
    async for delivery in listener.subscribe(): ...   # every Delivery, accepted and rejected
    unsubscribe = listener.add_subscriber(callback)   # callback(Delivery), sync or async
    listener.journal.count() / .recent(limit, offset=0, event_type=None, object_id=None)
    listener.journal.get(event_id)       # EventDetail: headers, raw body, verification, forwards
    listener.journal.forward_state(event_id) / .forward_counts()   # the durable forward queue
    record = await listener.replay(event_id, url=None)   # re-POST a journaled event; raises
                                         # NoForwardTarget / InvalidForwardUrl (ForwardTargetError)
    await listener.stop()

Before anything else: bound to loopback, a `Host` that is not a loopback name -> 400 in the
spec's error envelope (DNS rebinding; tui/payscope/core/host_guard.py).

What a request gets, in the order checked: another path -> 404; another method -> 405 (with
`Allow: POST`); a content type other than application/json (or two different ones) -> 415; a
body over 1 MiB -> 413 (reading stops there); a sender that hangs up before its whole body
arrived -> recorded as 499 with no body, never verified or processed; a missing, repeated or
wrong `X-Webhook-Signature-512` -> 401; a body that is not a JSON object with a string
`event_id` of 1 to 255 printable characters -> 400 (so is JSON nested too deeply to read, or
holding an unpaired UTF-16 surrogate escape, which SQLite cannot store); a `timestamp` older
than `max_age` seconds (7 days by default) -> 400 `stale_event`, its reason starting "stale:"
(a date in the future, or a missing or unreadable one, is not judged: the sandbox's clock may
run ahead); otherwise 200, after the journal has committed the event (and, when forwarding, the
forward it is owed: see tui/payscope/webhooks/forward.py). When the journal cannot commit (disk
full,
file locked) the answer is 503 with `Retry-After`, and subscribers see that delivery with its
reason. A duplicate `event_id` is answered 200 too, counted, marked duplicate, and neither
forwarded nor announced as new. Every attempt (rejected ones included, with their reason) is in
the journal; rejected ones are never processed; unsigned ones keep only their headers and the
first 4 KiB of their body, and the journal drops the oldest rejected ones past its cap (accepted
events never).

Subscribers each get a bounded queue (1,000 deliveries by default). Publishing never waits: when
a subscriber falls that far behind, its oldest undelivered delivery is dropped and counted in
`Subscription.dropped` (the journal still has it), so a slow screen can never hold up an ack.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import contextlib
import errno
import json
import logging
import threading
import time
from collections.abc import Awaitable, Callable, Mapping, Sequence
from pathlib import Path
from typing import Any

# Re-exported: what `replay` raises, importable from here with the rest of the listener's API.
from payscope.core.forward_urls import ForwardTargetError as ForwardTargetError
from payscope.core.forward_urls import InvalidForwardUrl as InvalidForwardUrl
from payscope.core.forward_urls import check_url
from payscope.core.host_guard import refusal, refused_host
from payscope.webhooks.checks import (
    DEFAULT_MAX_AGE,
    MAX_EVENT_ID_CHARS,
    SIGNATURE_KEY,
    checked_max_age,
    checked_secrets,
    declared_length,
    describe,
    event_id_problem,
    is_json,
    json_problem,
    parse_body,
    repeated_headers,
    signature_problem,
    staleness,
)
from payscope.webhooks.deliveries import Delivery, ListenerStats, Publisher
from payscope.webhooks.forward import Forwarder
from payscope.webhooks.forward import NoForwardTarget as NoForwardTarget
from payscope.webhooks.journal import Journal
from payscope.webhooks.records import Attempt, ForwardRecord, JournalError, Recorded
from payscope.webhooks.signing import SIGNATURE_HEADER, Verifier

log = logging.getLogger("payscope.listener")

WEBHOOK_PATH = "/webhooks"
MAX_BODY_BYTES = 1024 * 1024
DEFAULT_PORT = 8787
# How long stopping waits for requests in flight; a sender trickling a body (or announcing more
# than it sends) would otherwise hold Ctrl+C forever. Acked events are committed either way.
SHUTDOWN_GRACE_SECONDS = 3.0

Scope = dict[str, Any]
Message = dict[str, Any]
Receive = Callable[[], Awaitable[Message]]
Send = Callable[[Message], Awaitable[None]]

_JSON_HEADERS = [(b"content-type", b"application/json")]


def _json_answer(body: bytes) -> tuple[list[tuple[bytes, bytes]], bytes]:
    return [*_JSON_HEADERS, (b"content-length", str(len(body)).encode())], body


_ACK_NEW = _json_answer(b'{"received":true,"duplicate":false}')
_ACK_DUPLICATE = _json_answer(b'{"received":true,"duplicate":true}')
_WEBHOOK_PATH_SLASH = WEBHOOK_PATH + "/"
_ALLOW_POST = ((b"allow", b"POST"),)
_CLOSE = ((b"connection", b"close"),)
_RETRY_LATER = ((b"retry-after", b"5"),)
# Up to this many declared bytes, a 413 keeps the connection open and the server discards the
# body unread: closing a socket with unread data sends a reset, which can destroy the 413 in
# the client's buffers before it is read. Beyond it, closing is cheaper than draining.
_DRAIN_LIMIT = 8 * MAX_BODY_BYTES
_UNSUPPORTED = "unsupported_media_type"
_TOO_LARGE = "payload_too_large"
_UNAUTHORIZED = "unauthorized"
_BAD_REQUEST = "bad_request"
_INCOMPLETE = "client_closed_request"
_STALE = "stale_event"
# nginx's code for "the client closed the connection before the answer": nobody reads it, but
# the journal and the stream show the attempt for what it was.
_INCOMPLETE_STATUS = 499


class ListenerError(RuntimeError):
    """The listener could not start (port taken, journal not writable...); says what to do."""


class ListenerApp:
    """The listener's raw ASGI 3 application (an object, so servers detect ASGI 3 by itself)."""

    __slots__ = ("_http", "listener")

    def __init__(self, listener: Listener) -> None:
        self.listener = listener
        self._http = listener._http

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        kind = scope["type"]
        if kind == "http":
            # Bound to loopback, only loopback names in Host (DNS rebinding; host_guard.py).
            refused = refused_host(scope)
            if refused is not None:
                status, body = refusal(refused, "webhook listener")
                headers, body = _json_answer(body)
                await send({"type": "http.response.start", "status": status, "headers": headers})
                await send({"type": "http.response.body", "body": body})
                return
            await self._http(scope, receive, send)
        elif kind == "lifespan":
            await self.listener._lifespan(receive, send)


class Listener(Publisher):
    """The webhook listener (see the module docstring for the whole API)."""

    def __init__(
        self,
        data_dir: Path,
        secrets: Sequence[str] | None = None,
        *,
        forward_to: str | None = None,
        routes: Mapping[str, str] | None = None,
        max_age: float | None = DEFAULT_MAX_AGE,
    ) -> None:
        super().__init__()
        self.data_dir = Path(data_dir)
        # The freshness window on an event's `timestamp`, in seconds; None turns it off.
        self.max_age = checked_max_age(max_age)
        self.secrets = checked_secrets(secrets)
        self.journal = Journal(self.data_dir)
        # Raises ValueError, saying why, for a forward URL that cannot be used.
        self.forwarder = Forwarder(self.journal, forward_to, routes)
        self.stats = ListenerStats()
        self.url: str | None = None
        self.port: int | None = None
        self._server: Any = None
        # Serving from a thread of its own (`start(own_thread=True)`): that thread and its loop.
        self._thread: threading.Thread | None = None
        self._loop: asyncio.AbstractEventLoop | None = None
        self.app = ListenerApp(self)

    @property
    def secrets(self) -> tuple[str, ...]:
        """The accepted signing secrets (never log them)."""
        return self._secrets

    @secrets.setter
    def secrets(self, value: Sequence[str]) -> None:
        # The keyed HMAC states are prepared once per set of secrets, not per request.
        self._secrets = tuple(value)
        self._verify = Verifier(self._secrets)

    def forward_target(self, event_type: str | None) -> str | None:
        """Where forwarding sends an event of this type (None: it is not forwarded)."""
        return self.forwarder.target_for(event_type)

    # -- lifecycle ---------------------------------------------------------------------------

    def open(self) -> None:
        """Open the journal (done by `start`, or by the ASGI lifespan when mounted elsewhere)."""
        try:
            self.journal.open()
        except JournalError as exc:
            raise ListenerError(str(exc)) from exc

    async def start(
        self,
        host: str = "127.0.0.1",
        port: int = DEFAULT_PORT,
        *,
        fallback_to_free_port: bool = True,
        own_thread: bool = False,
    ) -> str:
        """Serve on host:port; return the URL of POST /webhooks.

        When the port is taken and `fallback_to_free_port` is true, a free port is used instead
        (compare `.port` with the one asked to tell the user).

        `own_thread`: serve from a thread of its own with its own event loop, so requests are
        answered while the caller's loop is busy (a TUI drawing): acknowledgements never wait
        on it. Subscribers still get their deliveries on the loop they subscribed from, and
        `replay` and `stop` may be awaited there. Without it, it serves inside the running loop.
        """
        if own_thread:
            return await self._start_in_thread(host, port, fallback_to_free_port)
        return await self._start_here(host, port, fallback_to_free_port)

    async def _start_in_thread(self, host: str, port: int, fallback: bool) -> str:
        started: concurrent.futures.Future[str] = concurrent.futures.Future()

        def serve() -> None:
            loop = asyncio.new_event_loop()
            try:
                try:
                    url = loop.run_until_complete(self._start_here(host, port, fallback))
                except BaseException as exc:
                    started.set_exception(exc)
                    return
                self._loop = loop
                started.set_result(url)
                loop.run_forever()  # until `stop` stops it
            finally:
                loop.run_until_complete(loop.shutdown_asyncgens())
                loop.close()

        thread = self._thread = threading.Thread(
            target=serve, name="payscope-listener", daemon=True
        )
        thread.start()

        def settle() -> None:
            # Given up on (cancelled: the app closing) while the thread was still starting:
            # once it has started, it is stopped here, so the thread ends and the join returns
            # (a join alone would wait for ever on a loop that runs until `stop`).
            try:
                started.result()
            except BaseException:
                pass
            else:
                loop = self._loop
                if loop is not None:
                    stopping = asyncio.run_coroutine_threadsafe(self._stop_serving(0), loop)
                    with contextlib.suppress(BaseException):
                        stopping.result()
                    loop.call_soon_threadsafe(loop.stop)
            thread.join()

        try:
            # Shielded: a cancelled wait leaves `started` to the thread, which `settle` awaits.
            return await asyncio.shield(asyncio.wrap_future(started))
        except BaseException:
            await asyncio.to_thread(settle)
            self._thread = self._loop = None
            raise

    def _on_own_loop(self) -> asyncio.AbstractEventLoop | None:
        """The listener's own loop when called from another one (`own_thread`), else None."""
        loop = self._loop
        if loop is None or loop.is_closed():
            return None
        try:
            running = asyncio.get_running_loop()
        except RuntimeError:
            running = None
        return None if running is loop else loop

    async def _start_here(self, host: str, port: int, fallback_to_free_port: bool) -> str:
        # The server (uvicorn) loads only where the listener serves: the TUI's end of a listener
        # process imports this module for its types and never serves from it.
        from payscope.core.asgi_server import EmbeddedServer

        self.open()
        options = {"interface": "asgi3", "timeout_graceful_shutdown": SHUTDOWN_GRACE_SECONDS}
        server = EmbeddedServer(self.app, host, port, **options)
        try:
            server.bind()
        except OSError as exc:
            if exc.errno == errno.EADDRINUSE and fallback_to_free_port and port != 0:
                server = EmbeddedServer(self.app, host, 0, **options)
                server.bind()
            else:
                raise ListenerError(_bind_error(host, port, exc)) from exc
        base = await server.start()
        self._server = server
        self.forwarder.start()  # resumes the forwards an earlier run left owed
        self.port = server.port
        self.url = base + WEBHOOK_PATH
        return self.url

    async def stop(self, forward_grace: float = 2.0) -> None:
        """Stop serving, give queued forwards a moment, end subscriptions, close the journal."""
        loop, thread = self._on_own_loop(), self._thread
        if loop is not None and thread is not None:
            done = asyncio.run_coroutine_threadsafe(self._stop_serving(forward_grace), loop)
            try:
                await asyncio.wrap_future(done)
            finally:
                loop.call_soon_threadsafe(loop.stop)
                await asyncio.to_thread(thread.join)
                self._thread = self._loop = None
        else:
            await self._stop_serving(forward_grace)
        await self._end_subscriptions()
        self.journal.close()
        self.url = None

    async def _stop_serving(self, forward_grace: float) -> None:
        if self._server is not None:
            await self._server.stop()
            self._server = None
        await self.forwarder.drain(forward_grace)
        await self.forwarder.close()

    def _publish(self, delivery: Delivery) -> None:
        for sub in list(self._subscriptions):
            loop = sub.loop
            if self._loop is None or loop is None or loop is self._loop:
                sub.offer(delivery)
            else:  # a subscriber on another loop (the listener serves from its own thread)
                with contextlib.suppress(RuntimeError):  # its loop closed: nobody to tell
                    loop.call_soon_threadsafe(sub.offer, delivery)

    # -- replay ------------------------------------------------------------------------------

    async def replay(self, event_id: str, url: str | None = None) -> ForwardRecord:
        """Re-POST a journaled event (raw body and original signature) to `url` or its route.

        `url` works whether or not the listener forwards (no `forward_to` needed); without it
        the event goes where forwarding would send it. Raises `LookupError` for an event not in
        the journal, `NoForwardTarget` when there is no URL at all and `InvalidForwardUrl` for
        one that cannot be used (both before anything is sent). Every replay that is sent is
        recorded in the journal (`journal.get(event_id).forwards`) with its outcome, answered
        or not; the exchange is bounded by the forwarder's timeout.
        """
        loop = self._on_own_loop()
        if loop is not None:  # the forwarder's clients live on the listener's own loop
            sent = asyncio.run_coroutine_threadsafe(self.replay(event_id, url), loop)
            return await asyncio.wrap_future(sent)
        detail = self.journal.get(event_id)
        if detail is None:
            raise LookupError(f"no event {event_id!r} in the journal at {self.journal.path}")
        target = url if url is not None else self.forwarder.target_for(detail.event.event_type)
        if target is None:
            raise NoForwardTarget(event_id)
        check_url(target)
        signature = detail.headers.get(SIGNATURE_HEADER.lower())
        return await self.forwarder.send(event_id, target, detail.body, signature)

    # -- ASGI --------------------------------------------------------------------------------

    async def _lifespan(self, receive: Receive, send: Send) -> None:
        while True:
            message = await receive()
            if message["type"] == "lifespan.startup":
                try:
                    self.open()
                except ListenerError as exc:
                    await send({"type": "lifespan.startup.failed", "message": str(exc)})
                    return
                self.forwarder.start()
                await send({"type": "lifespan.startup.complete"})
            elif message["type"] == "lifespan.shutdown":
                await send({"type": "lifespan.shutdown.complete"})
                return

    async def _http(self, scope: Scope, receive: Receive, send: Send) -> None:
        # The hot path: one pass over the raw headers, no per-request closures or extra awaits.
        path = scope["path"]
        if path != WEBHOOK_PATH and path != _WEBHOOK_PATH_SLASH:
            text = f"nothing at {path}; webhooks go to POST {WEBHOOK_PATH}"
            await _respond(send, 404, "not_found", text)
            return
        method = scope["method"]
        if method != "POST":
            text = f"{method} is not accepted here; send webhooks with POST"
            await _respond(send, 405, "method_not_allowed", text, _ALLOW_POST)
            return

        received_at = time.time()
        content_type = b""
        length = b""
        signature: bytes | None = None
        raw_headers = scope["headers"]
        for name, value in raw_headers:
            if name == b"content-type":
                content_type = value
            elif name == b"content-length":
                length = value
            elif name == SIGNATURE_KEY:
                signature = value
        headers = {k.decode("latin-1"): v.decode("latin-1") for k, v in raw_headers}
        repeated_signature = False
        if len(headers) != len(raw_headers):  # a header name came twice (rare)
            headers, content_type, repeated_signature = repeated_headers(raw_headers, content_type)

        if content_type != b"application/json" and not is_json(content_type):
            shown = content_type.decode("latin-1") or "none"
            reason = f"content type {shown!r} is not application/json"
            await self._reject(send, received_at, headers, b"", 415, _UNSUPPORTED, reason)
            return

        declared = declared_length(length) if len(length) >= 7 else 0
        body: bytes | None
        if declared > MAX_BODY_BYTES:
            body, too_big = b"", True
        else:
            message = await receive()
            if message["type"] != "http.request":
                body, too_big = None, False  # gone before the body was read
            else:
                body = message.get("body", b"")
                too_big = len(body) > MAX_BODY_BYTES
                if message.get("more_body", False) and not too_big:
                    body, too_big = await _read_rest(receive, body)
        if too_big:
            reason = f"body larger than {MAX_BODY_BYTES} bytes (1 MiB); not read"
            close = not 0 < declared <= _DRAIN_LIMIT
            await self._reject(
                send, received_at, headers, b"", 413, _TOO_LARGE, reason, close=close
            )
            return
        if body is None:
            # Whatever arrived is not the body that was signed: neither verified nor stored.
            said = f" (Content-Length said {length.decode('latin-1')})" if length else ""
            reason = (
                f"the sender closed the connection before the whole body arrived{said}; "
                "nothing was verified or processed, the sender should retry"
            )
            await self._reject(
                send, received_at, headers, b"", _INCOMPLETE_STATUS, _INCOMPLETE, reason
            )
            return

        if signature is None or repeated_signature or not self._verify(body, signature):
            reason = signature_problem(signature, repeated_signature)
            await self._reject(send, received_at, headers, body, 401, _UNAUTHORIZED, reason)
            return

        try:
            payload = parse_body(body)
        except ValueError as exc:
            reason = json_problem(body, exc)
            await self._reject(
                send, received_at, headers, body, 400, _BAD_REQUEST, reason, verified=True
            )
            return
        event_id = payload.get("event_id") if type(payload) is dict else None
        if (
            type(event_id) is not str
            or not event_id
            or len(event_id) > MAX_EVENT_ID_CHARS
            or not event_id.isprintable()
        ):
            reason = event_id_problem(payload, event_id)
            await self._reject(
                send, received_at, headers, body, 400, _BAD_REQUEST, reason, verified=True
            )
            return

        max_age = self.max_age
        if max_age is not None:
            stamp = payload.get("timestamp")
            if type(stamp) is str:
                stale = staleness(stamp, received_at, max_age)
                if stale is not None:
                    await self._reject(
                        send, received_at, headers, body, 400, _STALE, stale, verified=True
                    )
                    return

        event_type, object_id, object_status = describe(payload)
        forwarder = self.forwarder
        forward_url = forwarder.target_for(event_type) if forwarder.enabled else None
        attempt = Attempt(
            received_at, headers, body, True, 200, None, event_id, event_type, object_id,
            object_status, forward_url,
        )  # fmt: skip
        try:
            recorded = await self.journal.record(attempt)
        except JournalError as exc:
            await self._unstored(send, attempt, exc)
            return

        duplicate = recorded.duplicate
        if duplicate:
            self.stats.duplicates += 1
            head, answer = _ACK_DUPLICATE
        else:
            self.stats.accepted += 1
            head, answer = _ACK_NEW
        # Fresh message dicts: middleware around a mounted listener may change them in place.
        await send({"type": "http.response.start", "status": 200, "headers": head})
        await send({"type": "http.response.body", "body": answer})
        if self._subscriptions:  # a Delivery is only worth building for someone
            self._publish(Delivery.of(attempt, recorded))
        if forward_url is not None and not duplicate:
            forwarder.wake()  # its forward was committed with it

    async def _unstored(self, send: Send, attempt: Attempt, exc: JournalError) -> None:
        """Answer 503 for a valid event the journal could not commit, and say so to everyone."""
        # Not stored means not acknowledged: the sender keeps the event and retries.
        reason = f"{exc}; nothing was stored, so it is not acknowledged: send it again later"
        log.error("%s (event %s)", reason, attempt.event_id)
        self.stats.failed += 1
        attempt.status = 503
        attempt.reason = reason
        await _respond(send, 503, "journal_unavailable", reason, _RETRY_LATER)
        if self._subscriptions:
            self._publish(Delivery.of(attempt, _NOT_STORED))

    async def _reject(
        self,
        send: Send,
        received_at: float,
        headers: dict[str, str],
        body: bytes,
        status: int,
        code: str,
        reason: str,
        *,
        verified: bool = False,
        close: bool = False,
    ) -> None:
        self.stats.rejected += 1
        attempt = Attempt(received_at, headers, body, verified, status, reason)
        try:
            recorded = await self.journal.record(attempt)
        except JournalError as exc:
            log.error("%s", exc)
            recorded = _NOT_STORED
        await _respond(send, status, code, reason, _CLOSE if close else ())
        if self._subscriptions:
            self._publish(Delivery.of(attempt, recorded))


_NOT_STORED = Recorded(delivery_id=0, duplicate=False, duplicate_count=0)


async def _read_rest(receive: Receive, first: bytes) -> tuple[bytes | None, bool]:
    """The rest of a body sent in several messages, or (b"", True) once it passes the limit,
    or (None, False) when the sender hung up before the end."""
    chunks = [first]
    size = len(first)
    while True:
        message = await receive()
        if message["type"] != "http.request":
            return None, False
        chunk = message.get("body", b"")
        size += len(chunk)
        if size > MAX_BODY_BYTES:
            return b"", True
        chunks.append(chunk)
        if not message.get("more_body", False):
            break
    return b"".join(chunks), False


async def _respond(
    send: Send,
    status: int,
    code: str,
    message: str,
    extra: Sequence[tuple[bytes, bytes]] = (),
) -> None:
    headers, body = _json_answer(json.dumps({"error": code, "message": message}).encode())
    headers += extra
    await send({"type": "http.response.start", "status": status, "headers": headers})
    await send({"type": "http.response.body", "body": body})


def _bind_error(host: str, port: int, exc: OSError) -> str:
    if exc.errno == errno.EADDRINUSE:
        return (
            f"port {port} on {host} is already in use; choose another with --port, "
            "or --port 0 for any free port"
        )
    if exc.errno == errno.EADDRNOTAVAIL:
        return f"{host} is not an address of this machine; use 127.0.0.1 or one of its addresses"
    if exc.errno == errno.EACCES:
        return f"not allowed to listen on port {port}; ports below 1024 need privileges"
    return f"cannot listen on {host}:{port}: {exc.strerror or exc}"
