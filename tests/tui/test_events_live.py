"""Live deliveries on the Events screen, at every width: newest on top, the count follows."""

from __future__ import annotations

import json
from pathlib import Path

import httpx
import pytest
from textual.widgets import Static

from payscope.areas.events.view import EventsView
from payscope.webhooks.signing import SIGNATURE_HEADER, sign
from tests.tui.pilot import run_command, until
from tests.tui.snapshot_app import build, ready
from tests.waits import REQUEST_TIMEOUT


def _event(n: int) -> bytes:
    return json.dumps(
        {
            "merchant_id": "m",
            "event_id": f"evt_live_{n}",
            "event_type": "dispute_opened",
            "content": {
                "type": "dispute_details",
                "object": {"dispute_id": f"dp_live_{n}", "status": "dispute_opened"},
            },
            "timestamp": "2024-05-01T12:00:00Z",
        }
    ).encode()


@pytest.mark.parametrize("size", [(120, 40), (80, 24)])
async def test_live_deliveries_go_on_top_and_the_header_counts_them(
    dirs: tuple[Path, Path], size: tuple[int, int]
) -> None:
    app = build(*dirs)
    async with app.run_test(size=size) as pilot:
        await ready(pilot)
        await run_command(pilot, "events")
        await pilot.pause()
        view = app.screen.query_one(EventsView)
        url, secret = app.runtime.listener.url, app.runtime.sandbox.credentials.webhook_secret
        async with httpx.AsyncClient(timeout=REQUEST_TIMEOUT) as client:
            for n in range(3):
                body = _event(n)
                headers = {"content-type": "application/json", SIGNATURE_HEADER: sign(body, secret)}
                assert (await client.post(url, content=body, headers=headers)).status_code == 200
                await until(lambda n=n: f"evt_live_{n}" in view.rows)
        await pilot.pause()
        newest_first = list(view.table.records)[:3]
        assert newest_first == ["evt_live_2", "evt_live_1", "evt_live_0"]
        header = str(view.query_one("#events-header", Static).render())
        assert "3 of 3" in header
