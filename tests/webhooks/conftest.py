"""Shared pieces for the listener tests: real servers on loopback, signatures computed here.

Signatures are computed with `hmac` directly (not with payscope.webhooks.signing), so a bug in the
listener's verification cannot be mirrored by the tests.
"""

from __future__ import annotations

import hashlib
import hmac
import json
from collections.abc import AsyncIterator
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import httpx
import pytest

from payscope.core.asgi_server import EmbeddedServer
from payscope.webhooks.listener import Listener
from tests.waits import REQUEST_TIMEOUT

SECRET = "test-current-secret-0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJ"
OLD_SECRET = "test-previous-secret-9876543210zyxwvutsrqponmlkjihgfedcbaZYXWVUT"
SIGNATURE_HEADER = "X-Webhook-Signature-512"


def hmac_sha512(body: bytes, secret: str) -> str:
    return hmac.new(secret.encode(), body, hashlib.sha512).hexdigest()


def iso_now(offset: float = 0.0) -> str:
    """The time `offset` seconds from now as the service writes it: ISO 8601, ms, `Z`."""
    moment = datetime.now(UTC) + timedelta(seconds=offset)
    return moment.isoformat(timespec="milliseconds").replace("+00:00", "Z")


def event_body(
    event_id: str,
    event_type: str = "payment_succeeded",
    object_id: str = "pay_00000000000000000001",
    status: str = "succeeded",
    content_type: str = "payment_details",
    id_field: str = "payment_id",
    timestamp: str | None = None,
) -> bytes:
    # Unusual spacing on purpose: the signature covers these exact bytes, not a re-serialisation.
    payload = {
        "merchant_id": "merchant_test",
        "event_id": event_id,
        "event_type": event_type,
        "content": {
            "type": content_type,
            "object": {id_field: object_id, "status": status, "amount": 1250, "currency": "EUR"},
        },
        # Now, unless given: the listener refuses events older than its freshness window.
        "timestamp": timestamp if timestamp is not None else iso_now(),
    }
    return json.dumps(payload, separators=(", ", " : ")).encode()


async def post_signed(
    client: httpx.AsyncClient,
    url: str,
    body: bytes,
    secret: str | None = SECRET,
    content_type: str = "application/json",
) -> httpx.Response:
    headers = {"Content-Type": content_type}
    if secret is not None:
        headers[SIGNATURE_HEADER] = hmac_sha512(body, secret)
    return await client.post(url, content=body, headers=headers)


@pytest.fixture
async def listener(tmp_path: Path) -> AsyncIterator[Listener]:
    lst = Listener(tmp_path / "listener", [SECRET, OLD_SECRET])
    await lst.start(port=0)
    yield lst
    await lst.stop()


@pytest.fixture
async def client() -> AsyncIterator[httpx.AsyncClient]:
    async with httpx.AsyncClient(timeout=REQUEST_TIMEOUT) as c:
        yield c


@dataclass
class Received:
    headers: dict[str, str]
    body: bytes


@dataclass
class Receiver:
    """A merchant's own server: records what it is sent, answers `status` with `reply`."""

    status: int = 202
    reply: bytes = b'{"ok":true}'
    requests: list[Received] = field(default_factory=list)
    url: str = ""

    async def __call__(self, scope: dict[str, Any], receive: Any, send: Any) -> None:
        if scope["type"] == "lifespan":
            while True:
                message = await receive()
                await send({"type": message["type"] + ".complete"})
                if message["type"] == "lifespan.shutdown":
                    return
        body = b""
        while True:
            message = await receive()
            body += message.get("body", b"")
            if not message.get("more_body"):
                break
        headers = {k.decode(): v.decode() for k, v in scope["headers"]}
        self.requests.append(Received(headers, body))
        await send({"type": "http.response.start", "status": self.status, "headers": []})
        await send({"type": "http.response.body", "body": self.reply})


@pytest.fixture
async def receiver() -> AsyncIterator[Receiver]:
    rec = Receiver()
    server = EmbeddedServer(rec, "127.0.0.1", 0)
    rec.url = await server.start() + "/hooks"
    yield rec
    await server.stop()
