"""Payments' clock job: authorisations expire, processing payments and methods settle."""

from __future__ import annotations

import sqlite3

from payscope.sandbox.clock import iso
from payscope.sandbox.resource import Due, Job, due_rows
from payscope.sandbox.resources.payments.engine import CAPTURABLE, emit_status
from payscope.sandbox.resources.payments.outcomes import (
    authorise,
    settle_method,
    update_last_attempt,
)
from payscope.sandbox.resources.payments.store import load, save
from payscope.sandbox.state import SandboxState


def _next_expiry(conn: sqlite3.Connection) -> float | None:
    found = conn.execute("SELECT MIN(expires_at) FROM payments WHERE expires_at IS NOT NULL")
    value = found.fetchone()[0]
    return None if value is None else float(value)


def _expire(state: SandboxState, now: float) -> int:
    conn = state.db.conn
    due = [
        r[0]
        for r in conn.execute(
            "SELECT payment_id FROM payments WHERE expires_at IS NOT NULL AND expires_at <= ?",
            (now,),
        )
    ]
    for payment_id in due:
        with state.db.transaction() as tx:
            row = load(tx, payment_id)
            row.expires_at = None
            before = row.status
            if (row.card_rule or {}).get("family") and row.status in (
                "processing",
                "requires_customer_action",
            ):
                settle_method(tx, state, row, now)
            elif row.status == "processing":  # the processor answers: authorised
                status = authorise(tx, state, row, now)
                update_last_attempt(tx, row, status, iso(now), {})
            elif row.status in CAPTURABLE:
                row.status = "expired"
                row.data["amount_capturable"] = 0
            save(tx, row, iso(now))
            if row.status != before:
                # After `save`: the event carries the payment as GET now answers it.
                emit_status(tx, state, row)
    return len(due)


def _due_expiry(conn: sqlite3.Connection, start: float, end: float) -> list[Due]:
    """What `_expire` would do between `start` and `end` (the clock's upcoming preview)."""
    rows = due_rows(
        conn,
        "SELECT expires_at, payment_id, status FROM payments WHERE expires_at IS NOT NULL",
        "expires_at",
        start,
        end,
    )
    return [
        Due(float(at), "payment_settles", pid, f"payment {pid} (processing) settles")
        if status == "processing"
        else Due(float(at), "payment_expiry", pid, f"payment {pid} ({status}) expires")
        for at, pid, status in rows
    ]


JOB = Job("expired_payments", _next_expiry, _expire, _due_expiry)
