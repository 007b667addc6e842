"""Faults that test a client honestly, over real HTTP: a dropped connection sends not a byte
(no status line); the "lost" fault commits the request and then drops the connection, so only an
idempotent client creates exactly once; every 429 says `Retry-After` within its
`X-RateLimit-Reset`, and the client waits for the first, not the second."""

from __future__ import annotations

import asyncio
import json
import math
import random
import time
from pathlib import Path

import httpx
import pytest

from payscope.api import errors
from payscope.api.models.payments import PaymentCreateRequest
from payscope.sandbox.limits import Faults
from payscope.sandbox.server import Sandbox
from tests.sandbox.conftest import API_KEY, api_client, make_sandbox, payment_body
from tests.waits import REQUEST_TIMEOUT, awaited

pytestmark = pytest.mark.slow

RATE = 0.5


def seed_starting_with(kind: str, clear: int = 2) -> int:
    """A fault seed whose first draw at `RATE` is `kind`, followed by `clear` clean requests."""
    for seed in range(10_000):
        faults = Faults(RATE, seed)
        if faults.draw() == kind and all(faults.draw() is None for _ in range(clear)):
            return seed
    raise AssertionError(f"no seed starts with {kind!r}")


def payment_count(box: Sandbox) -> int:
    row = box.state.db.conn.execute("SELECT COUNT(*) FROM payments").fetchone()
    return int(row[0])


async def raw_post(url: str, path: str, body: dict[str, object]) -> bytes:
    """POST over a bare TCP connection and return every byte the server sent before closing."""
    host, port = url.removeprefix("http://").split(":")
    reader, writer = await asyncio.open_connection(host, int(port))
    payload = json.dumps(body).encode()
    writer.write(
        f"POST {path} HTTP/1.1\r\nHost: {host}:{port}\r\napi-key: {API_KEY}\r\n"
        f"content-type: application/json\r\ncontent-length: {len(payload)}\r\n\r\n".encode()
        + payload
    )
    await writer.drain()
    try:
        received = await awaited(reader.read())
    except ConnectionResetError:
        received = b""
    writer.close()
    return received


@pytest.mark.parametrize(("kind", "committed"), [("lost", True), ("drop", False)])
async def test_a_dropped_connection_sends_no_byte_and_lost_commits_first(
    tmp_path: Path, kind: str, committed: bool
) -> None:
    box = make_sandbox(tmp_path / "sb", fault_rate=RATE, fault_seed=seed_starting_with(kind))
    url = await box.start()
    try:
        before = payment_count(box)
        received = await raw_post(url, "/payments", payment_body(payment_id=f"order_{kind}"))
        assert received == b"", received[:80]  # not even "HTTP/1.1 200 OK"
        assert payment_count(box) == before + committed
        async with httpx.AsyncClient(
            timeout=REQUEST_TIMEOUT, base_url=url, headers={"api-key": API_KEY}
        ) as http:
            read = await http.get(f"/payments/order_{kind}")
        if committed:
            assert read.status_code == 200 and read.json()["status"] == "succeeded"
        else:
            assert read.status_code == 404
    finally:
        await box.stop()


async def test_client_creates_each_payment_exactly_once_at_fault_rate_0_3(
    tmp_path: Path,
) -> None:
    box = make_sandbox(tmp_path / "sb", fault_rate=0.3, fault_seed=3)
    url = await box.start()
    # Enough attempts that 0.3**attempts never loses one here; real sleeps, fixed jitter.
    api = api_client(
        box, base_url=url, max_attempts=10, max_retry_time=60, rng=random.Random(1).random
    )
    n = 60
    try:
        before = payment_count(box)
        created = []
        for i in range(n):  # one after another: the fault sequence is the seed's
            body = payment_body(payment_id=f"order_{i:04d}", amount=1000 + i)
            created.append(await api.payments.create(PaymentCreateRequest.model_validate(body)))
        assert [(p.payment_id, p.amount) for p in created] == [
            (f"order_{i:04d}", 1000 + i) for i in range(n)
        ]
        assert {p.status for p in created} == {"succeeded"}
        stored = box.state.db.conn.execute(
            "SELECT payment_id FROM payments WHERE payment_id LIKE 'order_%'"
        ).fetchall()
        assert sorted(r[0] for r in stored) == [f"order_{i:04d}" for i in range(n)]
        assert payment_count(box) == before + n
        entries = api.journal.entries()
        # The run met the fault that matters: a created payment whose answer was lost, then a
        # retry told HE_01 and resolved by reading the payment.
        assert any(x.error is not None for x in entries if x.method == "POST")
        assert any(x.status == 409 for x in entries if x.method == "POST")
    finally:
        await api.aclose()
        await box.stop()


async def test_a_create_without_payment_id_is_not_repeated_after_a_lost_answer(
    tmp_path: Path,
) -> None:
    box = make_sandbox(tmp_path / "sb", fault_rate=RATE, fault_seed=seed_starting_with("lost"))
    url = await box.start()
    api = api_client(box, base_url=url, max_attempts=4)
    try:
        before = payment_count(box)
        with pytest.raises(errors.ApiConnectionError) as caught:
            await api.payments.create(PaymentCreateRequest.model_validate(payment_body()))
        assert caught.value.attempts == 1  # a retry would have made a second payment
        assert payment_count(box) == before + 1
    finally:
        await api.aclose()
        await box.stop()


async def _away_from_a_window_edge() -> None:
    """Start in the first 55 s of a rate-limit minute, so its reset is at least 5 s away."""
    left = 60 - time.time() % 60
    if left < 5:
        await asyncio.sleep(left + 0.1)


async def test_injected_429_headers_are_consistent(tmp_path: Path) -> None:
    box = make_sandbox(tmp_path / "sb", fault_rate=RATE, fault_seed=seed_starting_with("429"))
    url = await box.start()
    try:
        async with httpx.AsyncClient(
            timeout=REQUEST_TIMEOUT, base_url=url, headers={"api-key": API_KEY}
        ) as http:
            before = time.time()
            limited = await http.get("/health")
            assert limited.status_code == 429
            assert limited.json()["error"]["code"] == "RL_01"
            retry_after = int(limited.headers["retry-after"])
            reset = int(limited.headers["x-ratelimit-reset"])
            assert limited.headers["x-ratelimit-remaining"] == "0"
            assert 1 <= retry_after <= reset - math.floor(before)
            after = await http.get("/health")
            assert after.status_code == 200 and "retry-after" not in after.headers
    finally:
        await box.stop()


async def test_the_limiters_own_429_says_retry_after_until_the_reset(tmp_path: Path) -> None:
    box = make_sandbox(tmp_path / "sb", rate_limit=1)
    url = await box.start()
    try:
        async with httpx.AsyncClient(
            timeout=REQUEST_TIMEOUT, base_url=url, headers={"api-key": API_KEY}
        ) as http:
            await _away_from_a_window_edge()
            before = time.time()
            assert (await http.get("/health")).status_code == 200
            over = await http.get("/health")
            assert over.status_code == 429
            reset = int(over.headers["x-ratelimit-reset"])
            assert over.headers["x-ratelimit-remaining"] == "0"
            # the wait is the window's: a client honouring either header waits the same
            assert 5 <= int(over.headers["retry-after"]) <= reset - math.floor(before)
    finally:
        await box.stop()


async def test_client_honours_retry_after_on_an_injected_429(tmp_path: Path) -> None:
    box = make_sandbox(tmp_path / "sb", fault_rate=RATE, fault_seed=seed_starting_with("429"))
    url = await box.start()
    api = api_client(box, base_url=url, max_attempts=4, max_retry_time=30)
    try:
        await _away_from_a_window_edge()
        started = time.monotonic()
        assert await api.health()
        elapsed = time.monotonic() - started
        statuses = [x.status for x in api.journal.entries()]
        assert statuses == [429, 200]
        # Retry-After: 1, whatever X-RateLimit-Reset says (at least 5 s away here)
        assert 0.9 <= elapsed < 3.0, elapsed
    finally:
        await api.aclose()
        await box.stop()


async def test_without_a_server_that_drops_lost_is_a_500_after_the_commit(
    tmp_path: Path,
) -> None:
    # In process (httpx.ASGITransport) there is no connection to drop: the answer lost after
    # the commit is a 500 instead, which hides the commit all the same.
    box = make_sandbox(tmp_path / "sb", fault_rate=RATE, fault_seed=seed_starting_with("lost"))
    api = api_client(box, max_attempts=4, rng=lambda: 0.0)
    try:
        before = payment_count(box)
        body = PaymentCreateRequest.model_validate(payment_body(payment_id="order_inproc"))
        payment = await api.payments.create(body)
        assert payment.payment_id == "order_inproc" and payment.status == "succeeded"
        assert [x.status for x in api.journal.entries()] == [500, 409, 200]
        assert payment_count(box) == before + 1
    finally:
        await api.aclose()
        await box.stop()
