"""Issue 38: bound to loopback, the local sandbox and both listeners (in-process and in its own
process) answer only loopback names in `Host` (DNS rebinding), with the spec's error envelope.

Real servers on free loopback ports, real requests whose `Host` header is forged as a
rebinding page's browser would send it."""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path

import httpx
import pytest

from payscope.core.host_guard import is_loopback_host_header, refused_host
from payscope.webhooks.listener import Listener
from payscope.webhooks.process import ListenerProcess
from payscope.webhooks.signing import SIGNATURE_HEADER
from tests.sandbox.conftest import API_KEY, envelope, make_sandbox
from tests.waits import REQUEST_TIMEOUT
from tests.webhooks.conftest import SECRET, event_body, hmac_sha512

pytestmark = pytest.mark.slow

FORGED = ["evil.example", "evil.example:8000", "127.0.0.1.evil.example", "[::2]", "0.0.0.0"]
LOOPBACK = ["127.0.0.1", "localhost", "LOCALHOST.", "[::1]", "127.0.0.7", "app.localhost"]


@pytest.mark.parametrize(
    ("value", "loopback"),
    [
        *((name, True) for name in LOOPBACK),
        *((f"{name}:8080", True) for name in LOOPBACK),
        *((name, False) for name in FORGED),
        ("localhost:http", False),  # a port is digits
        ("::1", False),  # a bare IPv6 address is no valid Host
        ("localhost.evil.example", False),
        ("", False),
    ],
)
def test_loopback_names_are_told_apart(value: str, loopback: bool) -> None:
    assert is_loopback_host_header(value) is loopback


def test_a_server_bound_elsewhere_is_not_held_to_loopback_names() -> None:
    forged = [(b"host", b"evil.example")]
    assert refused_host({"server": ("127.0.0.1", 80), "headers": forged}) == "evil.example"
    assert refused_host({"server": ("::1", 80), "headers": forged}) == "evil.example"
    assert refused_host({"server": ("0.0.0.0", 80), "headers": forged}) is None
    assert refused_host({"server": ("127.0.0.1", 80), "headers": []}) is None  # no Host at all


def _refused(response: httpx.Response, what: str) -> None:
    assert response.status_code == 400, response.text
    error = envelope(response)
    assert error["type"] == "invalid_request" and error["code"] == "IR_04"
    assert "DNS rebinding" in error["message"] and what in error["message"]


@pytest.fixture
async def sandbox_url(tmp_path: Path) -> AsyncIterator[str]:
    box = make_sandbox(tmp_path / "sandbox")
    url = await box.start()
    yield url
    await box.stop()


async def test_the_sandbox_refuses_a_forged_host(sandbox_url: str) -> None:
    port = sandbox_url.rsplit(":", 1)[1]
    async with httpx.AsyncClient(
        timeout=REQUEST_TIMEOUT, base_url=sandbox_url, headers={"api-key": API_KEY}
    ) as http:
        for host in FORGED:
            for path in ("/payments", "/health", "/_sandbox/payments/pay_x/3ds", "/docs"):
                _refused(await http.get(path, headers={"Host": host}), "local sandbox")
        refused = await http.post("/payments", json={"amount": 1}, headers={"Host": "evil"})
        _refused(refused, "local sandbox")
        for host in ("127.0.0.1", f"127.0.0.1:{port}", f"localhost:{port}", f"[::1]:{port}"):
            answer = await http.get("/payments/list", headers={"Host": host})
            assert answer.status_code == 200, (host, answer.text)
        # Nothing the refused POST carried was made.
        listed = (await http.get("/payments/list")).json()
        assert all(p.get("amount") != 1 for p in listed.get("data", []))


async def test_the_in_process_listener_refuses_a_forged_host(tmp_path: Path) -> None:
    listener = Listener(tmp_path / "listener", [SECRET])
    url = await listener.start(port=0)
    try:
        await _listener_checks(url, listener.port)
        assert listener.journal.count() == 1  # the loopback one only: refused ones never got in
    finally:
        await listener.stop()


async def test_the_listener_process_refuses_a_forged_host(tmp_path: Path) -> None:
    child = ListenerProcess(tmp_path / "listener", [SECRET])
    url = await child.start(port=0)
    try:
        await _listener_checks(url, child.port)
    finally:
        await child.stop()


async def _post(http: httpx.AsyncClient, url: str, event_id: str, host: str) -> httpx.Response:
    body = event_body(event_id=event_id)
    headers = {
        "Content-Type": "application/json",
        SIGNATURE_HEADER: hmac_sha512(body, SECRET),
        "Host": host,
    }
    return await http.post(url, content=body, headers=headers)


async def _listener_checks(url: str, port: int | None) -> None:
    async with httpx.AsyncClient(timeout=REQUEST_TIMEOUT) as http:
        for number, host in enumerate(FORGED):
            _refused(await _post(http, url, f"evt_forged_{number}", host), "webhook listener")
        accepted = await _post(http, url, "evt_loopback", f"localhost:{port}")
        assert accepted.status_code == 200, accepted.text
