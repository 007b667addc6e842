"""Webhook events: written in the same transaction as the state change, delivered later.

`emit()` is called by resource modules inside their transaction, so a change and its event
commit together or not at all (a killed process loses neither). The `Outbox` sends due events
to the business profile's `webhook_url`, signed with `X-Webhook-Signature-512` over the exact
stored body bytes, records every attempt, and retries on the reference's schedule measured on
the sandbox clock.
"""

from __future__ import annotations

import asyncio
import functools
import json
import sqlite3
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import httpx

from tui.sandbox import ids
from tui.sandbox.clock import iso
from tui.sandbox.db import dumps
from tui.webhooks.signing import SIGNATURE_HEADER, sign

if TYPE_CHECKING:
    from tui.sandbox.state import SandboxState

SCHEMA = """
CREATE TABLE IF NOT EXISTS events (
    event_id TEXT PRIMARY KEY,
    merchant_id TEXT NOT NULL,
    event_type TEXT NOT NULL,
    event_class TEXT NOT NULL,
    object_id TEXT NOT NULL,
    created TEXT NOT NULL,
    body TEXT NOT NULL,
    delivered INTEGER NOT NULL DEFAULT 0,
    retries INTEGER NOT NULL DEFAULT 0,
    next_attempt_at REAL,
    UNIQUE (object_id, event_type)
);
CREATE INDEX IF NOT EXISTS events_due ON events(next_attempt_at)
    WHERE next_attempt_at IS NOT NULL;
CREATE INDEX IF NOT EXISTS events_created ON events(created);
CREATE TABLE IF NOT EXISTS event_attempts (
    event_id TEXT NOT NULL,
    seq INTEGER NOT NULL,
    created TEXT NOT NULL,
    delivery_attempt TEXT NOT NULL,
    url TEXT NOT NULL,
    request_headers TEXT NOT NULL,
    request_body TEXT NOT NULL,
    response_status INTEGER,
    response_body TEXT,
    error TEXT,
    delivered INTEGER NOT NULL,
    PRIMARY KEY (event_id, seq)
);
"""

# The reference's retry schedule after the first attempt: 1 min, 2 x 5 min, 5 x 10 min,
# 5 x 1 h, 3 x 6 h (about a day in all).
RETRY_DELAYS: tuple[int, ...] = (60,) + (300,) * 2 + (600,) * 5 + (3600,) * 5 + (21600,) * 3

# content.type and event_class per kind of object
CONTENT_TYPES = {
    "payments": "payment_details",
    "refunds": "refund_details",
    "disputes": "dispute_details",
    "payouts": "payout_details",
    "subscriptions": "subscription_details",
}

USER_AGENT = "payscope-sandbox/1 (local sandbox of the payment service)"
_MAX_STORED_RESPONSE = 4096


@functools.lru_cache(maxsize=256)
def _quoted(text: str) -> str:
    # A handful of names (merchant, event types) recur in every event: encode each once.
    return dumps(text)


def emit(
    conn: sqlite3.Connection,
    state: SandboxState,
    *,
    event_type: str,
    event_class: str,
    object_id: str,
    obj: dict[str, Any] | None = None,
    obj_json: str | None = None,
) -> str | None:
    """Write one event in the caller's transaction; None if this (object, type) already has one.

    `event_class` is `payments`, `refunds`, `disputes`, `payouts` or `subscriptions`; the
    resource snapshot sent as `content.object` is `obj`, or `obj_json` when the caller already
    has it as JSON text. The body is stored as the exact bytes that will be signed and sent.
    """
    now = state.clock.now()
    event_id = ids.time_ordered_id("evt", now)
    created = iso(now)
    merchant_id = state.credentials.merchant_id
    snapshot = obj_json if obj_json is not None else dumps(obj or {})
    content_type = CONTENT_TYPES.get(event_class, event_class)
    body = (
        f'{{"merchant_id":{_quoted(merchant_id)},"event_id":"{event_id}",'
        f'"event_type":{_quoted(event_type)},"content":{{"type":{_quoted(content_type)},'
        f'"object":{snapshot}}},"timestamp":"{created}"}}'
    )
    cur = conn.execute(
        "INSERT OR IGNORE INTO events(event_id, merchant_id, event_type, event_class, object_id,"
        " created, body, next_attempt_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
        (event_id, merchant_id, event_type, event_class, object_id, created, body, now),
    )
    if cur.rowcount == 0:
        return None
    state.outbox.wake()
    return event_id


@dataclass(frozen=True)
class Attempt:
    """One delivery attempt as stored and as the events API returns it."""

    event_id: str
    delivered: bool
    status: int | None


class Outbox:
    """Sends due events; one delivery pass at a time."""

    def __init__(self, state: SandboxState) -> None:
        self._state = state
        self._client: httpx.AsyncClient | None = None
        self._wake: asyncio.Event | None = None
        self._lock: asyncio.Lock | None = None

    # The background loop in `SandboxState` owns these primitives; they are made lazily so
    # they bind to whichever event loop runs the sandbox.
    @property
    def lock(self) -> asyncio.Lock:
        """Serialises delivery passes and clock steps."""
        if self._lock is None:
            self._lock = asyncio.Lock()
        return self._lock

    @property
    def wake_event(self) -> asyncio.Event:
        """Set when a new event was written (the loop delivers at once)."""
        if self._wake is None:
            self._wake = asyncio.Event()
        return self._wake

    def wake(self) -> None:
        """Ask the background loop for a delivery pass soon."""
        if self._wake is not None:
            self._wake.set()

    def next_due(self, conn: sqlite3.Connection) -> float | None:
        """The earliest pending delivery time, or None (also None with no webhook URL)."""
        if not self._state.webhook_target()[0]:
            return None
        row = conn.execute(
            "SELECT MIN(next_attempt_at) FROM events WHERE next_attempt_at IS NOT NULL"
        ).fetchone()
        return None if row is None or row[0] is None else float(row[0])

    async def deliver_due(self, now: float) -> int:
        """Attempt every event due at or before `now`; returns the number of attempts made."""
        url, _ = self._state.webhook_target()
        if not url:
            return 0
        rows = self._state.db.conn.execute(
            "SELECT event_id FROM events WHERE next_attempt_at IS NOT NULL "
            "AND next_attempt_at <= ? ORDER BY next_attempt_at, event_id LIMIT 500",
            (now,),
        ).fetchall()
        made = 0
        for (event_id,) in rows:
            await self.attempt(str(event_id), "automatic")
            made += 1
        return made

    async def attempt(self, event_id: str, kind: str) -> dict[str, Any]:
        """Deliver one event now and record the attempt; returns the attempt record.

        `kind` is `automatic` (first try or scheduled retry) or `manual_retry`.
        """
        state = self._state
        conn = state.db.conn
        row = conn.execute(
            "SELECT body, retries, delivered FROM events WHERE event_id = ?", (event_id,)
        ).fetchone()
        if row is None:
            raise KeyError(event_id)
        body_text, retries, delivered = str(row[0]), int(row[1]), bool(row[2])
        url, secret = state.webhook_target()
        body = body_text.encode("utf-8")
        headers = {
            "Content-Type": "application/json",
            "User-Agent": USER_AGENT,
            SIGNATURE_HEADER: sign(body, secret),
        }
        status: int | None = None
        response_body: str | None = None
        error: str | None = None
        if not url:
            error = "no webhook_url is set on the business profile"
        else:
            try:
                response = await self.client.post(url, content=body, headers=headers)
                status = response.status_code
                response_body = response.text[:_MAX_STORED_RESPONSE]
            except httpx.HTTPError as exc:
                error = f"{type(exc).__name__}: {exc}" if str(exc) else type(exc).__name__
        ok = status is not None and 200 <= status < 300
        now = state.clock.now()
        with state.db.transaction() as tx:
            seq = int(
                tx.execute(
                    "SELECT COALESCE(MAX(seq), 0) + 1 FROM event_attempts WHERE event_id = ?",
                    (event_id,),
                ).fetchone()[0]
            )
            if kind == "manual_retry":
                seq_kind = "manual_retry"
            else:
                seq_kind = "initial_attempt" if seq == 1 else "automatic_retry"
            tx.execute(
                "INSERT INTO event_attempts(event_id, seq, created, delivery_attempt, url, "
                "request_headers, request_body, response_status, response_body, error, "
                "delivered) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                (
                    event_id,
                    seq,
                    iso(now),
                    seq_kind,
                    url or "",
                    json.dumps(headers),
                    body_text,
                    status,
                    response_body,
                    error,
                    int(ok),
                ),
            )
            if ok:
                tx.execute(
                    "UPDATE events SET delivered = 1, next_attempt_at = NULL WHERE event_id = ?",
                    (event_id,),
                )
            elif kind != "manual_retry" and not delivered:
                next_at = now + RETRY_DELAYS[retries] if retries < len(RETRY_DELAYS) else None
                tx.execute(
                    "UPDATE events SET retries = ?, next_attempt_at = ? WHERE event_id = ?",
                    (retries + 1, next_at, event_id),
                )
        return attempt_record(
            event_id, seq, iso(now), seq_kind, headers, body_text, status, response_body, error, ok
        )

    @property
    def client(self) -> httpx.AsyncClient:
        """The HTTP client deliveries go through (made on first use, on the running loop)."""
        if self._client is None:
            self._client = httpx.AsyncClient(timeout=httpx.Timeout(10.0, connect=5.0))
        return self._client

    async def aclose(self) -> None:
        """Close the HTTP client."""
        if self._client is not None:
            await self._client.aclose()
            self._client = None


def attempt_record(
    event_id: str,
    seq: int,
    created: str,
    kind: str,
    headers: dict[str, str],
    body: str,
    status: int | None,
    response_body: str | None,
    error: str | None,
    delivered: bool,
) -> dict[str, Any]:
    """The events API's view of one attempt (the signature header is part of the request)."""
    return {
        "event_id": event_id,
        "attempt_id": f"{event_id}_{seq}",
        "created": created,
        "delivery_attempt": kind,
        "is_delivery_successful": delivered,
        "request": {"headers": headers, "body": body},
        "response": {"status_code": status, "body": response_body, "error": error},
    }
