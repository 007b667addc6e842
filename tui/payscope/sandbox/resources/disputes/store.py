"""Disputes' storage: the table and every SQL statement the disputes resource runs outside its
seed. The dispute object is stored as JSON in `data`, its filtered fields in columns beside it."""

from __future__ import annotations

import json
import sqlite3
from typing import Any

from payscope.api.models.disputes import DisputeListRequest
from payscope.sandbox.db import dumps
from payscope.sandbox.errors import not_found
from payscope.sandbox.filters import Where

SCHEMA = """
CREATE TABLE IF NOT EXISTS disputes (
    dispute_id TEXT PRIMARY KEY,
    payment_id TEXT NOT NULL,
    status TEXT NOT NULL,
    stage TEXT NOT NULL,
    currency TEXT NOT NULL,
    amount INTEGER NOT NULL,
    created TEXT NOT NULL,
    profile_id TEXT NOT NULL,
    expires_at REAL,
    evidence TEXT,
    data TEXT NOT NULL
);
CREATE INDEX IF NOT EXISTS disputes_created ON disputes(created);
CREATE INDEX IF NOT EXISTS disputes_payment ON disputes(payment_id);
CREATE INDEX IF NOT EXISTS disputes_expiry ON disputes(expires_at) WHERE expires_at IS NOT NULL;
"""


def already_refunded(conn: sqlite3.Connection, data: dict[str, Any]) -> bool:
    """`is_already_refunded`: a lost dispute's amount plus the payment's refunds (those not
    failed) exceed the amount captured."""
    if data["dispute_status"] != "dispute_lost":
        return False
    found = conn.execute(
        "SELECT COALESCE(SUM(amount), 0) FROM refunds WHERE payment_id = ? AND status != 'failed'",
        (data["payment_id"],),
    ).fetchone()
    received = conn.execute(
        "SELECT json_extract(data, '$.amount_received') FROM payments WHERE payment_id = ?",
        (data["payment_id"],),
    ).fetchone()
    captured = int(received[0] or 0) if received else 0
    return int(found[0]) + int(data["amount"]) > captured


def charged_back(conn: sqlite3.Connection, payment_id: str) -> int:
    """What the payment's lost disputes took back (their amounts): the cardholder has it, so
    it is neither refunded nor disputed again."""
    found = conn.execute(
        "SELECT COALESCE(SUM(amount), 0) FROM disputes WHERE payment_id = ? AND status = ?",
        (payment_id, "dispute_lost"),
    ).fetchone()
    return int(found[0])


def lost_on(conn: sqlite3.Connection, payment_id: str) -> list[tuple[str, dict[str, Any]]]:
    """(dispute id, dispute) of each of the payment's lost disputes."""
    return [
        (str(dispute_id), json.loads(raw))
        for dispute_id, raw in conn.execute(
            "SELECT dispute_id, data FROM disputes WHERE payment_id = ? "
            "AND status = 'dispute_lost'",
            (payment_id,),
        ).fetchall()
    ]


def set_data(conn: sqlite3.Connection, dispute_id: str, data: dict[str, Any]) -> None:
    """Store the dispute object as it is now (its columns unchanged)."""
    conn.execute("UPDATE disputes SET data = ? WHERE dispute_id = ?", (dumps(data), dispute_id))


def open_on(conn: sqlite3.Connection, payment_id: str, statuses: tuple[str, ...]) -> str | None:
    """The id of the payment's dispute in one of `statuses` (an open one), or None."""
    busy = conn.execute(
        f"SELECT dispute_id FROM disputes WHERE payment_id = ? AND status IN "
        f"({','.join('?' * len(statuses))})",
        (payment_id, *statuses),
    ).fetchone()
    return None if busy is None else str(busy[0])


def load(conn: sqlite3.Connection, dispute_id: str) -> dict[str, Any]:
    """The dispute, or 404 IR_05."""
    found = conn.execute("SELECT data FROM disputes WHERE dispute_id = ?", (dispute_id,)).fetchone()
    if found is None:
        raise not_found("Dispute", dispute_id)
    data: dict[str, Any] = json.loads(found[0])
    return data


def save(conn: sqlite3.Connection, data: dict[str, Any], expires_at: float | None) -> None:
    """Write the dispute's status, stage, expiry and object."""
    conn.execute(
        "UPDATE disputes SET status = ?, stage = ?, expires_at = ?, data = ? WHERE dispute_id = ?",
        (
            data["dispute_status"],
            data["dispute_stage"],
            expires_at,
            dumps(data),
            data["dispute_id"],
        ),
    )


def insert(conn: sqlite3.Connection, data: dict[str, Any], expires_at: float) -> None:
    """Write a new dispute (no evidence yet)."""
    conn.execute(
        "INSERT INTO disputes(dispute_id, payment_id, status, stage, currency, amount, created, "
        "profile_id, expires_at, data) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
        (
            data["dispute_id"],
            data["payment_id"],
            data["dispute_status"],
            data["dispute_stage"],
            data["currency"],
            data["amount"],
            data["created"],
            data["profile_id"],
            expires_at,
            dumps(data),
        ),
    )


def set_evidence(conn: sqlite3.Connection, dispute_id: str, flat: dict[str, str]) -> None:
    """Keep the evidence as submitted (flat)."""
    conn.execute("UPDATE disputes SET evidence = ? WHERE dispute_id = ?", (dumps(flat), dispute_id))


def evidence(conn: sqlite3.Connection, dispute_id: str) -> tuple[dict[str, str], Any]:
    """(the evidence as submitted, flat; when it was submitted), or 404 IR_05."""
    found = conn.execute(
        "SELECT evidence, data FROM disputes WHERE dispute_id = ?", (dispute_id,)
    ).fetchone()
    if found is None:
        raise not_found("Dispute", dispute_id)
    flat: dict[str, str] = json.loads(found[0]) if found[0] else {}
    return flat, json.loads(found[1]).get("evidence_submitted_at")


def page(conn: sqlite3.Connection, q: DisputeListRequest) -> tuple[list[str], int]:
    """(one page of disputes as JSON text, newest first; how many match)."""
    where = Where()
    where.equal("status", str(q.status.value) if q.status is not None else None)
    where.equal("payment_id", q.payment_id)
    where.equal("stage", str(q.dispute_stage.value) if q.dispute_stage is not None else None)
    where.created(q.created_gte, q.created_lte)
    rows, total = where.page(conn, "disputes", q.limit, q.offset)
    return [r[0] for r in rows], total


def next_scheduled(conn: sqlite3.Connection) -> float | None:
    """When the next dispute the dispute card scheduled opens."""
    value = conn.execute(
        "SELECT MIN(due_at) FROM dispute_schedule WHERE opened_at IS NULL"
    ).fetchone()[0]
    return None if value is None else float(value)


def scheduled_due(conn: sqlite3.Connection, now: float) -> list[tuple[Any, ...]]:
    """(payment id, due at, reason) of each scheduled dispute due by `now`."""
    return conn.execute(
        "SELECT payment_id, due_at, reason FROM dispute_schedule "
        "WHERE opened_at IS NULL AND due_at <= ?",
        (now,),
    ).fetchall()


def mark_opened(conn: sqlite3.Connection, payment_id: str, now: float) -> None:
    """The payment's scheduled dispute has been opened (or had nothing left to dispute)."""
    conn.execute(
        "UPDATE dispute_schedule SET opened_at = ? WHERE payment_id = ?", (now, payment_id)
    )


def next_expiry(conn: sqlite3.Connection) -> float | None:
    """When the next open dispute passes its deadline."""
    value = conn.execute(
        "SELECT MIN(expires_at) FROM disputes WHERE expires_at IS NOT NULL"
    ).fetchone()[0]
    return None if value is None else float(value)


def expiring(conn: sqlite3.Connection, now: float) -> list[str]:
    """The disputes whose deadline has passed by `now`."""
    return [
        str(r[0])
        for r in conn.execute(
            "SELECT dispute_id FROM disputes WHERE expires_at IS NOT NULL AND expires_at <= ?",
            (now,),
        ).fetchall()
    ]
