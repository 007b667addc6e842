"""Payments: create, update, confirm, retrieve, list, capture, cancel, approve, reject, 3DS.

The state machine is the reference's (the spec wins where they differ):

    create (confirm false) -> requires_payment_method, or requires_confirmation with a card
    confirm -> succeeded | requires_capture (manual) | failed (decline)
             | requires_customer_action (3DS, shown as requires_action with next_action)
             | requires_merchant_action (manual review)
             | processing (processing card) -> a minute later: succeeded | requires_capture
             | partially_authorized_and_requires_capture (partial card, when the payment
               has enable_partial_authorization; else failed UE_1001)
    3DS authorize -> succeeded | requires_capture; fail -> failed UE_5001; abandon -> UE_5003
    approve -> succeeded (automatic) | requires_capture (manual); reject -> failed
    capture -> succeeded | partially_captured | partially_captured_and_capturable
    cancel -> cancelled;  7 days in requires_capture (or partially authorised) -> expired

The payment object is stored as JSON in `payments.data` (what lists splice in as is), with the
filtered fields in indexed columns. The raw card number is never stored: what the test card
will do is decided when the card arrives and kept in `card_rule`. `expires_at` is when the
payment's next timed step falls due: its authorisation expires, or a processing payment settles.
Every event carries the payment as saved by the same change (`save` before `emit_status`).

Dispute hook (for the disputes resource): a payment made with the dispute test card gets a row
in `dispute_schedule(payment_id, due_at, reason, opened_at)` when its money is captured;
`due_at` is sandbox time. A disputes job opens a dispute for each row with `opened_at IS NULL`
and `due_at <= now`, then sets `opened_at`. Retrieve also lists `disputes` from a `disputes`
table with `payment_id` and `data` (JSON) columns when one exists.
"""

from __future__ import annotations

import asyncio
import hmac
import json
import sqlite3
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from datetime import UTC, datetime
from typing import Any
from urllib.parse import quote, urlencode

from fastapi import APIRouter, Request
from pydantic import ValidationError
from starlette.responses import Response

from payscope.api.models._iso import format_minor_units
from payscope.api.models.payments import (
    BILLING_REQUIRED_LATER,
    CardData,
    PaymentCancelRequest,
    PaymentCaptureRequest,
    PaymentConfirmRequest,
    PaymentCreateRequest,
    PaymentListRequest,
    PaymentUpdateRequest,
    lacks_billing,
)
from payscope.sandbox import cards, ids, methods
from payscope.sandbox.clock import iso
from payscope.sandbox.db import dumps
from payscope.sandbox.errors import (
    INVALID,
    SandboxError,
    bad_state,
    conflict,
    forbidden,
    from_validation_error,
    invalid,
    missing,
    not_found,
)
from payscope.sandbox.filters import Where
from payscope.sandbox.keys import PUBLISHABLE
from payscope.sandbox.outbox import emit
from payscope.sandbox.resource import Due, Job, Resource, SeedContext, due_rows
from payscope.sandbox.resources import _saved_methods as payment_methods
from payscope.sandbox.responses import (
    json_body,
    read_body,
    read_object,
    respond,
    respond_json,
    respond_list,
    schema_body,
    validate_query,
)
from payscope.sandbox.routing import DirectRoute
from payscope.sandbox.state import SandboxState, principal_of, state_of

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

AUTHORISATION_LIFETIME = 7 * 24 * 3600
# Below this many matches, sorting them beats walking the created index to find a page.
_SMALL_RESULT = 2000

# Internal status -> what merchants see.
SHOWN = {"requires_customer_action": "requires_action"}
# What a list filter may say -> internal status.
FILTER_ALIASES = {"requires_action": "requires_customer_action"}

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
CONFIRMABLE = ("requires_payment_method", "requires_confirmation")
# The processor a payment names once attempted (`connector`), as its refunds and disputes do.
CONNECTOR = "sandbox"
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
MANUAL = ("manual", "manual_multiple")
_IN_REVIEW = ("requires_merchant_action",)
_CHALLENGED = ("requires_customer_action",)

router = APIRouter(tags=["payments"], route_class=DirectRoute)


# -- storage ----------------------------------------------------------------------------------


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


def customer_exists(conn: sqlite3.Connection, customer_id: str) -> bool:
    """True when the customers table holds this id."""
    found = conn.execute("SELECT 1 FROM customers WHERE customer_id = ?", (customer_id,))
    return found.fetchone() is not None


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


# -- cards and outcomes -------------------------------------------------------------------------


def card_rule(state: SandboxState, card: CardData) -> dict[str, Any]:
    """What this card will do, decided now (the number itself is not kept)."""
    outcome, code = cards.outcome_for(
        card.card_number,
        card.card_cvc,
        card.card_exp_month,
        card.card_exp_year,
        this_month(state),
    )
    rule: dict[str, Any] = {
        "outcome": outcome,
        "code": code,
        "brand": cards.brand_of(card.card_number),
    }
    known = cards.BY_NUMBER.get(card.card_number)
    if known is not None and known.issuer is not None and code == known.unified_code:
        rule["issuer"] = list(known.issuer)
    if card.card_number == cards.RENEWAL_FAILS_CARD:
        rule["fails_later"] = True  # its recurring charges on a mandate decline
    return rule


def this_month(state: SandboxState) -> tuple[int, int]:
    """(year, month) on the sandbox clock."""
    today = datetime.fromtimestamp(state.clock.now(), UTC)
    return today.year, today.month


def refuse_expired_expiry(state: SandboxState, month: Any, year: Any, what: str) -> None:
    """400 PE_03 "Card Expired" when `month`/`year` is before this month on the sandbox clock:
    like the real service, refused before any attempt (create, update and confirm alike)."""
    today = this_month(state)
    if cards.expired(month, year, today):
        # The spec's code for an expired card; the type is the real service's (an API
        # rejection of the request, not a processing outcome). A year already over is, in the
        # real service's words, "Invalid Expiry Year" (it checks the year before the date).
        if cards.year_over(year, today):
            raise SandboxError(400, "invalid_request", "PE_03", "Invalid Expiry Year")
        raise SandboxError(
            400,
            "invalid_request",
            "PE_03",
            f"Card Expired: {what} expired at the end of {month}/{year}; nothing was "
            "attempted. Send a card whose expiry is this month or later.",
        )


def refuse_expired(state: SandboxState, card: CardData) -> None:
    """`refuse_expired_expiry` for a card in a request."""
    refuse_expired_expiry(
        state, card.card_exp_month, card.card_exp_year, f"the card ending {card.last4}"
    )


def card_view(card: CardData) -> dict[str, Any]:
    """`payment_method_data.card` as the payment shows it (never the full number)."""
    return {
        "last4": card.last4,
        "brand": cards.brand_of(card.card_number),
        "exp_month": card.card_exp_month,
        "exp_year": card.card_exp_year,
        "card_holder_name": card.card_holder_name,
    }


_DECLINE_FIELDS = ("error_code", "error_message", "unified_code", "unified_message")


def _clear_decline(data: dict[str, Any]) -> None:
    for key in (*_DECLINE_FIELDS, "error_details"):
        data[key] = None


def _add_attempt(
    conn: sqlite3.Connection,
    row: Row,
    status: str,
    now_iso: str,
    decline: dict[str, Any],
    first: bool = False,
) -> str:
    seq = 1
    if not first:
        seq += int(
            conn.execute(
                "SELECT COUNT(*) FROM payment_attempts WHERE payment_id = ?", (row.payment_id,)
            ).fetchone()[0]
        )
    attempt_id = f"{row.payment_id}_{seq}"
    row.data["attempt_count"] = seq
    row.data["connector"] = CONNECTOR
    # The processor's own reference for the attempt (the real service's connector id).
    row.data["connector_transaction_id"] = ids.new_id("txn")
    attempt = {
        "attempt_id": attempt_id,
        "status": status,
        "amount": row.data["amount"],
        "currency": row.data["currency"],
        "payment_method": row.data.get("payment_method"),
        "authentication_type": row.data.get("authentication_type"),
        "connector_transaction_id": row.data["connector_transaction_id"],
        "created_at": now_iso,
        "modified_at": now_iso,
        **{k: decline.get(k) for k in _DECLINE_FIELDS},
    }
    conn.execute(
        "INSERT INTO payment_attempts(attempt_id, payment_id, seq, data) VALUES (?, ?, ?, ?)",
        (attempt_id, row.payment_id, seq, dumps(attempt)),
    )
    return attempt_id


# A payment's state after a capture -> its attempt's (the real service's AttemptStatus).
ATTEMPT_AFTER_CAPTURE: dict[str, str] = {
    "succeeded": "charged",
    "partially_captured": "partial_charged",
    "partially_captured_and_capturable": "partial_charged_and_chargeable",
}


def _update_last_attempt(
    conn: sqlite3.Connection, row: Row, status: str, now_iso: str, decline: dict[str, Any]
) -> None:
    found = conn.execute(
        "SELECT attempt_id, data FROM payment_attempts WHERE payment_id = ? "
        "ORDER BY seq DESC LIMIT 1",
        (row.payment_id,),
    ).fetchone()
    if found is None:
        _add_attempt(conn, row, status, now_iso, decline)
        return
    attempt = json.loads(found[1])
    attempt.update({"status": status, "modified_at": now_iso})
    attempt.update({k: decline.get(k) for k in _DECLINE_FIELDS})
    conn.execute(
        "UPDATE payment_attempts SET data = ? WHERE attempt_id = ?", (dumps(attempt), found[0])
    )


def _fail(row: Row, code: str) -> dict[str, Any]:
    rule = row.card_rule or {}
    issuer = rule.get("issuer") if rule.get("code") == code else None
    fields = cards.decline(code, issuer).fields(str(rule.get("brand", "Unknown")))
    row.status = "failed"
    row.expires_at = None
    row.data.update(fields)
    row.data.update({"amount_capturable": 0, "next_action": None})
    return fields


def _authorise(conn: sqlite3.Connection, state: SandboxState, row: Row, now: float) -> str:
    """Money authorised: capture now (automatic) or hold it (manual). Returns attempt status."""
    authorised(conn, state, row)
    _clear_decline(row.data)
    row.data["next_action"] = None
    if row.data.get("capture_method") in MANUAL:
        row.status = "requires_capture"
        row.data["amount_capturable"] = row.data["amount"]
        row.expires_at = now + AUTHORISATION_LIFETIME
        return "authorized"
    row.status = "succeeded"
    row.data.update(
        {"amount_received": row.data["amount"], "amount_capturable": 0, "captured_at": iso(now)}
    )
    row.expires_at = None
    _money_taken(conn, row, now)
    return "charged"


def authorised(conn: sqlite3.Connection, state: SandboxState, row: Row) -> None:
    """After money is authorised: a recurring payment uses its mandate up (single_use), and a
    payment with `setup_future_usage` and a customer saves its method (with a mandate when
    off_session and accepted). Done once: the ids written here mark it done."""
    if row.data.get("mandate_id"):
        if (row.card_rule or {}).get("mandate"):  # a recurring charge on an existing mandate
            payment_methods.mandate_charged(conn, str(row.data["mandate_id"]))
        return
    usage = row.data.get("setup_future_usage")
    customer_id = row.data.get("customer_id")
    if not usage or not customer_id:
        return
    if row.data.get("payment_method_id"):
        # Paid with a method saved before: only a mandate on it is left to set up.
        if usage != "off_session" or not (row.data.get("mandate_data") or {}).get(
            "customer_acceptance"
        ):
            return
        method = payment_methods.method_record(conn, str(row.data["payment_method_id"]))
    else:
        pmd = row.data.get("payment_method_data") or {}
        details = {k: v for k, v in pmd.items() if k not in ("card", "billing")} or None
        method = payment_methods.save_method(
            conn,
            state,
            customer_id=str(customer_id),
            payment_method=str(row.data.get("payment_method") or "card"),
            payment_method_type=row.data.get("payment_method_type"),
            card=pmd.get("card"),
            details=details,
            rule=row.card_rule,
            billing=pmd.get("billing") or row.data.get("billing"),
        )
        row.data["payment_method_id"] = method["payment_method_id"]
    mandate = row.data.get("mandate_data") or {}
    if usage == "off_session" and mandate.get("customer_acceptance"):
        row.data["mandate_id"] = payment_methods.create_mandate(
            conn,
            state,
            customer_id=str(customer_id),
            method=method,
            acceptance=mandate.get("customer_acceptance"),
            mandate_type=mandate.get("mandate_type"),
        )


def _card_answer(conn: sqlite3.Connection, state: SandboxState, row: Row, now: float) -> str:
    """The card's answer once nothing stands in the way (no challenge, no review): the
    processing card leaves the payment `processing` for `cards.PROCESSING_SECONDS`, the
    partial card authorises half the amount (declines UE_1001 unless the payment allows
    partial authorisation), every other card the whole amount. Returns the attempt's status."""
    outcome = (row.card_rule or {}).get("outcome")
    if outcome == cards.PROCESSING:
        _clear_decline(row.data)
        row.data["next_action"] = None
        row.status = "processing"
        row.expires_at = now + cards.PROCESSING_SECONDS
        return "pending"
    if outcome == cards.PARTIAL:
        if not row.data.get("enable_partial_authorization"):
            _fail(row, "UE_1001")
            return "failure"
        _clear_decline(row.data)
        row.data["next_action"] = None
        row.status = "partially_authorized_and_requires_capture"
        row.data["amount_capturable"] = max(1, int(row.data["amount"]) // 2)
        row.expires_at = now + AUTHORISATION_LIFETIME
        return "partially_authorized"
    return _authorise(conn, state, row, now)


def _money_taken(conn: sqlite3.Connection, row: Row, now: float) -> None:
    if (row.card_rule or {}).get("outcome") == cards.DISPUTE:
        conn.execute(
            "INSERT OR IGNORE INTO dispute_schedule(payment_id, due_at, reason) VALUES (?, ?, ?)",
            (row.payment_id, now + cards.DISPUTE_AFTER_HOURS * 3600, "fraudulent"),
        )


def _confirm(
    conn: sqlite3.Connection,
    state: SandboxState,
    row: Row,
    request: Request,
    now: float,
    first: bool = False,
) -> None:
    """Run a confirmation: the card's outcome decides the next state. Writes the attempt."""
    now_iso = iso(now)
    rule = row.card_rule
    if rule is None:
        raise missing(
            "payment_method_data",
            "Confirming needs a way to pay: send payment_method and payment_method_data (a card, "
            "see GET /_sandbox/test-cards, or another family, see GET /_sandbox/test-methods), "
            "a saved method's payment_token, or a mandate_id with off_session: true.",
        )
    if rule.get("family"):
        _confirm_method(conn, state, row, request, now, first)
        return
    outcome, code = str(rule["outcome"]), rule.get("code")
    # An off-session (merchant-initiated) charge has no customer to authenticate.
    three_ds = row.data.get("authentication_type") == "three_ds" and not (
        row.data.get("off_session") and row.data.get("mandate_id")
    )
    if outcome == cards.NEEDS_3DS and not three_ds:
        outcome = cards.DECLINED
    if outcome == cards.DECLINED:
        decline = _fail(row, str(code))
        _add_attempt(conn, row, "failure", now_iso, decline, first)
        return
    if outcome in (cards.CHALLENGE, cards.NEEDS_3DS) or three_ds:
        _clear_decline(row.data)
        row.status = "requires_customer_action"
        row.data["next_action"] = {
            "type": "redirect_to_url",
            "redirect_to_url": three_ds_url(base_url(request), row),
        }
        _add_attempt(conn, row, "authentication_pending", now_iso, {}, first)
        return
    if outcome == cards.REVIEW:
        _clear_decline(row.data)
        row.status = "requires_merchant_action"
        row.data["amount_capturable"] = row.data["amount"]
        _add_attempt(conn, row, "pending", now_iso, {}, first)
        return
    status = _card_answer(conn, state, row, now)
    decline = row.data if row.status == "failed" else {}
    _add_attempt(conn, row, status, now_iso, decline, first)


def _confirm_method(
    conn: sqlite3.Connection,
    state: SandboxState,
    row: Row,
    request: Request,
    now: float,
    first: bool,
) -> None:
    """Confirm with a non-card method: its flow decides (see `payscope.sandbox.methods`)."""
    rule = row.card_rule or {}
    flow = str(rule["flow"])
    now_iso = iso(now)
    if flow in methods.ASYNC_FLOWS and row.data.get("capture_method") in MANUAL:
        raise invalid(
            "capture_method",
            row.data.get("capture_method"),
            f"'automatic' for {rule['family']}/{rule['type']}: the money arrives when the "
            "customer pays, so there is nothing to capture later",
        )
    _clear_decline(row.data)
    row.data["next_action"] = None
    # A charge on a mandate has no customer to send anywhere: it goes straight through.
    if flow == methods.SYNC or (rule.get("mandate") and flow in (methods.REDIRECT, methods.QR)):
        if rule.get("outcome") == cards.DECLINED:
            decline = _fail(row, str(rule["code"]))
            _add_attempt(conn, row, "failure", now_iso, decline, first)
            return
        status = _authorise(conn, state, row, now)
        _add_attempt(conn, row, status, now_iso, {}, first)
        return
    if flow == methods.DEBIT and not (
        row.data.get("setup_future_usage") == "off_session" and not rule.get("mandate")
    ):
        row.status = "processing"
        row.expires_at = now + methods.SETTLE_AFTER[flow]
        _add_attempt(conn, row, "pending", now_iso, {}, first)
        return
    # A debit that sets up a mandate first has the customer verify the account and accept
    # the mandate on the bank's page (as the real service's debits do), then it processes.
    row.status = "requires_customer_action"
    row.data["next_action"] = _next_action(request, row, rule, now)
    if flow in methods.SETTLE_AFTER:
        lapses = rule.get("settle") == methods.EXPIRED
        row.expires_at = now + (
            methods.INSTRUCTIONS_LAPSE if lapses else methods.SETTLE_AFTER[flow]
        )
    waiting = "authentication_pending" if flow in (methods.REDIRECT, methods.QR) else "pending"
    _add_attempt(conn, row, waiting, now_iso, {}, first)


def _next_action(request: Request, row: Row, rule: dict[str, Any], now: float) -> dict[str, Any]:
    """The real service's next action for a method waiting on the customer."""
    flow = rule["flow"]
    page = redirect_url(base_url(request), row)
    millis = int(now * 1000)
    if flow == methods.QR:
        return {
            "type": "qr_code_information",
            "image_data_url": methods.qr_image(page),
            "qr_code_url": page,
            "display_to_timestamp": millis + 15 * 60 * 1000,
            "display_text": None,
            "border_color": None,
        }
    if flow == methods.TRANSFER:
        method = methods.BY_TYPE[(str(rule["family"]), str(rule["type"]))]
        return {
            "type": "display_bank_transfer_information",
            "bank_transfer_steps_and_charges_details": methods.transfer_instructions(
                method,
                int(row.data["amount"]),
                str(row.data["currency"]),
                row.payment_id,
                state_of(request).credentials.merchant_id,
            ),
        }
    if flow == methods.VOUCHER:
        return {
            "type": "display_voucher_information",
            "voucher_details": {
                "reference": row.payment_id.removeprefix("pay_")[-12:].upper(),
                "download_url": page,
                "instructions_url": page,
                "expires_at": iso(now + methods.INSTRUCTIONS_LAPSE),
            },
        }
    if flow == methods.WAIT:
        return {
            "type": "wait_screen_information",
            "display_from_timestamp": millis,
            "display_to_timestamp": millis + int(methods.SETTLE_AFTER[flow] * 1000),
            "poll_config": {"delay_in_secs": 5, "frequency": 12},
        }
    return {"type": "redirect_to_url", "redirect_to_url": page}


def finish_method(
    conn: sqlite3.Connection, state: SandboxState, row: Row, result: str, now: float
) -> None:
    """The customer's answer on a method's page: `authorize` pays (a delayed redirect goes
    processing first; a UPI collect answers by its VPA), `fail` declines, `abandon` gives up
    (transfer and voucher instructions then lapse: expired)."""
    rule = row.card_rule or {}
    flow = rule.get("flow")
    now_iso = iso(now)
    row.expires_at = None
    if result == "authorize" and rule.get("settle") == methods.FAILED and flow != methods.DEBIT:
        result = "fail"  # the VPA's test value: the customer declines in their app
    if result == "authorize":
        if rule.get("delayed") or flow == methods.DEBIT:
            row.status = "processing"
            row.data["next_action"] = None
            if flow == methods.DEBIT:  # the account is verified: now the debit runs
                row.expires_at = now + methods.SETTLE_AFTER[flow]
            else:
                row.expires_at = now + methods.DELAYED_REDIRECT_SECONDS
                rule["settle"] = methods.SUCCEEDED
            _update_last_attempt(conn, row, "pending", now_iso, {})
            return
        status = _authorise(conn, state, row, now)
        _update_last_attempt(conn, row, status, now_iso, {})
    elif result == "fail":
        code = rule.get("settle_code") or rule.get("fail_code") or "UE_1007"
        decline = _fail(row, str(code))
        _update_last_attempt(conn, row, "failure", now_iso, decline)
    elif flow in (methods.TRANSFER, methods.VOUCHER):
        _lapse(row)
        _update_last_attempt(conn, row, "failure", now_iso, {})
    else:
        decline = _fail(row, methods.ABANDON_CODE)
        _update_last_attempt(conn, row, "failure", now_iso, decline)


def _lapse(row: Row) -> None:
    row.status = "expired"
    row.expires_at = None
    row.data.update({"amount_capturable": 0, "next_action": None})


def _settle_method(conn: sqlite3.Connection, state: SandboxState, row: Row, now: float) -> None:
    """The sandbox clock reached a method's settlement: the money arrived (or the debit
    failed, or the instructions lapsed)."""
    rule = row.card_rule or {}
    settle = rule.get("settle", methods.SUCCEEDED)
    if settle == methods.SUCCEEDED:
        status = _authorise(conn, state, row, now)
        _update_last_attempt(conn, row, status, iso(now), {})
    elif settle == methods.FAILED:
        decline = _fail(row, str(rule.get("settle_code") or rule.get("fail_code")))
        _update_last_attempt(conn, row, "failure", iso(now), decline)
    else:
        _lapse(row)
        _update_last_attempt(conn, row, "failure", iso(now), {})


def _needs_billing(row: Row, body: Any) -> None:
    """400 IR_01 when an update or confirm brings payment_method_data and no billing while the
    payment has none either: the real service uses the billing the payment already has."""
    method = row.data.get("payment_method_data") or {}
    if lacks_billing(body, row.data.get("billing"), method.get("billing")):
        raise SandboxError(400, INVALID, "IR_01", BILLING_REQUIRED_LATER)


def _apply_method(state: SandboxState, row: Row, body: Any) -> None:
    """Take payment method fields from a create/update/confirm body."""
    for key in ("payment_method", "payment_method_type", "return_url"):
        value = getattr(body, key, None)
        if value is not None:
            row.data[key] = value
    billing = getattr(body, "billing", None)
    if billing is not None:
        row.data["billing"] = billing.to_body()
    browser_info = getattr(body, "browser_info", None)
    if browser_info is not None:
        row.data["browser_info"] = browser_info.to_body()
    pmd = getattr(body, "payment_method_data", None)
    if pmd is None:
        return
    # The method's own billing address, answered at payment_method_data.billing (null when
    # none was sent), as the real service does.
    method_billing = pmd.billing.to_body() if pmd.billing is not None else None
    sent_method = getattr(body, "payment_method", None)
    if pmd.card is not None:
        if sent_method not in (None, "card"):
            raise SandboxError(
                400,
                "invalid_request",
                "IR_04",
                f"payment_method is {sent_method!r} but payment_method_data holds a card: send "
                f"payment_method: 'card', or {sent_method} data (see GET /_sandbox/test-methods).",
            )
        refuse_expired(state, pmd.card)
        row.card_rule = card_rule(state, pmd.card)
        row.data["payment_method_data"] = {"card": card_view(pmd.card), "billing": method_billing}
        row.data["payment_method"] = "card"
        return
    raw = {k: v for k, v in pmd.to_body().items() if k != "billing"}
    chosen = methods.choose(sent_method, getattr(body, "payment_method_type", None), raw)
    emails = (
        row.data.get("email"),
        (row.data.get("billing") or {}).get("email"),
        (method_billing or {}).get("email"),
        methods.find(chosen.inner, "billing_details.email"),
    )
    email = " ".join(str(e) for e in emails if e)
    row.card_rule = methods.rule_for(chosen, email, this_month(state))
    row.data["payment_method"] = chosen.method.family
    row.data["payment_method_type"] = chosen.method.type
    row.data["payment_method_data"] = {**methods.shown(chosen), "billing": method_billing}


def _apply_saved(conn: sqlite3.Connection, state: SandboxState, row: Row, body: Any) -> None:
    """Take the saved-method and mandate fields of a create/update/confirm body: keep
    `setup_future_usage`, `off_session` and `mandate_data` (with `customer_acceptance` in
    it), and pay with a saved method's `payment_token` or an existing `mandate_id`.
    Everything is checked before anything is written (400 otherwise)."""
    usage = getattr(body, "setup_future_usage", None)
    if usage is not None:
        row.data["setup_future_usage"] = str(usage.value)
    off_session = getattr(body, "off_session", None)
    if off_session is not None:
        row.data["off_session"] = off_session
    acceptance = getattr(body, "customer_acceptance", None)
    mandate_data = getattr(body, "mandate_data", None)
    if mandate_data is not None or acceptance is not None:
        asked = mandate_data.to_body() if mandate_data is not None else {}
        if acceptance is not None and not asked.get("customer_acceptance"):
            asked["customer_acceptance"] = acceptance.to_body()
        row.data["mandate_data"] = {
            "update_mandate_id": asked.get("update_mandate_id"),
            "customer_acceptance": asked.get("customer_acceptance"),
            "mandate_type": asked.get("mandate_type"),
        }
    token = getattr(body, "payment_token", None)
    mandate_id = getattr(body, "mandate_id", None)
    sent = [
        name
        for name, value in (
            ("payment_method_data", getattr(body, "payment_method_data", None)),
            ("payment_token", token),
            ("mandate_id", mandate_id),
        )
        if value is not None
    ]
    if len(sent) > 1:
        raise SandboxError(
            400,
            "invalid_request",
            "IR_04",
            f"{sent[1]} was sent with {sent[0]}: send one way to pay per request "
            "(payment_method_data, payment_token or mandate_id).",
        )
    if row.data.get("setup_future_usage") == "off_session" and row.data.get("mandate_data"):
        if not (row.data["mandate_data"] or {}).get("customer_acceptance"):
            raise missing(
                "customer_acceptance",
                "A mandate (setup_future_usage: off_session with mandate_data) needs the "
                "customer's acceptance: send customer_acceptance (or "
                "mandate_data.customer_acceptance).",
            )
        if not row.data.get("customer_id"):
            raise missing(
                "customer_id",
                "A mandate is kept for a customer: send the customer_id it belongs to.",
            )
    if token is not None:
        method, rule = payment_methods.by_token(conn, token, row.data.get("customer_id"))
        # A saved card's security code may come again as card_cvc (checked for length by
        # the model); the saved card's own rule decides the outcome.
        use_saved(state, row, method, rule)
    if mandate_id is not None:
        if row.data.get("off_session") is not True:
            raise invalid(
                "off_session",
                row.data.get("off_session"),
                "true with mandate_id (off_session should be true for mandates: the customer "
                "is not there)",
            )
        pay_on_mandate(conn, state, row, mandate_id)


def pay_on_mandate(
    conn: sqlite3.Connection, state: SandboxState, row: Row, mandate_id: str
) -> None:
    """Make `row` a recurring (merchant-initiated) payment on `mandate_id`: its saved method
    and that method's test value decide the outcome. Refused (400, nothing written) when the
    mandate cannot be charged (`payment_methods.for_payment`). POST /payments with `mandate_id`
    and a subscription's renewals both come here."""
    recurring = payment_methods.for_payment(
        conn,
        mandate_id,
        row.data.get("customer_id"),
        int(row.data["amount"]),
        str(row.data["currency"]),
    )
    row.data["mandate_id"] = mandate_id
    row.data["off_session"] = True
    row.data["customer_id"] = row.data.get("customer_id") or recurring.customer_id
    row.data["mandate_data"] = {
        "update_mandate_id": None,
        "customer_acceptance": recurring.mandate.get("customer_acceptance"),
        "mandate_type": recurring.terms,
    }
    rule = dict(recurring.rule or {})
    # The customer is not there to authenticate: a merchant-initiated charge on a
    # mandate skips 3-D Secure, so the challenge cards authorise.
    if rule.get("outcome") in (cards.CHALLENGE, cards.NEEDS_3DS):
        rule["outcome"] = cards.SUCCEEDED
        rule["code"] = None
    if rule.get("fails_later"):
        rule["outcome"], rule["code"] = cards.DECLINED, "UE_1001"
    rule["mandate"] = mandate_id
    use_saved(state, row, recurring.method, rule)


def use_saved(
    state: SandboxState, row: Row, method: dict[str, Any], rule: dict[str, Any] | None
) -> None:
    """Pay with a saved method: its rule decides, the payment shows its card or data."""
    card = method.get("card")
    if card:
        refuse_expired_expiry(
            state,
            card.get("expiry_month"),
            card.get("expiry_year"),
            f"the saved card {method['payment_method_id']}",
        )
        row.data["payment_method_data"] = {
            "card": payment_methods.card_of(method),
            "billing": None,
        }
    else:
        row.data["payment_method_data"] = {
            **(method.get("payment_method_data") or {}),
            "billing": None,
        }
    row.card_rule = rule
    row.data["payment_method"] = method["payment_method"]
    row.data["payment_method_type"] = method.get("payment_method_type") or row.data.get(
        "payment_method_type"
    )
    row.data["payment_method_id"] = method["payment_method_id"]


def base_url(request: Request) -> str:
    """The sandbox's own root URL, as configured where it listens: never the request's `Host`
    header, which any caller sets (stored URLs and webhooks would carry the caller's choice).
    Only an app that no server runs (tests on an in-process transport) falls back to the URL
    the request was addressed to."""
    configured = state_of(request).credentials.base_url
    if configured:
        return configured.rstrip("/")
    return str(request.base_url).rstrip("/")


async def _latency(state: SandboxState) -> None:
    if state.config.latency_ms:
        await asyncio.sleep(state.config.latency_ms / 1000)


def _secret_only(request: Request) -> None:
    if principal_of(request).kind == PUBLISHABLE:
        raise forbidden("A publishable key may only retrieve or confirm its own payment.")


def check_client_secret(
    request: Request, row: Row, presented: str | None, *, always: bool = False
) -> None:
    """403 unless `presented` is the payment's client_secret: with the publishable key, or
    `always` (a secret-key call that chose to name the payment by its secret)."""
    if principal_of(request).kind != PUBLISHABLE and not always:
        return
    if not presented or not hmac.compare_digest(
        presented.encode(), str(row.data.get("client_secret") or "").encode()
    ):
        raise forbidden(
            "A publishable key (pk_snd_) must present this payment's client_secret "
            "(the one returned when the payment was created) to use it from the browser."
        )


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


# -- routes --------------------------------------------------------------------------------------


@router.post(
    "/payments",
    summary="Create a payment (confirm: true for one-step)",
    openapi_extra=json_body(PaymentCreateRequest),
)
async def create_payment(request: Request) -> Response:
    """Create a payment; with `confirm: true` it is confirmed in the same request."""
    body = await read_body(request, PaymentCreateRequest)
    _secret_only(request)
    state = state_of(request)
    if body.confirm:
        await _latency(state)
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
    _apply_method(state, row, body)
    with state.db.transaction() as conn:
        # A generated id is 20 random characters: only an id the caller chose can clash.
        if (
            body.payment_id is not None
            and conn.execute(
                "SELECT 1 FROM payments WHERE payment_id = ?", (payment_id,)
            ).fetchone()
        ):
            raise conflict(
                "HE_01",
                f"A payment with payment_id {payment_id!r} already exists: the original request "
                f"was received. Read its status with GET /payments/{payment_id}; nothing was "
                "changed.",
            )
        check_customer(conn, body.customer_id, optional=True)
        _apply_saved(conn, state, row, body)
        if row.card_rule is not None:
            row.status = "requires_confirmation"
        if body.payment_link:
            # The real service's way to make a link (it lists and retrieves them under
            # /payment_link, like the ones POST /payment_link makes).
            from payscope.sandbox.resources.payment_links import link_payment

            link_payment(conn, state, request, row, body, now)
        if body.confirm:
            _confirm(conn, state, row, request, now, first=True)
        row.data["status"] = SHOWN.get(row.status, row.status)
        row.json = dumps(row.data)
        conn.execute(
            "INSERT INTO payments(payment_id, merchant_id, status, amount, currency, customer_id,"
            " payment_method, created, client_secret, card_rule, expires_at, data) "
            "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
            (
                payment_id,
                creds.merchant_id,
                row.status,
                body.amount,
                body.currency,
                row.data.get("customer_id"),
                row.data.get("payment_method"),
                now_iso,
                data["client_secret"],
                dumps(row.card_rule) if row.card_rule else None,
                row.expires_at,
                row.json,
            ),
        )
        emit_status(conn, state, row)
    return respond_json(row.json)


@router.post(
    "/payments/list",
    summary="List payments (filters in the body), newest first",
    openapi_extra=json_body(PaymentListRequest, required=False),
)
async def list_payments_post(request: Request) -> Response:
    """POST /payments/list with the filter body."""
    body = await read_body(request, PaymentListRequest, required=False)
    return _list(state_of(request), body)


SESSION_WALLETS = ("google_pay", "apple_pay", "paypal", "klarna")


def _session_token(wallet: str, payment: dict[str, Any]) -> dict[str, Any]:
    """A wallet's SDK session for this payment (the real `SessionToken` shapes, trimmed)."""
    amount = format_minor_units(int(payment["amount"]), str(payment["currency"])).split()[0]
    common = {
        "wallet_name": wallet,
        "connector": "sandbox",
        "delayed_session_token": False,
        "sdk_next_action": {"next_action": "confirm"},
    }
    if wallet == "google_pay":
        return {
            **common,
            "merchant_info": {"merchant_name": "payscope sandbox"},
            "shipping_address_required": False,
            "email_required": False,
            "allowed_payment_methods": [
                {
                    "type": "CARD",
                    "parameters": {
                        "allowed_auth_methods": ["PAN_ONLY", "CRYPTOGRAM_3DS"],
                        "allowed_card_networks": ["VISA", "MASTERCARD", "AMEX", "DISCOVER"],
                    },
                    "tokenization_specification": {
                        "type": "PAYMENT_GATEWAY",
                        "parameters": {"gateway": "payscope", "gateway_merchant_id": "sandbox"},
                    },
                }
            ],
            "transaction_info": {
                "country_code": "US",
                "currency_code": payment["currency"],
                "total_price_status": "Final",
                "total_price": amount,
            },
        }
    if wallet == "apple_pay":
        return {
            **common,
            "session_token_data": {"epoch_timestamp": 0, "merchant_identifier": "sandbox"},
            "payment_request_data": {
                "country_code": "US",
                "currency_code": payment["currency"],
                "total": {"label": "payscope sandbox", "type": "final", "amount": amount},
                "merchant_capabilities": ["supports3DS"],
                "supported_networks": ["visa", "masterCard", "amex", "discover"],
                "merchant_identifier": "sandbox",
            },
        }
    return {**common, "session_token": f"sandbox-{wallet}-session"}


@router.post(
    "/payments/session_tokens",
    summary="Session tokens for the browser SDK's wallets (publishable key and client_secret)",
    openapi_extra=schema_body(
        {
            "type": "object",
            "required": ["payment_id"],
            "properties": {
                "payment_id": {"type": "string"},
                "client_secret": {"type": "string"},
                "wallets": {"type": "array", "items": {"type": "string"}},
            },
        }
    ),
)
async def session_tokens(request: Request) -> Response:
    """`{payment_id, client_secret, session_token: [...]}`: one entry per wallet asked for that
    the sandbox takes (its wallets need no provider session, so each says to confirm)."""
    body = await read_object(request, '{"payment_id": "pay_...", "wallets": []}')
    payment_id = body.get("payment_id")
    if not isinstance(payment_id, str) or not payment_id:
        raise missing("payment_id", "The payment whose SDK session this is.")
    wallets = body.get("wallets") or []
    if not isinstance(wallets, list) or not all(isinstance(w, str) for w in wallets):
        raise invalid("wallets", wallets, "a list of wallet types, e.g. ['google_pay']")
    secret = body.get("client_secret")
    row = load(state_of(request).db.conn, payment_id)
    check_client_secret(request, row, secret if isinstance(secret, str) else None)
    unknown = [w for w in wallets if w not in SESSION_WALLETS]
    if unknown:
        raise invalid(
            "wallets",
            ", ".join(unknown),
            f"wallets with an SDK session: {', '.join(SESSION_WALLETS)}",
        )
    # No wallets named: every wallet the merchant takes (all of the sandbox's), as the real
    # service answers with the merchant's configured ones.
    tokens = [_session_token(w, row.data) for w in (wallets or SESSION_WALLETS)]
    return respond(
        {
            "payment_id": payment_id,
            "client_secret": row.data["client_secret"],
            "session_token": tokens,
        }
    )


@router.get("/payments/list", summary="List payments (filters in the query string)")
async def list_payments_get(request: Request) -> Response:
    """GET /payments/list?limit=&offset=&status=&currency=&customer_id=&created_gte=..."""
    query = validate_query(
        PaymentListRequest, request.query_params, many=("status", "currency", "payment_method")
    )
    return _list(state_of(request), query)


def _list(state: SandboxState, q: PaymentListRequest) -> Response:
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
    conn = state.db.conn
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
    return respond_list([r[0] for r in rows], total)


@router.get("/payments/{payment_id}", summary="Retrieve a payment with attempts and refunds")
async def retrieve_payment(request: Request, payment_id: str) -> Response:
    """The payment with its `attempts`, `refunds` and `disputes`."""
    state = state_of(request)
    conn = state.db.conn
    row = load(conn, payment_id)
    check_client_secret(request, row, request.query_params.get("client_secret"))
    data = row.data
    data["attempts"] = [
        json.loads(r[0])
        for r in conn.execute(
            "SELECT data FROM payment_attempts WHERE payment_id = ? ORDER BY seq", (payment_id,)
        )
    ]
    data["refunds"] = [
        json.loads(r[0])
        for r in conn.execute(
            "SELECT data FROM refunds WHERE payment_id = ? ORDER BY created, rowid", (payment_id,)
        )
    ]
    try:
        data["disputes"] = [
            json.loads(r[0])
            for r in conn.execute("SELECT data FROM disputes WHERE payment_id = ?", (payment_id,))
        ]
    except sqlite3.OperationalError:
        data["disputes"] = []  # no disputes resource registered
    return respond(data)


@router.post(
    "/payments/{payment_id}",
    summary="Update a payment before confirmation",
    openapi_extra=json_body(PaymentUpdateRequest),
)
async def update_payment(request: Request, payment_id: str) -> Response:
    """Change amount, currency, customer, card, ... while the payment is not yet confirmed."""
    body = await read_body(request, PaymentUpdateRequest)
    _secret_only(request)
    state = state_of(request)
    with state.db.transaction() as conn:
        row = load(conn, payment_id)
        if row.status not in UPDATABLE:
            raise bad_state("update", "payment", row.status, UPDATABLE)
        check_customer(conn, body.customer_id, optional=True)
        fields = body.model_dump(exclude_none=True, exclude={"payment_method_data", "billing"})
        simple = (
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
        for key in simple:
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
        _needs_billing(row, body)
        _apply_method(state, row, body)
        _apply_saved(conn, state, row, body)
        if row.card_rule is not None:
            row.status = "requires_confirmation"
        save(conn, row, state.clock.now_iso())
    return respond(row.data)


@router.post(
    "/payments/{payment_id}/confirm",
    summary="Confirm a payment (two-step or SDK)",
    openapi_extra=json_body(PaymentConfirmRequest, required=False),
)
async def confirm_payment(request: Request, payment_id: str) -> Response:
    """Authorise with the card given here (or earlier). A publishable key sends client_secret."""
    body = await read_body(request, PaymentConfirmRequest, required=False)
    state = state_of(request)
    await _latency(state)
    with changing(state, payment_id, "confirm", None) as (conn, row, now):
        check_client_secret(request, row, body.client_secret)
        if row.status not in CONFIRMABLE:
            raise bad_state("confirm", "payment", row.status, CONFIRMABLE)
        _needs_billing(row, body)
        _apply_method(state, row, body)
        _apply_saved(conn, state, row, body)
        _confirm(conn, state, row, request, now)
    return respond_json(row.json)


@router.post(
    "/payments/{payment_id}/capture",
    summary="Capture an authorised payment",
    openapi_extra=json_body(PaymentCaptureRequest, required=False),
)
async def capture_payment(request: Request, payment_id: str) -> Response:
    """Take all (default) or part of the authorised amount."""
    body = await read_body(request, PaymentCaptureRequest, required=False)
    state = state_of(request)
    await _latency(state)
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
        _money_taken(conn, row, now)
        # The attempt says what the capture did, as the real service's does.
        _update_last_attempt(conn, row, ATTEMPT_AFTER_CAPTURE[row.status], iso(now), {})
    return respond_json(row.json)


@router.post(
    "/payments/{payment_id}/cancel",
    summary="Cancel (void) a payment",
    openapi_extra=json_body(PaymentCancelRequest, required=False),
)
async def cancel_payment(request: Request, payment_id: str) -> Response:
    """Void the payment: nothing is (or will be) charged."""
    body = await read_body(request, PaymentCancelRequest, required=False)
    state = state_of(request)
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
    return respond(row.data)


@router.post("/payments/{payment_id}/approve", summary="Approve a payment held for review")
async def approve_payment(request: Request, payment_id: str) -> Response:
    """requires_merchant_action -> succeeded (or requires_capture with manual capture)."""
    state = state_of(request)
    with changing(state, payment_id, "approve", _IN_REVIEW) as (conn, row, now):
        status = _authorise(conn, state, row, now)
        _update_last_attempt(conn, row, status, iso(now), {})
    return respond_json(row.json)


@router.post("/payments/{payment_id}/reject", summary="Reject a payment held for review")
async def reject_payment(request: Request, payment_id: str) -> Response:
    """requires_merchant_action -> failed with error_code manual_review_rejected."""
    state = state_of(request)
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
        _update_last_attempt(conn, row, "voided", iso(now), decline)
    return respond(row.data)


THREE_DS_RESULTS = ("authorize", "fail", "abandon")
# The body of the secret-key controls that play the customer's part.
_RESULT_BODY = schema_body(
    {
        "type": "object",
        "properties": {
            "result": {"type": "string", "enum": list(THREE_DS_RESULTS), "default": "authorize"}
        },
    },
    required=False,
)


def three_ds_url(base: str, row: Row) -> str:
    """Where the customer completes the challenge: the page, with the payment's own token.

    Like a real issuer's redirect, the URL carries a per-payment credential (the
    `client_secret`), so a browser with no API key can open and complete it.
    """
    query = urlencode({"client_secret": row.data["client_secret"]})
    return f"{base}/_sandbox/payments/{quote(row.payment_id, safe='')}/3ds?{query}"


def redirect_url(base: str, row: Row) -> str:
    """The sandbox page where the customer answers a method's redirect, QR, transfer, voucher
    or collect request (with the payment's own token, as the 3-D Secure page)."""
    query = urlencode({"client_secret": row.data["client_secret"]})
    return f"{base}/_sandbox/payments/{quote(row.payment_id, safe='')}/redirect?{query}"


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
            status = _card_answer(conn, state, row, now)
            decline = row.data if row.status == "failed" else {}
            _update_last_attempt(conn, row, status, iso(now), decline)
        else:
            decline = _fail(row, "UE_5001" if result == "fail" else "UE_5003")
            _update_last_attempt(conn, row, "authentication_failed", iso(now), decline)
    return row


@router.post(
    "/_sandbox/payments/{payment_id}/3ds",
    summary="Complete a 3-D Secure challenge (authorize, fail or abandon)",
    tags=["sandbox controls"],
    openapi_extra=_RESULT_BODY,
)
async def complete_three_ds(request: Request, payment_id: str) -> Response:
    """Body `{result: authorize | fail | abandon}` (default authorize). Needs the secret key;
    a browser uses the challenge page (GET on this path) instead."""
    _secret_only(request)
    body = await read_object(request, '{"result": "authorize"}')
    result = body.get("result", "authorize")
    row = complete_challenge(state_of(request), payment_id, result)
    return respond_json(row.json)


@router.post(
    "/_sandbox/payments/{payment_id}/redirect",
    summary="Finish a non-card method's customer step (authorize, fail or abandon)",
    tags=["sandbox controls"],
    openapi_extra=_RESULT_BODY,
)
async def complete_redirect(request: Request, payment_id: str) -> Response:
    """Body `{result}` (default authorize): what the customer does on the method's page (the
    redirect, QR code, transfer, voucher or collect request). Needs the secret key; a browser
    uses the page (GET on this path) instead."""
    _secret_only(request)
    body = await read_object(request, '{"result": "authorize"}')
    result = body.get("result", "authorize")
    state = state_of(request)
    row = load(state.db.conn, payment_id)
    if row.status == "requires_customer_action" and not (row.card_rule or {}).get("family"):
        raise SandboxError(
            400,
            "invalid_request",
            "IR_04",
            f"Payment {payment_id} waits on a 3-D Secure challenge, not a method's step: "
            f"use POST /_sandbox/payments/{payment_id}/3ds.",
        )
    row = complete_challenge(state, payment_id, result)
    return respond_json(row.json)


# -- clock job: authorisations expire ----------------------------------------------------------


def _next_expiry(conn: sqlite3.Connection) -> float | None:
    found = conn.execute("SELECT MIN(expires_at) FROM payments WHERE expires_at IS NOT NULL")
    value = found.fetchone()[0]
    return None if value is None else float(value)


def _expire(state: SandboxState, now: float) -> int:
    conn = state.db.conn
    due = [
        r[0]
        for r in conn.execute(
            "SELECT payment_id FROM payments WHERE expires_at IS NOT NULL AND expires_at <= ?",
            (now,),
        )
    ]
    for payment_id in due:
        with state.db.transaction() as tx:
            row = load(tx, payment_id)
            row.expires_at = None
            before = row.status
            if (row.card_rule or {}).get("family") and row.status in (
                "processing",
                "requires_customer_action",
            ):
                _settle_method(tx, state, row, now)
            elif row.status == "processing":  # the processor answers: authorised
                status = _authorise(tx, state, row, now)
                _update_last_attempt(tx, row, status, iso(now), {})
            elif row.status in CAPTURABLE:
                row.status = "expired"
                row.data["amount_capturable"] = 0
            save(tx, row, iso(now))
            if row.status != before:
                # After `save`: the event carries the payment as GET now answers it.
                emit_status(tx, state, row)
    return len(due)


def parse_body(model: type[Any], raw: bytes) -> Any:
    """Validate raw JSON bytes with a request model (for routes that read the body themselves)."""
    try:
        return model.model_validate_json(raw or b"{}")
    except ValidationError as exc:
        raise from_validation_error(exc) from None


def _seed(ctx: SeedContext) -> None:
    from payscope.sandbox.resources.payments_seed import seed_payments

    seed_payments(ctx)


def _due_expiry(conn: sqlite3.Connection, start: float, end: float) -> list[Due]:
    """What `_expire` would do between `start` and `end` (the clock's upcoming preview)."""
    rows = due_rows(
        conn,
        "SELECT expires_at, payment_id, status FROM payments WHERE expires_at IS NOT NULL",
        "expires_at",
        start,
        end,
    )
    return [
        Due(float(at), "payment_settles", pid, f"payment {pid} (processing) settles")
        if status == "processing"
        else Due(float(at), "payment_expiry", pid, f"payment {pid} ({status}) expires")
        for at, pid, status in rows
    ]


RESOURCE = Resource(
    name="payments",
    router=router,
    schema=SCHEMA,
    jobs=(Job("expired_payments", _next_expiry, _expire, _due_expiry),),
    seed=_seed,
)
