"""Slow senders over real sockets: a head or a body that does not arrive in time ends the
connection, and connections past the cap are refused, so they cannot hold the server."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from typing import Any

import httpx
import pytest

from payscope.core.asgi_server import EmbeddedServer, LimitedHttpToolsProtocol
from tests.waits import REQUEST_TIMEOUT, awaited, until


class _Quick(LimitedHttpToolsProtocol):
    head_timeout = 0.3
    body_timeout = 0.3
    max_connections = 3


bodies: list[str] = []


async def _app(scope: dict[str, Any], receive: Any, send: Any) -> None:
    if scope["type"] == "lifespan":
        while (await receive())["type"] != "lifespan.shutdown":
            await send({"type": "lifespan.startup.complete"})
        await send({"type": "lifespan.shutdown.complete"})
        return
    body = b""
    while True:
        message = await receive()
        if message["type"] == "http.disconnect":
            bodies.append("gone")
            return
        body += message.get("body", b"")
        if not message.get("more_body", False):
            break
    bodies.append(body.decode())
    await send({"type": "http.response.start", "status": 200, "headers": []})
    await send({"type": "http.response.body", "body": b"ok"})


@pytest.fixture
async def server() -> AsyncIterator[EmbeddedServer]:
    bodies.clear()
    srv = EmbeddedServer(_app, http=_Quick)
    await srv.start()
    yield srv
    await srv.stop()


async def _connect(server: EmbeddedServer) -> tuple[asyncio.StreamReader, asyncio.StreamWriter]:
    return await asyncio.open_connection("127.0.0.1", server.port)


async def test_a_head_that_never_ends_is_answered_408_and_closed(server: EmbeddedServer) -> None:
    reader, writer = await _connect(server)
    writer.write(b"GET / HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Slow: a")
    await writer.drain()
    answer = await awaited(reader.read())  # read() returns at the close
    writer.close()
    assert answer.startswith(b"HTTP/1.1 408 "), answer
    assert bodies == []


async def test_an_idle_new_connection_is_closed(server: EmbeddedServer) -> None:
    reader, writer = await _connect(server)
    answer = await awaited(reader.read())
    writer.close()
    assert answer.startswith(b"HTTP/1.1 408 "), answer


async def test_a_body_that_never_ends_is_cut_and_the_app_sees_the_client_gone(
    server: EmbeddedServer,
) -> None:
    reader, writer = await _connect(server)
    writer.write(b"POST / HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: 100\r\n\r\nonly part")
    await writer.drain()
    answer = await awaited(reader.read())
    writer.close()
    assert answer == b""
    await until(lambda: bodies, "the app told the client is gone")
    assert bodies == ["gone"]


async def test_connections_past_the_cap_are_refused_and_normal_requests_are_served(
    server: EmbeddedServer,
) -> None:
    held = [await _connect(server) for _ in range(3)]
    reader, writer = await _connect(server)
    answer = await awaited(reader.read())
    writer.close()
    assert answer.startswith(b"HTTP/1.1 503 "), answer
    for _, w in held:
        w.close()
    # Once the held ones are gone, a normal keep-alive client gets every answer.
    assert server._server is not None
    state = server._server.server_state
    for _ in range(200):
        if not state.connections:
            break
        await asyncio.sleep(0.01)
    async with httpx.AsyncClient(timeout=REQUEST_TIMEOUT, base_url=server.url) as client:
        for i in range(5):
            response = await client.post("/", content=f"body {i}".encode())
            assert response.text == "ok"
    assert bodies == [f"body {i}" for i in range(5)]


async def test_a_slow_second_request_on_a_kept_alive_connection_is_answered_408(
    server: EmbeddedServer,
) -> None:
    reader, writer = await _connect(server)
    writer.write(b"POST / HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: 5\r\n\r\nfirst")
    writer.write(b"POST / HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Le")
    await writer.drain()
    answer = await awaited(reader.read())
    writer.close()
    assert answer.startswith(b"HTTP/1.1 200 "), answer
    assert b"HTTP/1.1 408 " in answer
    assert bodies == ["first"]


async def test_a_slow_body_after_a_whole_request_is_cut(server: EmbeddedServer) -> None:
    reader, writer = await _connect(server)
    writer.write(b"POST / HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: 5\r\n\r\nfirst")
    await writer.drain()
    assert (await reader.readuntil(b"\r\n0\r\n\r\n")).startswith(b"HTTP/1.1 200 ")
    writer.write(b"POST / HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: 50\r\n\r\npart")
    await writer.drain()
    assert await awaited(reader.read()) == b""
    writer.close()
    await until(lambda: len(bodies) == 2, "the app told the second client is gone")
    assert bodies == ["first", "gone"]
