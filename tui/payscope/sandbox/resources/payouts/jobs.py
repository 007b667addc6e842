"""Payouts' clock job: initiated payouts settle, unused payout links expire."""

from __future__ import annotations

import sqlite3

from payscope.sandbox.resource import Due, Job, due_list
from payscope.sandbox.resources.payouts.engine import FAILS, move
from payscope.sandbox.resources.payouts.store import load, save
from payscope.sandbox.state import SandboxState


def _next_due(conn: sqlite3.Connection) -> float | None:
    value = conn.execute("SELECT MIN(due_at) FROM payouts WHERE due_at IS NOT NULL").fetchone()[0]
    return None if value is None else float(value)


def _run_due(state: SandboxState, now: float) -> int:
    due = state.db.conn.execute(
        "SELECT payout_id FROM payouts WHERE due_at IS NOT NULL AND due_at <= ?", (now,)
    ).fetchall()
    for (payout_id,) in due:
        with state.db.transaction() as conn:
            data, rule = load(conn, payout_id)
            if data["status"] == "initiated":
                if rule == FAILS:
                    data.update(
                        {
                            "error_code": "account_closed",
                            "error_message": "The recipient's bank refused the payout: "
                            "the account is closed.",
                        }
                    )
                to = "failed" if rule == FAILS else "success"
                # The attempt first: the event carries the payout as GET answers it after.
                if data.get("attempts"):
                    data["attempts"][-1]["status"] = to
                    data["attempts"][-1]["error_code"] = data["error_code"]
                    data["attempts"][-1]["error_message"] = data["error_message"]
                move(conn, state, data, to, now)
            elif data["status"] == "requires_payout_method_data":
                move(conn, state, data, "expired", now)
            save(conn, data, rule, None)
    return len(due)


def _due_between(conn: sqlite3.Connection, start: float, end: float) -> list[Due]:
    """What `_run_due` would do between `start` and `end` (the clock's upcoming preview)."""
    sql = "SELECT due_at, payout_id, status FROM payouts WHERE due_at IS NOT NULL"
    text = "payout {0} moves on from {1}"
    return due_list(conn, sql, "due_at", start, end, "payout_moves", text)


JOB = Job("payouts_due", _next_due, _run_due, _due_between)
