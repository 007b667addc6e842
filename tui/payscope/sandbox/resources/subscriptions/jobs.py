"""Subscriptions' clock job: client secrets expire, scheduled changes apply, terms renew."""

from __future__ import annotations

import json
import sqlite3

from payscope.sandbox.resource import Due, Job, due_rows
from payscope.sandbox.resources.subscriptions.engine import (
    add_interval,
    announce_paid,
    apply_change,
    charge,
    price_of,
)
from payscope.sandbox.resources.subscriptions.store import load, save
from payscope.sandbox.state import SandboxState


def _next_due(conn: sqlite3.Connection) -> float | None:
    row = conn.execute(
        "SELECT MIN(t) FROM (SELECT MIN(billing_at) AS t FROM subscriptions "
        "UNION ALL SELECT MIN(secret_expires_at) FROM subscriptions "
        "UNION ALL SELECT MIN(scheduled_at) FROM subscriptions)"
    ).fetchone()
    return None if row is None or row[0] is None else float(row[0])


def _run_due(state: SandboxState, now: float) -> int:
    ids_due = [
        str(r[0])
        for r in state.db.conn.execute(
            "SELECT id FROM subscriptions WHERE billing_at <= ?1 OR secret_expires_at <= ?1 "
            "OR scheduled_at <= ?1",
            (now,),
        )
    ]
    for sub_id in ids_due:
        with state.db.transaction() as conn:
            sub = load(conn, sub_id)
            if sub.secret_expires_at is not None and sub.secret_expires_at <= now:
                sub.data["client_secret"] = None
                sub.data["client_secret_expires_at"] = None
                sub.secret_expires_at = None
            if sub.scheduled_at is not None and sub.scheduled_at <= now:
                change = sub.data["scheduled_change"] or {}
                apply_change(conn, state, sub, str(change.get("action")), sub.scheduled_at)
            if sub.billing_at is not None and sub.billing_at <= now:
                due = sub.billing_at
                if charge(conn, state, sub, due):
                    sub.data["status"] = "active"
                    price = price_of(sub)
                    sub.billing_at = add_interval(
                        due, str(price["interval"]), int(price["interval_count"])
                    )
                    announce_paid(conn, state, sub, now)
                else:
                    sub.data["status"] = "unpaid"
                    sub.billing_at = None
            save(conn, sub, now)
    return len(ids_due)


def _due_between(conn: sqlite3.Connection, start: float, end: float) -> list[Due]:
    """The renewals and scheduled changes `_run_due` would make between `start` and `end`
    (the clock's upcoming preview; client secrets expiring are not shown)."""
    renewals = due_rows(
        conn,
        "SELECT billing_at, id, data FROM subscriptions WHERE billing_at IS NOT NULL",
        "billing_at",
        start,
        end,
    )
    scheduled = due_rows(
        conn,
        "SELECT scheduled_at, id, data FROM subscriptions WHERE scheduled_at IS NOT NULL",
        "scheduled_at",
        start,
        end,
    )
    out: list[Due] = []
    for at, sub_id, data in renewals:
        sub = json.loads(data)
        kind = "trial ends and it is charged" if sub.get("status") == "trial" else "renews"
        out.append(Due(float(at), "subscription_renews", sub_id, f"subscription {sub_id} {kind}"))
    for at, sub_id, data in scheduled:
        change = (json.loads(data).get("scheduled_change") or {}).get("action") or "change"
        out.append(
            Due(
                float(at),
                "subscription_change",
                sub_id,
                f"subscription {sub_id}: the scheduled {change} applies",
            )
        )
    return out


JOB = Job("subscriptions_due", _next_due, _run_due, _due_between)
