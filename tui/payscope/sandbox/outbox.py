"""Webhook events: written in the same transaction as the state change, delivered later.

`emit()` is called by resource modules inside their transaction, so a change and its event
commit together or not at all (a killed process loses neither). The `Outbox` sends due events
to the business profile's `webhook_url`, signed with `X-Webhook-Signature-512` over the exact
stored body bytes, records every attempt, and retries on the reference's schedule measured on
the sandbox clock.

Delivery (issue 14): `dispatch()` takes a batch of due events from the outbox in one query and
starts one task per event, at most `DELIVERY_CONCURRENCY` at a time. Nothing holds a lock or a
transaction across network I/O: a task only POSTs; its result is queued and written with the
others of the same loop turn by `record_results()`. Per object, order is kept: an event is not
started while an earlier event of the same object is in flight or still pending (waiting for
its next retry), so a receiver never sees `payment_succeeded` before that payment's
`payment_authorized`. Durability: an event stays due in the database until an attempt's
result is written, so one in flight when the process dies is sent again after a restart (at
least once; receivers dedupe on `event_id`).

Endpoints (issue 34): every delivery goes to the business profile's `webhook_url` and to each
listener attached with `POST /_sandbox/webhook {"attach": url}` (each running payscope attaches
its own, so two payscopes on one sandbox both get every webhook). One attempt posts to all of
them at once and records one row per endpoint; it counts as delivered when any endpoint
accepted it (a payscope that died without detaching does not hold the others' events back).
An attached listener that cannot be reached (nothing accepts a connection at its port, or it
gives no answer within the timeout: its payscope died, or is stopped) is detached when that
attempt is recorded, its row saying so: later events no longer wait for it or add failed rows
for it. A payscope that is still running sees it was detached and attaches again (Ctrl+R).

The clock: `SandboxState.advance` calls `dispatch()` at each due time on the way and never
waits for an answer. An attempt counts at the sandbox time it was due when that time was
jumped over by an advance (`note_jump`), so retries that fall due during a jump keep the
schedule's exact gaps even though they are sent a few milliseconds of real time apart.
"""

from __future__ import annotations

import asyncio
import collections
import contextlib
import functools
import json
import logging
import sqlite3
from dataclasses import dataclass, field
from typing import Any, Protocol

from payscope.core.waiting import within
from payscope.sandbox import ids
from payscope.sandbox.clock import Clock, iso
from payscope.sandbox.db import Database, dumps
from payscope.sandbox.identity import Credentials
from payscope.sandbox.webhook_http import DeliveryError, Sender
from payscope.webhooks.signing import SIGNATURE_HEADER, sign

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
    change_key TEXT NOT NULL DEFAULT ''
);
CREATE UNIQUE INDEX IF NOT EXISTS events_once ON events(object_id, event_type, change_key);
CREATE INDEX IF NOT EXISTS events_due ON events(next_attempt_at)
    WHERE next_attempt_at IS NOT NULL;
CREATE INDEX IF NOT EXISTS events_pending_object ON events(object_id)
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
CREATE TABLE IF NOT EXISTS webhook_listeners (
    url TEXT PRIMARY KEY,
    attached_at TEXT NOT NULL
);
"""

_COLUMNS = (
    "event_id, merchant_id, event_type, event_class, object_id, created, body, delivered, "
    "retries, next_attempt_at"
)

# The reference's retry schedule after the first attempt: 1 min, 2 x 5 min, 5 x 10 min,
# 5 x 1 h, 3 x 6 h (about a day in all).
RETRY_DELAYS: tuple[int, ...] = (60,) + (300,) * 2 + (600,) * 5 + (3600,) * 5 + (21600,) * 3

# At most this many automatic attempts in flight at once (each waits up to the timeout below).
DELIVERY_CONCURRENCY = 32
DELIVERY_TIMEOUT = 10.0  # seconds for a whole attempt, of which connecting at most:
CONNECT_TIMEOUT = 5.0
# What an attached listener that is gone (or stopped) answers with: it is detached.
UNREACHABLE = ("ConnectError", "ConnectTimeout", "Timeout")
DETACHED_NOTE = "; nothing answers there, so this listener was detached"
# How long `POST /events/.../retry` waits for the endpoint's answer before it answers with the
# attempt still under way (recorded in the event's attempts once it ends).
MANUAL_RETRY_WAIT = 0.25

# content.type and event_class per kind of object
CONTENT_TYPES = {
    "payments": "payment_details",
    "refunds": "refund_details",
    "disputes": "dispute_details",
    "payouts": "payout_details",
    "subscriptions": "subscription_details",
    "mandates": "mandate_details",
}

USER_AGENT = "payscope-sandbox/1 (local sandbox of the payment service)"
_MAX_STORED_RESPONSE = 4096
# An earlier event of the same object that is still pending (in flight or waiting to retry).
_NO_EARLIER_PENDING = (
    "NOT EXISTS (SELECT 1 FROM events p WHERE p.object_id = e.object_id "
    "AND p.next_attempt_at IS NOT NULL AND p.rowid < e.rowid)"
)
_log = logging.getLogger("payscope.sandbox")


class Host(Protocol):
    """What the outbox needs of the sandbox it serves (`SandboxState` is one). The state makes
    its outbox, so the outbox names only these and the dependency runs one way."""

    @property
    def db(self) -> Database: ...

    @property
    def clock(self) -> Clock: ...

    @property
    def credentials(self) -> Credentials: ...

    @property
    def outbox(self) -> Outbox: ...

    def webhook_targets(self) -> tuple[tuple[str, ...], str]:
        """(every endpoint a delivery goes to, signing secret)."""
        ...


def apply_schema(db: Database) -> None:
    """Create the outbox tables, first rebuilding an `events` table of an older version.

    Older data dirs keyed events on `UNIQUE (object_id, event_type)` alone; the key now has
    a `change_key` as well (several captures of one payment are several events). The rebuild
    keeps every row and its rowid (the order of events per object).
    """
    conn = db.conn
    columns = [str(r[1]) for r in conn.execute("PRAGMA table_info(events)")]
    if columns and "change_key" not in columns:
        conn.execute("BEGIN IMMEDIATE")
        try:
            conn.execute("ALTER TABLE events RENAME TO events_before_change_key")
            for name in ("events_due", "events_created"):
                conn.execute(f"DROP INDEX IF EXISTS {name}")
            for statement in SCHEMA.split(";"):
                if statement.strip():
                    conn.execute(statement)
            conn.execute(
                f"INSERT INTO events(rowid, {_COLUMNS}) "
                f"SELECT rowid, {_COLUMNS} FROM events_before_change_key"
            )
            conn.execute("DROP TABLE events_before_change_key")
        except BaseException:
            conn.execute("ROLLBACK")
            raise
        conn.execute("COMMIT")
    db.apply_schema(SCHEMA)


@functools.lru_cache(maxsize=256)
def _quoted(text: str) -> str:
    # A handful of names (merchant, event types) recur in every event: encode each once.
    return dumps(text)


def emit(
    conn: sqlite3.Connection,
    state: Host,
    *,
    event_type: str,
    event_class: str,
    object_id: str,
    obj: dict[str, Any] | None = None,
    obj_json: str | None = None,
    change_key: str = "",
) -> str | None:
    """Write one event in the caller's transaction; None if this change already has one.

    `event_class` is `payments`, `refunds`, `disputes`, `payouts` or `subscriptions`; the
    resource snapshot sent as `content.object` is `obj`, or `obj_json` when the caller already
    has it as JSON text. The body is stored as the exact bytes that will be signed and sent.
    One event per (object, event type, `change_key`): a repeat is ignored. `change_key` names
    the change when one object can go through the same event type more than once (a payment's
    attempt and, for captures, the amount captured so far).
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
        " created, body, next_attempt_at, change_key) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
        (event_id, merchant_id, event_type, event_class, object_id, created, body, now, change_key),
    )
    if cur.rowcount == 0:
        return None
    state.outbox.wake()
    return event_id


@dataclass
class _Flight:
    """One attempt under way: what was sent, and (once it ended) what came back."""

    event_id: str
    object_id: str
    kind: str  # "automatic" (first try or scheduled retry) or "manual_retry"
    at: float  # the sandbox time the attempt counts at
    urls: tuple[str, ...]  # every endpoint this attempt goes to (one row each when recorded)
    headers: dict[str, str]
    body: str
    # per endpoint, in the order of `urls`: (status, response body, error)
    answers: list[tuple[int | None, str | None, str | None]] = field(default_factory=list)
    unreachable: set[str] = field(default_factory=set)  # endpoints with no connection/answer
    waiters: list[asyncio.Future[dict[str, Any]]] = field(default_factory=list)


class Outbox:
    """Sends due events concurrently (bounded), in order per object; see the module docstring."""

    def __init__(self, state: Host, concurrency: int = DELIVERY_CONCURRENCY) -> None:
        self._state = state
        self.concurrency = concurrency
        self._sender: Sender | None = None
        self._wake: asyncio.Event | None = None
        self._lock: asyncio.Lock | None = None
        self._busy: dict[str, _Flight] = {}  # object_id -> its attempt under way
        self._automatic = 0  # automatic attempts under way (the bounded ones)
        self._manual: collections.OrderedDict[str, list[asyncio.Future[dict[str, Any]]]] = (
            collections.OrderedDict()
        )  # event_id -> callers of a manual retry waiting for the object to be free
        self._ended: list[_Flight] = []  # attempts that ended, written by `record_results`
        self._tasks: set[asyncio.Task[None]] = set()
        self._jumps: collections.deque[tuple[float, float]] = collections.deque(maxlen=32)

    # The background loop in `SandboxState` owns these primitives; they are made lazily so
    # they bind to whichever event loop runs the sandbox.
    @property
    def lock(self) -> asyncio.Lock:
        """Serialises clock steps (never held across network I/O)."""
        if self._lock is None:
            self._lock = asyncio.Lock()
        return self._lock

    @property
    def wake_event(self) -> asyncio.Event:
        """Set when a new event was written or an attempt ended (the loop acts at once)."""
        if self._wake is None:
            self._wake = asyncio.Event()
        return self._wake

    def wake(self) -> None:
        """Ask the background loop for a delivery pass soon."""
        if self._wake is not None:
            self._wake.set()

    @property
    def in_flight(self) -> int:
        """Attempts under way (sent, no answer recorded yet)."""
        return len(self._busy)

    def note_jump(self, start: float, end: float) -> None:
        """The clock jumped from `start` to `end` (an advance): what fell due in between
        counts at its due time when it is sent."""
        self._jumps.append((start, end))

    def _counts_at(self, due: float, now: float) -> float:
        for start, end in self._jumps:
            if start < due <= end:
                return min(due, now)
        return now

    # -- what is due ------------------------------------------------------------------------

    def _due_rows(self, conn: sqlite3.Connection, until: float | None) -> sqlite3.Cursor:
        """Pending events that could be sent now, earliest due first: the first pending event
        of each object (later ones wait for it). `until` bounds the due time."""
        bound = "" if until is None else "AND e.next_attempt_at <= ? "
        return conn.execute(
            "SELECT e.event_id, e.object_id, e.next_attempt_at, e.body FROM events e "
            f"WHERE e.next_attempt_at IS NOT NULL {bound}AND {_NO_EARLIER_PENDING} "
            "ORDER BY e.next_attempt_at, e.rowid",
            () if until is None else (until,),
        )

    def next_due(self, conn: sqlite3.Connection) -> float | None:
        """The earliest time an automatic attempt could start, or None: no webhook URL, no
        pending event, or every delivery slot in use (the background loop sends those)."""
        if not self._state.webhook_targets()[0] or self._automatic >= self.concurrency:
            return None
        for _event_id, object_id, due, _body in self._due_rows(conn, None):
            if object_id not in self._busy:
                return float(due)
        return None

    # -- starting attempts ------------------------------------------------------------------

    def dispatch(self, now: float) -> int:
        """Start every attempt that can start at sandbox time `now`, up to the free slots;
        returns how many were started. Never waits: answers are recorded as they come."""
        state = self._state
        # Only committed events go out (group commit may hold some in an open transaction).
        state.db.flush()
        urls, secret = state.webhook_targets()
        started = self._start_manual(urls, secret, now)
        free = self.concurrency - self._automatic
        if not urls or free <= 0:
            return started
        rows = self._due_rows(state.db.conn, now).fetchmany(free + len(self._busy))
        for event_id, object_id, due, body in rows:
            if object_id in self._busy:
                continue
            self._start(
                _Flight(
                    str(event_id),
                    str(object_id),
                    "automatic",
                    self._counts_at(float(due), now),
                    urls,
                    _headers(str(body), secret),
                    str(body),
                )
            )
            started += 1
            free -= 1
            if free == 0:
                break
        return started

    def _start_manual(self, urls: tuple[str, ...], secret: str, now: float) -> int:
        started = 0
        for event_id in list(self._manual):
            row = self._state.db.conn.execute(
                "SELECT object_id, body FROM events WHERE event_id = ?", (event_id,)
            ).fetchone()
            waiters = self._manual[event_id]
            if row is None:  # pragma: no cover - events are never deleted
                del self._manual[event_id]
                continue
            if str(row[0]) in self._busy:
                continue
            del self._manual[event_id]
            body = str(row[1])
            flight = _Flight(
                event_id,
                str(row[0]),
                "manual_retry",
                now,
                urls or ("",),
                _headers(body, secret),
                body,
            )
            flight.waiters = waiters
            if not urls:
                flight.answers = [
                    (
                        None,
                        None,
                        "no webhook_url is set on the business profile, and no listener "
                        "is attached",
                    )
                ]
                self._busy[flight.object_id] = flight
                self._ended.append(flight)
                self.wake()
            else:
                self._start(flight)
            started += 1
        return started

    def _start(self, flight: _Flight) -> None:
        self._busy[flight.object_id] = flight
        if flight.kind == "automatic":
            self._automatic += 1
        task = asyncio.get_running_loop().create_task(self._send(flight))
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    async def _post(self, url: str, flight: _Flight) -> tuple[int | None, str | None, str | None]:
        try:
            status, text = await self.sender.post(url, flight.body.encode("utf-8"), flight.headers)
        except DeliveryError as exc:
            if exc.kind in UNREACHABLE:
                flight.unreachable.add(url)
            return None, None, str(exc)
        except Exception as exc:  # pragma: no cover - recorded like any failed attempt
            return None, None, f"{type(exc).__name__}: {exc}"
        return status, text[:_MAX_STORED_RESPONSE], None

    async def _send(self, flight: _Flight) -> None:
        """POST one attempt to each endpoint at once; the results are queued for
        `record_results` (no database here)."""
        try:
            if len(flight.urls) == 1:
                flight.answers = [await self._post(flight.urls[0], flight)]
            else:
                flight.answers = list(
                    await asyncio.gather(*(self._post(url, flight) for url in flight.urls))
                )
        except asyncio.CancelledError:
            # Stopping: nothing is recorded, so the event stays due and goes out after a
            # restart (at least once).
            self._release(flight)
            for waiter in flight.waiters:
                waiter.cancel()
            raise
        self._ended.append(flight)
        self.wake()

    def _release(self, flight: _Flight) -> None:
        if self._busy.get(flight.object_id) is flight:
            del self._busy[flight.object_id]
        if flight.kind == "automatic":
            self._automatic -= 1

    # -- recording --------------------------------------------------------------------------

    def record_results(self) -> int:
        """Write every attempt that ended since the last call (one transaction); frees their
        objects for their next events. Returns the number written."""
        ended, self._ended = self._ended, []
        if not ended:
            return 0
        records: list[tuple[_Flight, dict[str, Any]]] = []
        try:
            with self._state.db.transaction() as tx:
                for flight in ended:
                    records.append((flight, _record(tx, flight)))
                    for url in flight.unreachable:
                        tx.execute("DELETE FROM webhook_listeners WHERE url = ?", (url,))
        finally:
            for flight in ended:
                self._release(flight)
        for flight, record in records:
            for waiter in flight.waiters:
                if not waiter.done():
                    waiter.set_result(record)
        return len(ended)

    # -- manual retry -----------------------------------------------------------------------

    async def retry(self, event_id: str, wait: float = MANUAL_RETRY_WAIT) -> dict[str, Any]:
        """A manual attempt: started now (or as soon as the object's attempt under way ends).
        Returns its record when the endpoint answers within `wait` seconds, else the attempt
        as sent, with no response yet (it goes on and is recorded when it ends)."""
        waiter: asyncio.Future[dict[str, Any]] = asyncio.get_running_loop().create_future()
        self._manual.setdefault(event_id, []).append(waiter)
        now = self._state.clock.now()
        self._start_manual(*self._state.webhook_targets(), now)
        self.wake()
        try:
            return await within(asyncio.shield(waiter), wait)
        except TimeoutError:
            return self._under_way(event_id, now, wait)

    def _under_way(self, event_id: str, now: float, wait: float) -> dict[str, Any]:
        urls, secret = self._state.webhook_targets()
        url = ", ".join(urls)
        row = self._state.db.conn.execute(
            "SELECT body FROM events WHERE event_id = ?", (event_id,)
        ).fetchone()
        body = str(row[0]) if row is not None else ""
        record = attempt_record(
            event_id,
            0,
            iso(now),
            "manual_retry",
            _headers(body, secret),
            body,
            None,
            None,
            f"no answer from {url} within {wait:g} s yet; the attempt goes on and "
            "is listed under the event's attempts when it ends",
            False,
            url,
        )
        record["attempt_id"] = None
        return record

    # -- lifecycle --------------------------------------------------------------------------

    @property
    def sender(self) -> Sender:
        """The HTTP client deliveries go through (`webhook_http`: a tenth of httpx's CPU)."""
        if self._sender is None:
            self._sender = Sender(
                connect_timeout=CONNECT_TIMEOUT,
                timeout=DELIVERY_TIMEOUT,
                max_idle_per_origin=self.concurrency,
            )
        return self._sender

    async def aclose(self) -> None:
        """Stop attempts under way (their events stay due), write the ended ones, close."""
        tasks = list(self._tasks)
        for task in tasks:
            task.cancel()
        for task in tasks:
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await task
        with contextlib.suppress(sqlite3.Error):
            self.record_results()
        for waiters in self._manual.values():
            for waiter in waiters:
                waiter.cancel()
        self._manual.clear()
        if self._sender is not None:
            await self._sender.aclose()
            self._sender = None


def _headers(body: str, secret: str) -> dict[str, str]:
    return {
        "Content-Type": "application/json",
        "User-Agent": USER_AGENT,
        SIGNATURE_HEADER: sign(body.encode("utf-8"), secret),
    }


def _record(tx: sqlite3.Connection, flight: _Flight) -> dict[str, Any]:
    """Write one ended attempt (a row per endpoint) and the event's new state; returns the
    record of the endpoint that accepted it (else of the first one)."""
    event_id = flight.event_id
    row = tx.execute(
        "SELECT retries, delivered, COALESCE((SELECT MAX(seq) FROM event_attempts "
        "WHERE event_id = ?), 0) + 1 FROM events WHERE event_id = ?",
        (event_id, event_id),
    ).fetchone()
    retries, delivered, first_seq = int(row[0]), bool(row[1]), int(row[2])
    if flight.kind == "manual_retry":
        kind = "manual_retry"
    else:
        kind = "initial_attempt" if first_seq == 1 else "automatic_retry"
    created = iso(flight.at)
    headers = json.dumps(flight.headers)
    records: list[dict[str, Any]] = []
    any_ok = False
    attached = {str(url) for (url,) in tx.execute("SELECT url FROM webhook_listeners").fetchall()}
    for offset, (url, (status, response_body, error)) in enumerate(
        zip(flight.urls, flight.answers, strict=False)
    ):
        ok = status is not None and 200 <= status < 300
        if url in flight.unreachable and url in attached:
            error = (error or "") + DETACHED_NOTE
        any_ok = any_ok or ok
        seq = first_seq + offset
        tx.execute(
            "INSERT INTO event_attempts(event_id, seq, created, delivery_attempt, url, "
            "request_headers, request_body, response_status, response_body, error, "
            "delivered) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
            (
                event_id,
                seq,
                created,
                kind,
                url,
                headers,
                flight.body,
                status,
                response_body,
                error,
                int(ok),
            ),
        )
        records.append(
            attempt_record(
                event_id,
                seq,
                created,
                kind,
                flight.headers,
                flight.body,
                status,
                response_body,
                error,
                ok,
                url,
            )
        )
    if any_ok:
        tx.execute(
            "UPDATE events SET delivered = 1, next_attempt_at = NULL WHERE event_id = ?",
            (event_id,),
        )
    elif flight.kind != "manual_retry" and not delivered:
        next_at = flight.at + RETRY_DELAYS[retries] if retries < len(RETRY_DELAYS) else None
        tx.execute(
            "UPDATE events SET retries = ?, next_attempt_at = ? WHERE event_id = ?",
            (retries + 1, next_at, event_id),
        )
    accepted = [r for r in records if r["is_delivery_successful"]]
    return (accepted or records)[0]


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
    url: str,
) -> dict[str, Any]:
    """The events API's view of one attempt (the signature header is part of the request;
    `request.url` is the endpoint it went to, one of several when listeners are attached)."""
    return {
        "event_id": event_id,
        "attempt_id": f"{event_id}_{seq}",
        "created": created,
        "delivery_attempt": kind,
        "is_delivery_successful": delivered,
        "request": {"url": url, "headers": headers, "body": body},
        "response": {"status_code": status, "body": response_body, "error": error},
    }
