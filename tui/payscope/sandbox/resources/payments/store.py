"""Payments' storage: the tables, the payment object's shape, and every SQL statement the
payments resource runs.

The payment object is stored as JSON in `payments.data` (what lists splice in as is), with the
filtered fields in indexed columns. The raw card number is never stored: what the test card
will do is decided when the card arrives and kept in `card_rule`. `expires_at` is when the
payment's next timed step falls due: its authorisation expires, or a processing payment settles.
"""

from __future__ import annotations

import json
import sqlite3
from typing import Any

from payscope.api.models.payments import PaymentListRequest
from payscope.sandbox import ids
from payscope.sandbox.db import dumps
from payscope.sandbox.errors import invalid, not_found
from payscope.sandbox.filters import Where
from payscope.sandbox.state import SandboxState

SCHEMA = """
CREATE TABLE IF NOT EXISTS payments (
    payment_id TEXT PRIMARY KEY,
    merchant_id TEXT NOT NULL,
    status TEXT NOT NULL,
    amount INTEGER NOT NULL,
    currency TEXT NOT NULL,
    customer_id TEXT,
    payment_method TEXT,
    created TEXT NOT NULL,
    client_secret TEXT NOT NULL,
    card_rule TEXT,
    expires_at REAL,
    data TEXT NOT NULL
);
CREATE INDEX IF NOT EXISTS payments_created ON payments(created);
CREATE INDEX IF NOT EXISTS payments_status_created ON payments(status, created);
CREATE INDEX IF NOT EXISTS payments_currency_created ON payments(currency, created);
CREATE INDEX IF NOT EXISTS payments_customer_created ON payments(customer_id, created);
CREATE INDEX IF NOT EXISTS payments_amount ON payments(amount);
CREATE INDEX IF NOT EXISTS payments_method_created ON payments(payment_method, created);
CREATE INDEX IF NOT EXISTS payments_expiry ON payments(expires_at) WHERE expires_at IS NOT NULL;
CREATE TABLE IF NOT EXISTS payment_attempts (
    attempt_id TEXT PRIMARY KEY,
    payment_id TEXT NOT NULL,
    seq INTEGER NOT NULL,
    data TEXT NOT NULL
);
CREATE INDEX IF NOT EXISTS payment_attempts_payment ON payment_attempts(payment_id, seq);
CREATE TABLE IF NOT EXISTS dispute_schedule (
    payment_id TEXT PRIMARY KEY,
    due_at REAL NOT NULL,
    reason TEXT NOT NULL,
    opened_at REAL
);
CREATE INDEX IF NOT EXISTS dispute_schedule_due ON dispute_schedule(due_at)
    WHERE opened_at IS NULL;
"""

# Below this many matches, sorting them beats walking the created index to find a page.
_SMALL_RESULT = 2000

# Internal status -> what merchants see.
SHOWN = {"requires_customer_action": "requires_action"}
# What a list filter may say -> internal status.
FILTER_ALIASES = {"requires_action": "requires_customer_action"}

CONFIRMABLE = ("requires_payment_method", "requires_confirmation")
# The processor a payment names once attempted (`connector`), as its refunds and disputes do.
CONNECTOR = "sandbox"


class Row:
    """A loaded payment: internal columns plus the public JSON object."""

    __slots__ = ("card_rule", "data", "expires_at", "json", "status")

    def __init__(
        self, status: str, data: dict[str, Any], card_rule: dict[str, Any] | None, exp: float | None
    ) -> None:
        self.status = status
        self.data = data
        self.card_rule = card_rule
        self.expires_at = exp
        self.json = ""  # `data` as stored, set by `save` (reused for the event and the answer)

    @property
    def payment_id(self) -> str:
        return str(self.data["payment_id"])


def load(conn: sqlite3.Connection, payment_id: str) -> Row:
    """The payment, or 404 IR_05."""
    found = conn.execute(
        "SELECT status, data, card_rule, expires_at FROM payments WHERE payment_id = ?",
        (payment_id,),
    ).fetchone()
    if found is None:
        raise not_found("Payment", payment_id)
    rule = json.loads(found[2]) if found[2] else None
    return Row(str(found[0]), json.loads(found[1]), rule, found[3])


def save(conn: sqlite3.Connection, row: Row, now_iso: str) -> None:
    """Write back a changed payment (status shown as merchants see it)."""
    row.data["status"] = SHOWN.get(row.status, row.status)
    row.data["modified_at"] = now_iso
    row.json = dumps(row.data)
    conn.execute(
        "UPDATE payments SET status = ?, amount = ?, currency = ?, customer_id = ?, "
        "payment_method = ?, card_rule = ?, expires_at = ?, data = ? WHERE payment_id = ?",
        (
            row.status,
            row.data["amount"],
            row.data["currency"],
            row.data.get("customer_id"),
            row.data.get("payment_method"),
            dumps(row.card_rule) if row.card_rule else None,
            row.expires_at,
            row.json,
            row.payment_id,
        ),
    )


def insert(conn: sqlite3.Connection, row: Row) -> None:
    """Write a new payment (its status shown as merchants see it; `row.json` is set)."""
    data = row.data
    data["status"] = SHOWN.get(row.status, row.status)
    row.json = dumps(data)
    conn.execute(
        "INSERT INTO payments(payment_id, merchant_id, status, amount, currency, customer_id,"
        " payment_method, created, client_secret, card_rule, expires_at, data) "
        "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
        (
            row.payment_id,
            data["merchant_id"],
            row.status,
            data["amount"],
            data["currency"],
            data.get("customer_id"),
            data.get("payment_method"),
            data["created"],
            data["client_secret"],
            dumps(row.card_rule) if row.card_rule else None,
            row.expires_at,
            row.json,
        ),
    )


def exists(conn: sqlite3.Connection, payment_id: str) -> bool:
    """True when a payment with this id is stored."""
    found = conn.execute("SELECT 1 FROM payments WHERE payment_id = ?", (payment_id,))
    return found.fetchone() is not None


def customer_exists(conn: sqlite3.Connection, customer_id: str) -> bool:
    """True when the customers table holds this id."""
    found = conn.execute("SELECT 1 FROM customers WHERE customer_id = ?", (customer_id,))
    return found.fetchone() is not None


def count_attempts(conn: sqlite3.Connection, payment_id: str) -> int:
    found = conn.execute(
        "SELECT COUNT(*) FROM payment_attempts WHERE payment_id = ?", (payment_id,)
    ).fetchone()
    return int(found[0])


def insert_attempt(
    conn: sqlite3.Connection, payment_id: str, seq: int, attempt: dict[str, Any]
) -> None:
    conn.execute(
        "INSERT INTO payment_attempts(attempt_id, payment_id, seq, data) VALUES (?, ?, ?, ?)",
        (attempt["attempt_id"], payment_id, seq, dumps(attempt)),
    )


def last_attempt(conn: sqlite3.Connection, payment_id: str) -> tuple[str, dict[str, Any]] | None:
    """The latest attempt's id and object, or None before the first."""
    found = conn.execute(
        "SELECT attempt_id, data FROM payment_attempts WHERE payment_id = ? "
        "ORDER BY seq DESC LIMIT 1",
        (payment_id,),
    ).fetchone()
    return None if found is None else (str(found[0]), json.loads(found[1]))


def update_attempt(conn: sqlite3.Connection, attempt_id: str, attempt: dict[str, Any]) -> None:
    conn.execute(
        "UPDATE payment_attempts SET data = ? WHERE attempt_id = ?", (dumps(attempt), attempt_id)
    )


def schedule_dispute(conn: sqlite3.Connection, payment_id: str, due_at: float, reason: str) -> None:
    """The dispute test card's hook: a `dispute_schedule` row the disputes job opens at `due_at`
    (kept once per payment)."""
    conn.execute(
        "INSERT OR IGNORE INTO dispute_schedule(payment_id, due_at, reason) VALUES (?, ?, ?)",
        (payment_id, due_at, reason),
    )


def related(conn: sqlite3.Connection, payment_id: str) -> dict[str, list[Any]]:
    """The payment's `attempts`, `refunds` and `disputes` (none when no disputes resource is
    registered), as retrieve answers them."""
    out: dict[str, list[Any]] = {}
    out["attempts"] = [
        json.loads(r[0])
        for r in conn.execute(
            "SELECT data FROM payment_attempts WHERE payment_id = ? ORDER BY seq", (payment_id,)
        )
    ]
    out["refunds"] = [
        json.loads(r[0])
        for r in conn.execute(
            "SELECT data FROM refunds WHERE payment_id = ? ORDER BY created, rowid", (payment_id,)
        )
    ]
    try:
        out["disputes"] = [
            json.loads(r[0])
            for r in conn.execute("SELECT data FROM disputes WHERE payment_id = ?", (payment_id,))
        ]
    except sqlite3.OperationalError:
        out["disputes"] = []  # no disputes resource registered
    return out


def page(conn: sqlite3.Connection, q: PaymentListRequest) -> tuple[list[str], int]:
    """One page of the list (each payment's stored JSON) and how many match in all."""
    filters = Where()
    filters.among("status", (FILTER_ALIASES.get(str(s), str(s)) for s in q.status or ()))
    filters.among("currency", q.currency)
    filters.equal("customer_id", q.customer_id)
    filters.equal("payment_id", q.payment_id)
    filters.among("payment_method", q.payment_method)
    filters.created(q.created_gte, q.created_lte)
    where, args = filters.terms, filters.args
    # The amount bounds are written twice: `amount` lets SQLite use the amount index, and
    # `+amount` forbids it. Counting uses the index; listing a wide range walks the created
    # index instead (stopping at the page) rather than sorting every match.
    count_where, list_where = list(where), list(where)
    count_args, list_args = list(args), list(args)
    if q.amount_filter is not None:
        for bound, op in (
            (q.amount_filter.start_amount, ">="),
            (q.amount_filter.end_amount, "<="),
        ):
            if bound is not None:
                count_where.append(f"amount {op} ?")
                list_where.append(f"+amount {op} ?")
                count_args.append(bound)
                list_args.append(bound)
    count_clause = f" WHERE {' AND '.join(count_where)}" if count_where else ""
    total: int | None = None
    if q.amount_filter is not None:
        total = int(
            conn.execute(f"SELECT COUNT(*) FROM payments{count_clause}", count_args).fetchone()[0]
        )
        if total <= _SMALL_RESULT:
            list_where, list_args = count_where, count_args
    clause = f" WHERE {' AND '.join(list_where)}" if list_where else ""
    order = "created DESC, rowid DESC"
    if q.order is not None:
        if q.order.on not in ("created", "amount"):
            raise invalid("order.on", q.order.on, "'created' or 'amount'")
        direction = "ASC" if q.order.by == "asc" else "DESC"
        order = f"{q.order.on} {direction}, rowid {direction}"
    rows = conn.execute(
        f"SELECT data FROM payments{clause} ORDER BY {order} LIMIT ? OFFSET ?",
        (*list_args, q.limit, q.offset),
    ).fetchall()
    if total is None:
        if q.offset == 0 and len(rows) < q.limit:
            total = len(rows)
        else:
            total = int(
                conn.execute(f"SELECT COUNT(*) FROM payments{count_clause}", count_args).fetchone()[
                    0
                ]
            )
    return [r[0] for r in rows], total


def blank_payment(
    state: SandboxState, payment_id: str, now_iso: str, **fields: Any
) -> dict[str, Any]:
    """A new payment object in `requires_payment_method`: every field, `fields` over the
    defaults. Every way of making a payment (the API, subscriptions, links) starts here."""
    creds = state.credentials
    return payment_object(
        payment_id,
        creds.merchant_id,
        creds.profile_id,
        now_iso,
        client_secret=f"{payment_id}_secret_{ids.random_part(20)}",
        **fields,
    )


def payment_object(
    payment_id: str, merchant_id: str, profile_id: str, now_iso: str, **fields: Any
) -> dict[str, Any]:
    """Every field of a payment, in the service's order, `fields` over the defaults of a new
    one (the demo seed builds its rows here too, so both always carry the same fields).

    Unless given: `net_amount` is the amount (the sandbox adds no surcharge, tax or shipping),
    `processor_merchant_id` the merchant (no platform account), `attempt_count` 0 before
    confirmation, else 1 (each later attempt sets it), and `connector` null until then, else
    `sandbox` (the processor that handled it, as refunds name it). Fields that only some
    payments have (`enable_partial_authorization`, `expires_on`, `payment_link`) are added where
    they apply, not stored as nulls on every payment (the seed writes hundreds of thousands)."""
    data: dict[str, Any] = {
        "payment_id": payment_id,
        "merchant_id": merchant_id,
        "processor_merchant_id": merchant_id,
        "status": "requires_payment_method",
        "amount": None,
        "net_amount": None,
        "amount_received": 0,
        "amount_capturable": 0,
        "currency": None,
        "capture_method": "automatic",
        "authentication_type": "no_three_ds",
        "payment_method": None,
        "payment_method_type": None,
        "payment_method_data": None,
        "customer_id": None,
        "email": None,
        "name": None,
        "phone": None,
        "phone_country_code": None,
        "description": None,
        "statement_descriptor": None,
        "statement_descriptor_suffix": None,
        "metadata": None,
        "profile_id": profile_id,
        "return_url": None,
        "billing": None,
        "shipping": None,
        "order_details": None,
        "created": now_iso,
        "modified_at": now_iso,
        "captured_at": None,
        "attempt_count": None,
        "client_secret": None,
        "error_code": None,
        "error_message": None,
        "unified_code": None,
        "unified_message": None,
        "error_details": None,
        "next_action": None,
        "cancellation_reason": None,
        "connector": None,
        "connector_transaction_id": None,
        "browser_info": None,
        "payment_method_id": None,
        "setup_future_usage": None,
        "off_session": None,
        "mandate_id": None,
        "mandate_data": None,
    }
    unknown = fields.keys() - data.keys()
    assert not unknown, f"not payment fields: {sorted(unknown)}"
    data.update(fields)
    if data["net_amount"] is None:
        data["net_amount"] = data["amount"]
    if data["attempt_count"] is None:
        data["attempt_count"] = 0 if data["status"] in CONFIRMABLE else 1
    if data["connector"] is None and data["attempt_count"]:
        data["connector"] = CONNECTOR
    return data
