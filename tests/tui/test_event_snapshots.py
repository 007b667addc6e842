"""Snapshots of the Events area with deliveries, and of one event's detail.

The deliveries are real: signed webhooks POSTed over loopback to the app's embedded listener
(a new event, a second one delivered twice, and one with a wrong signature), with fixed bodies so
every run draws the same picture; the `STABLE` display policy hides receive times and the
listener's port.
"""

from __future__ import annotations

import json
from typing import Any

import httpx

from payscope.webhooks.signing import SIGNATURE_HEADER, sign
from tests.tui.area_snapshots import screens_in_every_look
from tests.tui.pilot import run_command, until
from tests.tui.snapshot_app import ready
from tests.waits import REQUEST_TIMEOUT, on_screen


def _payload(event_id: str, event_type: str, payment_id: str, status: str) -> bytes:
    return json.dumps(
        {
            "merchant_id": "merchant_snapshot",
            "event_id": event_id,
            "event_type": event_type,
            "content": {
                "type": "payment_details",
                "object": {
                    "payment_id": payment_id,
                    "status": status,
                    "amount": 4200,
                    "currency": "USD",
                },
            },
            "timestamp": "2024-05-01T12:00:00Z",
        }
    ).encode()


async def _post(client: httpx.AsyncClient, url: str, body: bytes, signature: str) -> int:
    headers = {"content-type": "application/json", SIGNATURE_HEADER: signature}
    response = await client.post(url, content=body, headers=headers)
    return response.status_code


async def _deliveries(pilot: Any) -> None:
    """Open Events, then deliver: a failed payment (twice), a success, and a forged one."""
    from payscope.areas.events.view import EventsView
    from payscope.areas.payments.view import PaymentsView

    await ready(pilot)
    # Real payments of the seeded sandbox: the Payments table refreshes the rows a webhook
    # names, so made-up ids would (rightly) be reported as not found.
    rows = list(pilot.app.screen.query_one(PaymentsView).rows.values())
    ok = next(p for p in rows if p.status == "succeeded")
    bad = next(p for p in rows if p.status == "failed")
    SUCCEEDED = _payload("evt_snapshot_succeeded", "payment_succeeded", ok.payment_id, ok.status)
    FAILED = _payload("evt_snapshot_failed", "payment_failed", bad.payment_id, bad.status)
    await run_command(pilot, "events")
    await pilot.pause()
    app = pilot.app
    runtime = app.runtime
    url = runtime.listener.url
    secret = runtime.sandbox.credentials.webhook_secret
    async with httpx.AsyncClient(
        timeout=REQUEST_TIMEOUT, headers={"user-agent": "snapshot-test"}
    ) as client:
        assert await _post(client, url, FAILED, sign(FAILED, secret)) == 200
        assert await _post(client, url, FAILED, sign(FAILED, secret)) == 200  # a duplicate
        assert await _post(client, url, SUCCEEDED, sign(SUCCEEDED, secret)) == 200
        forged = sign(SUCCEEDED, "not-the-secret")
        assert await _post(client, url, SUCCEEDED, forged) == 401
    from payscope.widgets.status_bar import StatusBar

    view = app.screen.query_one(EventsView)
    status = app.screen.query_one(StatusBar)
    # The rows, the refusal, and the status bar's count (it follows at most 4 times a second).
    await until(lambda: len(view.rows) == 2 and len(view.rejected) == 1)
    await until(lambda: status.event_count == 2)
    await pilot.pause()


async def _detail(pilot: Any) -> None:
    """The duplicated event's detail: verification, headers, raw body and pretty JSON."""
    from payscope.areas.events.detail import EventDetailScreen
    from payscope.areas.events.view import EventsView

    await _deliveries(pilot)
    view = pilot.app.screen.query_one(EventsView)
    view.focus_main()
    await pilot.press("down", "enter")  # newest first: the duplicated (failed) one is second
    await until(lambda: on_screen(pilot.app, EventDetailScreen))
    await pilot.pause()


DRIVES = {"events_deliveries": _deliveries, "event_detail": _detail}


test_events_with_deliveries = screens_in_every_look(DRIVES, seeded=False)
