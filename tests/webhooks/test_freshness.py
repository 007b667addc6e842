"""The freshness window on an event's `timestamp`: a validly signed old event is refused as
stale (its own reason), a sandbox whose clock was moved ahead still gets through."""

from __future__ import annotations

import asyncio
import json
import signal
from pathlib import Path

import httpx
import pytest

from payscope.webhooks.checks import DEFAULT_MAX_AGE
from payscope.webhooks.listener import Listener
from tests.sandbox.conftest import API_KEY, make_sandbox, payment_body
from tests.waits import HANG, REQUEST_TIMEOUT, until
from tests.webhooks.conftest import SECRET, Receiver, event_body, iso_now, post_signed
from tests.webhooks.test_listen_cli import running

DAY = 86400.0


async def test_a_validly_signed_event_dated_2001_is_refused_as_stale(
    tmp_path: Path, receiver: Receiver, client: httpx.AsyncClient
) -> None:
    listener = Listener(tmp_path / "l", [SECRET], forward_to=receiver.url)
    url = await listener.start(port=0)
    try:
        deliveries = listener.subscribe()
        body = event_body("evt_2001", timestamp="2001-09-09T01:46:40.000Z")
        response = await post_signed(client, url, body)
        delivery = await deliveries.__anext__()
        await listener.forwarder.drain(2)
        [stored] = listener.journal.deliveries(rejected_only=True)
        assert listener.journal.count() == 0
        assert listener.journal.get("evt_2001") is None
    finally:
        await listener.stop()
    assert response.status_code == 400
    assert response.json()["error"] == "stale_event"
    message = response.json()["message"]
    assert message.startswith("stale: ") and "2001-09-09T01:46:40.000Z" in message
    assert "--max-age" in message and "--no-freshness" in message
    # Kept for diagnosis like the other refusals, with its reason; never processed.
    assert stored.status == 400 and stored.verified and stored.body == body
    assert stored.reason == message
    assert delivery.status == 400 and delivery.reason == message
    assert listener.stats.rejected == 1 and listener.stats.accepted == 0
    assert receiver.requests == []


@pytest.mark.parametrize(
    ("age", "accepted"),
    [
        (6 * DAY, True),  # within the default 7 days
        (8 * DAY, False),
        (-30 * DAY, True),  # dated ahead: a sandbox whose clock was advanced
    ],
)
async def test_the_default_window_is_seven_days_and_future_dates_are_not_refused(
    tmp_path: Path, client: httpx.AsyncClient, age: float, accepted: bool
) -> None:
    assert DEFAULT_MAX_AGE == 7 * DAY
    listener = Listener(tmp_path / "l", [SECRET])
    url = await listener.start(port=0)
    try:
        body = event_body("evt_age", timestamp=iso_now(-age))
        response = await post_signed(client, url, body)
    finally:
        await listener.stop()
    assert response.status_code == (200 if accepted else 400)


@pytest.mark.parametrize(
    "stamp", ["not a date", "", "2001-13-45T99:00:00Z", "1999-01-01T00:00:00+14:00"]
)
async def test_a_window_can_be_narrowed_or_turned_off_and_unreadable_dates_are_not_judged(
    tmp_path: Path, client: httpx.AsyncClient, stamp: str
) -> None:
    narrow = Listener(tmp_path / "narrow", [SECRET], max_age=60)
    off = Listener(tmp_path / "off", [SECRET], max_age=None)
    narrow_url = await narrow.start(port=0)
    off_url = await off.start(port=0)
    try:
        two_minutes = event_body("evt_2min", timestamp=iso_now(-120))
        assert (await post_signed(client, narrow_url, two_minutes)).status_code == 400
        assert (await post_signed(client, off_url, two_minutes)).status_code == 200
        old = event_body("evt_old", timestamp="2001-01-01T00:00:00Z")
        assert (await post_signed(client, off_url, old)).status_code == 200
        odd = event_body("evt_odd", timestamp=stamp)
        expected = 400 if stamp.startswith("1999") else 200  # a real date with an offset
        assert (await post_signed(client, narrow_url, odd)).status_code == expected
    finally:
        await narrow.stop()
        await off.stop()
    with pytest.raises(ValueError, match="max_age"):
        Listener(tmp_path / "bad", [SECRET], max_age=0)


async def test_a_sandbox_with_its_clock_advanced_still_gets_its_webhooks_through(
    tmp_path: Path,
) -> None:
    """The local sandbox dates events by its own clock, which only moves ahead."""
    listener = Listener(tmp_path / "l", [SECRET])  # the default window
    hook = await listener.start(port=0)
    box = make_sandbox(tmp_path / "sandbox")
    base = await box.start("127.0.0.1", 0)
    try:
        box.set_webhook(hook, SECRET)
        async with httpx.AsyncClient(
            timeout=REQUEST_TIMEOUT, base_url=base, headers={"api-key": API_KEY}
        ) as api:
            advanced = await api.post("/_sandbox/clock/advance", json={"seconds": 30 * DAY})
            assert advanced.status_code == 200
            created = await api.post("/payments", json=payment_body())
            assert created.status_code == 200, created.text
        payment_id = created.json()["payment_id"]
        await until(lambda: listener.journal.count(object_id=payment_id) >= 1)
        [event] = listener.journal.recent(object_id=payment_id)
        detail = listener.journal.get(event.event_id)
        assert detail is not None
        assert json.loads(detail.body)["timestamp"] > iso_now(29 * DAY)  # dated ahead
        assert listener.journal.deliveries(rejected_only=True) == []
    finally:
        await box.stop()
        await listener.stop()


def test_listen_refuses_stale_events_and_takes_max_age_and_no_freshness(tmp_path: Path) -> None:
    two_hours = event_body("evt_2h", timestamp=iso_now(-7200))

    async def send(url: str) -> int:
        async with httpx.AsyncClient(timeout=REQUEST_TIMEOUT) as client:
            return (await post_signed(client, url, two_hours)).status_code

    base = ("--port", "0", "--secret", SECRET, "--format", "json")
    for extra, status, fresh in (
        (("--max-age", "1h"), 400, "events up to 1h old"),
        (("--max-age", "3h"), 200, "events up to 3h old"),
        (("--no-freshness",), 200, "not checked (--no-freshness)"),
        ((), 200, "events up to 7d old"),
    ):
        data = tmp_path / "-".join(extra or ("default",))
        with running(*base, "--data", str(data), *extra) as (proc, url, header):
            assert f"fresh    {fresh}" in header
            assert asyncio.run(send(url)) == status
            assert proc.stdout is not None
            line = json.loads(proc.stdout.readline())
            proc.send_signal(signal.SIGINT)
            proc.communicate(timeout=HANG)
        assert line["http_status"] == status
        if status == 400:
            assert line["reason"].startswith("stale: ")
