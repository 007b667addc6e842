"""`client_secret` in the bodies the journal keeps: redacted in refused attempts (kept only to
diagnose them), byte-exact in accepted events (forwards and replays re-send those bytes under
their original signature)."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

import httpx

from payscope.webhooks.intake import REJECTED_BODY_PREFIX
from payscope.webhooks.listener import Listener
from tests.waits import until
from tests.webhooks.conftest import (
    SECRET,
    Receiver,
    hmac_sha512,
    iso_now,
    post_signed,
)

CLIENT_SECRET = "pay_abc123_secret_Zx9Qw8Er7Ty6Ui5Op4"


def _payment_event(event_id: str, timestamp: str | None = None, pad: int = 0) -> bytes:
    return json.dumps(
        {
            "event_id": event_id,
            "event_type": "payment_succeeded",
            "content": {
                "type": "payment_details",
                "object": {
                    "payment_id": "pay_abc123",
                    "status": "succeeded",
                    "note": "n" * pad,
                    "client_secret": CLIENT_SECRET,
                },
            },
            "timestamp": timestamp or iso_now(),
        }
    ).encode()


def _stored_bodies(directory: Path) -> list[bytes]:
    with sqlite3.connect(directory / "journal.sqlite3") as db:
        return [bytes(row[0]) for row in db.execute("SELECT body FROM deliveries")]


async def test_refused_attempts_are_stored_without_the_client_secret(
    tmp_path: Path, client: httpx.AsyncClient
) -> None:
    listener = Listener(tmp_path / "l", [SECRET])
    url = await listener.start(port=0)
    try:
        # Signed under a secret no longer configured (a real event, refused 401) ...
        rotated = _payment_event("evt_rotated")
        assert (await post_signed(client, url, rotated, secret="old-one")).status_code == 401
        # ... signed and stale (400) ...
        stale = _payment_event("evt_stale", timestamp="2001-01-01T00:00:00Z")
        assert (await post_signed(client, url, stale)).status_code == 400
        # ... and unsigned, over the kept prefix, the value cut by the prefix's end.
        start = _payment_event("evt_cut").index(CLIENT_SECRET.encode())
        cut = _payment_event("evt_cut", pad=REJECTED_BODY_PREFIX - 14 - start)
        assert cut.index(CLIENT_SECRET.encode()) == REJECTED_BODY_PREFIX - 14
        assert (await post_signed(client, url, cut, secret=None)).status_code == 401
        refused = listener.journal.deliveries(rejected_only=True)
    finally:
        await listener.stop()
    assert len(refused) == 3
    for stored in _stored_bodies(tmp_path / "l"):
        assert b"pay_abc123_s" not in stored  # not even the part before the cut
        assert b'"client_secret": "[REDACTED]"' in stored
    # Everything else of the refused body is kept as it came.
    by_reason = {r.status: r for r in refused}
    assert json.loads(by_reason[400].body)["content"]["object"]["payment_id"] == "pay_abc123"


async def test_an_accepted_event_keeps_its_exact_signed_bytes_for_forwarding_and_replay(
    tmp_path: Path, receiver: Receiver, client: httpx.AsyncClient
) -> None:
    listener = Listener(tmp_path / "l", [SECRET], forward_to=receiver.url)
    url = await listener.start(port=0)
    body = _payment_event("evt_kept")
    try:
        assert (await post_signed(client, url, body)).status_code == 200
        await until(lambda: len(receiver.requests) == 1)
        detail = listener.journal.get("evt_kept")
    finally:
        await listener.stop()
    assert detail is not None and detail.body == body
    [sent] = receiver.requests
    assert sent.body == body and sent.headers["x-webhook-signature-512"] == hmac_sha512(
        body, SECRET
    )
