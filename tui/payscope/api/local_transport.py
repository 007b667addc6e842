"""HTTP/1.1 to a plain-http service on this machine (the local sandbox), without httpcore.

httpx's own transport (httpcore, with h11 and anyio's asyncio backend) is made for the
internet: TLS, proxies, HTTP/2, connection limits. Importing it took 45-65 ms of CPU of the
client's start on a 2-core machine, a fifth of what kept a warm start's actions waiting after
the live page was on screen. The local sandbox needs none of it. This transport speaks HTTP/1.1
over asyncio streams, keeps idle connections for the next request, parses answers with httptools
(the C parser uvicorn uses, loaded by the listener anyway) and raises httpx's own exceptions, so
the client's retries, journal and messages are the same. Remote profiles keep httpx's transport.
"""

from __future__ import annotations

import asyncio
import os
import select
import time
from urllib.parse import urlsplit

import httptools
import httpx

from payscope.core.waiting import within

# An idle connection is used again only while the server surely keeps it: uvicorn closes one
# after 5 s idle (`timeout_keep_alive`), and a request written as it does so would fail.
IDLE_REUSE = 2.0
MAX_IDLE = 8  # connections kept per host and port
READ_CHUNK = 64 * 1024
LOCAL_HOSTS = frozenset({"127.0.0.1", "localhost", "::1"})
_FRAMING = (b"content-length", b"transfer-encoding")


def serves_locally(base_url: str) -> bool:
    """`base_url` is plain http on this machine: this transport can carry its requests."""
    parts = urlsplit(base_url)
    return parts.scheme == "http" and (parts.hostname or "") in LOCAL_HOSTS


class LocalTransport(httpx.AsyncBaseTransport):
    """An `httpx.AsyncBaseTransport` for plain HTTP/1.1 to this machine (see the module)."""

    def __init__(self) -> None:
        self._idle: dict[tuple[str, int], list[_Connection]] = {}
        self._closed = False

    async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
        url = request.url
        if url.scheme != "http":
            raise httpx.UnsupportedProtocol(f"Only plain http is carried here, not {url.scheme}.")
        timeouts: dict[str, float | None] = request.extensions.get("timeout", {})
        key = (url.host, url.port or 80)
        body = await request.aread()
        connection = self._take_idle(key) or await _Connection.open(*key, timeouts.get("connect"))
        try:
            await connection.send(_head(request) + body, timeouts.get("write"))
            answer = await connection.receive(timeouts.get("read"), request.method == "HEAD")
        except BaseException:  # cancelled too: the connection is half-way through an exchange
            connection.close()
            raise
        if answer.keep_alive and not self._closed:
            self._put_idle(key, connection)
        else:
            connection.close()
        return httpx.Response(
            answer.status,
            headers=answer.headers,
            stream=httpx.ByteStream(answer.body),
            extensions={"http_version": b"HTTP/1.1", "reason_phrase": answer.reason},
        )

    def _take_idle(self, key: tuple[str, int]) -> _Connection | None:
        idle = self._idle.get(key, [])
        while idle:
            connection = idle.pop()
            if connection.reusable():
                return connection
            connection.close()
        return None

    def _put_idle(self, key: tuple[str, int], connection: _Connection) -> None:
        idle = self._idle.setdefault(key, [])
        connection.idle_since = time.monotonic()
        idle.append(connection)
        while len(idle) > MAX_IDLE:
            idle.pop(0).close()

    async def aclose(self) -> None:
        self._closed = True
        connections = [c for idle in self._idle.values() for c in idle]
        self._idle.clear()
        for connection in connections:
            connection.close()
        for connection in connections:
            await connection.wait_closed()


def _reason(exc: OSError) -> str:
    """What went wrong, for a person: "Connection refused", not asyncio's "[Errno 111] Connect
    call failed ('127.0.0.1', 8080)" (the URL is said beside it already)."""
    if exc.errno:
        return os.strerror(exc.errno)
    return str(exc) or type(exc).__name__


def _head(request: httpx.Request) -> bytes:
    """The request line and headers (httpx has put in Host and Content-Length). A line break
    or NUL in a header would end it early and smuggle in another: refused, as h11 does."""
    lines = [b"%s %s HTTP/1.1" % (request.method.encode("ascii"), request.url.raw_path)]
    for name, value in request.headers.raw:
        if any(c in name or c in value for c in (b"\r", b"\n", b"\0")):
            raise httpx.LocalProtocolError(f"The header {name!r} holds a line break or a NUL.")
        lines.append(name + b": " + value)
    return b"\r\n".join(lines) + b"\r\n\r\n"


class _Answer:
    """One response as httptools parses it (its callbacks are these methods)."""

    def __init__(self) -> None:
        self.status = 0
        self.reason = b""
        self.headers: list[tuple[bytes, bytes]] = []
        self.chunks: list[bytes] = []
        self.headers_done = False
        self.complete = False
        self.keep_alive = False
        self.parser = httptools.HttpResponseParser(self)

    def on_status(self, reason: bytes) -> None:
        self.reason += reason

    def on_header(self, name: bytes, value: bytes) -> None:
        self.headers.append((name, value))

    def on_headers_complete(self) -> None:
        self.headers_done = True

    def on_body(self, chunk: bytes) -> None:
        self.chunks.append(chunk)

    def on_message_complete(self) -> None:
        self.complete = True
        self.keep_alive = self.parser.should_keep_alive()  # known here only: the parser resets

    def framed(self) -> bool:
        """The body's end is said (its length, or chunks), not the connection's close."""
        return any(name.lower() in _FRAMING for name, _ in self.headers)

    @property
    def body(self) -> bytes:
        return b"".join(self.chunks)


class _Connection(asyncio.Protocol):
    """One connection, an `asyncio.Protocol`: what comes in is fed to the answer being read, so
    bytes that arrive while it is idle are seen (nothing is kept unread in a stream's buffer)."""

    def __init__(self) -> None:
        self.transport: asyncio.Transport | None = None
        self.idle_since = time.monotonic()
        self.answer: _Answer | None = None
        self.head_only = False
        self.waiter: asyncio.Future[None] | None = None
        self.writable: asyncio.Future[None] | None = None
        self.spoiled = False  # bytes no request asked for, or the server's end: never reused
        self.lost: Exception | None = None
        self.gone = False  # the loop has let go of the connection (`connection_lost`)

    @classmethod
    async def open(cls, host: str, port: int, timeout: float | None) -> _Connection:
        loop = asyncio.get_running_loop()
        try:
            _, connection = await within(loop.create_connection(cls, host, port), timeout)
        except TimeoutError as exc:
            raise httpx.ConnectTimeout(f"No connection to {host}:{port} in {timeout} s.") from exc
        except OSError as exc:
            raise httpx.ConnectError(_reason(exc)) from exc
        return connection

    # -- asyncio.Protocol ----------------------------------------------------------------------

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        assert isinstance(transport, asyncio.Transport)
        self.transport = transport

    def data_received(self, data: bytes) -> None:
        answer = self.answer
        if answer is None or answer.complete:
            self.spoiled = True  # out of step with the requests
            return
        try:
            answer.parser.feed_data(data)
        except httptools.HttpParserUpgrade as exc:
            self._end(httpx.RemoteProtocolError("The server switched protocols."), exc)
            return
        except httptools.HttpParserError as exc:
            self._end(httpx.RemoteProtocolError(f"Malformed answer: {exc}"), exc)
            return
        if answer.complete or (self.head_only and answer.headers_done):
            self._end()

    def eof_received(self) -> bool:
        self.spoiled = True
        answer = self.answer
        if answer is not None and not answer.complete:
            if answer.headers_done and not answer.framed():
                self._end()  # a body that runs until the connection closes: it has
            else:
                self._end(
                    httpx.RemoteProtocolError("Server disconnected without sending a response.")
                )
        return False  # the transport closes itself

    def connection_lost(self, exc: Exception | None) -> None:
        self.spoiled = self.gone = True
        self.lost = exc
        if self.answer is not None and not self.answer.complete:
            error: Exception = (
                httpx.ReadError(_reason(exc))
                if isinstance(exc, OSError)
                else httpx.RemoteProtocolError("Server disconnected without sending a response.")
            )
            self._end(error, exc)
        if self.writable is not None and not self.writable.done():
            self.writable.set_exception(httpx.WriteError(_reason_of(exc)))

    def pause_writing(self) -> None:
        self.writable = asyncio.get_running_loop().create_future()

    def resume_writing(self) -> None:
        if self.writable is not None and not self.writable.done():
            self.writable.set_result(None)
        self.writable = None

    def _end(self, error: Exception | None = None, cause: BaseException | None = None) -> None:
        waiter = self.waiter
        if waiter is None or waiter.done():
            return
        if error is None:
            waiter.set_result(None)
        else:
            error.__cause__ = cause
            waiter.set_exception(error)

    # -- used by the transport -----------------------------------------------------------------

    def reusable(self) -> bool:
        """Young enough, and nothing came since the last answer: neither bytes nor a close the
        loop has seen (`spoiled`), nor one it has not seen yet (the socket is readable;
        httpcore checks the same)."""
        if time.monotonic() - self.idle_since >= IDLE_REUSE:
            return False
        transport = self.transport
        if self.spoiled or transport is None or transport.is_closing():
            return False
        sock = transport.get_extra_info("socket")
        if sock is None:
            return True
        try:
            readable, _, _ = select.select([sock], [], [], 0)
        except (OSError, ValueError):
            return False
        return not readable

    async def send(self, data: bytes, timeout: float | None) -> None:
        transport = self.transport
        if transport is None or transport.is_closing():
            raise httpx.WriteError("The connection is closed.")
        transport.write(data)
        writable = self.writable
        if writable is None:
            return
        try:
            await within(asyncio.shield(writable), timeout)
        except TimeoutError as exc:
            raise httpx.WriteTimeout(f"The request was not sent in {timeout} s.") from exc

    async def receive(self, timeout: float | None, head_only: bool) -> _Answer:
        answer = self.answer = _Answer()
        self.head_only = head_only
        self.waiter = asyncio.get_running_loop().create_future()
        if self.spoiled:  # closed before the request went out
            self.connection_lost(self.lost)
        try:
            await within(self.waiter, timeout)
        except TimeoutError as exc:
            raise httpx.ReadTimeout(f"No answer in {timeout} s.") from exc
        answer.status = answer.parser.get_status_code()
        answer.keep_alive = answer.keep_alive and not head_only and not self.spoiled
        return answer

    def close(self) -> None:
        if self.transport is not None:
            self.transport.close()

    async def wait_closed(self) -> None:
        """Until the loop has let go of the connection (a moment; at most half a second)."""
        for _ in range(100):
            if self.transport is None or self.gone:
                return
            await asyncio.sleep(0.005)


def _reason_of(exc: Exception | None) -> str:
    return _reason(exc) if isinstance(exc, OSError) else "The connection was closed."
