"""The embedded uvicorn runner shared by the sandbox and the listener."""

from __future__ import annotations

import socket
from typing import Any

import httpx

from payscope.core.asgi_server import EmbeddedServer
from tests.waits import REQUEST_TIMEOUT


async def _app(scope: dict[str, Any], receive: Any, send: Any) -> None:
    if scope["type"] == "lifespan":
        while (await receive())["type"] != "lifespan.shutdown":
            await send({"type": "lifespan.startup.complete"})
        await send({"type": "lifespan.shutdown.complete"})
        return
    await send({"type": "http.response.start", "status": 200, "headers": []})
    await send({"type": "http.response.body", "body": b"ok"})


async def test_port_zero_serves_on_the_port_it_reports() -> None:
    server = EmbeddedServer(_app)
    url = await server.start()
    try:
        assert server.port > 0 and url == f"http://127.0.0.1:{server.port}"
        async with httpx.AsyncClient(timeout=REQUEST_TIMEOUT) as client:
            assert (await client.get(url + "/")).text == "ok"
    finally:
        await server.stop()


def test_the_listening_socket_turns_nagle_off_for_every_connection() -> None:
    # asyncio sets TCP_NODELAY on accepted sockets only when the listening socket's proto is
    # IPPROTO_TCP; without it every small answer waits ~40 ms for a delayed ACK. Every user of
    # the runner (sandbox, listener, tests, benchmarks) relies on this one place.
    server = EmbeddedServer(_app)
    server.bind()
    sock = server._sock
    assert sock is not None
    try:
        assert sock.proto == socket.IPPROTO_TCP
        assert sock.getsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY) != 0
    finally:
        sock.close()
