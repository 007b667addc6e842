"""Answers no client call may crash on, from a real server on a loopback port that writes its
bytes raw (tests/hostile_server.py), through both transports (tui/payscope/api/local_transport.py
and
httpx's): header values and reason phrases with obs-text bytes (0x80-0xFF, which HTTP allows
and a proxy can add), and JSON nested far deeper than payscope reads (a clear error naming the
call, never a RecursionError)."""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable
from typing import Any

import httpx
import pytest

from payscope.api import errors as e
from payscope.api.client import ApiClient
from payscope.api.local_transport import LocalTransport
from payscope.core import bounded
from tests.api.conftest import KEY
from tests.hostile_server import Answer, RawAnswer, Seen, deep_json, envelope, payment, raw_server

OBS_TEXT = b"caf\xe9 \x9b\xff \xc3\xa9t\xc3\xa9"
TRANSPORTS = ["local", "httpx"]


@pytest.fixture
def serve() -> Callable[[Callable[[Seen], Answer], str], AsyncIterator[ApiClient]]:
    from contextlib import asynccontextmanager

    @asynccontextmanager
    async def start(answer: Callable[[Seen], Answer], transport: str) -> AsyncIterator[ApiClient]:
        async with raw_server(answer) as server:
            client = ApiClient(
                server.url,
                KEY,
                transport=httpx.AsyncHTTPTransport() if transport == "httpx" else None,
                max_attempts=1,
            )
            local = isinstance(client.transport, LocalTransport)
            assert local == (transport == "local")
            try:
                yield client
            finally:
                await client.aclose()

    return start  # type: ignore[return-value]


@pytest.mark.parametrize("transport", TRANSPORTS)
async def test_an_answer_with_obs_text_header_bytes_is_read(serve: Any, transport: str) -> None:
    answer = Answer(200, payment(), headers=[(b"X-Note", OBS_TEXT), (b"X-Request-Id", b"r\xe91")])
    async with serve(lambda _: answer, transport) as client:
        made = await client.payments.retrieve("pay_1")
        assert made.payment_id == "pay_1"
        (entry,) = list(client.journal)
        assert entry.status == 200 and entry.error is None
        assert entry.response_headers["x-note"].startswith("caf")  # kept, decoded, not dropped


@pytest.mark.parametrize("transport", TRANSPORTS)
async def test_an_error_with_obs_text_in_headers_and_reason_is_the_service_s_error(
    serve: Any, transport: str
) -> None:
    answer = Answer(
        404,
        envelope("No such payment: pay_1", code="IR_09"),
        reason=b"Introuvable \xe9\xff",
        headers=[(b"X-Note", OBS_TEXT), (b"Retry-After", b"\xe9")],
    )
    async with serve(lambda _: answer, transport) as client:
        with pytest.raises(e.ApiError) as caught:
            await client.payments.retrieve("pay_1")
        assert caught.value.status == 404 and "No such payment" in str(caught.value)


@pytest.mark.parametrize("transport", TRANSPORTS)
@pytest.mark.parametrize("levels", [bounded.MAX_DEPTH + 1, 5000, 100_000])
async def test_an_answer_nested_too_deeply_is_a_clear_error(
    serve: Any, transport: str, levels: int
) -> None:
    async with serve(lambda _: Answer(200, deep_json(levels)), transport) as client:
        with pytest.raises(e.ResponseFormatError) as caught:
            await client.request("GET", "/payments/pay_1")
        said = str(caught.value)
        assert "GET /payments/pay_1" in said and f"nested more than {bounded.MAX_DEPTH}" in said
        (entry,) = list(client.journal)  # the request log kept it (as text)
        assert entry.status == 200


async def test_an_answer_as_deep_as_payscope_reads_is_read(serve: Any) -> None:
    body = b'{"data":' + deep_json(bounded.MAX_DEPTH - 1) + b"}"
    async with serve(lambda _: Answer(200, body), "local") as client:
        data = await client.request("GET", "/payments/pay_1")
        for _ in range(bounded.MAX_DEPTH):
            data = data["data" if "data" in data else "a"]
        assert data == 1


@pytest.mark.parametrize("transport", TRANSPORTS)
async def test_an_error_nested_too_deeply_is_still_the_status_s_error(
    serve: Any, transport: str
) -> None:
    async with serve(lambda _: Answer(400, deep_json(50_000), reason=b"Bad"), transport) as client:
        with pytest.raises(e.ApiError) as caught:
            await client.payments.retrieve("pay_1")
        assert caught.value.status == 400


def _raw(head: bytes, body: bytes = b"{}") -> bytes:
    return head + b"\r\nContent-Length: %d\r\nConnection: close\r\n\r\n" % len(body) + body


# Answers a broken or hostile service or proxy can give: each is a ClientError the TUI and the
# CLI say (its text readable), never another exception.
BROKEN = {
    "gzip that is not gzip": _raw(b"HTTP/1.1 200 OK\r\nContent-Encoding: gzip", b"abcde"),
    "brotli that is not brotli": _raw(b"HTTP/1.1 200 OK\r\nContent-Encoding: br", b"abcde"),
    "a status past 599": _raw(b"HTTP/1.1 600 Weird"),
    "a status below 100": _raw(b"HTTP/1.1 099 Weird"),
    "a header without a colon": _raw(b"HTTP/1.1 200 OK\r\nBroken header"),
    "two lengths": b"HTTP/1.1 200 OK\r\nContent-Length: 2\r\nContent-Length: 5\r\n\r\n{}",
    "a body shorter than said": b"HTTP/1.1 200 OK\r\nContent-Length: 50\r\n\r\n{}",
    "a bad chunk": b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n{}\r\n0\r\n\r\n",
    "not HTTP at all": b"SSH-2.0-OpenSSH_9.6\r\n\r\n",
    "a NUL in a header": _raw(b"HTTP/1.1 200 OK\r\nX-A: a\x00b"),
    "a body that is not UTF-8": _raw(b"HTTP/1.1 200 OK", b'"\xff\xfe"'),
    "rate-limit numbers that are not numbers": _raw(
        b"HTTP/1.1 429 Slow\r\nX-RateLimit-Reset: nan\r\nX-RateLimit-Limit: inf\r\n"
        b"X-RateLimit-Remaining: -1e999\r\nRetry-After: 99999999999999999999"
    ),
    "a reset no clock can show": _raw(b"HTTP/1.1 429 Slow\r\nX-RateLimit-Reset: 1e300"),
    "a charset nobody knows": _raw(
        b"HTTP/1.1 400 Bad\r\nContent-Type: application/json; charset=x-evil", b"nope"
    ),
    "obs-text in the reason, no body": _raw(b"HTTP/1.1 500 \xff\xfe", b""),
}


@pytest.mark.parametrize("transport", TRANSPORTS)
@pytest.mark.parametrize("case", BROKEN)
async def test_no_answer_crashes_a_call(serve: Any, transport: str, case: str) -> None:
    answer = RawAnswer(raw=BROKEN[case])
    async with serve(lambda _: answer, transport) as client:
        try:
            await client.request("GET", "/payments/pay_1")
        except e.ClientError as error:
            said = str(error)  # readable: its text is built without raising
            assert said and "GET" in said
        for entry in client.journal:  # the request log can show each attempt
            assert entry.method == "GET"
