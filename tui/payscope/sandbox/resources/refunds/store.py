"""Refunds' storage: the table and every SQL statement the refunds resource runs outside its
seed. The refund object is stored as JSON in `data`, its filtered fields in columns beside it."""

from __future__ import annotations

import json
import sqlite3
from typing import Any

from payscope.api.models.refunds import RefundListRequest
from payscope.sandbox.db import dumps
from payscope.sandbox.errors import not_found
from payscope.sandbox.filters import Where

SCHEMA = """
CREATE TABLE IF NOT EXISTS refunds (
    refund_id TEXT PRIMARY KEY,
    payment_id TEXT NOT NULL,
    status TEXT NOT NULL,
    currency TEXT NOT NULL,
    amount INTEGER NOT NULL,
    created TEXT NOT NULL,
    settle_at REAL,
    data TEXT NOT NULL
);
CREATE INDEX IF NOT EXISTS refunds_payment ON refunds(payment_id);
CREATE INDEX IF NOT EXISTS refunds_created ON refunds(created);
CREATE INDEX IF NOT EXISTS refunds_settle ON refunds(settle_at) WHERE settle_at IS NOT NULL;
"""


def load(conn: sqlite3.Connection, refund_id: str) -> dict[str, Any]:
    """The refund, or 404 IR_05."""
    found = conn.execute("SELECT data FROM refunds WHERE refund_id = ?", (refund_id,)).fetchone()
    if found is None:
        raise not_found("Refund", refund_id)
    data: dict[str, Any] = json.loads(found[0])
    return data


def exists(conn: sqlite3.Connection, refund_id: str) -> bool:
    """True when a refund with this id was made."""
    return (
        conn.execute("SELECT 1 FROM refunds WHERE refund_id = ?", (refund_id,)).fetchone()
        is not None
    )


def refunded_so_far(conn: sqlite3.Connection, payment_id: str) -> tuple[int, int]:
    """(amount held by refunds that did not fail, number of refunds) for a payment."""
    found = conn.execute(
        "SELECT COALESCE(SUM(CASE WHEN status != 'failed' THEN amount ELSE 0 END), 0), COUNT(*) "
        "FROM refunds WHERE payment_id = ?",
        (payment_id,),
    ).fetchone()
    return int(found[0]), int(found[1])


def insert(conn: sqlite3.Connection, data: dict[str, Any], settle_at: float) -> None:
    """Write a new refund, `pending` until it is decided."""
    conn.execute(
        "INSERT INTO refunds(refund_id, payment_id, status, currency, amount, created, "
        "settle_at, data) VALUES (?, ?, 'pending', ?, ?, ?, ?, ?)",
        (
            data["refund_id"],
            data["payment_id"],
            data["currency"],
            data["amount"],
            data["created"],
            settle_at,
            dumps(data),
        ),
    )


def set_data(conn: sqlite3.Connection, refund_id: str, data: dict[str, Any]) -> None:
    """Store the refund object as it is now (its columns unchanged)."""
    conn.execute("UPDATE refunds SET data = ? WHERE refund_id = ?", (dumps(data), refund_id))


def settled(conn: sqlite3.Connection, data: dict[str, Any]) -> None:
    """Write the refund's decided status and object; nothing is left to settle."""
    conn.execute(
        "UPDATE refunds SET status = ?, settle_at = NULL, data = ? WHERE refund_id = ?",
        (data["status"], dumps(data), data["refund_id"]),
    )


def page(conn: sqlite3.Connection, q: RefundListRequest) -> tuple[list[str], int]:
    """(one page of refunds as JSON text, newest first; how many match)."""
    where = Where()
    where.equal("payment_id", q.payment_id)
    where.equal("refund_id", q.refund_id)
    where.among("status", (str(s.value) for s in q.refund_status or ()))
    where.among("currency", q.currency)
    where.created(q.created_gte, q.created_lte)
    rows, total = where.page(conn, "refunds", q.limit, q.offset)
    return [r[0] for r in rows], total


def next_settle(conn: sqlite3.Connection) -> float | None:
    """When the next pending refund settles."""
    value = conn.execute(
        "SELECT MIN(settle_at) FROM refunds WHERE settle_at IS NOT NULL"
    ).fetchone()[0]
    return None if value is None else float(value)


def settling(conn: sqlite3.Connection, now: float) -> list[str]:
    """The refunds due to settle by `now`."""
    return [
        str(r[0])
        for r in conn.execute(
            "SELECT refund_id FROM refunds WHERE settle_at IS NOT NULL AND settle_at <= ?", (now,)
        ).fetchall()
    ]
