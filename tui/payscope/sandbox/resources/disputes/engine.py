"""The disputes resource's state changes: the network opens and decides, the merchant accepts
or challenges with evidence, the clock expires what was left unanswered. No HTTP here: the
routes (`routes.py`) hand over what the request says. The flow is drawn in the package
docstring. What other resources use of disputes is here too: what lost disputes charged back
(`store.charged_back`), and `refresh_already_refunded` when a payment's refunds change.
"""

from __future__ import annotations

import sqlite3
from typing import Any, Final

from payscope.api.models.disputes import NETWORK_REASONS, DisputeEvidenceSubmit
from payscope.sandbox import ids
from payscope.sandbox.clock import iso
from payscope.sandbox.errors import INVALID, SandboxError, bad_state, conflict, invalid
from payscope.sandbox.outbox import emit
from payscope.sandbox.resources.disputes import store
from payscope.sandbox.resources.disputes.store import already_refunded, charged_back
from payscope.sandbox.resources.payments.store import load as load_payment
from payscope.sandbox.state import SandboxState

# How long the merchant has to answer before the dispute expires (sandbox clock).
CHALLENGE_WINDOW: Final = 7 * 86400

OPENED: Final = "dispute_opened"
CHALLENGED: Final = "dispute_challenged"
OPEN_STATUSES: Final = (OPENED, CHALLENGED)

# Allowed status changes; every other one is refused (and property-tested).
EDGES: Final[dict[str, tuple[str, ...]]] = {
    OPENED: ("dispute_accepted", CHALLENGED, "dispute_expired", "dispute_won", "dispute_lost"),
    CHALLENGED: ("dispute_won", "dispute_lost"),
}

# The network's reason -> its reason code (Visa-style), shown as connector_reason_code.
# dispute_status -> the sandbox connector's own word for it (a pre-dispute is only a warning).
CONNECTOR_STATUS: Final[dict[str, str]] = {
    OPENED: "needs_response",
    CHALLENGED: "under_review",
    "dispute_accepted": "accepted",
    "dispute_expired": "expired",
    "dispute_won": "won",
    "dispute_lost": "lost",
    "dispute_cancelled": "cancelled",
}


def connector_status(status: str, stage: str) -> str:
    """What the sandbox connector calls a dispute in `status` at `stage`."""
    word = CONNECTOR_STATUS.get(status, status)
    return f"warning_{word}" if stage == "pre_dispute" and status == OPENED else word


def refresh_already_refunded(conn: sqlite3.Connection, payment_id: str) -> None:
    """Recompute `is_already_refunded` on the payment's lost disputes (its refunds changed)."""
    for dispute_id, data in store.lost_on(conn, payment_id):
        flag = already_refunded(conn, data)
        if data.get("is_already_refunded") != flag:
            data["is_already_refunded"] = flag
            store.set_data(conn, dispute_id, data)


def move(
    conn: sqlite3.Connection, state: SandboxState, data: dict[str, Any], to: str, now: float
) -> None:
    """Change status along an allowed edge, save, and emit the status's event."""
    current = str(data["dispute_status"])
    if to not in EDGES.get(current, ()):
        expected = [s for s, outs in EDGES.items() if to in outs]
        raise bad_state(_ACTIONS.get(to, "change"), "dispute", current, expected)
    data["dispute_status"] = data["status"] = to
    data["connector_status"] = connector_status(to, str(data["dispute_stage"]))
    data["is_already_refunded"] = already_refunded(conn, data)
    data["modified_at"] = iso(now)
    store.save(conn, data, None)
    _emit(conn, state, data)


_ACTIONS = {
    "dispute_accepted": "accept",
    CHALLENGED: "submit evidence for",
    "dispute_won": "resolve",
    "dispute_lost": "resolve",
    "dispute_expired": "expire",
}


def _emit(conn: sqlite3.Connection, state: SandboxState, data: dict[str, Any]) -> None:
    emit(
        conn,
        state,
        event_type=str(data["dispute_status"]),
        event_class="disputes",
        object_id=str(data["dispute_id"]),
        obj=data,
    )


def open_dispute(
    conn: sqlite3.Connection,
    state: SandboxState,
    payment_id: str,
    *,
    amount: int | None,
    reason: str,
    stage: str,
    now: float,
) -> dict[str, Any]:
    """The network opens a dispute on a payment whose money was taken (in `conn`'s transaction)."""
    payment = load_payment(conn, payment_id)
    received = int(payment.data.get("amount_received") or 0)
    if received <= 0:
        raise bad_state("dispute", "payment", payment.status, ["succeeded", "partially_captured"])
    busy = store.open_on(conn, payment_id, OPEN_STATUSES)
    if busy is not None:
        raise conflict(
            "IR_04",
            f"Payment {payment_id!r} already has an open dispute ({busy}); resolve it first "
            f"with POST /_sandbox/disputes/{busy}/resolve.",
        )
    lost = charged_back(conn, payment_id)
    left = received - lost
    if left <= 0:
        raise SandboxError(
            400,
            INVALID,
            "IR_04",
            f"Payment {payment_id!r} was charged back in full by lost disputes ({lost} of "
            f"{received} {payment.data['currency']}): nothing is left to dispute.",
        )
    amount = left if amount is None else amount
    if not 0 < amount <= left:
        if lost:
            raise invalid(
                "amount",
                amount,
                f"1 to {left} (amount received {received} minus {lost} charged back by lost "
                "disputes)",
            )
        raise invalid("amount", amount, f"1 to {received} (the amount received)")
    dispute_id = ids.new_id("dp")
    created = iso(now)
    data = record(
        dispute_id,
        payment_id,
        amount,
        str(payment.data["currency"]),
        reason,
        stage,
        OPENED,
        created,
        iso(now + CHALLENGE_WINDOW),
        state.credentials.profile_id,
        state.credentials.merchant_id,
    )
    store.insert(conn, data, now + CHALLENGE_WINDOW)
    _emit(conn, state, data)
    return data


def record(
    dispute_id: str,
    payment_id: str,
    amount: int,
    currency: str,
    reason: str,
    stage: str,
    status: str,
    created: str,
    challenge_by: str,
    profile_id: str,
    merchant_id: str,
) -> dict[str, Any]:
    """A new dispute object, as the real service shows it."""
    return {
        "dispute_id": dispute_id,
        "payment_id": payment_id,
        "attempt_id": f"{payment_id}_1",
        "merchant_id": merchant_id,
        "amount": amount,
        "currency": currency,
        "status": status,
        "dispute_status": status,
        "dispute_stage": stage,
        "reason": reason,
        "connector_reason": reason,
        "connector_reason_code": NETWORK_REASONS.get(reason, "13.7"),
        "connector_status": connector_status(status, stage),
        "connector_dispute_id": "sbx_" + dispute_id.removeprefix("dp_"),
        "is_already_refunded": False,
        "challenge_required_by": challenge_by,
        "created": created,
        "created_at": created,
        "modified_at": created,
        "profile_id": profile_id,
        "connector": "sandbox",
        "evidence_submitted_at": None,
    }


def submit_evidence(state: SandboxState, body: DisputeEvidenceSubmit) -> dict[str, Any]:
    """Keep the evidence; an open dispute becomes dispute_challenged (a challenged one keeps
    its status, its evidence replaced)."""
    now = state.clock.now()
    flat = {k: v for fields in body.grouped().values() for k, v in fields.items()}
    with state.db.transaction() as conn:
        data = store.load(conn, body.dispute_id)
        data["evidence_submitted_at"] = iso(now)
        if data["dispute_status"] == CHALLENGED:
            data["modified_at"] = iso(now)
            store.save(conn, data, None)
        else:
            move(conn, state, data, CHALLENGED, now)
        store.set_evidence(conn, body.dispute_id, flat)
    return data


def change(state: SandboxState, dispute_id: str, to: str) -> dict[str, Any]:
    """Move the dispute to `to` now (the merchant accepts, the network decides)."""
    with state.db.transaction() as conn:
        data = store.load(conn, dispute_id)
        move(conn, state, data, to, state.clock.now())
    return data


def network_opens(
    state: SandboxState, payment_id: str, *, amount: int | None, reason: str, stage: str
) -> dict[str, Any]:
    """`open_dispute` in its own transaction, now."""
    with state.db.transaction() as conn:
        return open_dispute(
            conn,
            state,
            payment_id,
            amount=amount,
            reason=reason,
            stage=stage,
            now=state.clock.now(),
        )
