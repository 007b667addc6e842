"""Fixtures: a sandbox in a tmp dir, the shared `ApiClient` on it (in-process through
`httpx.ASGITransport`, or over real HTTP), raw httpx for wire checks, and a real webhook
receiver on a free loopback port."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx
import pytest

from payscope.api import ApiClient
from payscope.core.asgi_server import EmbeddedServer
from payscope.sandbox.server import Sandbox, SandboxConfig
from tests.waits import REQUEST_TIMEOUT

API_KEY = "snd_test_0123456789abcdef"
WEBHOOK_SECRET = "whsec-test-" + "x" * 53
CARD = {
    "card_number": "4242424242424242",
    "card_exp_month": "12",
    "card_exp_year": "2040",
    "card_cvc": "123",
}
BILLING = {"address": {"country": "US", "city": "Austin"}}


def envelope(response: httpx.Response) -> dict[str, str]:
    """The `error` object of a response, after checking it has exactly the spec's shape."""
    body = response.json()
    assert set(body) == {"error"}, body
    assert set(body["error"]) == {"type", "code", "message"}
    error: dict[str, str] = body["error"]
    return error


def card(number: str, **extra: str) -> dict[str, Any]:
    """A card body with a future expiry and a CVC of the right length for the brand."""
    cvc = "1234" if number.startswith(("34", "37")) else "123"
    return {**CARD, "card_number": number, "card_cvc": cvc, **extra}


def payment_body(number: str = "4242424242424242", **fields: Any) -> dict[str, Any]:
    """A one-step create body paying with `number`."""
    body: dict[str, Any] = {
        "amount": 1500,
        "currency": "USD",
        "confirm": True,
        "payment_method": "card",
        "payment_method_data": {"card": card(number)},
        "billing": BILLING,
    }
    body.update(fields)
    return body


def make_sandbox(data_dir: Path, **config: Any) -> Sandbox:
    """A sandbox with the test key and no rate limit unless asked."""
    config.setdefault("api_key", API_KEY)
    config.setdefault("rate_limit", 0)
    return Sandbox(SandboxConfig(data_dir=data_dir, **config))


@pytest.fixture
async def sandbox(tmp_path: Path) -> AsyncIterator[Sandbox]:
    box = make_sandbox(tmp_path / "sandbox")
    yield box
    await box.stop()


def api_client(box: Sandbox, base_url: str | None = None, **kwargs: Any) -> ApiClient:
    """The shared client on `box`: over HTTP when `base_url` is given, else in-process."""
    creds = box.credentials
    transport = None if base_url else httpx.ASGITransport(app=box.app)
    kwargs.setdefault("max_attempts", 1)
    return ApiClient(
        base_url or "http://sandbox.test",
        kwargs.pop("api_key", creds.api_key),
        profile_id=creds.profile_id,
        merchant_id=creds.merchant_id,
        transport=transport,
        **kwargs,
    )


@pytest.fixture
async def client(sandbox: Sandbox) -> AsyncIterator[ApiClient]:
    api = api_client(sandbox)
    yield api
    await api.aclose()


@dataclass
class Served:
    """The sandbox on a loopback port: raw httpx with the key and profile header, the client."""

    http: httpx.AsyncClient
    client: ApiClient
    sandbox: Sandbox


@pytest.fixture
async def served(sandbox: Sandbox) -> AsyncIterator[Served]:
    """The `sandbox` over real HTTP on a free loopback port, with the subscriptions' header."""
    url = await sandbox.start("127.0.0.1", 0)
    creds = sandbox.credentials
    headers = {"api-key": creds.api_key, "X-Profile-Id": creds.profile_id}
    client = api_client(sandbox, url)
    async with httpx.AsyncClient(timeout=REQUEST_TIMEOUT, base_url=url, headers=headers) as http:
        yield Served(http, client, sandbox)
    await client.aclose()


@pytest.fixture
async def raw(sandbox: Sandbox) -> AsyncIterator[httpx.AsyncClient]:
    """httpx straight onto the app, with the secret key set."""
    async with httpx.AsyncClient(
        transport=httpx.ASGITransport(app=sandbox.app),
        base_url="http://sandbox.test",
        headers={"api-key": API_KEY},
    ) as http:
        yield http


@pytest.fixture
async def live(tmp_path: Path) -> AsyncIterator[httpx.AsyncClient]:
    """httpx over real HTTP to a sandbox listening on a free loopback port (secret key set)."""
    box = make_sandbox(tmp_path / "live")
    url = await box.start()
    try:
        async with httpx.AsyncClient(
            timeout=REQUEST_TIMEOUT, base_url=url, headers={"api-key": API_KEY}
        ) as http:
            yield http
    finally:
        await box.stop()


@dataclass
class Receiver:
    """A webhook endpoint over real HTTP that records exactly what it received."""

    status: int = 200
    received: list[tuple[bytes, dict[str, str]]] = field(default_factory=list)
    url: str = ""

    def events(self) -> list[dict[str, Any]]:
        return [json.loads(body) for body, _ in self.received]

    async def __call__(self, scope: Any, receive: Any, send: Any) -> None:
        if scope["type"] == "lifespan":
            while True:
                message = await receive()
                if message["type"] == "lifespan.startup":
                    await send({"type": "lifespan.startup.complete"})
                elif message["type"] == "lifespan.shutdown":
                    await send({"type": "lifespan.shutdown.complete"})
                    return
        body = b""
        more = True
        while more:
            message = await receive()
            body += message.get("body", b"")
            more = message.get("more_body", False)
        headers = {k.decode().lower(): v.decode() for k, v in scope["headers"]}
        self.received.append((body, headers))
        await send({"type": "http.response.start", "status": self.status, "headers": []})
        await send({"type": "http.response.body", "body": b"ok" if self.status < 300 else b"no"})


@pytest.fixture
async def receiver() -> AsyncIterator[Receiver]:
    rec = Receiver()
    server = EmbeddedServer(rec, "127.0.0.1", 0)
    rec.url = await server.start() + "/webhooks"
    yield rec
    await server.stop()
