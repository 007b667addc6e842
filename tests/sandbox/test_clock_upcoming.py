"""`GET /_sandbox/clock/upcoming`: what advancing the clock would set off, said before it runs,
and then exactly that happens when the clock is advanced."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import httpx
import pytest

from payscope.api.client import ApiClient
from tests.sandbox.conftest import envelope, payment_body


async def _upcoming(raw: httpx.AsyncClient, **params: str) -> dict:
    response = await raw.get("/_sandbox/clock/upcoming", params=params)
    assert response.status_code == 200, response.text
    return response.json()


async def test_preview_names_what_falls_due_and_advancing_does_it(raw: httpx.AsyncClient) -> None:
    # An authorised manual-capture payment expires after 7 days; a link after its expiry.
    made = await raw.post("/payments", json=payment_body(capture_method="manual"))
    payment_id = made.json()["payment_id"]
    now = datetime.fromisoformat((await raw.get("/_sandbox/clock")).json()["now"])
    expiry = (now + timedelta(hours=2)).astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")
    link = (
        await raw.post("/payment_link", json={"amount": 500, "currency": "USD", "expiry": expiry})
    ).json()
    link_id = link["payment_link_id"]

    hour = await _upcoming(raw, seconds="3600")
    assert link_id not in {item["object_id"] for item in hour["items"]}
    day = await _upcoming(raw, seconds="86400")
    kinds = {item["object_id"]: item for item in day["items"]}
    assert kinds[link_id]["kind"] == "link_expires"
    assert kinds[link_id]["text"] == f"payment link {link_id} expires"
    assert payment_id not in kinds  # the authorisation lasts a week
    assert day["total"] == len(day["items"])
    week = await _upcoming(raw, until=(now + timedelta(days=8)).isoformat())
    found = {item["object_id"]: item for item in week["items"]}
    assert found[payment_id]["kind"] == "payment_expiry"
    assert "requires_capture" in found[payment_id]["text"]
    times = [item["at"] for item in week["items"]]
    assert times == sorted(times)

    # Advancing does what the preview said: the link expires, nothing is left due in that span.
    await raw.post("/_sandbox/clock/advance", json={"seconds": 86400})
    assert (await raw.get(f"/payment_link/{link_id}")).json()["status"] == "expired"
    again = await _upcoming(raw, seconds="60")
    assert link_id not in {item["object_id"] for item in again["items"]}


@pytest.mark.parametrize(
    ("params", "field"),
    [
        ({}, "seconds"),
        ({"seconds": "10", "until": "2030-01-01T00:00:00Z"}, "seconds"),
        ({"seconds": "-5"}, "seconds"),
        ({"seconds": "soon"}, "seconds"),
        ({"seconds": "nan"}, "seconds"),
        ({"until": "tomorrow"}, "until"),
        ({"until": "2001-01-01T00:00:00Z"}, "until"),
    ],
)
async def test_bad_spans_are_refused_in_the_envelope(
    raw: httpx.AsyncClient, params: dict[str, str], field: str
) -> None:
    response = await raw.get("/_sandbox/clock/upcoming", params=params)
    assert response.status_code == 400
    error = envelope(response)
    assert error["code"] in ("IR_01", "IR_04")
    assert field in error["message"]


async def test_client_reads_the_preview(client: ApiClient) -> None:
    preview = await client.sandbox.upcoming(seconds=3600)
    assert set(preview) >= {"now", "until", "items", "total"}
    with pytest.raises(ValueError):
        await client.sandbox.upcoming()
