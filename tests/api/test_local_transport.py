"""The client's transport for the local sandbox (tui/payscope/api/local_transport.py), against real
sockets: a scripted HTTP/1.1 server on 127.0.0.1 for what a real service seldom does on demand
(answers read until the close, dropped connections, garbage), and the real sandbox for the rest
(every client test against it goes through this transport)."""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator, Awaitable, Callable
from dataclasses import dataclass, field

import httpx
import pytest

from payscope.api import local_transport
from payscope.api.local_transport import LocalTransport, serves_locally
from tests.fresh import modules_loaded
from tests.waits import REQUEST_TIMEOUT, awaited

Reply = Callable[[asyncio.StreamReader, asyncio.StreamWriter], Awaitable[None]]


@dataclass
class Server:
    """A loopback server answering each connection with `reply`; counts connections."""

    reply: Reply
    port: int = 0
    connections: int = 0
    requests: list[bytes] = field(default_factory=list)

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"


async def read_request(reader: asyncio.StreamReader, server: Server) -> bool:
    """Read one request (head and a Content-Length body); False at the connection's end."""
    try:
        head = await reader.readuntil(b"\r\n\r\n")
    except asyncio.IncompleteReadError:
        return False
    length = 0
    for line in head.split(b"\r\n"):
        name, _, value = line.partition(b":")
        if name.strip().lower() == b"content-length":
            length = int(value)
    server.requests.append(head + await reader.readexactly(length))
    return True


def answer(body: bytes, *extra: bytes) -> bytes:
    headers = [b"HTTP/1.1 200 OK", b"Content-Length: %d" % len(body), *extra]
    return b"\r\n".join(headers) + b"\r\n\r\n" + body


@contextlib.asynccontextmanager
async def serving(make_reply: Callable[[Server], Reply]) -> AsyncIterator[Server]:
    server = Server(reply=lambda _r, _w: asyncio.sleep(0))
    server.reply = make_reply(server)

    handlers: set[asyncio.Task[None]] = set()

    async def handle(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        server.connections += 1
        task = asyncio.current_task()
        assert task is not None
        handlers.add(task)
        with contextlib.suppress(ConnectionError, asyncio.CancelledError):
            await server.reply(reader, writer)
        writer.close()

    listening = await asyncio.start_server(handle, "127.0.0.1", 0)
    server.port = listening.sockets[0].getsockname()[1]
    try:
        yield server
    finally:
        listening.close()
        for task in handlers:
            task.cancel()
        await asyncio.gather(*handlers, return_exceptions=True)


def keep_alive(*extra: bytes, close_after: bool = False) -> Callable[[Server], Reply]:
    """Answer every request on the connection with its number, until the client leaves."""

    def make(server: Server) -> Reply:
        async def reply(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
            while await read_request(reader, server):
                writer.write(answer(b"%d" % len(server.requests), *extra))
                await writer.drain()
                if close_after:
                    return

        return reply

    return make


def once(raw: bytes) -> Callable[[Server], Reply]:
    """Read the request, send `raw` and close."""

    def make(server: Server) -> Reply:
        async def reply(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
            await read_request(reader, server)
            writer.write(raw)
            await writer.drain()

        return reply

    return make


def client(
    url: str, timeout: float = REQUEST_TIMEOUT, transport: LocalTransport | None = None
) -> httpx.AsyncClient:
    return httpx.AsyncClient(base_url=url, transport=transport or LocalTransport(), timeout=timeout)


async def test_requests_go_out_whole_and_share_one_kept_connection() -> None:
    async with serving(keep_alive()) as server, client(server.url) as http:
        first = await http.post("/payments/list?limit=2", json={"limit": 2})
        second = await http.get("/payments/pay_1")
        third = await http.get("/health")
    assert [r.text for r in (first, second, third)] == ["1", "2", "3"]
    assert server.connections == 1
    sent = server.requests[0]
    assert sent.startswith(b"POST /payments/list?limit=2 HTTP/1.1\r\n")
    assert b"\r\nhost: 127.0.0.1:%d\r\n" % server.port in sent.lower()
    assert b"\r\ncontent-length: 11\r\n" in sent.lower() and sent.endswith(b'{"limit":2}')
    assert first.http_version == "HTTP/1.1" and first.reason_phrase == "OK"


async def test_a_connection_the_server_closes_is_not_used_again() -> None:
    # Said (Connection: close), or just done after the answer.
    for reply in (keep_alive(b"Connection: close"), keep_alive(close_after=True)):
        async with serving(reply) as server, client(server.url) as http:
            for _ in range(3):
                assert (await http.get("/")).status_code == 200
                await asyncio.sleep(0.05)  # the close reaches the client's loop
        assert server.connections == 3


async def test_an_idle_connection_is_not_used_past_the_servers_keep_alive(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(local_transport, "IDLE_REUSE", 0.0)
    async with serving(keep_alive()) as server, client(server.url) as http:
        await http.get("/")
        await http.get("/")
    assert server.connections == 2


async def test_chunked_and_read_until_close_answers_are_whole() -> None:
    chunked = (
        b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n"
        b"5\r\nhello\r\n6\r\n world\r\n0\r\n\r\n"
    )
    until_close = b"HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\n\r\nto the end"
    for raw, body in ((chunked, b"hello world"), (until_close, b"to the end")):
        async with serving(once(raw)) as server, client(server.url) as http:
            response = await http.get("/")
        assert response.content == body


@pytest.mark.parametrize(
    ("raw", "error"),
    [
        (b"", "Server disconnected without sending a response"),
        (b"HTTP/1.1 200 OK\r\nContent-Length: 10\r\n\r\nhalf", "Server disconnected"),
        (b"\x1b[2J not http at all\r\n\r\n", "Malformed answer"),
    ],
    ids=["nothing", "half a body", "garbage"],
)
async def test_an_answer_cut_short_or_malformed_is_a_protocol_error(raw: bytes, error: str) -> None:
    async with serving(once(raw)) as server, client(server.url) as http:
        with pytest.raises(httpx.RemoteProtocolError, match=error):
            await http.get("/")


async def test_no_answer_in_time_is_a_read_timeout_and_the_connection_is_dropped() -> None:
    release = asyncio.Event()

    def silent(server: Server) -> Reply:
        async def reply(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
            await read_request(reader, server)
            await release.wait()

        return reply

    transport = LocalTransport()
    async with serving(silent) as server, client(server.url, 0.2, transport) as http:
        with pytest.raises(httpx.ReadTimeout):
            await http.get("/")
        release.set()
        assert not any(transport._idle.values())  # half-way through an exchange: not reused


async def test_a_header_with_a_line_break_is_refused_before_anything_is_sent() -> None:
    async with serving(keep_alive()) as server, client(server.url) as http:
        with pytest.raises(httpx.LocalProtocolError, match="line break"):
            await http.get("/", headers={"x-note": "a\r\nx-injected: 1"})
        assert (await http.get("/")).status_code == 200
    assert server.requests and all(b"x-injected" not in r for r in server.requests)


async def test_a_connection_with_bytes_waiting_while_idle_is_not_used_again() -> None:
    """The server said more than its answer (or closed) before the loop saw it."""

    def chatty(server: Server) -> Reply:
        async def reply(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
            while await read_request(reader, server):
                writer.write(answer(b"%d" % len(server.requests)))
                await writer.drain()
                await asyncio.sleep(0.05)
                writer.write(b"stray bytes")  # on an idle connection
                await writer.drain()

        return reply

    async with serving(chatty) as server, client(server.url) as http:
        await http.get("/")
        await asyncio.sleep(0.2)
        second = await http.get("/")
    assert second.text == "2" and server.connections == 2


async def test_a_closed_port_is_a_connect_error() -> None:
    async with serving(keep_alive()) as server:
        port = server.port
    async with client(f"http://127.0.0.1:{port}") as http:
        with pytest.raises(httpx.ConnectError, match=r"^Connection refused$"):
            await http.get("/")


async def test_closing_the_client_closes_its_idle_connections() -> None:
    ended = asyncio.Event()

    def watched(server: Server) -> Reply:
        async def reply(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
            await keep_alive()(server)(reader, writer)
            ended.set()  # the client's side of the connection closed

        return reply

    async with serving(watched) as server:
        async with client(server.url) as http:
            await http.get("/")
            assert not ended.is_set()
        await awaited(ended.wait())


def test_it_carries_plain_http_to_this_machine_only() -> None:
    assert serves_locally("http://127.0.0.1:8080")
    assert serves_locally("http://localhost:8080/")
    assert serves_locally("http://[::1]:8080")
    assert not serves_locally("https://127.0.0.1:8080")
    assert not serves_locally("http://sandbox.example.com")
    assert not serves_locally("http://127.0.0.1.example.com:8080")


def test_the_client_uses_it_for_the_local_sandbox_and_httpx_for_the_rest() -> None:
    from payscope.api.client import ApiClient

    local = ApiClient("http://127.0.0.1:8080", "snd_" + "k" * 24)
    remote = ApiClient("https://sandbox.example.com", "snd_" + "k" * 24)
    assert isinstance(local.transport, LocalTransport)
    assert remote.transport is None  # httpx's own


def test_the_client_loads_no_httpcore_nor_anyio() -> None:
    loaded = modules_loaded(
        "from payscope.api.client import ApiClient\n"
        "ApiClient('http://127.0.0.1:8080', 'snd_' + 'k' * 24)",
        ("httpcore", "h11", "anyio", "payscope.api.local_transport"),
    )
    assert loaded == ["payscope.api.local_transport"]
