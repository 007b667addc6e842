"""The refunds resource's state changes: create (what is left to refund, the test cards'
asynchronous path), update, decide (settle, fail, hold for review). No HTTP here: the routes
(`routes.py`) hand over the validated body. The flow is in the package docstring.
"""

from __future__ import annotations

import sqlite3
from typing import Any, Final

from payscope.api.models.refunds import RefundCreateRequest, RefundUpdateRequest
from payscope.sandbox import cards, ids
from payscope.sandbox.clock import iso
from payscope.sandbox.errors import INVALID, SandboxError, bad_state, conflict, invalid
from payscope.sandbox.outbox import emit
from payscope.sandbox.resources.disputes.engine import refresh_already_refunded
from payscope.sandbox.resources.disputes.store import charged_back
from payscope.sandbox.resources.payments.store import load as load_payment
from payscope.sandbox.resources.refunds import store
from payscope.sandbox.state import SandboxState

SETTLE_SECONDS: Final = {"instant": 10, "scheduled": 3600}
# The test cards whose refunds start `pending` and settle on the clock (what each settles to is
# decided then, by the clock job); every other refund settles at once.
ASYNC_REFUNDS: Final = frozenset({cards.REFUND_PENDING, cards.REFUND_FAILS, cards.REFUND_REVIEW})
MAX_REFUNDS_PER_PAYMENT: Final = 10
REFUNDABLE: Final = ("succeeded", "partially_captured", "partially_captured_and_capturable")

# What the real service answers a refund of more than is left to refund.
REFUND_EXCEEDS: Final = "The refund amount exceeds the amount captured"


def create(state: SandboxState, body: RefundCreateRequest) -> dict[str, Any]:
    """Create a refund: `succeeded` at once, or `pending` for the asynchronous test cards."""
    now = state.clock.now()
    refund_id = body.refund_id or ids.new_id("ref")
    refund_type = str(body.refund_type.value) if body.refund_type else "instant"
    with state.db.transaction() as conn:
        if store.exists(conn, refund_id):
            raise conflict(
                "HE_01",
                f"A refund with refund_id {refund_id!r} already exists: the original request was "
                f"received. Read it with GET /refunds/{refund_id}; nothing was changed.",
            )
        payment = load_payment(conn, body.payment_id)
        if payment.status not in REFUNDABLE:
            raise bad_state("refund", "payment", payment.status, REFUNDABLE)
        received = int(payment.data.get("amount_received") or 0)
        held, count = store.refunded_so_far(conn, body.payment_id)
        if count >= MAX_REFUNDS_PER_PAYMENT:
            raise SandboxError(
                400,
                INVALID,
                "IR_04",
                f"Payment {body.payment_id!r} already has {count} refunds, the most allowed.",
            )
        # What lost disputes charged back went to the cardholder already: not refundable.
        lost = charged_back(conn, body.payment_id)
        left = received - held - lost
        amount = body.amount if body.amount is not None else left
        if left <= 0:
            raise SandboxError(
                400,
                INVALID,
                "IR_04",
                (
                    f"Payment {body.payment_id!r} has nothing left to refund: of {received} "
                    f"{payment.data['currency']} received, {held} is refunded and {lost} was "
                    "charged back by lost disputes."
                )
                if lost
                else f"Payment {body.payment_id!r} is already fully refunded "
                f"({held} of {received} {payment.data['currency']}).",
            )
        if amount > left and lost:
            raise invalid(
                "amount",
                amount,
                f"at most {left} (amount received {received} minus {held} already refunded "
                f"minus {lost} charged back by lost disputes)",
            )
        if amount > left:
            # The real service's words for it (the spec gives none); what is left to refund is
            # on the payment (amount_received less its refunds).
            raise SandboxError(400, INVALID, "IR_04", REFUND_EXCEEDS)
        created = iso(now)
        data = {
            "refund_id": refund_id,
            "payment_id": body.payment_id,
            "merchant_id": state.credentials.merchant_id,
            "amount": amount,
            "currency": payment.data["currency"],
            "status": "pending",
            "reason": body.reason,
            "refund_type": refund_type,
            "metadata": body.metadata,
            "created": created,
            "modified_at": created,
            "error_code": None,
            "error_message": None,
            "unified_code": None,
            "unified_message": None,
            "profile_id": state.credentials.profile_id,
            "connector": "sandbox",
        }
        store.insert(conn, data, now + SETTLE_SECONDS[refund_type])
        if (payment.card_rule or {}).get("outcome") not in ASYNC_REFUNDS:
            decide(conn, state, data, "succeeded", now)
        refresh_already_refunded(conn, body.payment_id)
    return data


def update(state: SandboxState, refund_id: str, body: RefundUpdateRequest) -> dict[str, Any]:
    """Only `reason` and `metadata` change."""
    with state.db.transaction() as conn:
        data = store.load(conn, refund_id)
        if body.reason is not None:
            data["reason"] = body.reason
        if body.metadata is not None:
            data["metadata"] = body.metadata
        data["modified_at"] = state.clock.now_iso()
        store.set_data(conn, refund_id, data)
    return data


def decide(
    conn: sqlite3.Connection, state: SandboxState, data: dict[str, Any], status: str, now: float
) -> None:
    """Settle a refund as `status` (succeeded, failed or review), save it, and emit the event
    of a decided one (review has none)."""
    if status == "failed":
        data.update(
            {
                "error_code": "refund_failed",
                "error_message": "The issuer refused the refund: the card account is closed.",
                "unified_code": "UE_1016",
                "unified_message": cards.UNIFIED["UE_1016"][0],
            }
        )
    data["status"] = status
    data["modified_at"] = iso(now)
    store.settled(conn, data)
    if status == "failed":  # no longer paid back
        refresh_already_refunded(conn, str(data["payment_id"]))
    if status != "review":
        emit(
            conn,
            state,
            event_type=f"refund_{status}",
            event_class="refunds",
            object_id=str(data["refund_id"]),
            obj=data,
        )


def settle(state: SandboxState, refund_id: str, now: float) -> None:
    """A pending refund's time has come: the payment's test card decides how it ends."""
    with state.db.transaction() as tx:
        data = store.load(tx, refund_id)
        payment = load_payment(tx, data["payment_id"])
        outcome = (payment.card_rule or {}).get("outcome")
        if outcome == cards.REFUND_REVIEW:
            decide(tx, state, data, "review", now)
        else:
            decide(tx, state, data, "failed" if outcome == cards.REFUND_FAILS else "succeeded", now)


def review(state: SandboxState, refund_id: str, outcome: str) -> dict[str, Any]:
    """The processor's review of a refund in `review` ends as `outcome`."""
    with state.db.transaction() as conn:
        data = store.load(conn, refund_id)
        if data["status"] != "review":
            raise bad_state("decide the review of", "refund", str(data["status"]), ["review"])
        decide(conn, state, data, outcome, state.clock.now())
    return data
