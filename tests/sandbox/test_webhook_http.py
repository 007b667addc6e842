"""The outbox's small HTTP/1.1 client against real sockets that answer exactly as scripted."""

from __future__ import annotations

import asyncio
import socket
from collections.abc import AsyncIterator, Awaitable, Callable
from dataclasses import dataclass, field

import pytest

from payscope.sandbox.webhook_http import DeliveryError, Sender

HEADERS = {"Content-Type": "application/json", "X-Webhook-Signature-512": "ab" * 64}


@dataclass
class Scripted:
    """Reads each request whole, then writes `answer(n)` (n counts requests); `close` after."""

    answer: Callable[[int], bytes]
    close_after: bool = False
    url: str = ""
    connections: int = 0
    requests: list[bytes] = field(default_factory=list)

    async def handle(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        self.connections += 1
        try:
            while True:
                head = await reader.readuntil(b"\r\n\r\n")
                length = 0
                for line in head.split(b"\r\n"):
                    if line.lower().startswith(b"content-length:"):
                        length = int(line.split(b":")[1])
                body = await reader.readexactly(length)
                self.requests.append(head + body)
                writer.write(self.answer(len(self.requests)))
                await writer.drain()
                if self.close_after:
                    break
        except (asyncio.IncompleteReadError, ConnectionError):
            pass
        finally:
            writer.close()


Serve = Callable[..., Awaitable[Scripted]]


@pytest.fixture
async def serve() -> AsyncIterator[Serve]:
    servers: list[asyncio.Server] = []

    async def start(answer: Callable[[int], bytes], close_after: bool = False) -> Scripted:
        scripted = Scripted(answer, close_after)
        server = await asyncio.start_server(scripted.handle, "127.0.0.1", 0)
        servers.append(server)
        scripted.url = f"http://127.0.0.1:{server.sockets[0].getsockname()[1]}/hook?x=1"
        return scripted

    yield start
    for server in servers:
        server.close()


def sender(timeout: float = 5.0) -> Sender:
    return Sender(connect_timeout=1.0, timeout=timeout, max_idle_per_origin=4)


async def test_keeps_the_connection_and_sends_the_exact_request(serve: Serve) -> None:
    scripted = await serve(lambda n: f"HTTP/1.1 200 OK\r\nContent-Length: 4\r\n\r\nok-{n}".encode())
    client = sender()
    first = await client.post(scripted.url, b'{"a":1}', HEADERS)
    second = await client.post(scripted.url, b'{"b":2}', HEADERS)
    assert (first, second) == ((200, "ok-1"), (200, "ok-2"))
    assert scripted.connections == 1
    request = scripted.requests[0]
    assert request.startswith(b"POST /hook?x=1 HTTP/1.1\r\n")
    assert b"\r\nContent-Length: 7\r\n" in request and request.endswith(b'\r\n\r\n{"a":1}')
    assert b"X-Webhook-Signature-512: " + b"ab" * 64 in request
    await client.aclose()


async def test_a_connection_the_server_closed_is_replaced(serve: Serve) -> None:
    scripted = await serve(
        lambda n: b"HTTP/1.1 201 Created\r\nContent-Length: 0\r\n\r\n", close_after=True
    )
    client = sender()
    for _ in range(3):
        assert await client.post(scripted.url, b"{}", HEADERS) == (201, "")
    assert scripted.connections == 3 and len(scripted.requests) == 3
    await client.aclose()


async def test_chunked_interim_and_read_to_close_answers(serve: Serve) -> None:
    chunked = await serve(
        lambda n: (
            b"HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 500 Internal Server Error\r\n"
            b"Transfer-Encoding: chunked\r\n\r\n5;ext=1\r\nhello\r\n6\r\n world\r\n0\r\n\r\n"
        )
    )
    to_close = await serve(lambda n: b"HTTP/1.0 503 Busy\r\n\r\nno more", close_after=True)
    client = sender()
    assert await client.post(chunked.url, b"{}", HEADERS) == (500, "hello world")
    assert await client.post(chunked.url, b"{}", HEADERS) == (500, "hello world")
    assert chunked.connections == 1
    assert await client.post(to_close.url, b"{}", HEADERS) == (503, "no more")
    await client.aclose()


async def test_a_huge_answer_is_cut_and_its_connection_dropped(serve: Serve) -> None:
    huge = 1024 * 1024
    scripted = await serve(
        lambda n: f"HTTP/1.1 200 OK\r\nContent-Length: {huge}\r\n\r\n".encode() + b"x" * huge
    )
    client = sender()
    status, text = await client.post(scripted.url, b"{}", HEADERS)
    assert status == 200 and len(text) == 64 * 1024
    await client.post(scripted.url, b"{}", HEADERS)
    assert scripted.connections == 2
    await client.aclose()


async def test_failures_are_named(serve: Serve) -> None:
    garbage = await serve(lambda n: b"SSH-2.0-OpenSSH\r\n\r\n", close_after=True)
    silent = await serve(lambda n: b"")
    client = sender(timeout=0.3)
    with pytest.raises(DeliveryError) as bad:
        await client.post(garbage.url, b"{}", HEADERS)
    assert bad.value.kind == "RemoteProtocolError"
    with pytest.raises(DeliveryError) as slow:
        await client.post(silent.url, b"{}", HEADERS)
    assert slow.value.kind == "Timeout"
    probe = socket.socket()
    probe.bind(("127.0.0.1", 0))
    port = probe.getsockname()[1]
    probe.close()  # nothing listens there now
    with pytest.raises(DeliveryError) as refused:
        await client.post(f"http://127.0.0.1:{port}/hook", b"{}", HEADERS)
    assert refused.value.kind == "ConnectError"
    with pytest.raises(DeliveryError) as scheme:
        await client.post("ftp://127.0.0.1/x", b"{}", HEADERS)
    assert scheme.value.kind == "UnsupportedURL"
    await client.aclose()
