"""Payouts' storage: the tables and every SQL statement the payouts resource runs outside
its seed. Account numbers reach it masked (`engine.shown_method`)."""

from __future__ import annotations

import json
import sqlite3
from typing import Any

from payscope.api.models.payouts import PayoutListRequest
from payscope.sandbox.clock import iso, parse_iso
from payscope.sandbox.db import dumps
from payscope.sandbox.errors import not_found

SCHEMA = """
CREATE TABLE IF NOT EXISTS payouts (
    payout_id TEXT PRIMARY KEY,
    status TEXT NOT NULL,
    amount INTEGER NOT NULL,
    currency TEXT NOT NULL,
    customer_id TEXT,
    payout_type TEXT,
    entity_type TEXT,
    created TEXT NOT NULL,
    due_at REAL,
    rule TEXT,
    data TEXT NOT NULL
);
CREATE INDEX IF NOT EXISTS payouts_created ON payouts(created);
CREATE INDEX IF NOT EXISTS payouts_due ON payouts(due_at) WHERE due_at IS NOT NULL;
CREATE TABLE IF NOT EXISTS payout_methods (
    payout_method_id TEXT PRIMARY KEY,
    customer_id TEXT,
    payout_type TEXT,
    rule TEXT,
    data TEXT NOT NULL
);
"""


def load(conn: sqlite3.Connection, payout_id: str) -> tuple[dict[str, Any], str | None]:
    """The payout and its test-account rule, or 404 IR_05."""
    found = conn.execute("SELECT data, rule FROM payouts WHERE payout_id = ?", (payout_id,))
    row = found.fetchone()
    if row is None:
        raise not_found("Payout", payout_id)
    data: dict[str, Any] = json.loads(row[0])
    return data, row[1]


def save(
    conn: sqlite3.Connection, data: dict[str, Any], rule: str | None, due_at: float | None
) -> None:
    conn.execute(
        "UPDATE payouts SET status = ?, amount = ?, currency = ?, customer_id = ?, "
        "payout_type = ?, entity_type = ?, due_at = ?, rule = ?, data = ? WHERE payout_id = ?",
        (
            data["status"],
            data["amount"],
            data["currency"],
            data["customer_id"],
            data["payout_type"],
            data["entity_type"],
            due_at,
            rule,
            dumps(data),
            data["payout_id"],
        ),
    )


def insert(
    conn: sqlite3.Connection, data: dict[str, Any], rule: str | None, due_at: float | None
) -> None:
    conn.execute(
        "INSERT INTO payouts(payout_id, status, amount, currency, customer_id, payout_type, "
        "entity_type, created, due_at, rule, data) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
        (
            data["payout_id"],
            data["status"],
            data["amount"],
            data["currency"],
            data["customer_id"],
            data["payout_type"],
            data["entity_type"],
            data["created"],
            due_at,
            rule,
            dumps(data),
        ),
    )


def insert_method(
    conn: sqlite3.Connection,
    method_id: str,
    payout_type: str | None,
    rule: str | None,
    shown: dict[str, Any],
) -> None:
    conn.execute(
        "INSERT INTO payout_methods(payout_method_id, customer_id, payout_type, rule, data) "
        "VALUES (?, ?, ?, ?, ?)",
        (method_id, None, payout_type, rule, dumps(shown)),
    )


def find_method(conn: sqlite3.Connection, method_id: str) -> tuple[str | None, str | None, Any]:
    """A saved payout method's `(payout_type, rule, shown data)`, or 404."""
    found = conn.execute(
        "SELECT payout_type, rule, data FROM payout_methods WHERE payout_method_id = ?",
        (method_id,),
    ).fetchone()
    if found is None:
        raise not_found("Payout method", method_id)
    return found[0], found[1], json.loads(found[2])


def claim_method(
    conn: sqlite3.Connection, method_id: str | None, customer_id: str, payout_type: str | None
) -> None:
    """The method is the customer's now (and gets the payout's type when it had none)."""
    conn.execute(
        "UPDATE payout_methods SET customer_id = ?, payout_type = COALESCE(payout_type, ?) "
        "WHERE payout_method_id = ?",
        (customer_id, payout_type, method_id),
    )


def find_customer(conn: sqlite3.Connection, customer_id: str) -> dict[str, Any] | None:
    found = conn.execute(
        "SELECT data FROM customers WHERE customer_id = ?", (customer_id,)
    ).fetchone()
    return None if found is None else dict(json.loads(found[0]))


def insert_customer(conn: sqlite3.Connection, record: dict[str, Any]) -> None:
    conn.execute(
        "INSERT INTO customers(customer_id, created, data) VALUES (?, ?, ?)",
        (record["customer_id"], record["created"], dumps(record)),
    )


def page(conn: sqlite3.Connection, q: PayoutListRequest) -> tuple[list[dict[str, Any]], int]:
    """One page of the list, newest first, and how many match in all."""
    where: list[str] = []
    args: list[Any] = []

    def any_of(column: str, values: list[str]) -> None:
        where.append(f"{column} IN ({','.join('?' * len(values))})")
        args.extend(values)

    if q.payout_id:
        any_of("payout_id", [q.payout_id])
    if q.customer_id:
        any_of("customer_id", [q.customer_id])
    if q.status:
        any_of("status", [str(s.value) for s in q.status])
    if q.currency:
        any_of("currency", [str(c) for c in q.currency])
    if q.payout_method:
        any_of("payout_type", [str(m) for m in q.payout_method])
    if q.entity_type is not None:
        any_of("entity_type", [str(q.entity_type.value)])
    if q.time_range is not None:
        where.append("created >= ?")
        args.append(iso(parse_iso(q.time_range.start_time)))
        if q.time_range.end_time:
            where.append("created <= ?")
            args.append(iso(parse_iso(q.time_range.end_time)))
    clause = f" WHERE {' AND '.join(where)}" if where else ""
    rows = conn.execute(
        f"SELECT data FROM payouts{clause} ORDER BY created DESC, rowid DESC LIMIT ? OFFSET ?",
        (*args, q.limit, q.offset),
    ).fetchall()
    total = int(conn.execute(f"SELECT COUNT(*) FROM payouts{clause}", args).fetchone()[0])
    return [json.loads(r[0]) for r in rows], total
