"""The listener's journal: every delivery attempt and every distinct event, in SQLite (WAL).

One writer thread owns the write connection and commits in groups: a request hands its attempt
over with `await journal.record(attempt)`, the thread drains whatever is queued, writes it in
one transaction, commits (synchronous=FULL, so the commit is on disk), and only then wakes the
requests of that group. No caller is ever told "stored" before its commit returned, which is
what lets the listener answer 2xx only after durable storage.

Deduplication lives here too: the single writer decides "new or duplicate" for each event_id in
arrival order, so concurrent requests can never both process the same event.

Reads (`count`, `recent`, `get`, `deliveries`) use their own connection and indexed queries; WAL
lets them run while the writer commits. They are synchronous and fast (well under a millisecond
for a page), so the TUI may call them from a worker or directly.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import queue
import sqlite3
import threading
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

JOURNAL_FILE = "journal.sqlite3"
_MAX_BATCH = 512
_ROWS_PER_STATEMENT = 64

_SCHEMA = """
CREATE TABLE IF NOT EXISTS deliveries (
    id           INTEGER PRIMARY KEY,
    received_at  REAL NOT NULL,
    event_id     TEXT,
    headers      TEXT NOT NULL,
    body         BLOB NOT NULL,
    verified     INTEGER NOT NULL,
    reason       TEXT,
    duplicate    INTEGER NOT NULL DEFAULT 0,
    status       INTEGER NOT NULL
);
CREATE INDEX IF NOT EXISTS deliveries_event ON deliveries(event_id);
CREATE TABLE IF NOT EXISTS events (
    seq           INTEGER PRIMARY KEY,
    event_id      TEXT NOT NULL UNIQUE,
    event_type    TEXT,
    object_id     TEXT,
    object_status TEXT,
    first_seen    REAL NOT NULL,
    duplicates    INTEGER NOT NULL DEFAULT 0,
    delivery_id   INTEGER NOT NULL REFERENCES deliveries(id)
);
CREATE INDEX IF NOT EXISTS events_type ON events(event_type, seq);
CREATE INDEX IF NOT EXISTS events_object ON events(object_id, seq);
CREATE TABLE IF NOT EXISTS forwards (
    id           INTEGER PRIMARY KEY,
    event_id     TEXT NOT NULL,
    url          TEXT NOT NULL,
    sent_at      REAL NOT NULL,
    status       INTEGER,
    body         TEXT,
    latency_ms   REAL,
    error        TEXT
);
CREATE INDEX IF NOT EXISTS forwards_event ON forwards(event_id, id);
"""


class JournalError(RuntimeError):
    """The journal could not store something (disk full, file locked, closed)."""


@dataclass(frozen=True, slots=True)
class Attempt:
    """One HTTP delivery attempt as received, before it is stored."""

    received_at: float
    headers: dict[str, str]
    body: bytes
    verified: bool
    status: int
    reason: str | None = None
    event_id: str | None = None
    event_type: str | None = None
    object_id: str | None = None
    object_status: str | None = None


@dataclass(frozen=True, slots=True)
class Recorded:
    """What the journal decided about an attempt once it was committed."""

    delivery_id: int
    duplicate: bool
    duplicate_count: int


@dataclass(frozen=True, slots=True)
class EventRecord:
    """A distinct event (one row per event_id), as listed newest first."""

    seq: int
    event_id: str
    event_type: str | None
    object_id: str | None
    object_status: str | None
    first_seen: float
    duplicates: int
    delivery_id: int


@dataclass(frozen=True, slots=True)
class ForwardRecord:
    """One re-POST of an event to the merchant's own server."""

    event_id: str
    url: str
    sent_at: float
    status: int | None
    body: str | None
    latency_ms: float | None
    error: str | None


@dataclass(frozen=True, slots=True)
class DeliveryRecord:
    """One stored delivery attempt, accepted or rejected, with what was received."""

    id: int
    received_at: float
    event_id: str | None
    headers: dict[str, str]
    body: bytes
    verified: bool
    reason: str | None
    duplicate: bool
    status: int


@dataclass(frozen=True, slots=True)
class EventDetail:
    """An event with the delivery that first brought it and every forward of it."""

    event: EventRecord
    delivery: DeliveryRecord
    forwards: list[ForwardRecord] = field(default_factory=list)

    @property
    def headers(self) -> dict[str, str]:
        """The headers of the first accepted delivery, as received."""
        return self.delivery.headers

    @property
    def body(self) -> bytes:
        """The exact raw body that was verified."""
        return self.delivery.body

    @property
    def verified(self) -> bool:
        """Whether the signature matched (always true for a stored event)."""
        return self.delivery.verified


_Job = tuple[str, tuple[Any, ...], "asyncio.Future[Any]", asyncio.AbstractEventLoop]
_STOP = object()


class Journal:
    """The SQLite journal under `directory` (created if missing).

    `open()` starts the writer thread; read methods work with or without it (for a journal left
    behind by another process, say).
    """

    def __init__(self, directory: Path) -> None:
        self.directory = Path(directory)
        self.path = self.directory / JOURNAL_FILE
        self._jobs: queue.SimpleQueue[_Job | object] = queue.SimpleQueue()
        self._thread: threading.Thread | None = None
        self._read_lock = threading.Lock()
        self._reader: sqlite3.Connection | None = None
        self._next_delivery_id = 1

    # -- lifecycle ---------------------------------------------------------------------------

    def _connect(self) -> sqlite3.Connection:
        try:
            self.directory.mkdir(parents=True, exist_ok=True)
            conn = sqlite3.connect(
                self.path, isolation_level=None, check_same_thread=False, cached_statements=512
            )
            conn.execute("PRAGMA busy_timeout = 5000")
            conn.execute("PRAGMA journal_mode = WAL")
            # FULL: a commit is on disk when it returns, not only in the OS cache.
            conn.execute("PRAGMA synchronous = FULL")
        except (OSError, sqlite3.Error) as exc:
            raise JournalError(
                f"cannot open the listener journal at {self.path}: {exc}. "
                "Check that the directory is writable, or choose another one with --data."
            ) from exc
        return conn

    @property
    def is_open(self) -> bool:
        """True while the writer thread runs."""
        return self._thread is not None

    def open(self) -> None:
        """Create the schema if needed and start the writer thread (idempotent)."""
        if self._thread is not None:
            return
        conn = self._connect()
        conn.executescript(_SCHEMA)
        self._thread = threading.Thread(
            target=self._writer, args=(conn,), name="payscope-journal", daemon=True
        )
        self._thread.start()

    def close(self) -> None:
        """Commit what is queued, stop the writer, close the connections."""
        if self._thread is not None:
            self._jobs.put(_STOP)
            self._thread.join()
            self._thread = None
        with self._read_lock:
            if self._reader is not None:
                self._reader.close()
                self._reader = None

    # -- writes (from the event loop) --------------------------------------------------------

    async def record(self, attempt: Attempt) -> Recorded:
        """Store `attempt`; return once it is committed, with the dedupe decision."""
        result: Recorded = await self._submit("attempt", (attempt,))
        return result

    async def record_forward(self, forward: ForwardRecord) -> None:
        """Store the outcome of one forward."""
        await self._submit("forward", (forward,))

    def _submit(self, kind: str, args: tuple[Any, ...]) -> asyncio.Future[Any]:
        if self._thread is None:
            raise JournalError("the journal is closed; start the listener first")
        loop = asyncio.get_running_loop()
        future: asyncio.Future[Any] = loop.create_future()
        self._jobs.put((kind, args, future, loop))
        return future

    # -- the writer thread -------------------------------------------------------------------

    def _writer(self, conn: sqlite3.Connection) -> None:
        # Delivery ids are assigned here (the only writer) so a batch is a few executemany calls.
        row = conn.execute("SELECT coalesce(max(id), 0) + 1 FROM deliveries").fetchone()
        self._next_delivery_id = int(row[0])
        stopping = False
        while not stopping:
            batch: list[_Job] = []
            item = self._jobs.get()
            while True:
                if item is _STOP:
                    stopping = True
                else:
                    batch.append(item)  # type: ignore[arg-type]
                if stopping or len(batch) >= _MAX_BATCH:
                    break
                try:
                    item = self._jobs.get_nowait()
                except queue.Empty:
                    break
            if batch:
                self._write_batch(conn, batch)
        conn.close()

    def _write_batch(self, conn: sqlite3.Connection, batch: list[_Job]) -> None:
        results: list[tuple[asyncio.Future[Any], Any, BaseException | None]]
        first_id = self._next_delivery_id
        try:
            conn.execute("BEGIN IMMEDIATE")
            values = _write_jobs(conn, batch, first_id)
            conn.execute("COMMIT")
        except sqlite3.Error as exc:
            if conn.in_transaction:
                conn.rollback()
            error = JournalError(f"the listener journal could not store the delivery: {exc}")
            results = [(job[2], None, error) for job in batch]
        else:
            self._next_delivery_id = first_id + sum(1 for job in batch if job[0] == "attempt")
            results = [(job[2], value, None) for job, value in zip(batch, values, strict=True)]
        # One wake-up per loop per batch, not one per request.
        by_loop: dict[asyncio.AbstractEventLoop, list[Any]] = {}
        for (_kind, _args, _future, loop), outcome in zip(batch, results, strict=True):
            by_loop.setdefault(loop, []).append(outcome)
        for loop, outcomes in by_loop.items():
            # A closed loop means nobody is waiting any more; the rows are stored regardless.
            with contextlib.suppress(RuntimeError):
                loop.call_soon_threadsafe(_resolve, outcomes)

    # -- reads -------------------------------------------------------------------------------

    @contextlib.contextmanager
    def _read(self) -> Iterator[sqlite3.Connection]:
        with self._read_lock:
            if self._reader is None:
                conn = self._connect()
                conn.executescript(_SCHEMA)
                self._reader = conn
            yield self._reader

    def count(self, event_type: str | None = None, object_id: str | None = None) -> int:
        """How many distinct events are stored (optionally of one type or one object)."""
        where, params = _filters(event_type, object_id)
        with self._read() as conn:
            row = conn.execute(f"SELECT count(*) FROM events{where}", params).fetchone()
        return int(row[0])

    def recent(
        self,
        limit: int = 50,
        offset: int = 0,
        event_type: str | None = None,
        object_id: str | None = None,
    ) -> list[EventRecord]:
        """A page of events, newest first, optionally filtered by type or object id."""
        where, params = _filters(event_type, object_id)
        sql = f"SELECT {_EVENT_COLUMNS} FROM events{where} ORDER BY seq DESC LIMIT ? OFFSET ?"
        with self._read() as conn:
            rows = conn.execute(sql, (*params, limit, offset)).fetchall()
        return [EventRecord(*row) for row in rows]

    def get(self, event_id: str) -> EventDetail | None:
        """The event with its first delivery (headers, raw body, verification) and forwards."""
        with self._read() as conn:
            row = conn.execute(
                f"SELECT {_EVENT_COLUMNS} FROM events WHERE event_id = ?", (event_id,)
            ).fetchone()
            if row is None:
                return None
            event = EventRecord(*row)
            delivery_row = conn.execute(
                f"SELECT {_DELIVERY_COLUMNS} FROM deliveries WHERE id = ?", (event.delivery_id,)
            ).fetchone()
            forwards = [
                ForwardRecord(*r)
                for r in conn.execute(
                    "SELECT event_id, url, sent_at, status, body, latency_ms, error FROM forwards"
                    " WHERE event_id = ? ORDER BY id",
                    (event_id,),
                )
            ]
        assert delivery_row is not None, "an event always has its delivery"
        return EventDetail(event, _delivery_record(delivery_row), forwards)

    def deliveries(
        self, limit: int = 50, offset: int = 0, *, rejected_only: bool = False
    ) -> list[DeliveryRecord]:
        """A page of delivery attempts (accepted, duplicate and rejected), newest first."""
        where = " WHERE verified = 0 OR status >= 300" if rejected_only else ""
        with self._read() as conn:
            rows = conn.execute(
                f"SELECT {_DELIVERY_COLUMNS} FROM deliveries{where}"
                " ORDER BY id DESC LIMIT ? OFFSET ?",
                (limit, offset),
            ).fetchall()
        return [_delivery_record(row) for row in rows]

    def count_deliveries(self) -> int:
        """How many delivery attempts are stored, rejected ones included."""
        with self._read() as conn:
            return int(conn.execute("SELECT count(*) FROM deliveries").fetchone()[0])


# Column lists in the order of the EventRecord and DeliveryRecord fields.
_EVENT_COLUMNS = (
    "seq, event_id, event_type, object_id, object_status, first_seen, duplicates, delivery_id"
)
_DELIVERY_COLUMNS = "id, received_at, event_id, headers, body, verified, reason, duplicate, status"


def _delivery_record(row: tuple[Any, ...]) -> DeliveryRecord:
    return DeliveryRecord(
        id=row[0],
        received_at=row[1],
        event_id=row[2],
        headers=json.loads(row[3]),
        body=bytes(row[4]),
        verified=bool(row[5]),
        reason=row[6],
        duplicate=bool(row[7]),
        status=row[8],
    )


def _filters(event_type: str | None, object_id: str | None) -> tuple[str, tuple[str, ...]]:
    clauses: list[str] = []
    params: list[str] = []
    if event_type is not None:
        clauses.append("event_type = ?")
        params.append(event_type)
    if object_id is not None:
        clauses.append("object_id = ?")
        params.append(object_id)
    return ((" WHERE " + " AND ".join(clauses)) if clauses else "", tuple(params))


def _write_jobs(conn: sqlite3.Connection, batch: list[_Job], first_id: int) -> list[Any]:
    """Write one batch in set form; return each job's result (a Recorded, or None)."""
    attempts: list[Attempt] = [job[1][0] for job in batch if job[0] == "attempt"]
    wanted = list({a.event_id for a in attempts if a.verified and a.event_id is not None})
    # Events already stored, with their duplicate counts (the batch is <= 512: one IN query).
    known: dict[str, int] = {}
    if wanted:
        marks = ",".join("?" * len(wanted))
        sql = f"SELECT event_id, duplicates FROM events WHERE event_id IN ({marks})"
        known = {row[0]: int(row[1]) for row in conn.execute(sql, wanted)}
    bumped: set[str] = set()
    deliveries: list[tuple[Any, ...]] = []
    events: list[tuple[Any, ...]] = []
    forwards: list[tuple[Any, ...]] = []
    values: list[Any] = []
    delivery_id = first_id
    for kind, args, _future, _loop in batch:
        if kind != "attempt":
            f: ForwardRecord = args[0]
            forwards.append((f.event_id, f.url, f.sent_at, f.status, f.body, f.latency_ms, f.error))
            values.append(None)
            continue
        a: Attempt = args[0]
        duplicate = False
        count = 0
        if a.verified and a.event_id is not None:
            if a.event_id in known:
                duplicate = True
                count = known[a.event_id] = known[a.event_id] + 1
                bumped.add(a.event_id)
            else:
                known[a.event_id] = 0
                events.append(
                    (a.event_id, a.event_type, a.object_id, a.object_status, a.received_at,
                     delivery_id)
                )  # fmt: skip
        deliveries.append(
            (delivery_id, a.received_at, a.event_id, json.dumps(a.headers), a.body,
             int(a.verified), a.reason, int(duplicate), a.status)
        )  # fmt: skip
        values.append(Recorded(delivery_id, duplicate, count))
        delivery_id += 1
    _insert_rows(
        conn,
        "INSERT INTO deliveries (id, received_at, event_id, headers, body, verified, reason,"
        " duplicate, status) VALUES ",
        deliveries,
    )
    _insert_rows(
        conn,
        "INSERT INTO events (event_id, event_type, object_id, object_status, first_seen,"
        " delivery_id) VALUES ",
        events,
    )
    if bumped:
        conn.executemany(
            "UPDATE events SET duplicates = ? WHERE event_id = ?",
            [(known[event_id], event_id) for event_id in bumped],
        )
    if forwards:
        conn.executemany(
            "INSERT INTO forwards (event_id, url, sent_at, status, body, latency_ms, error)"
            " VALUES (?, ?, ?, ?, ?, ?, ?)",
            forwards,
        )
    return values


def _insert_rows(conn: sqlite3.Connection, head: str, rows: list[tuple[Any, ...]]) -> None:
    """Insert with multi-row VALUES, `_ROWS_PER_STATEMENT` rows per statement.

    sqlite3 releases and retakes the GIL around every statement step; one step per row (as
    executemany does) makes the writer thread fight the event loop for the GIL hundreds of times
    per batch, which costs far more than the inserts themselves.
    """
    if not rows:
        return
    width = len(rows[0])
    one = "(" + ",".join("?" * width) + ")"
    for start in range(0, len(rows), _ROWS_PER_STATEMENT):
        chunk = rows[start : start + _ROWS_PER_STATEMENT]
        params = [value for row in chunk for value in row]
        conn.execute(head + ",".join([one] * len(chunk)), params)


def _resolve(outcomes: list[tuple[asyncio.Future[Any], Any, BaseException | None]]) -> None:
    for future, value, error in outcomes:
        if future.done():
            continue  # the request was cancelled (client went away); the row is stored anyway
        if error is not None:
            future.set_exception(error)
        else:
            future.set_result(value)
