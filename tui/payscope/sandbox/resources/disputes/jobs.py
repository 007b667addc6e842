"""Disputes' clock jobs: the dispute test card draws its dispute some sandbox-hours after its
money was taken; a dispute left unanswered past `challenge_required_by` expires."""

from __future__ import annotations

import contextlib
import sqlite3

from payscope.sandbox.errors import SandboxError
from payscope.sandbox.resource import Due, Job, due_list
from payscope.sandbox.resources.disputes import store
from payscope.sandbox.resources.disputes.engine import OPENED, move, open_dispute
from payscope.sandbox.state import SandboxState


def _open_scheduled(state: SandboxState, now: float) -> int:
    due = store.scheduled_due(state.db.conn, now)
    for payment_id, _due_at, reason in due:
        with state.db.transaction() as conn:
            # refunded, already disputed or gone: the network has nothing left to dispute
            with contextlib.suppress(SandboxError):
                open_dispute(
                    conn,
                    state,
                    str(payment_id),
                    amount=None,
                    reason=str(reason),
                    stage="dispute",
                    now=now,
                )
            store.mark_opened(conn, payment_id, now)
    return len(due)


def _expire(state: SandboxState, now: float) -> int:
    due = store.expiring(state.db.conn, now)
    for dispute_id in due:
        with state.db.transaction() as conn:
            data = store.load(conn, dispute_id)
            if data["dispute_status"] == OPENED:
                move(conn, state, data, "dispute_expired", now)
            else:
                store.save(conn, data, None)
    return len(due)


def _due_scheduled(conn: sqlite3.Connection, start: float, end: float) -> list[Due]:
    sql = "SELECT due_at, payment_id, reason FROM dispute_schedule WHERE opened_at IS NULL"
    text = "a dispute ({1}) opens on payment {0}"
    return due_list(conn, sql, "due_at", start, end, "dispute_opens", text)


def _due_expiry(conn: sqlite3.Connection, start: float, end: float) -> list[Due]:
    sql = "SELECT expires_at, dispute_id, status FROM disputes WHERE expires_at IS NOT NULL"
    text = "dispute {0} ({1}) passes its deadline"
    return due_list(conn, sql, "expires_at", start, end, "dispute_expires", text)


JOBS = (
    Job("scheduled_disputes", store.next_scheduled, _open_scheduled, _due_scheduled),
    Job("expired_disputes", store.next_expiry, _expire, _due_expiry),
)
