"""Helpers shared by the second batch of resources (disputes, subscriptions, payouts, links,
analytics, users): model validation for bodies read with `responses.read_object`, and payments
written on the merchant's behalf (subscription charges, the payment behind a payment link).

Payments written here have the same JSON shape as `payments.create_payment` writes, so the
payments list, retrieve, confirm and analytics treat them like any other.
"""

from __future__ import annotations

import sqlite3
from typing import Any, TypeVar

from pydantic import BaseModel, ValidationError

from payscope.sandbox import cards, ids, methods
from payscope.sandbox.clock import iso
from payscope.sandbox.db import dumps
from payscope.sandbox.errors import from_validation_error
from payscope.sandbox.resources import payments
from payscope.sandbox.state import SandboxState

M = TypeVar("M", bound=BaseModel)


def validate(model: type[M], data: Any) -> M:
    """`model.model_validate(data)` with failures mapped to the envelope (IR_01 / IR_04)."""
    try:
        return model.model_validate(data)
    except ValidationError as exc:
        raise from_validation_error(exc) from None


def new_payment(
    state: SandboxState,
    *,
    amount: int,
    currency: str,
    now: float,
    customer_id: str | None = None,
    description: str | None = None,
    metadata: dict[str, Any] | None = None,
    capture_method: str = "automatic",
    authentication_type: str = "no_three_ds",
    email: str | None = None,
    return_url: str | None = None,
) -> payments.Row:
    """A payment in `requires_payment_method`, shaped like one made by POST /payments."""
    data = payments.blank_payment(
        state,
        ids.time_ordered_id("pay", now),
        iso(now),
        amount=amount,
        currency=currency,
        capture_method=capture_method,
        authentication_type=authentication_type,
        customer_id=customer_id,
        email=email,
        description=description,
        metadata=metadata,
        return_url=return_url,
    )
    return payments.Row("requires_payment_method", data, None, None)


def charge_off_session(row: payments.Row, now: float) -> bool:
    """Charge the payment's method without the customer present; True when the money was taken.

    `row.card_rule` is the method's stored outcome (`payments.card_rule`, a saved method's
    rule, or a mandate's). A merchant-initiated charge has no one to run 3-D Secure, a review
    or a bank's page, so only a decline fails it (a card needing authentication declines with
    UE_2002; a debit whose test value fails declines with its code).
    """
    rule = row.card_rule or {}
    outcome, code = rule.get("outcome"), rule.get("code")
    if outcome == cards.NEEDS_3DS:
        outcome, code = cards.DECLINED, "UE_2002"
    if rule.get("settle") == methods.FAILED:
        outcome, code = cards.DECLINED, rule.get("settle_code") or rule.get("fail_code")
    if outcome == cards.DECLINED or rule.get("fails_renewals"):
        decline = cards.decline(str(code or "UE_1001")).fields(str(rule.get("brand", "Unknown")))
        row.status = "failed"
        row.data.update(decline)
        return False
    row.status = "succeeded"
    row.data.update({"amount_received": row.data["amount"], "captured_at": iso(now)})
    return True


def insert_payment(conn: sqlite3.Connection, state: SandboxState, row: payments.Row) -> None:
    """Write a new payment (and, once attempted, its first attempt and its event)."""
    data = row.data
    data["status"] = payments.SHOWN.get(row.status, row.status)
    if row.status in ("succeeded", "failed"):
        data["attempt_count"] = 1
        data["connector"] = payments.CONNECTOR
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
            dumps(data),
        ),
    )
    if row.status in ("succeeded", "failed"):
        attempt = {
            "attempt_id": f"{row.payment_id}_1",
            "status": "charged" if row.status == "succeeded" else "failure",
            "amount": data["amount"],
            "currency": data["currency"],
            "payment_method": data.get("payment_method"),
            "authentication_type": data.get("authentication_type"),
            "created_at": data["created"],
            "modified_at": data["created"],
            **{
                k: data.get(k)
                for k in ("error_code", "error_message", "unified_code", "unified_message")
            },
        }
        conn.execute(
            "INSERT INTO payment_attempts(attempt_id, payment_id, seq, data) VALUES (?, ?, 1, ?)",
            (attempt["attempt_id"], row.payment_id, dumps(attempt)),
        )
        payments.emit_status(conn, state, row)
