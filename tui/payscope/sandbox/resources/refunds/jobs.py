"""Refunds' clock job: pending refunds (of the asynchronous test cards) settle."""

from __future__ import annotations

import sqlite3

from payscope.sandbox.resource import Due, Job, due_rows
from payscope.sandbox.resources.refunds import store
from payscope.sandbox.resources.refunds.engine import settle
from payscope.sandbox.state import SandboxState


def _settle(state: SandboxState, now: float) -> int:
    due = store.settling(state.db.conn, now)
    for refund_id in due:
        settle(state, refund_id, now)
    return len(due)


def _due_settle(conn: sqlite3.Connection, start: float, end: float) -> list[Due]:
    """What `_settle` would do between `start` and `end` (the clock's upcoming preview)."""
    rows = due_rows(
        conn,
        "SELECT settle_at, refund_id, amount, currency FROM refunds WHERE settle_at IS NOT NULL",
        "settle_at",
        start,
        end,
    )
    out = []
    for at, rid, amount, cur in rows:
        try:
            money = f"{int(amount) / 100:,.2f} {cur}"
        except (TypeError, ValueError):
            money = f"{amount} {cur}"
        out.append(Due(float(at), "refund_settles", rid, f"refund {rid} of {money} settles"))
    return out


JOB = Job("settled_refunds", store.next_settle, _settle, _due_settle)
