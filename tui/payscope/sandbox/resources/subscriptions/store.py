"""Subscriptions' SQL: the tables, loading and saving a subscription, its invoices, the lists."""

from __future__ import annotations

import json
import sqlite3
from typing import Any

from payscope.sandbox.clock import iso, parse_iso
from payscope.sandbox.db import dumps
from payscope.sandbox.errors import not_found

SCHEMA = """
CREATE TABLE IF NOT EXISTS subscriptions (
    id TEXT PRIMARY KEY,
    profile_id TEXT NOT NULL,
    customer_id TEXT NOT NULL,
    status TEXT NOT NULL,
    created TEXT NOT NULL,
    billing_at REAL,
    secret_expires_at REAL,
    scheduled_at REAL,
    card_rule TEXT,
    data TEXT NOT NULL
);
CREATE INDEX IF NOT EXISTS subscriptions_billing ON subscriptions(billing_at)
    WHERE billing_at IS NOT NULL;
CREATE INDEX IF NOT EXISTS subscriptions_secret ON subscriptions(secret_expires_at)
    WHERE secret_expires_at IS NOT NULL;
CREATE INDEX IF NOT EXISTS subscriptions_scheduled ON subscriptions(scheduled_at)
    WHERE scheduled_at IS NOT NULL;
CREATE TABLE IF NOT EXISTS subscription_invoices (
    id TEXT PRIMARY KEY,
    subscription_id TEXT NOT NULL,
    created TEXT NOT NULL,
    data TEXT NOT NULL
);
CREATE INDEX IF NOT EXISTS subscription_invoices_sub ON subscription_invoices(subscription_id);
"""


class Sub:
    """A loaded subscription: the public record and its scheduling columns."""

    def __init__(self, data: dict[str, Any], rule: dict[str, Any] | None) -> None:
        self.data = data
        self.rule = rule
        self.billing_at: float | None = ts(data.get("next_billing_at"))
        self.secret_expires_at: float | None = ts(data.get("client_secret_expires_at"))
        scheduled = data.get("scheduled_change")
        self.scheduled_at: float | None = ts(scheduled["at"]) if scheduled else None


def ts(value: Any) -> float | None:
    return None if value is None else parse_iso(str(value))


def load(conn: sqlite3.Connection, sub_id: str, profile_id: str | None = None) -> Sub:
    found = conn.execute(
        "SELECT data, card_rule, profile_id FROM subscriptions WHERE id = ?", (sub_id,)
    ).fetchone()
    if found is None or (profile_id is not None and found[2] != profile_id):
        raise not_found("Subscription", sub_id)
    return Sub(json.loads(found[0]), json.loads(found[1]) if found[1] else None)


def derive(sub: Sub, now: float) -> None:
    """Set the fields that follow from the others: modified_at, next_billing_at."""
    data = sub.data
    data["modified_at"] = iso(now)
    billing = sub.billing_at if data["status"] in ("active", "trial") else None
    data["next_billing_at"] = iso(billing) if billing is not None else None
    sub.billing_at = billing


def save(conn: sqlite3.Connection, sub: Sub, now: float) -> None:
    derive(sub, now)
    data = sub.data
    conn.execute(
        "UPDATE subscriptions SET status = ?, billing_at = ?, secret_expires_at = ?, "
        "scheduled_at = ?, card_rule = ?, data = ? WHERE id = ?",
        (
            data["status"],
            sub.billing_at,
            sub.secret_expires_at,
            sub.scheduled_at,
            dumps(sub.rule) if sub.rule else None,
            dumps(data),
            data["id"],
        ),
    )


def view(sub: Sub) -> dict[str, Any]:
    return {k: v for k, v in sub.data.items() if k != "client_secret_expires_at"}


def insert(
    conn: sqlite3.Connection,
    data: dict[str, Any],
    rule: dict[str, Any] | None,
) -> None:
    """Write a new subscription's row (status `created`)."""
    conn.execute(
        "INSERT INTO subscriptions(id, profile_id, customer_id, status, created, card_rule, "
        "data) VALUES (?, ?, ?, 'created', ?, ?, ?)",
        (
            data["id"],
            data["profile_id"],
            data["customer_id"],
            data["created_at"],
            dumps(rule) if rule else None,
            dumps(data),
        ),
    )


def insert_invoice(conn: sqlite3.Connection, invoice: dict[str, Any]) -> None:
    conn.execute(
        "INSERT INTO subscription_invoices(id, subscription_id, created, data) VALUES (?, ?, ?, ?)",
        (invoice["id"], invoice["subscription_id"], invoice["created"], dumps(invoice)),
    )


def stored_rules(conn: sqlite3.Connection, customer_id: str) -> list[dict[str, Any]]:
    """The stored method rules of a customer's subscriptions."""
    return [
        json.loads(text)
        for (text,) in conn.execute(
            "SELECT card_rule FROM subscriptions WHERE customer_id = ? AND card_rule IS NOT NULL",
            (customer_id,),
        )
    ]


def list_page(
    conn: sqlite3.Connection,
    profile_id: str,
    statuses: list[str],
    customer_id: str | None,
    plan_id: str | None,
    limit: int,
    offset: int,
) -> tuple[list[str], int]:
    """One page of the profile's subscriptions, newest first, as JSON text, and the total."""
    where, params = ["profile_id = ?"], [profile_id]
    if statuses:
        where.append(f"status IN ({', '.join('?' * len(statuses))})")
        params += statuses
    if customer_id is not None:
        where.append("customer_id = ?")
        params.append(customer_id)
    if plan_id is not None:
        where.append("json_extract(data, '$.plan_id') = ?")
        params.append(plan_id)
    clause = " AND ".join(where)
    rows = conn.execute(
        f"SELECT data FROM subscriptions WHERE {clause} "
        "ORDER BY created DESC, rowid DESC LIMIT ? OFFSET ?",
        (*params, limit, offset),
    ).fetchall()
    total = int(
        conn.execute(f"SELECT COUNT(*) FROM subscriptions WHERE {clause}", params).fetchone()[0]
    )
    return [dumps(view(Sub(json.loads(r[0]), None))) for r in rows], total


def invoice_page(
    conn: sqlite3.Connection, subscription_id: str, limit: int, offset: int
) -> tuple[list[str], int]:
    """One page of a subscription's invoices, newest first, each with its `payment`."""
    rows = conn.execute(
        "SELECT data FROM subscription_invoices WHERE subscription_id = ? "
        "ORDER BY created DESC, rowid DESC LIMIT ? OFFSET ?",
        (subscription_id, limit, offset),
    ).fetchall()
    total = int(
        conn.execute(
            "SELECT COUNT(*) FROM subscription_invoices WHERE subscription_id = ?",
            (subscription_id,),
        ).fetchone()[0]
    )
    invoices = [json.loads(r[0]) for r in rows]
    for invoice in invoices:
        invoice["payment"] = invoice_payment(conn, invoice.get("payment_id"))
    return [dumps(i) for i in invoices], total


def invoice_payment(conn: sqlite3.Connection, payment_id: Any) -> dict[str, Any] | None:
    if not payment_id:
        return None
    found = conn.execute(
        "SELECT data FROM payments WHERE payment_id = ?", (str(payment_id),)
    ).fetchone()
    if found is None:
        return None
    data: dict[str, Any] = json.loads(found[0])
    keys = ("payment_id", "status", "amount", "currency", "unified_code", "unified_message")
    return {k: data.get(k) for k in keys}
