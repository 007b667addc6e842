"""Big answers (issue 30, section 5): an answer over the client's limit is refused unread,
naming its route and size; the request log keeps a bounded prefix of a big body, cut before it
is parsed, and still masks what it must; compressed answers read the same as before."""

from __future__ import annotations

import gzip
import json
from typing import Any

import httpx
import pytest

from payscope.api import errors
from payscope.api.http_core import MAX_RESPONSE_BYTES
from payscope.api.journal import MAX_STORED_BODY
from payscope.core.asgi_server import EmbeddedServer
from tests.api.conftest import ClientFactory, Receive, Reply, Scope, ScriptedApp, Send

SECRET = "pay_0001_secret_Zq8xW2vB7nM4kL1pR6tY"


def _payments(count: int) -> dict[str, Any]:
    row = {
        "payment_id": "pay_{:08d}",
        "merchant_id": "merchant_1",
        "status": "succeeded",
        "amount": 1000,
        "currency": "USD",
        "client_secret": SECRET,
        "description": "x" * 200,
    }
    return {
        "size": count,
        "data": [{**row, "payment_id": row["payment_id"].format(i)} for i in range(count)],
    }


async def test_an_answer_over_the_limit_is_refused_unread_naming_route_and_size(
    app: tuple[ScriptedApp, str], make_client: ClientFactory
) -> None:
    scripted, url = app
    huge = b"[" + b"0," * 19_450_000 + b"0]"  # 38.9 MB, as the stub of the issue answered
    length = {"content-length": str(len(huge))}
    scripted.script("GET", "/payments/list", Reply(200, body=huge, headers=length))
    client = make_client(url)
    with pytest.raises(errors.ResponseTooLargeError) as refused:
        await client.request("GET", "/payments/list", params={"limit": 100})
    said = str(refused.value)
    assert "GET /payments/list is 38.9 MB" in said and "over the 16.8 MB" in said
    assert "ask for less at a time" in said
    (entry,) = client.journal.entries()
    assert entry.status is None and entry.response_body is None
    assert entry.error is not None and "38.9 MB" in entry.error
    assert len(scripted.seen("GET", "/payments/list")) == 1  # refused, not retried


class _Chunked:
    """Answers with a body sent in 1 MiB chunks with no Content-Length, `total` bytes in all."""

    def __init__(self, total: int) -> None:
        self.total = total
        self.sent = 0

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            return
        await send({"type": "http.response.start", "status": 200, "headers": []})
        chunk = b" " * (1024 * 1024)
        while self.sent < self.total:
            self.sent += len(chunk)
            await send({"type": "http.response.body", "body": chunk, "more_body": True})
        await send({"type": "http.response.body", "body": b"{}"})


async def test_an_answer_with_no_length_is_cut_off_once_it_passes_the_limit(
    make_client: ClientFactory,
) -> None:
    endless = _Chunked(200 * 1024 * 1024)
    server = EmbeddedServer(endless, "127.0.0.1", 0)
    url = await server.start()
    try:
        # httpx's own transport, as a remote profile has: it hands the body over as it comes.
        client = make_client(url, transport=httpx.AsyncHTTPTransport())
        with pytest.raises(errors.ResponseTooLargeError) as refused:
            await client.request("GET", "/payments/list")
        assert "passed 16.8 MB and was still going" in str(refused.value)
        # It stopped reading within a chunk of the limit (the server would send 200 MiB).
        assert MAX_RESPONSE_BYTES < refused.value.size <= MAX_RESPONSE_BYTES + 1024 * 1024
    finally:
        await server.stop()


async def test_a_big_answer_under_the_limit_reads_whole_and_logs_a_masked_prefix(
    app: tuple[ScriptedApp, str], make_client: ClientFactory
) -> None:
    scripted, url = app
    page = _payments(12_000)  # about 4 MB, 12,000 records: parsed and validated off the loop
    scripted.script("POST", "/payments/list", Reply(200, page))
    client = make_client(url)
    listed = await client.payments.list()
    assert len(listed.data) == 12_000 and listed.data[-1].payment_id == "pay_00011999"
    (entry,) = client.journal.entries()
    body = entry.response_body
    assert body is not None and len(body) <= MAX_STORED_BODY + 100
    assert "more bytes not kept]" in body
    assert SECRET not in body and "Zq8xW2vB7nM4kL1pR6tY" not in body
    assert '"client_secret":"[REDACTED]"' in body


@pytest.mark.parametrize(
    "cut",
    ['"client_secret": "pay_0001_secret_Zq8x', '"client_secret": ', '"card_number": "42424242'],
)
def test_a_prefix_cut_inside_a_secret_shows_none_of_it(cut: str) -> None:
    from payscope.api.journal import Redactor

    filler = '{"a": "' + "y" * (MAX_STORED_BODY - len(cut) - 9) + '", '
    raw = (filler + cut).encode() + b"rest of it" * 1000
    kept = Redactor().body(raw, "application/json")
    assert kept is not None and "Zq8x" not in kept and "42424242" not in kept


async def test_a_compressed_answer_reads_as_before_and_logs_its_headers_as_they_came(
    app: tuple[ScriptedApp, str], make_client: ClientFactory
) -> None:
    scripted, url = app
    page = _payments(3)
    raw = gzip.compress(json.dumps(page).encode())
    scripted.script(
        "POST",
        "/payments/list",
        Reply(
            200,
            body=raw,
            headers={
                "content-type": "application/json",
                "content-encoding": "gzip",
                "content-length": str(len(raw)),
            },
        ),
    )
    client = make_client(url)
    listed = await client.payments.list()
    assert [p.payment_id for p in listed.data] == [p["payment_id"] for p in page["data"]]
    (entry,) = client.journal.entries()
    assert entry.response_headers is not None
    assert entry.response_headers["content-encoding"] == "gzip"
    assert entry.response_headers["content-length"] == str(len(raw))


async def test_a_bad_record_in_a_long_page_is_named_by_its_place_in_the_whole(
    app: tuple[ScriptedApp, str], make_client: ClientFactory
) -> None:
    scripted, url = app
    page = _payments(3_000)  # validated a slice at a time
    page["data"][2_345]["amount"] = "lots"
    scripted.script("POST", "/payments/list", Reply(200, page))
    client = make_client(url)
    with pytest.raises(errors.ResponseFormatError) as refused:
        await client.payments.list()
    assert "data.2345.amount" in str(refused.value)
