"""The payments resource's state changes: create, update, confirm, capture, cancel, approve,
reject, and the customer's answer to a challenge or a method's page. No HTTP here: the routes
(`routes.py`) read the request and hand over its body and the sandbox's root URL.

    create (confirm false) -> requires_payment_method, or requires_confirmation with a card
    confirm -> see `outcomes` (the card's or method's answer decides)
    approve -> succeeded (automatic) | requires_capture (manual); reject -> failed
    capture -> succeeded | partially_captured | partially_captured_and_capturable
    cancel -> cancelled;  7 days in requires_capture (or partially authorised) -> expired

Every event carries the payment as saved by the same change (`save` before `emit_status`).
Other resources write payments on the merchant's behalf here too (`new_payment`,
`insert_payment`, `charge_off_session`: subscription charges, the payment behind a link), so
the payments list, retrieve, confirm and analytics treat them like any other.
"""

from __future__ import annotations

import hmac
import sqlite3
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from typing import Any

from payscope.api.models.payments import (
    PaymentCancelRequest,
    PaymentCaptureRequest,
    PaymentConfirmRequest,
    PaymentCreateRequest,
    PaymentUpdateRequest,
)
from payscope.sandbox import cards, ids, method_types
from payscope.sandbox.clock import iso
from payscope.sandbox.db import dumps
from payscope.sandbox.errors import (
    SandboxError,
    bad_state,
    conflict,
    forbidden,
    invalid,
)
from payscope.sandbox.outbox import emit
from payscope.sandbox.resources._links import link_payment
from payscope.sandbox.resources.payments import store
from payscope.sandbox.resources.payments.outcomes import (
    ATTEMPT_AFTER_CAPTURE,
    authorise,
    card_answer,
    fail,
    finish_method,
    money_taken,
    run_confirmation,
    update_last_attempt,
)
from payscope.sandbox.resources.payments.paid_with import apply_method, apply_saved, needs_billing
from payscope.sandbox.resources.payments.store import (
    CONFIRMABLE,
    CONNECTOR,
    SHOWN,
    Row,
    blank_payment,
    customer_exists,
    load,
    save,
)
from payscope.sandbox.state import SandboxState

# The reference's status-to-event table (one event per change: see `emit_status`).
STATUS_EVENTS = {
    "succeeded": "payment_succeeded",
    "failed": "payment_failed",
    "processing": "payment_processing",
    "requires_customer_action": "action_required",
    "requires_merchant_action": "action_required",
    "cancelled": "payment_cancelled",
    "requires_capture": "payment_authorized",
    "partially_authorized_and_requires_capture": "payment_authorized",
    "partially_captured": "payment_captured",
    "partially_captured_and_capturable": "payment_captured",
    "expired": "payment_expired",
}

UPDATABLE = ("requires_payment_method", "requires_confirmation")
CAPTURABLE = (
    "requires_capture",
    "partially_captured_and_capturable",
    "partially_authorized_and_requires_capture",
)
CANCELLABLE = (
    "requires_payment_method",
    "requires_confirmation",
    "requires_customer_action",
    "requires_merchant_action",
    "requires_capture",
    "partially_authorized_and_requires_capture",
)
_IN_REVIEW = ("requires_merchant_action",)
_CHALLENGED = ("requires_customer_action",)
THREE_DS_RESULTS = ("authorize", "fail", "abandon")


def emit_status(conn: sqlite3.Connection, state: SandboxState, row: Row) -> None:
    """Write the event the payment's status calls for, if any (outbox, same transaction).

    One event per change, not per (payment, type): the key is the attempt, and for
    `payment_captured` also the amount captured so far, so each partial capture is an event
    of its own while a save that changes nothing sends nothing again."""
    event_type = STATUS_EVENTS.get(row.status)
    if event_type is not None:
        change = f"{row.payment_id}_{row.data.get('attempt_count') or 0}"
        if event_type == "payment_captured":
            change += f":captured={row.data.get('amount_received') or 0}"
        emit(
            conn,
            state,
            event_type=event_type,
            event_class="payments",
            object_id=row.payment_id,
            obj_json=row.json or dumps(row.data),
            change_key=change,
        )


@contextmanager
def changing(
    state: SandboxState, payment_id: str, action: str, allowed: Sequence[str] | None
) -> Iterator[tuple[sqlite3.Connection, Row, float]]:
    """One state change of a payment, in one transaction: yields `(conn, row, now)` after
    loading it (404) and checking its status is in `allowed` (400 naming both; None skips
    the check), then saves it and writes the event its new status calls for."""
    with state.db.transaction() as conn:
        row = load(conn, payment_id)
        if allowed is not None and row.status not in allowed:
            shown = SHOWN.get(row.status, row.status)
            raise bad_state(action, "payment", shown, [SHOWN.get(s, s) for s in allowed])
        now = state.clock.now()
        yield conn, row, now
        save(conn, row, iso(now))
        emit_status(conn, state, row)


def check_customer(
    conn: sqlite3.Connection, customer_id: str | None, *, optional: bool = False
) -> None:
    """404 IR_05 unless `customer_id` is None or a customer this sandbox holds (payments,
    links and subscriptions alike); `optional` adds that leaving it out is fine too."""
    if customer_id is None or customer_exists(conn, customer_id):
        return
    leave_out = " (or leave customer_id out)" if optional else ""
    raise SandboxError(
        404,
        "invalid_request",
        "IR_05",
        f"Customer {customer_id!r} does not exist: create it with POST /customers first "
        f"and send the customer_id it returns{leave_out}.",
    )


def check_secret(row: Row, presented: str | None) -> None:
    """403 unless `presented` is the payment's client_secret."""
    if not presented or not hmac.compare_digest(
        presented.encode(), str(row.data.get("client_secret") or "").encode()
    ):
        raise forbidden(
            "A publishable key (pk_snd_) must present this payment's client_secret "
            "(the one returned when the payment was created) to use it from the browser."
        )


def create(state: SandboxState, body: PaymentCreateRequest, base: str) -> Row:
    """A new payment from `body`; with `confirm: true` it is confirmed in the same change.
    `base` is the sandbox's root URL (for the challenge page and a link's checkout page)."""
    now = state.clock.now()
    now_iso = iso(now)
    creds = state.credentials
    payment_id = body.payment_id or ids.time_ordered_id("pay", now)
    if body.profile_id is not None and body.profile_id != creds.profile_id:
        raise invalid("profile_id", body.profile_id, f"this sandbox's profile {creds.profile_id!r}")
    data = blank_payment(
        state,
        payment_id,
        now_iso,
        amount=body.amount,
        currency=body.currency,
        capture_method=body.capture_method or "automatic",
        authentication_type=body.authentication_type or "no_three_ds",
        customer_id=body.customer_id,
        email=body.email,
        name=body.name,
        phone=body.phone,
        phone_country_code=body.phone_country_code,
        description=body.description,
        statement_descriptor=body.statement_descriptor_name,
        statement_descriptor_suffix=body.statement_descriptor_suffix,
        metadata=body.metadata,
        return_url=body.return_url,
        shipping=body.shipping.to_body() if body.shipping else None,
        order_details=[o.to_body() for o in body.order_details] if body.order_details else None,
    )
    if body.enable_partial_authorization is not None:
        data["enable_partial_authorization"] = body.enable_partial_authorization
    if body.session_expiry:
        data["expires_on"] = iso(now + body.session_expiry)
    row = Row("requires_payment_method", data, None, None)
    apply_method(state, row, body)
    with state.db.transaction() as conn:
        # A generated id is 20 random characters: only an id the caller chose can clash.
        if body.payment_id is not None and store.exists(conn, payment_id):
            raise conflict(
                "HE_01",
                f"A payment with payment_id {payment_id!r} already exists: the original request "
                f"was received. Read its status with GET /payments/{payment_id}; nothing was "
                "changed.",
            )
        check_customer(conn, body.customer_id, optional=True)
        apply_saved(conn, state, row, body)
        if row.card_rule is not None:
            row.status = "requires_confirmation"
        if body.payment_link:
            # The real service's way to make a link (it lists and retrieves them under
            # /payment_link, like the ones POST /payment_link makes).
            link_payment(conn, state, base, row.data, body, now)
        if body.confirm:
            run_confirmation(conn, state, row, base, now, first=True)
        store.insert(conn, row)
        emit_status(conn, state, row)
    return row


# The fields an update takes as sent.
_UPDATED_AS_SENT = (
    "amount",
    "currency",
    "customer_id",
    "capture_method",
    "authentication_type",
    "description",
    "email",
    "name",
    "phone",
    "phone_country_code",
    "metadata",
    "enable_partial_authorization",
)


def update(state: SandboxState, payment_id: str, body: PaymentUpdateRequest) -> Row:
    """Change amount, currency, customer, card, ... while the payment is not yet confirmed."""
    with state.db.transaction() as conn:
        row = load(conn, payment_id)
        if row.status not in UPDATABLE:
            raise bad_state("update", "payment", row.status, UPDATABLE)
        check_customer(conn, body.customer_id, optional=True)
        fields = body.model_dump(exclude_none=True, exclude={"payment_method_data", "billing"})
        for key in _UPDATED_AS_SENT:
            if key in fields:
                value = fields[key]
                row.data[key] = value.value if hasattr(value, "value") else value
        row.data["net_amount"] = row.data["amount"]
        if body.statement_descriptor_name is not None:
            row.data["statement_descriptor"] = body.statement_descriptor_name
        if body.shipping is not None:
            row.data["shipping"] = body.shipping.to_body()
        if body.order_details is not None:
            row.data["order_details"] = [o.to_body() for o in body.order_details]
        needs_billing(row, body)
        apply_method(state, row, body)
        apply_saved(conn, state, row, body)
        if row.card_rule is not None:
            row.status = "requires_confirmation"
        save(conn, row, state.clock.now_iso())
    return row


def confirm(
    state: SandboxState,
    payment_id: str,
    body: PaymentConfirmRequest,
    base: str,
    *,
    publishable: bool,
) -> Row:
    """Authorise with the card given here (or earlier). With the publishable key (`publishable`)
    the body's client_secret must be the payment's."""
    with changing(state, payment_id, "confirm", None) as (conn, row, now):
        if publishable:
            check_secret(row, body.client_secret)
        if row.status not in CONFIRMABLE:
            raise bad_state("confirm", "payment", row.status, CONFIRMABLE)
        needs_billing(row, body)
        apply_method(state, row, body)
        apply_saved(conn, state, row, body)
        run_confirmation(conn, state, row, base, now)
    return row


def capture(state: SandboxState, payment_id: str, body: PaymentCaptureRequest) -> Row:
    """Take all (default) or part of the authorised amount."""
    with changing(state, payment_id, "capture", None) as (conn, row, now):
        if row.status in ("succeeded", "partially_captured", "cancelled", "expired"):
            raise conflict(
                "IR_04",
                f"This payment cannot be captured: it is {row.status} "
                "(already captured, cancelled or expired).",
            )
        if row.status not in CAPTURABLE:
            raise bad_state("capture", "payment", row.status, CAPTURABLE)
        capturable = int(row.data["amount_capturable"])
        amount = body.amount_to_capture if body.amount_to_capture is not None else capturable
        if amount > capturable:
            raise invalid("amount_to_capture", amount, f"at most amount_capturable ({capturable})")
        received = int(row.data.get("amount_received") or 0) + amount
        left = capturable - amount
        row.data["amount_received"] = received
        row.data["captured_at"] = iso(now)
        if body.statement_descriptor_suffix is not None:
            row.data["statement_descriptor_suffix"] = body.statement_descriptor_suffix
        if body.statement_descriptor_prefix is not None:
            row.data["statement_descriptor"] = body.statement_descriptor_prefix
        if received >= int(row.data["amount"]):
            row.status, row.data["amount_capturable"], row.expires_at = "succeeded", 0, None
        elif row.data.get("capture_method") == "manual_multiple" and left > 0:
            row.status, row.data["amount_capturable"] = "partially_captured_and_capturable", left
        else:
            row.status, row.data["amount_capturable"], row.expires_at = (
                "partially_captured",
                0,
                None,
            )
        money_taken(conn, row, now)
        # The attempt says what the capture did, as the real service's does.
        update_last_attempt(conn, row, ATTEMPT_AFTER_CAPTURE[row.status], iso(now), {})
    return row


def cancel(state: SandboxState, payment_id: str, body: PaymentCancelRequest | None) -> Row:
    """Void the payment: nothing is (or will be) charged."""
    with changing(state, payment_id, "cancel", CANCELLABLE) as (_, row, _now):
        row.status = "cancelled"
        row.expires_at = None
        row.data.update(
            {
                "amount_capturable": 0,
                "next_action": None,
                "cancellation_reason": body.cancellation_reason if body else None,
            }
        )
    return row


def approve(state: SandboxState, payment_id: str) -> Row:
    """requires_merchant_action -> succeeded (or requires_capture with manual capture)."""
    with changing(state, payment_id, "approve", _IN_REVIEW) as (conn, row, now):
        status = authorise(conn, state, row, now)
        update_last_attempt(conn, row, status, iso(now), {})
    return row


def reject(state: SandboxState, payment_id: str) -> Row:
    """requires_merchant_action -> failed with error_code manual_review_rejected."""
    with changing(state, payment_id, "reject", _IN_REVIEW) as (conn, row, now):
        row.status = "failed"
        decline = {
            "error_code": "manual_review_rejected",
            "error_message": "The merchant rejected this payment after manual review; "
            "the authorisation was voided and the customer was not charged.",
            "unified_code": None,
            "unified_message": None,
        }
        row.data.update(decline)
        row.data["amount_capturable"] = 0
        update_last_attempt(conn, row, "voided", iso(now), decline)
    return row


def complete_challenge(state: SandboxState, payment_id: str, result: str) -> Row:
    """Finish the 3-D Secure challenge of `payment_id` with `result` (see THREE_DS_RESULTS).

    Raises 404 for an unknown payment and 400 when no challenge is pending.
    """
    if result not in THREE_DS_RESULTS:
        raise invalid("result", result, "'authorize', 'fail' or 'abandon'")
    with changing(state, payment_id, "complete the customer's step for", _CHALLENGED) as (
        conn,
        row,
        now,
    ):
        if (row.card_rule or {}).get("family"):
            finish_method(conn, state, row, result, now)
        elif result == "authorize":
            status = card_answer(conn, state, row, now)
            decline = row.data if row.status == "failed" else {}
            update_last_attempt(conn, row, status, iso(now), decline)
        else:
            decline = fail(row, "UE_5001" if result == "fail" else "UE_5003")
            update_last_attempt(conn, row, "authentication_failed", iso(now), decline)
    return row


def complete_redirect(state: SandboxState, payment_id: str, result: str) -> Row:
    """`complete_challenge` for a non-card method's step (400 when the payment waits on a
    3-D Secure challenge instead)."""
    row = load(state.db.conn, payment_id)
    if row.status == "requires_customer_action" and not (row.card_rule or {}).get("family"):
        raise SandboxError(
            400,
            "invalid_request",
            "IR_04",
            f"Payment {payment_id} waits on a 3-D Secure challenge, not a method's step: "
            f"use POST /_sandbox/payments/{payment_id}/3ds.",
        )
    return complete_challenge(state, payment_id, result)


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
) -> Row:
    """A payment in `requires_payment_method`, shaped like one made by POST /payments."""
    data = blank_payment(
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
    return Row("requires_payment_method", data, None, None)


def charge_off_session(row: Row, now: float) -> bool:
    """Charge the payment's method without the customer present; True when the money was taken.

    `row.card_rule` is the method's stored outcome (`_cards.card_rule`, a saved method's
    rule, or a mandate's). A merchant-initiated charge has no one to run 3-D Secure, a review
    or a bank's page, so only a decline fails it (a card needing authentication declines with
    UE_2002; a debit whose test value fails declines with its code).
    """
    rule = row.card_rule or {}
    outcome, code = rule.get("outcome"), rule.get("code")
    if outcome == cards.NEEDS_3DS:
        outcome, code = cards.DECLINED, "UE_2002"
    if rule.get("settle") == method_types.FAILED:
        outcome, code = cards.DECLINED, rule.get("settle_code") or rule.get("fail_code")
    if outcome == cards.DECLINED or rule.get("fails_renewals"):
        decline = cards.decline(str(code or "UE_1001")).fields(str(rule.get("brand", "Unknown")))
        row.status = "failed"
        row.data.update(decline)
        return False
    row.status = "succeeded"
    row.data.update({"amount_received": row.data["amount"], "captured_at": iso(now)})
    return True


def insert_payment(conn: sqlite3.Connection, state: SandboxState, row: Row) -> None:
    """Write a new payment (and, once attempted, its first attempt and its event)."""
    data = row.data
    data["status"] = SHOWN.get(row.status, row.status)
    if row.status in ("succeeded", "failed"):
        data["attempt_count"] = 1
        data["connector"] = CONNECTOR
    store.insert(conn, row)
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
        store.insert_attempt(conn, row.payment_id, 1, attempt)
        emit_status(conn, state, row)
