"""What advancing the sandbox clock would set off, said before it happens.

`GET /_sandbox/clock/upcoming?seconds=N` answers the timed work due between now and now + N.
Every clock job (`Job` in a resource, `payscope.sandbox.resource`) says what it would do with its
`due_between`; the one reader kept here is for webhook deliveries that are retried, which the
outbox schedules rather than a job.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Iterable
from typing import Any

from payscope.sandbox.resource import MAX_DUE, Due, Job, due_rows

__all__ = ["MAX_ITEMS", "Due", "upcoming"]

# Enough to show in a preview; `total` still counts every item.
MAX_ITEMS = MAX_DUE


def _webhooks(conn: sqlite3.Connection, start: float, end: float) -> list[Due]:
    rows = due_rows(
        conn,
        "SELECT next_attempt_at, event_id, event_type, retries FROM events "
        "WHERE next_attempt_at IS NOT NULL",
        "next_attempt_at",
        start,
        end,
    )
    return [
        Due(
            float(at),
            "webhook_retry",
            eid,
            f"webhook {eid} ({etype}) is sent again (retry {int(retries) + 1})",
        )
        for at, eid, etype, retries in rows
    ]


def upcoming(
    conn: sqlite3.Connection,
    start: float,
    end: float,
    *,
    jobs: Iterable[Job[Any]],
    webhooks: bool = True,
) -> tuple[list[Due], int]:
    """Everything `jobs` (and, with `webhooks`, the outbox's retries) would do after `start` up
    to and including `end`, soonest first (at most `MAX_ITEMS`), and how many there are in all
    (each query counts up to `MAX_ITEMS`)."""
    found: list[Due] = []
    for job in jobs:
        found.extend(job.due_between(conn, start, end))
    if webhooks:
        found.extend(_webhooks(conn, start, end))
    found.sort(key=lambda due: (due.at, due.kind, due.object_id))
    return found[:MAX_ITEMS], len(found)
