"""Webhook delivery that keeps up (issue 14): concurrent and bounded, in order per object, and
no endpoint holds the retry route, the clock or any other route.

Everything runs over real HTTP: the sandbox on a loopback port, real endpoints (one that
answers after a random pause, one that accepts connections and never answers).
"""

from __future__ import annotations

import asyncio
import json
import random
import socket
import sqlite3
import time
from collections.abc import AsyncIterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx
import pytest

from payscope.core.asgi_server import EmbeddedServer
from payscope.sandbox.files import DB_FILE
from payscope.sandbox.outbox import DELIVERY_CONCURRENCY, DELIVERY_TIMEOUT
from payscope.sandbox.server import Sandbox
from tests.sandbox.conftest import API_KEY, WEBHOOK_SECRET, Receiver, make_sandbox, payment_body
from tests.waits import REQUEST_TIMEOUT, until

# A route that waited for an attempt would answer once the attempt's time is up
# (DELIVERY_TIMEOUT): one that answers before then did not wait, however slow the machine.
UNHELD = DELIVERY_TIMEOUT


@dataclass
class Silent:
    """An endpoint that accepts connections, reads what comes, and never answers."""

    url: str = ""
    open: int = 0
    most_open: int = 0
    posts: int = 0
    writers: list[asyncio.StreamWriter] = field(default_factory=list)

    async def handle(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        self.writers.append(writer)
        self.open += 1
        self.most_open = max(self.most_open, self.open)
        try:
            while chunk := await reader.read(65536):
                self.posts += chunk.count(b"POST /")
        except ConnectionError:
            pass
        finally:
            self.open -= 1


@pytest.fixture
async def silent() -> AsyncIterator[Silent]:
    endpoint = Silent()
    server = await asyncio.start_server(endpoint.handle, "127.0.0.1", 0)
    port = server.sockets[0].getsockname()[1]
    endpoint.url = f"http://127.0.0.1:{port}/webhooks"
    yield endpoint
    server.close()
    for writer in endpoint.writers:
        writer.close()
    await server.wait_closed()


@dataclass
class Jittery(Receiver):
    """A receiver that answers each POST after a random pause, counting how many it holds."""

    pause: float = 0.05
    refuse_first: set[str] = field(default_factory=set)  # event types refused once each
    holding: int = 0
    most_holding: int = 0
    refused: set[str] = field(default_factory=set)
    rng: random.Random = field(default_factory=lambda: random.Random(7))

    async def __call__(self, scope: Any, receive: Any, send: Any) -> None:
        if scope["type"] != "http":
            await super().__call__(scope, receive, send)
            return
        body = b""
        more = True
        while more:
            message = await receive()
            body += message.get("body", b"")
            more = message.get("more_body", False)
        self.holding += 1
        self.most_holding = max(self.most_holding, self.holding)
        await asyncio.sleep(self.rng.random() * self.pause)
        self.holding -= 1
        status = 200
        event = json.loads(body)
        key = f"{event['content']['object'].get('payment_id')}/{event['event_type']}"
        if event["event_type"] in self.refuse_first and key not in self.refused:
            self.refused.add(key)
            status = 500
        self.received.append((body, {"status": str(status)}))
        await send({"type": "http.response.start", "status": status, "headers": []})
        await send({"type": "http.response.body", "body": b"ok"})


@pytest.fixture
async def jittery() -> AsyncIterator[Jittery]:
    rec = Jittery()
    server = EmbeddedServer(rec, "127.0.0.1", 0)
    rec.url = await server.start() + "/webhooks"
    yield rec
    await server.stop()


@pytest.fixture
async def http(sandbox: Sandbox) -> AsyncIterator[httpx.AsyncClient]:
    """httpx onto the sandbox over a real loopback socket."""
    url = await sandbox.start()
    async with httpx.AsyncClient(
        base_url=url, headers={"api-key": API_KEY}, timeout=REQUEST_TIMEOUT
    ) as h:
        yield h


async def timed(request: Any) -> tuple[httpx.Response, float]:
    started = time.perf_counter()
    response: httpx.Response = await request
    return response, time.perf_counter() - started


async def event_ids(http: httpx.AsyncClient, merchant: str) -> list[str]:
    listed = (await http.post(f"/events/{merchant}", json={"limit": 100})).json()
    return [e["event_id"] for e in listed["events"]]


async def test_a_silent_endpoint_holds_neither_the_retry_route_nor_the_clock(
    sandbox: Sandbox, http: httpx.AsyncClient, receiver: Receiver, silent: Silent
) -> None:
    merchant = sandbox.credentials.merchant_id
    # Three events whose first attempts fail, so their retries fall due a minute later.
    receiver.status = 500
    sandbox.set_webhook(receiver.url, WEBHOOK_SECRET)
    for _ in range(3):
        assert (await http.post("/payments", json=payment_body())).status_code == 200
    await until(lambda: len(receiver.received) == 3, "the first attempts")
    ids = await event_ids(http, merchant)
    for event_id in ids:  # the answers are recorded

        async def answered(event_id: str = event_id) -> bool:
            return bool((await http.get(f"/events/{merchant}/{event_id}/attempts")).json())

        await until(answered, f"the answer to {event_id}'s attempt recorded")

    # Now the endpoint never answers.
    sandbox.set_webhook(silent.url, WEBHOOK_SECRET)
    answer, took = await timed(http.post("/_sandbox/clock/advance", json={"seconds": 61}))
    assert answer.status_code == 200 and took < UNHELD, took
    assert answer.json()["ran"]["webhook_attempts"] == 3
    await until(lambda: silent.posts == 3, "the three retries sent")

    answer, took = await timed(http.post(f"/events/{merchant}/{ids[0]}/retry"))
    assert answer.status_code == 200 and took < UNHELD, took
    attempt = answer.json()
    assert attempt["delivery_attempt"] == "manual_retry"
    assert attempt["attempt_id"] is None and attempt["response"]["status_code"] is None
    assert "no answer" in attempt["response"]["error"]

    # Neither does the clock nor any API route wait while those attempts hang.
    answer, took = await timed(http.post("/_sandbox/clock/advance", json={"seconds": 3600}))
    assert answer.status_code == 200 and took < UNHELD, took
    answer, took = await timed(http.post("/payments", json=payment_body()))
    assert answer.status_code == 200 and took < UNHELD, took
    answer, took = await timed(http.post(f"/events/{merchant}", json={}))
    assert answer.status_code == 200 and took < UNHELD, took
    assert answer.json()["total_count"] == 4


async def test_deliveries_are_concurrent_bounded_and_durable(
    tmp_path: Path, receiver: Receiver, silent: Silent
) -> None:
    data = tmp_path / "sb"
    first = make_sandbox(data, webhook_url=silent.url, webhook_secret=WEBHOOK_SECRET)
    url = await first.start()
    count = DELIVERY_CONCURRENCY + 8
    async with httpx.AsyncClient(
        timeout=REQUEST_TIMEOUT, base_url=url, headers={"api-key": API_KEY}
    ) as http:
        for _ in range(count):
            assert (await http.post("/payments", json=payment_body())).status_code == 200
    # Every slot is used, and no more than that: the rest wait for a free one.
    await until(lambda: silent.posts == DELIVERY_CONCURRENCY, "the slots filled")
    await asyncio.sleep(0.2)
    assert silent.posts == DELIVERY_CONCURRENCY
    assert silent.most_open == DELIVERY_CONCURRENCY
    # Stopped with attempts under way: none of them is lost.
    await first.stop()
    second = make_sandbox(data, webhook_url=receiver.url)
    await second.start()
    try:
        await until(
            lambda: len({e["event_id"] for e in receiver.events()}) == count, "all delivered"
        )
    finally:
        await second.stop()


async def test_order_per_object_is_kept_under_concurrency(
    sandbox: Sandbox, http: httpx.AsyncClient, jittery: Jittery
) -> None:
    # The first attempt of each payment_authorized fails: that payment's later events must
    # wait for its retry, while other payments' events go on.
    jittery.refuse_first = {"payment_authorized"}
    sandbox.set_webhook(jittery.url, WEBHOOK_SECRET)
    payments = []
    for _ in range(12):
        made = await http.post("/payments", json=payment_body(capture_method="manual_multiple"))
        payments.append(made.json()["payment_id"])

    async def captures(payment_id: str) -> None:
        for amount in (500, 500, None):
            body = {} if amount is None else {"amount_to_capture": amount}
            answer = await http.post(f"/payments/{payment_id}/capture", json=body)
            assert answer.status_code == 200, answer.text

    await asyncio.gather(*(captures(p) for p in payments))
    plain = await asyncio.gather(*(http.post("/payments", json=payment_body()) for _ in range(12)))
    await until(lambda: len(jittery.received) >= 12 + len(plain), "the first deliveries")
    # The payments that were not refused are all delivered; the refused ones only their
    # refused first attempt until the retry.
    sent_for = {p: [e["event_type"] for e in jittery.events() if _pid(e) == p] for p in payments}
    assert all(types == ["payment_authorized"] for types in sent_for.values()), sent_for
    assert jittery.most_holding > 1  # delivered concurrently
    await http.post("/_sandbox/clock/advance", json={"seconds": 61})
    expected = [
        "payment_authorized",
        "payment_authorized",
        "payment_captured",
        "payment_captured",
        "payment_succeeded",
    ]
    total = len(payments) * len(expected) + len(plain)
    await until(lambda: len(jittery.received) >= total, "every delivery")
    await asyncio.sleep(0.1)
    events = jittery.events()
    assert len(events) == total
    for payment_id in payments:
        mine = [e for e in events if _pid(e) == payment_id]
        assert [e["event_type"] for e in mine] == expected, payment_id
        captured = [e["content"]["object"]["amount_received"] for e in mine[2:]]
        assert captured == [500, 1000, 1500]


def _pid(event: dict[str, Any]) -> Any:
    return event["content"]["object"].get("payment_id")


async def test_each_partial_capture_sends_its_event(
    sandbox: Sandbox, raw: httpx.AsyncClient, receiver: Receiver
) -> None:
    sandbox.set_webhook(receiver.url, WEBHOOK_SECRET)
    made = await raw.post("/payments", json=payment_body(capture_method="manual_multiple"))
    pid = made.json()["payment_id"]
    for _ in range(3):
        answer = await raw.post(f"/payments/{pid}/capture", json={"amount_to_capture": 100})
        assert answer.status_code == 200
        assert answer.json()["status"] == "partially_captured_and_capturable"
    await until(lambda: len(receiver.received) == 4, "four events")
    events = receiver.events()
    assert [e["event_type"] for e in events] == ["payment_authorized"] + ["payment_captured"] * 3
    captured = [e["content"]["object"] for e in events[1:]]
    assert [(o["amount_received"], o["amount_capturable"]) for o in captured] == [
        (100, 1400),
        (200, 1300),
        (300, 1200),
    ]
    assert len({e["event_id"] for e in events}) == 4
    await raw.post(f"/payments/{pid}/capture", json={})
    await until(lambda: len(receiver.received) == 5, "the last capture's event")
    assert receiver.events()[-1]["event_type"] == "payment_succeeded"


async def test_a_data_dir_of_the_older_event_key_is_rebuilt(
    tmp_path: Path, receiver: Receiver
) -> None:
    data = tmp_path / "sb"
    data.mkdir(mode=0o700)
    conn = sqlite3.connect(data / DB_FILE)
    conn.executescript(
        """
        CREATE TABLE events (
            event_id TEXT PRIMARY KEY, merchant_id TEXT NOT NULL, event_type TEXT NOT NULL,
            event_class TEXT NOT NULL, object_id TEXT NOT NULL, created TEXT NOT NULL,
            body TEXT NOT NULL, delivered INTEGER NOT NULL DEFAULT 0,
            retries INTEGER NOT NULL DEFAULT 0, next_attempt_at REAL,
            UNIQUE (object_id, event_type)
        );
        CREATE INDEX events_due ON events(next_attempt_at) WHERE next_attempt_at IS NOT NULL;
        CREATE INDEX events_created ON events(created);
        INSERT INTO events VALUES ('evt_old', 'm', 'payment_succeeded', 'payments', 'pay_old',
            '2026-01-01T00:00:00.000Z', '{"old":true}', 1, 0, NULL);
        """
    )
    conn.close()
    box = make_sandbox(data)
    try:
        async with httpx.AsyncClient(
            transport=httpx.ASGITransport(app=box.app),
            base_url="http://sandbox.test",
            headers={"api-key": API_KEY},
        ) as raw:
            box.set_webhook(receiver.url, WEBHOOK_SECRET)
            made = await raw.post("/payments", json=payment_body(capture_method="manual_multiple"))
            pid = made.json()["payment_id"]
            for _ in range(2):
                await raw.post(f"/payments/{pid}/capture", json={"amount_to_capture": 100})
            await until(lambda: len(receiver.received) == 3, "three events")
            kept = box.state.db.conn.execute(
                "SELECT rowid, body FROM events WHERE event_id = 'evt_old'"
            ).fetchone()
            assert kept == (1, '{"old":true}')
    finally:
        await box.stop()
    assert [e["event_type"] for e in receiver.events()] == [
        "payment_authorized",
        "payment_captured",
        "payment_captured",
    ]


async def test_an_attached_listener_that_is_gone_is_detached_and_holds_no_one_back(
    sandbox: Sandbox, http: httpx.AsyncClient, receiver: Receiver, silent: Silent
) -> None:
    # Issue 34: three payscopes attached; one died (nothing listens at its port any more), one
    # is stopped (it takes the connection and never answers). The live one gets every event.
    with socket.socket() as gone:
        gone.bind(("127.0.0.1", 0))
        dead = f"http://127.0.0.1:{gone.getsockname()[1]}/webhooks"
    # (closed: nothing listens there)
    for url in (dead, silent.url, receiver.url):
        assert (await http.post("/_sandbox/webhook", json={"attach": url})).status_code == 200
    merchant = sandbox.credentials.merchant_id
    assert (await http.post("/payments", json=payment_body())).status_code == 200
    await until(lambda: len(receiver.received) >= 1, "the live listener's first event")
    # The attempt ends once the silent one's timeout has passed: both are detached then.
    await until(
        lambda: sandbox.state.attached_listeners() == [receiver.url],
        "the dead and the silent listeners detached",
    )
    first_event = (await event_ids(http, merchant))[-1]
    rows = (await http.get(f"/events/{merchant}/{first_event}/attempts")).json()
    by_url = {row["request"]["url"]: row for row in rows}
    assert by_url[receiver.url]["is_delivery_successful"]
    for url, kind in ((dead, "ConnectError"), (silent.url, "Timeout")):
        error = by_url[url]["response"]["error"]
        assert error.startswith(kind) and error.endswith("this listener was detached"), error
    # From here the live one's events go out at once and alone: no row for the others.
    before = len(receiver.received)
    assert (await http.post("/payments", json=payment_body())).status_code == 200
    sent = time.monotonic()
    await until(lambda: len(receiver.received) > before, "the next event")
    # At once: not held for the detached listeners' timeout (the attempt before was).
    assert time.monotonic() - sent < DELIVERY_TIMEOUT
    newest = (await event_ids(http, merchant))[0]

    async def attempts() -> list[Any]:
        rows: list[Any] = (await http.get(f"/events/{merchant}/{newest}/attempts")).json()
        return rows

    rows = await until(attempts, "the next event's attempt rows")
    assert [row["request"]["url"] for row in rows] == [receiver.url]
    posts = silent.posts
    await asyncio.sleep(0.3)
    assert silent.posts == posts  # the stopped one is not sent to any more
