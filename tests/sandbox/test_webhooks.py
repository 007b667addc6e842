"""Signed webhook delivery to a real HTTP endpoint, retries on the sandbox clock, the events
API. Signatures are checked with `hmac` here, independently of the sandbox's signing code."""

from __future__ import annotations

import asyncio
import hashlib
import hmac
import itertools
from typing import Any

import httpx

from payscope.api import ApiClient
from payscope.api.models.events import EventListRequest
from payscope.sandbox.outbox import RETRY_DELAYS
from payscope.sandbox.server import Sandbox
from tests.sandbox.conftest import WEBHOOK_SECRET, Receiver, payment_body
from tests.waits import until


async def recorded(client: ApiClient, event_id: str, count: int) -> list[Any]:
    """Until `count` attempts of `event_id` are recorded (answers are written as they come)."""
    attempts: list[Any] = []

    async def enough() -> bool:
        attempts[:] = await client.events.attempts(event_id)
        return len(attempts) >= count

    await until(enough, f"{count} attempts of {event_id} recorded", detail=lambda: attempts)
    return attempts


def expected_signature(body: bytes, secret: str) -> str:
    return hmac.new(secret.encode(), body, hashlib.sha512).hexdigest()


async def test_delivery_is_signed_over_the_exact_body(
    sandbox: Sandbox, raw: httpx.AsyncClient, receiver: Receiver
) -> None:
    sandbox.set_webhook(receiver.url, WEBHOOK_SECRET)
    payment = (await raw.post("/payments", json=payment_body(metadata={"order_id": "o-1"}))).json()
    await until(lambda: len(receiver.received) >= 1)
    events = receiver.events()
    body, headers = receiver.received[0]
    assert headers["x-webhook-signature-512"] == expected_signature(body, WEBHOOK_SECRET)
    assert headers["content-type"] == "application/json"
    assert "payscope" in headers["user-agent"]
    event = events[0]
    assert event["event_type"] == "payment_succeeded"
    assert event["merchant_id"] == sandbox.credentials.merchant_id
    assert event["event_id"].startswith("evt_")
    assert event["timestamp"].endswith("Z") and len(event["timestamp"]) == 24
    assert event["content"]["type"] == "payment_details"
    obj = event["content"]["object"]
    assert (obj["payment_id"], obj["status"], obj["metadata"]) == (
        payment["payment_id"],
        "succeeded",
        {"order_id": "o-1"},
    )


async def test_status_to_event_table(
    sandbox: Sandbox, raw: httpx.AsyncClient, receiver: Receiver
) -> None:
    sandbox.set_webhook(receiver.url, WEBHOOK_SECRET)
    manual = await raw.post("/payments", json=payment_body(capture_method="manual_multiple"))
    pid = manual.json()["payment_id"]
    await raw.post(f"/payments/{pid}/capture", json={"amount_to_capture": 100})
    await raw.post(f"/payments/{pid}/capture", json={"amount_to_capture": 100})
    await raw.post(f"/payments/{pid}/capture", json={})
    declined = (await raw.post("/payments", json=payment_body("4000000000000002"))).json()
    challenge = (await raw.post("/payments", json=payment_body("4000003800000446"))).json()
    await raw.post(f"/payments/{challenge['payment_id']}/cancel", json={})
    refund = (await raw.post("/refunds", json={"payment_id": pid, "amount": 50})).json()
    await raw.post("/_sandbox/clock/advance", json={"seconds": 30})
    await until(lambda: len(receiver.received) >= 8)
    events = receiver.events()
    seen = sorted((e["content"]["object"].get("payment_id"), e["event_type"]) for e in events)
    assert seen == sorted(
        [
            (pid, "payment_authorized"),
            (pid, "payment_captured"),  # each partial capture is a change of its own
            (pid, "payment_captured"),
            (pid, "payment_succeeded"),
            (declined["payment_id"], "payment_failed"),
            (challenge["payment_id"], "action_required"),
            (challenge["payment_id"], "payment_cancelled"),
            (pid, "refund_succeeded"),
        ]
    )
    refund_event = next(e for e in events if e["event_type"] == "refund_succeeded")
    assert refund_event["content"]["type"] == "refund_details"
    assert refund_event["content"]["object"]["refund_id"] == refund["refund_id"]
    assert len({e["event_id"] for e in events}) == len(events)
    for body, headers in receiver.received:
        assert headers["x-webhook-signature-512"] == expected_signature(body, WEBHOOK_SECRET)


async def test_retries_follow_the_schedule_on_the_clock(
    sandbox: Sandbox, client: ApiClient, raw: httpx.AsyncClient, receiver: Receiver
) -> None:
    receiver.status = 500
    sandbox.set_webhook(receiver.url, WEBHOOK_SECRET)
    await raw.post("/payments", json=payment_body())
    await until(lambda: len(receiver.received) >= 1)
    listed = await client.events.list()
    assert listed.total_count == 1
    event_id = listed.events[0].event_id
    assert listed.events[0].is_delivery_successful is False
    await recorded(client, event_id, 1)
    await raw.post("/_sandbox/clock/advance", json={"seconds": RETRY_DELAYS[0] - 5})
    await asyncio.sleep(0.1)
    assert len(receiver.received) == 1
    await raw.post("/_sandbox/clock/advance", json={"seconds": 10})
    await until(lambda: len(receiver.received) >= 2)
    # a day later every retry of the schedule has run (the clock starts them and does not
    # wait for the answers: those that fall due inside the jump go out as each answer comes),
    # and then no more
    await raw.post("/_sandbox/clock/advance", json={"seconds": 2 * 86400})
    await until(lambda: len(receiver.received) >= 1 + len(RETRY_DELAYS))
    attempts = await recorded(client, event_id, 1 + len(RETRY_DELAYS))
    await raw.post("/_sandbox/clock/advance", json={"seconds": 7 * 86400})
    await asyncio.sleep(0.1)
    assert len(receiver.received) == 1 + len(RETRY_DELAYS)
    assert len(await client.events.attempts(event_id)) == 1 + len(RETRY_DELAYS)
    kinds = [a.model_dump().get("delivery_attempt") for a in attempts]
    assert kinds[0] == "initial_attempt" and set(kinds[1:]) == {"automatic_retry"}
    first = attempts[0]
    assert first.response.status_code == 500 and first.response.body == "no"
    body = first.request.body.encode()
    assert first.request.headers["X-Webhook-Signature-512"] == expected_signature(
        body, WEBHOOK_SECRET
    )
    # the schedule's gaps, measured on the sandbox clock between attempts
    from payscope.sandbox.clock import parse_iso

    times = [parse_iso(str(a.created)) for a in attempts]
    gaps = [round(b - a) for a, b in itertools.pairwise(times)]
    assert gaps == list(RETRY_DELAYS)
    # a manual retry once the endpoint is back
    receiver.status = 200
    retried = await client.events.retry(event_id)
    assert retried.response.status_code == 200
    assert retried.model_dump().get("delivery_attempt") == "manual_retry"
    again = await client.events.list(EventListRequest(is_delivered=True))
    assert [e.event_id for e in again.events] == [event_id]


async def test_recovers_when_the_endpoint_comes_back(
    sandbox: Sandbox, raw: httpx.AsyncClient, receiver: Receiver
) -> None:
    receiver.status = 503
    sandbox.set_webhook(receiver.url, WEBHOOK_SECRET)
    await raw.post("/payments", json=payment_body())
    await until(lambda: len(receiver.received) >= 1)
    receiver.status = 200
    ran = (await raw.post("/_sandbox/clock/advance", json={"seconds": 61})).json()
    assert ran["ran"]["webhook_attempts"] == 1
    await until(lambda: len(receiver.received) >= 2)
    merchant = sandbox.credentials.merchant_id

    async def answer_recorded() -> bool:
        listed = (await raw.post(f"/events/{merchant}", json={"limit": 100})).json()
        return any(event["is_delivery_successful"] for event in listed["events"])

    await until(answer_recorded, "the second attempt's answer recorded")
    await raw.post("/_sandbox/clock/advance", json={"seconds": 86400})
    await asyncio.sleep(0.2)
    assert len(receiver.received) == 2  # delivered: no further retries


async def test_events_wait_for_a_webhook_url(
    sandbox: Sandbox, client: ApiClient, raw: httpx.AsyncClient, receiver: Receiver
) -> None:
    await raw.post("/payments", json=payment_body())
    await raw.post("/payments", json=payment_body("4000000000000002"))
    listed = await client.events.list()
    assert listed.total_count == 2
    assert all(not e.is_delivery_successful for e in listed.events)
    sandbox.set_webhook(receiver.url, WEBHOOK_SECRET)
    await until(lambda: len(receiver.received) >= 2)
    events = receiver.events()
    assert sorted(e["event_type"] for e in events) == ["payment_failed", "payment_succeeded"]
    only = await client.events.list(EventListRequest(event_types=["payment_failed"]))
    assert [e.event_type for e in only.events] == ["payment_failed"]
    objects = {e.object_id for e in listed.events}
    one = await client.events.list(EventListRequest(object_id=sorted(objects)[0]))
    assert one.total_count == 1
