"""Subscribers (stream and callback), the journal's paging, and the stored secret."""

from __future__ import annotations

import asyncio
import hashlib
import hmac
from pathlib import Path

import httpx
import pytest

from payscope.webhooks.deliveries import Delivery
from payscope.webhooks.listener import Listener, ListenerError
from tests.waits import awaited, until
from tests.webhooks.conftest import SECRET, event_body, post_signed


async def test_a_subscription_sees_accepted_duplicate_and_rejected_deliveries(
    listener: Listener, client: httpx.AsyncClient
) -> None:
    assert listener.url is not None
    async with listener.subscribe() as stream:
        await post_signed(client, listener.url, event_body("evt_s1", object_id="pay_s1"))
        await post_signed(client, listener.url, event_body("evt_s1", object_id="pay_s1"))
        await post_signed(client, listener.url, event_body("evt_s2"), secret="wrong")
        got = [await awaited(stream.__anext__()) for _ in range(3)]

    assert [(d.event_id, d.accepted, d.duplicate) for d in got] == [
        ("evt_s1", True, False),
        ("evt_s1", True, True),
        (None, False, False),
    ]
    assert got[0].object_id == "pay_s1" and got[0].object_status == "succeeded"
    assert got[1].duplicate_count == 1
    assert got[2].status == 401 and got[2].reason is not None and not got[2].verified


async def test_callbacks_sync_and_async_receive_every_delivery(
    listener: Listener, client: httpx.AsyncClient
) -> None:
    assert listener.url is not None
    sync_seen: list[str | None] = []
    async_seen: list[str | None] = []

    async def on_async(d: Delivery) -> None:
        await asyncio.sleep(0)
        async_seen.append(d.event_id)

    def broken(d: Delivery) -> None:
        raise RuntimeError("a subscriber bug must not stop the others")

    listener.add_subscriber(lambda d: sync_seen.append(d.event_id))
    listener.add_subscriber(on_async)
    listener.add_subscriber(broken)
    for i in range(3):
        await post_signed(client, listener.url, event_body(f"evt_cb{i}"))
    await until(lambda: len(sync_seen) == 3 and len(async_seen) == 3)
    assert sync_seen == async_seen == ["evt_cb0", "evt_cb1", "evt_cb2"]


async def test_a_slow_subscriber_never_delays_acks_and_loses_only_its_oldest(
    listener: Listener, client: httpx.AsyncClient
) -> None:
    assert listener.url is not None
    stream = listener.subscribe(maxsize=2)
    answers = [
        await post_signed(client, listener.url, event_body(f"evt_slow{i}")) for i in range(5)
    ]
    assert all(a.status_code == 200 for a in answers)
    assert stream.dropped == 3
    stream.close()
    assert [d.event_id async for d in stream] == ["evt_slow3", "evt_slow4"]
    assert listener.journal.count() == 5


async def test_recent_pages_newest_first_with_filters(
    listener: Listener, client: httpx.AsyncClient
) -> None:
    assert listener.url is not None
    for i in range(6):
        kind = "payment_failed" if i % 2 else "payment_succeeded"
        body = event_body(f"evt_p{i}", event_type=kind, object_id=f"pay_{i % 3}")
        await post_signed(client, listener.url, body)
    j = listener.journal

    assert [e.event_id for e in j.recent(limit=2)] == ["evt_p5", "evt_p4"]
    assert [e.event_id for e in j.recent(limit=2, offset=2)] == ["evt_p3", "evt_p2"]
    failed = j.recent(event_type="payment_failed")
    assert [e.event_id for e in failed] == ["evt_p5", "evt_p3", "evt_p1"]
    assert [e.event_id for e in j.recent(object_id="pay_0")] == ["evt_p3", "evt_p0"]
    assert j.count() == 6 and j.count(event_type="payment_failed") == 3
    assert j.get("evt_nope") is None


def test_filtered_queries_use_the_indexes(tmp_path: Path) -> None:
    from payscope.webhooks.journal import Journal

    journal = Journal(tmp_path)
    with journal._read() as conn:
        plans = {
            column: " ".join(
                str(row[-1])
                for row in conn.execute(
                    "EXPLAIN QUERY PLAN SELECT seq FROM events WHERE "
                    f"{column} = ? ORDER BY seq DESC LIMIT 50",
                    ("x",),
                )
            )
            for column in ("event_type", "object_id")
        }
    journal.close()
    assert "USING" in plans["event_type"] and "events_type" in plans["event_type"]
    assert "events_object" in plans["object_id"]
    assert all("TEMP B-TREE" not in plan for plan in plans.values())


async def test_without_secrets_one_is_generated_in_memory_and_never_written(
    tmp_path: Path, client: httpx.AsyncClient
) -> None:
    first = Listener(tmp_path / "l")
    [secret] = first.secrets
    assert len(secret) == 64 and secret.isalnum()
    assert Listener(tmp_path / "l").secrets != (secret,)  # fresh each time: nothing stored

    url = await first.start(port=0)
    try:
        body = event_body("evt_own_secret")
        signature = hmac.new(secret.encode(), body, hashlib.sha512).hexdigest()
        answer = await client.post(
            url,
            content=body,
            headers={"Content-Type": "application/json", "X-Webhook-Signature-512": signature},
        )
        assert answer.status_code == 200
    finally:
        await first.stop()
    on_disk = [p.read_bytes() for p in (tmp_path / "l").rglob("*") if p.is_file()]
    assert on_disk, "the journal should exist"
    assert not any(secret.encode() in blob for blob in on_disk)


def test_an_empty_secret_is_refused(tmp_path: Path) -> None:
    with pytest.raises(ValueError, match="cannot be empty"):
        Listener(tmp_path, ["  "])


async def test_a_taken_port_falls_back_to_a_free_one_or_says_so(tmp_path: Path) -> None:
    with socket_bound() as taken:
        listener = Listener(tmp_path / "a", [SECRET])
        await listener.start(port=taken, fallback_to_free_port=True)
        try:
            assert listener.port not in (None, taken)
        finally:
            await listener.stop()
        strict = Listener(tmp_path / "b", [SECRET])
        with pytest.raises(ListenerError, match=f"port {taken} .* already in use"):
            await strict.start(port=taken, fallback_to_free_port=False)
        strict.journal.close()


class socket_bound:
    """A port held by a listening socket for the duration of a `with` block."""

    def __enter__(self) -> int:
        import socket

        self.sock = socket.socket()
        self.sock.bind(("127.0.0.1", 0))
        self.sock.listen()
        return int(self.sock.getsockname()[1])

    def __exit__(self, *exc: object) -> None:
        self.sock.close()
