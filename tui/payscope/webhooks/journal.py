"""The listener's journal: every delivery attempt and every distinct event, in SQLite (WAL).

One writer thread owns the write connection and commits in groups. A request hands its attempt
over with `await journal.record(attempt)`; the attempts submitted during one turn of the event
loop are handed to the thread together (one queue put, so one wake-up, per turn rather than per
request). The thread takes every group that has arrived, stores them in one transaction (one
multi-row INSERT, whose trigger files each row into `deliveries` and `events`), commits it
with synchronous=FULL (the WAL is fsync'ed: the commit is on disk, not only in the OS cache,
so it survives a kill -9 and a power cut alike), and only then wakes the requests of each group
with one call into their loop. No caller is ever told "stored" before its commit returned,
which is what lets the listener answer 2xx only after durable storage.

The thread spends most of its time inside SQLite, which runs without the GIL, so the event loop
keeps serving requests meanwhile. Everything else the thread does holds the GIL and competes
with the loop, so it is kept small: little Python per attempt, and few SQLite calls per group
(each call releases the GIL and must wait to take it back from the busy loop).

Rejected attempts are kept for diagnosis, not as a record of business: an unverified one keeps
its headers and only the first `intake.REJECTED_BODY_PREFIX` bytes of its body (with the full length
in `body_length`; a signed body that is no event is kept whole, its sender holds the secret),
and all of them together are held under `rejected_cap_bytes`, the oldest dropped first.
Accepted deliveries are never truncated or dropped. So a flood of unsigned 1 MiB POSTs cannot
fill the disk.

Deduplication lives here too: the single writer decides "new or duplicate" for each event_id in
arrival order (one indexed lookup per group, then the group's own earlier attempts), so
concurrent requests can never both process the same event.

Reads (`count`, `recent`, `get`, `deliveries`) use their own connection and indexed queries; WAL
lets them run while the writer commits. They are synchronous and fast (well under a millisecond
for a page), so the TUI may call them from a worker or directly.
"""

from __future__ import annotations

import asyncio
import contextlib
import datetime as dt
import json
import logging
import os
import queue
import re
import sqlite3
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import orjson

from payscope.core.private_files import create_private, tighten_sqlite
from payscope.webhooks.intake import (
    INTAKE,
    REJECTED,
    Group,
    Job,
    prune_rejected,
    rejected_size,
    resolve,
    write_jobs,
)
from payscope.webhooks.records import (
    FORWARD_DELIVERED,
    FORWARD_FAILED,
    FORWARD_PENDING,
    Attempt,
    DeliveryRecord,
    EventDetail,
    EventRecord,
    ForwardOutcome,
    ForwardRecord,
    ForwardState,
    JournalError,
    OwedForward,
    Recorded,
)

log = logging.getLogger("payscope.listener")

JOURNAL_FILE = "journal.sqlite3"
_MAX_BATCH = 512
# The rejected history (headers + kept body prefixes) is held under this size; past it the
# oldest rejected rows are dropped, down to `_PRUNE_TO` of it (so pruning is rare).
REJECTED_HISTORY_BYTES = 32 * 1024 * 1024
_PRUNE_TO = 0.75

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
    status       INTEGER NOT NULL,
    body_length  INTEGER
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
    error        TEXT,
    headers      TEXT
);
CREATE INDEX IF NOT EXISTS forwards_event ON forwards(event_id, id);
CREATE TABLE IF NOT EXISTS forward_queue (
    event_id     TEXT PRIMARY KEY,
    url          TEXT NOT NULL,
    state        TEXT NOT NULL,
    attempts     INTEGER NOT NULL DEFAULT 0,
    accepted_at  REAL NOT NULL,
    next_at      REAL,
    last_at      REAL,
    last_status  INTEGER,
    last_error   TEXT
);
CREATE INDEX IF NOT EXISTS forward_queue_due ON forward_queue(next_at)
    WHERE state = 'pending';
"""


_STOP = object()


class Journal:
    """The SQLite journal under `directory` (created if missing).

    `open()` starts the writer thread; read methods work with or without it (for a journal left
    behind by another process, say).
    """

    def __init__(
        self, directory: Path, *, rejected_cap_bytes: int = REJECTED_HISTORY_BYTES
    ) -> None:
        self.directory = Path(directory)
        self.rejected_cap_bytes = rejected_cap_bytes
        self._rejected_bytes = 0  # the writer's running total of the rejected history
        self.path = self.directory / JOURNAL_FILE
        self._jobs: queue.SimpleQueue[Group | object] = queue.SimpleQueue()
        self._thread: threading.Thread | None = None
        self._read_lock = threading.Lock()
        self._reader: sqlite3.Connection | None = None
        self._next_delivery_id = 1
        # Jobs submitted during the current turn of each event loop, not yet handed over.
        self._pending: dict[asyncio.AbstractEventLoop, list[Job]] = {}
        # Where `open` moved a damaged journal it found in the way (None: it found none).
        self.moved_aside: Path | None = None

    # -- lifecycle ---------------------------------------------------------------------------

    def _connect(self) -> sqlite3.Connection:
        try:
            # Senders' headers and bodies: 0600 in a 0700 directory, whatever the umask.
            create_private(self.path)
            conn = sqlite3.connect(
                self.path, isolation_level=None, check_same_thread=False, cached_statements=512
            )
            conn.execute("PRAGMA busy_timeout = 5000")
            conn.execute("PRAGMA journal_mode = WAL")
            tighten_sqlite(self.path)
            # FULL: a commit is on disk when it returns, not only in the OS cache.
            conn.execute("PRAGMA synchronous = FULL")
        except (OSError, sqlite3.Error) as exc:
            raise JournalError(self._open_problem(exc)) from exc
        return conn

    def _open_problem(self, exc: Exception) -> str:
        """Why the journal cannot be opened, and what to do about it."""
        advice = "move it away, or choose another directory with --data"
        if self.directory.exists() and not self.directory.is_dir():
            return f"cannot keep the listener journal in {self.directory}: it is a file; {advice}"
        if self.path.is_dir():
            return f"cannot open the listener journal: {self.path} is a directory; {advice}"
        if isinstance(exc, sqlite3.DatabaseError) and "not a database" in str(exc):
            return (
                f"cannot open the listener journal: {self.path} is not an SQLite database "
                f"(damaged, or another program's file); {advice}"
            )
        return (
            f"cannot open the listener journal at {self.path}: {exc}. "
            "Check that the directory is writable, or choose another one with --data."
        )

    @property
    def is_open(self) -> bool:
        """True while the writer thread runs."""
        return self._thread is not None

    def open(self) -> None:
        """Create the schema if needed and start the writer thread (idempotent).

        A journal file that is not an SQLite database (damaged, truncated, overwritten) is
        moved aside, never deleted, to `journal.sqlite3.damaged-<UTC time>` with its companion
        files, and a fresh journal started: `moved_aside` says where it went."""
        if self._thread is not None:
            return
        try:
            conn = self._prepared()
        except JournalError as exc:
            if not isinstance(exc.__cause__, sqlite3.DatabaseError) or not _damaged(exc.__cause__):
                raise
            self.moved_aside = self._move_aside(exc.__cause__)
            conn = self._prepared()
        self._thread = threading.Thread(
            target=self._writer, args=(conn,), name="payscope-journal", daemon=True
        )
        self._thread.start()

    def _prepared(self) -> sqlite3.Connection:
        conn = self._connect()
        try:
            _prepare(conn)
            conn.executescript(INTAKE)
        except sqlite3.Error as exc:
            conn.close()
            raise JournalError(
                f"cannot prepare the listener journal at {self.path}: {exc}"
            ) from exc
        return conn

    def _move_aside(self, why: sqlite3.DatabaseError) -> Path:
        """Move the damaged journal (and its -wal, -shm) aside; where it went."""
        stamp = dt.datetime.now(dt.UTC).strftime("%Y%m%dT%H%M%SZ")
        target = self.path.with_name(f"{self.path.name}.damaged-{stamp}")
        n = 1
        while target.exists():
            n += 1
            target = self.path.with_name(f"{self.path.name}.damaged-{stamp}-{n}")
        try:
            os.replace(self.path, target)
            for suffix in ("-wal", "-shm"):
                companion = self.path.with_name(self.path.name + suffix)
                if companion.exists():
                    os.replace(companion, target.with_name(target.name + suffix))
        except OSError as exc:
            raise JournalError(
                f"the listener journal at {self.path} is damaged ({why}) and could not be "
                f"moved aside ({exc.strerror or exc}); move it away by hand"
            ) from exc
        log.warning(
            "moved the damaged listener journal %s aside to %s (%s)", self.path, target, why
        )
        return target

    def close(self) -> None:
        """Commit what is queued, stop the writer, close the connections."""
        if self._thread is not None:
            for loop in list(self._pending):
                self._hand_over(loop)
            self._jobs.put(_STOP)
            self._thread.join()
            self._thread = None
        with self._read_lock:
            if self._reader is not None:
                self._reader.close()
                self._reader = None

    # -- writes (from the event loop) --------------------------------------------------------

    def record(self, attempt: Attempt) -> asyncio.Future[Recorded]:
        """Store `attempt`; the future resolves once it is committed, with the dedupe decision.

        Await it (it is a future rather than a coroutine to save a frame per request).
        """
        return self._submit(attempt)

    def record_forward(self, forward: ForwardRecord) -> asyncio.Future[None]:
        """Store the outcome of one forward; await the future to know it is committed.

        Submitted at once, so a forward cancelled while stopping can still leave its record.
        """
        return self._submit(forward)

    def record_forward_outcome(self, outcome: ForwardOutcome) -> asyncio.Future[None]:
        """Store one attempt of an automatic forward and its queue state in one commit."""
        return self._submit(outcome)

    def _submit(self, item: Attempt | ForwardRecord | ForwardOutcome) -> asyncio.Future[Any]:
        if self._thread is None:
            raise JournalError("the journal is closed; start the listener first")
        loop = asyncio.get_running_loop()
        future: asyncio.Future[Any] = loop.create_future()
        pending = self._pending.get(loop)
        if pending is None:
            # The first job of this turn: hand the turn's jobs over together once it ends, so
            # the writer wakes (and takes the GIL) once per group rather than once per request.
            pending = self._pending[loop] = []
            loop.call_soon(self._hand_over, loop)
        pending.append((item, future))
        return future

    def _hand_over(self, loop: asyncio.AbstractEventLoop) -> None:
        jobs = self._pending.pop(loop, None)
        if not jobs:
            return
        if self._thread is None:
            error = JournalError("the journal was closed before the delivery could be stored")
            resolve(jobs, None, error)
            return
        self._jobs.put((loop, jobs))

    # -- the writer thread -------------------------------------------------------------------

    def _writer(self, conn: sqlite3.Connection) -> None:
        # Delivery ids are assigned here (the only writer) so a batch is one set-form insert.
        row = conn.execute("SELECT coalesce(max(id), 0) + 1 FROM deliveries").fetchone()
        self._next_delivery_id = int(row[0])
        self._rejected_bytes = rejected_size(conn)
        stopping = False
        while not stopping:
            groups: list[Group] = []
            size = 0
            item = self._jobs.get()
            while True:
                if item is _STOP:
                    stopping = True
                    break
                group: Group = item  # type: ignore[assignment]
                groups.append(group)
                size += len(group[1])
                if size >= _MAX_BATCH:
                    break
                try:
                    item = self._jobs.get_nowait()
                except queue.Empty:
                    break
            if groups:
                self._write_batch(conn, groups)
        conn.close()

    def _write_batch(self, conn: sqlite3.Connection, groups: list[Group]) -> None:
        jobs = groups[0][1] if len(groups) == 1 else [job for g in groups for job in g[1]]
        first_id = self._next_delivery_id
        values: list[Any] | None = None
        error: JournalError | None = None
        try:
            values, next_id, rejected = write_jobs(conn, jobs, first_id)
        except Exception as exc:  # any failure must reach the waiting requests, not kill the thread
            if conn.in_transaction:
                conn.rollback()
            error = JournalError(f"the listener journal could not store the delivery: {exc}")
        else:
            self._next_delivery_id = next_id
            self._rejected_bytes += rejected
        # One wake-up per loop per batch, not one per request.
        start = 0
        for loop, group_jobs in groups:
            end = start + len(group_jobs)
            part = None if values is None else values[start:end]
            start = end
            # A closed loop means nobody is waiting any more; the rows are stored regardless.
            with contextlib.suppress(RuntimeError):
                loop.call_soon_threadsafe(resolve, group_jobs, part, error)
        if self._rejected_bytes > self.rejected_cap_bytes:
            # After the wake-ups: pruning never delays an answer.
            try:
                self._rejected_bytes = prune_rejected(
                    conn, self._rejected_bytes, int(self.rejected_cap_bytes * _PRUNE_TO)
                )
            except sqlite3.Error as exc:
                log.warning("could not prune the rejected history of the journal: %s", exc)

    # -- reads -------------------------------------------------------------------------------

    @contextlib.contextmanager
    def _read(self) -> Iterator[sqlite3.Connection]:
        with self._read_lock:
            if self._reader is None:
                conn = self._connect()
                _prepare(conn)
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

    def newer(
        self,
        after_seq: int,
        limit: int,
        event_type: str | None = None,
        object_id: str | None = None,
        *,
        nearest: bool = False,
    ) -> list[EventRecord]:
        """Up to `limit` events stored after the event `after_seq`, newest first: the newest of
        them, or with `nearest` the ones right after it (paging back towards the newest).

        Keyset paging on `seq` (an index range, never an OFFSET scan), so a page costs the
        same however many events the journal holds.
        """
        where, params = _filters(event_type, object_id)
        where = f"{where} AND seq > ?" if where else " WHERE seq > ?"
        order = "ASC" if nearest else "DESC"
        sql = f"SELECT {_EVENT_COLUMNS} FROM events{where} ORDER BY seq {order} LIMIT ?"
        with self._read() as conn:
            rows = conn.execute(sql, (*params, after_seq, limit)).fetchall()
        if nearest:
            rows.reverse()
        return [EventRecord(*row) for row in rows]

    def older(
        self,
        before_seq: int,
        limit: int,
        event_type: str | None = None,
        object_id: str | None = None,
    ) -> list[EventRecord]:
        """Up to `limit` events stored before the event `before_seq`, newest first (keyset)."""
        where, params = _filters(event_type, object_id)
        where = f"{where} AND seq < ?" if where else " WHERE seq < ?"
        sql = f"SELECT {_EVENT_COLUMNS} FROM events{where} ORDER BY seq DESC LIMIT ?"
        with self._read() as conn:
            rows = conn.execute(sql, (*params, before_seq, limit)).fetchall()
        return [EventRecord(*row) for row in rows]

    def count_newer(
        self, after_seq: int, event_type: str | None = None, object_id: str | None = None
    ) -> int:
        """How many events were stored after the event `after_seq` (an index range count)."""
        where, params = _filters(event_type, object_id)
        where = f"{where} AND seq > ?" if where else " WHERE seq > ?"
        with self._read() as conn:
            row = conn.execute(f"SELECT count(*) FROM events{where}", (*params, after_seq))
            return int(row.fetchone()[0])

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
                ForwardRecord(r[0], r[1], r[2], r[3], r[4], r[5], r[6], _headers_of(r[7]))
                for r in conn.execute(
                    "SELECT event_id, url, sent_at, status, body, latency_ms, error, headers"
                    " FROM forwards WHERE event_id = ? ORDER BY id",
                    (event_id,),
                )
            ]
            state_row = conn.execute(
                f"SELECT {_FORWARD_STATE_COLUMNS} FROM forward_queue WHERE event_id = ?",
                (event_id,),
            ).fetchone()
        assert delivery_row is not None, "an event always has its delivery"
        state = ForwardState(*state_row) if state_row is not None else None
        return EventDetail(event, _delivery_record(delivery_row), forwards, state)

    def forward_state(self, event_id: str) -> ForwardState | None:
        """Where the automatic forward of `event_id` stands (None: it was not to be forwarded)."""
        with self._read() as conn:
            row = conn.execute(
                f"SELECT {_FORWARD_STATE_COLUMNS} FROM forward_queue WHERE event_id = ?",
                (event_id,),
            ).fetchone()
        return ForwardState(*row) if row is not None else None

    def forward_counts(self) -> dict[str, int]:
        """How many automatic forwards are pending, delivered and failed."""
        counts = dict.fromkeys((FORWARD_PENDING, FORWARD_DELIVERED, FORWARD_FAILED), 0)
        with self._read() as conn:
            for state, count in conn.execute(
                "SELECT state, count(*) FROM forward_queue GROUP BY state"
            ):
                counts[str(state)] = int(count)
        return counts

    def pending_forwards(self, limit: int) -> list[OwedForward]:
        """The pending forwards soonest due first (due or not), with their bodies."""
        with self._read() as conn:
            rows = conn.execute(
                "SELECT q.event_id, e.event_type, q.url, q.attempts, q.accepted_at, q.next_at,"
                " d.body, d.headers FROM forward_queue q"
                " JOIN events e ON e.event_id = q.event_id"
                " JOIN deliveries d ON d.id = e.delivery_id"
                " WHERE q.state = 'pending' ORDER BY q.next_at LIMIT ?",
                (limit,),
            ).fetchall()
        owed = []
        for event_id, event_type, url, attempts, accepted_at, next_at, body, headers in rows:
            signature = orjson.loads(headers).get(_SIGNATURE_KEY)
            owed.append(
                OwedForward(
                    event_id, event_type, url, int(attempts), float(accepted_at),
                    float(next_at), bytes(body), signature,
                )
            )  # fmt: skip
        return owed

    def deliveries(
        self, limit: int = 50, offset: int = 0, *, rejected_only: bool = False
    ) -> list[DeliveryRecord]:
        """A page of delivery attempts (accepted, duplicate and rejected), newest first."""
        where = f" WHERE {REJECTED}" if rejected_only else ""
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
_DELIVERY_COLUMNS = (
    "id, received_at, event_id, headers, body, verified, reason, duplicate, status, body_length"
)
_FORWARD_STATE_COLUMNS = (
    "event_id, url, state, attempts, accepted_at, next_at, last_at, last_status, last_error"
)
_SIGNATURE_KEY = "x-webhook-signature-512"  # as stored: header names are lowercase


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
        body_length=row[9],
    )


def _damaged(exc: sqlite3.DatabaseError) -> bool:
    """True when SQLite says the file is no (sound) database: not a lock, not a full disk."""
    text = str(exc)
    return any(
        sign in text for sign in ("not a database", "malformed", "file is encrypted", "corrupt")
    )


def _headers_of(text: str | None) -> dict[str, str] | None:
    """A forward's answer headers as stored (JSON), None when none were."""
    if not text:
        return None
    try:
        value = json.loads(text)
    except ValueError:
        return None
    return {str(k): str(v) for k, v in value.items()} if isinstance(value, dict) else None


def _prepare(conn: sqlite3.Connection) -> None:
    """Create the schema; add `body_length` to a journal made before it existed."""
    conn.executescript(_SCHEMA)
    columns = {row[1] for row in conn.execute("PRAGMA table_info(deliveries)")}
    if "body_length" not in columns:
        with contextlib.suppress(sqlite3.OperationalError):  # another process just added it
            conn.execute("ALTER TABLE deliveries ADD COLUMN body_length INTEGER")
    # The answers' headers on forwards and replays (journals made before keep theirs empty).
    if "headers" not in {row[1] for row in conn.execute("PRAGMA table_info(forwards)")}:
        with contextlib.suppress(sqlite3.OperationalError):  # another process just added it
            conn.execute("ALTER TABLE forwards ADD COLUMN headers TEXT")


def _filters(event_type: str | None, object_id: str | None) -> tuple[str, tuple[str, ...]]:
    clauses: list[str] = []
    params: list[str] = []
    if event_type is not None:
        clauses.append("event_type = ?")
        params.append(event_type)
    if object_id is not None and _WHOLE_ID.fullmatch(object_id):
        clauses.append("object_id = ?")  # a whole id: the index finds it
        params.append(object_id)
    elif object_id is not None:
        # Part of an id (`dp_odpQ`), as Find takes it: anywhere in the object's id, any case.
        clauses.append("object_id LIKE ? ESCAPE '\\'")
        escaped = object_id.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_")
        params.append(f"%{escaped}%")
    return ((" WHERE " + " AND ".join(clauses)) if clauses else "", tuple(params))


# A whole object id (`pay_` and at least 20 characters): matched exactly. Anything shorter is
# looked for as a part of one (a whole id shorter than that is found so too, only not by index).
_WHOLE_ID = re.compile(r"[a-z]+_[A-Za-z0-9]{20,}")
