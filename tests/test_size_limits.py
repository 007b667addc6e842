"""Size limits over real HTTP: an oversized request head on both servers (431, connection
closed, never buffered whole) and an oversized body on the sandbox (413 in the spec's
envelope, whether the length is declared or the body is chunked)."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from pathlib import Path
from urllib.parse import urlsplit

import httpx
import pytest

from payscope.core.asgi_server import MAX_HEAD_BYTES
from payscope.sandbox.middleware import MAX_BODY_BYTES
from payscope.webhooks.listener import Listener
from tests.sandbox.conftest import API_KEY, envelope, make_sandbox
from tests.waits import REQUEST_TIMEOUT, awaited

pytestmark = pytest.mark.slow

_HUGE = 16 * 1024 * 1024  # what an attacker would send; the server must stop well before


async def _send_huge_head(url: str, where: str) -> bytes:
    """Send a request whose URL or one header line is `_HUGE` bytes; return what came back."""
    parts = urlsplit(url)
    reader, writer = await asyncio.open_connection(parts.hostname, parts.port)
    chunk = b"a" * 65536
    try:
        if where == "url":
            writer.write(b"GET /health?q=")
        else:
            writer.write(b"POST /webhooks HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Big: ")
        for _ in range(_HUGE // len(chunk)):
            writer.write(chunk)
            await writer.drain()
        if where == "url":
            writer.write(b" HTTP/1.1\r\nHost: 127.0.0.1\r\n")
        writer.write(b"\r\nContent-Type: application/json\r\nContent-Length: 2\r\n\r\n{}")
        await writer.drain()
    except ConnectionError:
        pass  # refused and closed while we were still sending: what is expected
    try:
        return await awaited(reader.read(65536))
    except ConnectionError:
        return b""
    finally:
        writer.close()


@pytest.fixture
async def sandbox_url(tmp_path: Path) -> AsyncIterator[str]:
    box = make_sandbox(tmp_path / "sb")
    url = await box.start()
    yield url
    await box.stop()


@pytest.mark.parametrize("where", ["url", "header"])
async def test_the_sandbox_refuses_an_oversized_head(sandbox_url: str, where: str) -> None:
    answer = await _send_huge_head(sandbox_url, where)
    assert answer.startswith(b"HTTP/1.1 431 "), answer[:200]
    assert str(MAX_HEAD_BYTES).encode() in answer
    # The server still serves everyone else.
    async with httpx.AsyncClient(
        timeout=REQUEST_TIMEOUT, base_url=sandbox_url, headers={"api-key": API_KEY}
    ) as http:
        assert (await http.get("/health")).status_code == 200


async def test_the_listener_refuses_an_oversized_header(tmp_path: Path) -> None:
    listener = Listener(tmp_path / "listener", ["s" * 64])
    url = await listener.start(port=0)
    try:
        answer = await _send_huge_head(url, "header")
        assert answer.startswith(b"HTTP/1.1 431 "), answer[:200]
        assert listener.journal.count_deliveries() == 0
    finally:
        await listener.stop()


async def test_a_head_just_under_the_limit_is_served(sandbox_url: str) -> None:
    async with httpx.AsyncClient(
        timeout=REQUEST_TIMEOUT, base_url=sandbox_url, headers={"api-key": API_KEY}
    ) as http:
        filler = {"x-filler": "f" * (MAX_HEAD_BYTES - 4096)}
        assert (await http.get("/health", headers=filler)).status_code == 200


async def test_the_sandbox_refuses_a_declared_oversized_body_with_the_envelope(
    sandbox_url: str,
) -> None:
    description = "d" * (MAX_BODY_BYTES + 1)
    async with httpx.AsyncClient(
        timeout=REQUEST_TIMEOUT, base_url=sandbox_url, headers={"api-key": API_KEY}
    ) as http:
        answer = await http.post(
            "/payments", json={"amount": 100, "currency": "USD", "description": description}
        )
        assert answer.status_code == 413
        error = envelope(answer)
        assert error["type"] == "invalid_request" and str(MAX_BODY_BYTES) in error["message"]
        # The connection is still good for the next request.
        assert (await http.get("/health")).status_code == 200


async def test_the_sandbox_refuses_a_chunked_oversized_body_with_the_envelope(
    sandbox_url: str,
) -> None:
    async def chunks() -> AsyncIterator[bytes]:
        yield b'{"amount": 100, "currency": "USD", "description": "'
        for _ in range(64):
            yield b"d" * 65536
        yield b'"}'

    async with httpx.AsyncClient(
        timeout=REQUEST_TIMEOUT, base_url=sandbox_url, headers={"api-key": API_KEY}
    ) as http:
        answer = await http.post(
            "/payments", content=chunks(), headers={"content-type": "application/json"}
        )
    assert answer.status_code == 413
    assert envelope(answer)["type"] == "invalid_request"


async def test_a_body_under_the_limit_still_reaches_validation(sandbox_url: str) -> None:
    async with httpx.AsyncClient(
        timeout=REQUEST_TIMEOUT, base_url=sandbox_url, headers={"api-key": API_KEY}
    ) as http:
        answer = await http.post("/payments", json={"amount": "x" * (MAX_BODY_BYTES // 2)})
    assert answer.status_code == 400
