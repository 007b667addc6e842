"""How the journal's writer thread stores one batch: new or duplicate decided in arrival order,
every attempt filed by one multi-row INSERT into the `intake` view (its trigger fills the tables),
the forwards and their outcomes beside them, and the callers woken with what was decided; and how
the rejected history is kept under its cap."""

from __future__ import annotations

import asyncio
import re
import sqlite3
from typing import Any

import orjson

from payscope.webhooks.records import Attempt, ForwardOutcome, ForwardRecord, JournalError, Recorded

_ROWS_PER_STATEMENT = 128
_IDS_PER_LOOKUP = 512
# A rejected attempt keeps this much of its body (the full length is recorded beside it).
REJECTED_BODY_PREFIX = 4096
REJECTED = "(verified = 0 OR status >= 300)"

# On the writer's connection only: inserting a row into `intake` files one attempt, its delivery
# and, for a verified event, either its new events row (with the forward it is owed, when
# forwarding is on) or its new duplicate count (the writer decides which beforehand). A whole batch
# is then one multi-row INSERT, which SQLite runs, and outside an explicit transaction commits,
# inside a single call that releases the GIL throughout; a statement per table (and BEGIN, COMMIT)
# would each retake the GIL on the way out and wait for the event loop to let go of it.
INTAKE = """
CREATE TEMP VIEW intake AS SELECT
    NULL AS id, NULL AS received_at, NULL AS event_id, NULL AS headers, NULL AS body,
    NULL AS verified, NULL AS reason, NULL AS status, NULL AS event_type, NULL AS object_id,
    NULL AS object_status, NULL AS new, NULL AS duplicates, NULL AS body_length,
    NULL AS forward_url;
CREATE TEMP TRIGGER intake_file INSTEAD OF INSERT ON intake
BEGIN
    INSERT INTO deliveries (id, received_at, event_id, headers, body, verified, reason,
                            duplicate, status, body_length)
    VALUES (NEW.id, NEW.received_at, NEW.event_id, NEW.headers, NEW.body, NEW.verified,
            NEW.reason, NEW.duplicates > 0, NEW.status, NEW.body_length);
    INSERT INTO events (event_id, event_type, object_id, object_status, first_seen, delivery_id)
    SELECT NEW.event_id, NEW.event_type, NEW.object_id, NEW.object_status, NEW.received_at,
           NEW.id
    WHERE NEW.new;
    UPDATE events SET duplicates = NEW.duplicates
    WHERE NEW.duplicates > 0 AND event_id = NEW.event_id;
    INSERT INTO forward_queue (event_id, url, state, accepted_at, next_at)
    SELECT NEW.event_id, NEW.forward_url, 'pending', NEW.received_at, NEW.received_at
    WHERE NEW.new AND NEW.forward_url IS NOT NULL;
END;
"""
_INTAKE_HEAD = (
    "INSERT INTO intake (id, received_at, event_id, headers, body, verified, reason, status,"
    " event_type, object_id, object_status, new, duplicates, body_length, forward_url) VALUES "
)
_INTAKE_ROW = "(?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)"
_INTAKE_WIDTH = 15

# A `client_secret` value in a body kept for diagnosis (up to its end, or the kept prefix's).
_CLIENT_SECRET = re.compile(rb'("client_secret"\s*:\s*)"(?:[^"\\]|\\.)*(?:"|\\?$)')

# A job is an attempt or a forward with the future its caller awaits; a group is the jobs one
# event loop handed over in one turn.
Job = tuple["Attempt | ForwardRecord | ForwardOutcome", "asyncio.Future[Any]"]
Group = tuple[asyncio.AbstractEventLoop, list[Job]]


def rejected_size(conn: sqlite3.Connection) -> int:
    """The bytes held by rejected attempts (headers and kept bodies)."""
    sql = (
        f"SELECT coalesce(sum(length(headers) + length(body)), 0) FROM deliveries WHERE {REJECTED}"
    )
    return int(conn.execute(sql).fetchone()[0])


def prune_rejected(conn: sqlite3.Connection, size: int, target: int) -> int:
    """Delete the oldest rejected attempts until they hold at most `target` bytes; new size."""
    last_id = None
    sql = f"SELECT id, length(headers) + length(body) FROM deliveries WHERE {REJECTED} ORDER BY id"
    for row_id, row_size in conn.execute(sql):
        if size <= target:
            break
        size -= int(row_size)
        last_id = row_id
    if last_id is not None:
        conn.execute(f"DELETE FROM deliveries WHERE id <= ? AND {REJECTED}", (last_id,))
    return size


def write_jobs(
    conn: sqlite3.Connection, jobs: list[Job], first_id: int
) -> tuple[list[Any], int, int]:
    """Store one batch and commit it; return each job's result (a Recorded, or None), the next
    id, and the bytes the batch added to the rejected history.

    New or duplicate is decided here, in arrival order, against the events already stored (one
    indexed lookup for the batch) and the earlier attempts of the batch. The usual batch
    (attempts only, up to `_ROWS_PER_STATEMENT`) is then a single INSERT into `intake`,
    committed by SQLite on its own; anything larger, or with forwards, is wrapped in one
    explicit transaction. Either way the commit has returned before this does.

    The lookup is not inside the insert's transaction: this thread is the journal's only
    writer, so nothing can store an event in between. (Should another process write to the
    same file anyway, the events table's UNIQUE event_id makes the insert fail as a whole: the
    batch is answered 503 and retried, never stored or processed twice.)
    """
    wanted = list(
        {
            item.event_id
            for item, _future in jobs
            if type(item) is Attempt and item.verified and item.event_id is not None
        }
    )
    known: dict[str, int] = {}  # event_id -> its duplicate count so far
    for start in range(0, len(wanted), _IDS_PER_LOOKUP):
        chunk = wanted[start : start + _IDS_PER_LOOKUP]
        # Padded to a power of two (repeating an id changes nothing) so that a handful of
        # prepared statements serve every group size.
        chunk += chunk[-1:] * ((1 << (len(chunk) - 1).bit_length()) - len(chunk))
        marks = ",".join("?" * len(chunk))
        sql = f"SELECT event_id, duplicates FROM events WHERE event_id IN ({marks})"
        known.update((row[0], int(row[1])) for row in conn.execute(sql, chunk))
    params: list[Any] = []
    values: list[Any] = []
    forwards: list[tuple[Any, ...]] = []
    states: list[tuple[Any, ...]] = []
    delivery_id = first_id
    rejected = 0
    dumps = orjson.dumps
    for item, _future in jobs:
        if type(item) is not Attempt:
            if type(item) is ForwardOutcome:
                o = item
                f = o.record
                states.append(
                    (f.url, o.state, o.attempts, o.next_at, f.sent_at, f.status, f.error,
                     f.event_id)
                )  # fmt: skip
            else:
                f = item  # type: ignore[assignment]
            forwards.append(
                (f.event_id, f.url, f.sent_at, f.status, f.body, f.latency_ms, f.error,
                 None if f.headers is None else dumps(f.headers).decode())
            )  # fmt: skip
            values.append(None)
            continue
        a: Attempt = item
        event_id = a.event_id
        new = False
        count = 0
        if a.verified and event_id is not None:
            if event_id in known:
                count = known[event_id] = known[event_id] + 1
            else:
                new = True
                known[event_id] = 0
        headers = dumps(a.headers).decode()
        body = a.body
        body_length = None
        if not a.verified or a.status >= 300:
            # Unsigned: anyone can send it, so only a prefix. A signed body that is no event
            # is kept whole to debug it (its sender holds the secret); both count to the cap.
            if not a.verified and len(body) > REJECTED_BODY_PREFIX:
                body_length = len(body)
                body = body[:REJECTED_BODY_PREFIX]
            if b"client_secret" in body:
                # Kept only to diagnose the refusal: never forwarded or replayed, so it need
                # not stay byte-exact (an accepted event's body does: see docs/webhooks.md).
                body = _CLIENT_SECRET.sub(rb'\1"[REDACTED]"', body)
            rejected += len(headers) + len(body)
        params += (
            delivery_id, a.received_at, event_id, headers, body, a.verified, a.reason,
            a.status, a.event_type, a.object_id, a.object_status, new, count, body_length,
            a.forward_url if new else None,
        )  # fmt: skip
        values.append(Recorded(delivery_id, count > 0, count))
        delivery_id += 1
    rows = delivery_id - first_id
    explicit = bool(forwards) or rows > _ROWS_PER_STATEMENT
    if explicit:
        conn.execute("BEGIN IMMEDIATE")
    for start in range(0, rows, _ROWS_PER_STATEMENT):
        size = min(_ROWS_PER_STATEMENT, rows - start)
        chunk = params[start * _INTAKE_WIDTH : (start + size) * _INTAKE_WIDTH]
        conn.execute(_INTAKE_HEAD + ",".join([_INTAKE_ROW] * size), chunk)
    if forwards:
        conn.executemany(
            "INSERT INTO forwards"
            " (event_id, url, sent_at, status, body, latency_ms, error, headers)"
            " VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
            forwards,
        )
    if states:
        conn.executemany(
            "UPDATE forward_queue SET url = ?, state = ?, attempts = ?, next_at = ?, last_at = ?,"
            " last_status = ?, last_error = ? WHERE event_id = ?",
            states,
        )
    if explicit:
        conn.execute("COMMIT")
    return values, delivery_id, rejected


def resolve(jobs: list[Job], values: list[Any] | None, error: BaseException | None) -> None:
    """Wake the callers of one group (in their loop): each gets its value, or the error."""
    if values is None:
        for _item, future in jobs:
            if not future.done():  # done: the request was cancelled (client went away)
                future.set_exception(error or JournalError("the journal stopped"))
        return
    for (_item, future), value in zip(jobs, values, strict=True):
        if not future.done():
            future.set_result(value)
