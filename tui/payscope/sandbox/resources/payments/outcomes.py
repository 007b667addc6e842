"""What confirming a payment does: the card's (or other method's) answer decides the next
state, each try is an attempt, and a method waiting on the customer finishes or settles later.

The state machine and the dispute test card's hook are drawn in the package docstring
(`payments/__init__.py`).
"""

from __future__ import annotations

import sqlite3
from typing import Any
from urllib.parse import quote, urlencode

from payscope.sandbox import cards, ids, method_types, methods
from payscope.sandbox.clock import iso
from payscope.sandbox.errors import invalid, missing
from payscope.sandbox.resources import _saved_methods as payment_methods
from payscope.sandbox.resources.payments import store
from payscope.sandbox.resources.payments.store import CONNECTOR, Row
from payscope.sandbox.state import SandboxState

AUTHORISATION_LIFETIME = 7 * 24 * 3600
MANUAL = ("manual", "manual_multiple")


_DECLINE_FIELDS = ("error_code", "error_message", "unified_code", "unified_message")


def clear_decline(data: dict[str, Any]) -> None:
    for key in (*_DECLINE_FIELDS, "error_details"):
        data[key] = None


def add_attempt(
    conn: sqlite3.Connection,
    row: Row,
    status: str,
    now_iso: str,
    decline: dict[str, Any],
    first: bool = False,
) -> str:
    seq = 1
    if not first:
        seq += store.count_attempts(conn, row.payment_id)
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
    store.insert_attempt(conn, row.payment_id, seq, attempt)
    return attempt_id


# A payment's state after a capture -> its attempt's (the real service's AttemptStatus).
ATTEMPT_AFTER_CAPTURE: dict[str, str] = {
    "succeeded": "charged",
    "partially_captured": "partial_charged",
    "partially_captured_and_capturable": "partial_charged_and_chargeable",
}


def update_last_attempt(
    conn: sqlite3.Connection, row: Row, status: str, now_iso: str, decline: dict[str, Any]
) -> None:
    found = store.last_attempt(conn, row.payment_id)
    if found is None:
        add_attempt(conn, row, status, now_iso, decline)
        return
    attempt_id, attempt = found
    attempt.update({"status": status, "modified_at": now_iso})
    attempt.update({k: decline.get(k) for k in _DECLINE_FIELDS})
    store.update_attempt(conn, attempt_id, attempt)


def fail(row: Row, code: str) -> dict[str, Any]:
    rule = row.card_rule or {}
    issuer = rule.get("issuer") if rule.get("code") == code else None
    fields = cards.decline(code, issuer).fields(str(rule.get("brand", "Unknown")))
    row.status = "failed"
    row.expires_at = None
    row.data.update(fields)
    row.data.update({"amount_capturable": 0, "next_action": None})
    return fields


def authorise(conn: sqlite3.Connection, state: SandboxState, row: Row, now: float) -> str:
    """Money authorised: capture now (automatic) or hold it (manual). Returns attempt status."""
    authorised(conn, state, row)
    clear_decline(row.data)
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
    money_taken(conn, row, now)
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


def card_answer(conn: sqlite3.Connection, state: SandboxState, row: Row, now: float) -> str:
    """The card's answer once nothing stands in the way (no challenge, no review): the
    processing card leaves the payment `processing` for `cards.PROCESSING_SECONDS`, the
    partial card authorises half the amount (declines UE_1001 unless the payment allows
    partial authorisation), every other card the whole amount. Returns the attempt's status."""
    outcome = (row.card_rule or {}).get("outcome")
    if outcome == cards.PROCESSING:
        clear_decline(row.data)
        row.data["next_action"] = None
        row.status = "processing"
        row.expires_at = now + cards.PROCESSING_SECONDS
        return "pending"
    if outcome == cards.PARTIAL:
        if not row.data.get("enable_partial_authorization"):
            fail(row, "UE_1001")
            return "failure"
        clear_decline(row.data)
        row.data["next_action"] = None
        row.status = "partially_authorized_and_requires_capture"
        row.data["amount_capturable"] = max(1, int(row.data["amount"]) // 2)
        row.expires_at = now + AUTHORISATION_LIFETIME
        return "partially_authorized"
    return authorise(conn, state, row, now)


def money_taken(conn: sqlite3.Connection, row: Row, now: float) -> None:
    if (row.card_rule or {}).get("outcome") == cards.DISPUTE:
        store.schedule_dispute(
            conn, row.payment_id, now + cards.DISPUTE_AFTER_HOURS * 3600, "fraudulent"
        )


def run_confirmation(
    conn: sqlite3.Connection,
    state: SandboxState,
    row: Row,
    base: str,
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
        confirm_method(conn, state, row, base, now, first)
        return
    outcome, code = str(rule["outcome"]), rule.get("code")
    # An off-session (merchant-initiated) charge has no customer to authenticate.
    three_ds = row.data.get("authentication_type") == "three_ds" and not (
        row.data.get("off_session") and row.data.get("mandate_id")
    )
    if outcome == cards.NEEDS_3DS and not three_ds:
        outcome = cards.DECLINED
    if outcome == cards.DECLINED:
        decline = fail(row, str(code))
        add_attempt(conn, row, "failure", now_iso, decline, first)
        return
    if outcome in (cards.CHALLENGE, cards.NEEDS_3DS) or three_ds:
        clear_decline(row.data)
        row.status = "requires_customer_action"
        row.data["next_action"] = {
            "type": "redirect_to_url",
            "redirect_to_url": three_ds_url(base, row),
        }
        add_attempt(conn, row, "authentication_pending", now_iso, {}, first)
        return
    if outcome == cards.REVIEW:
        clear_decline(row.data)
        row.status = "requires_merchant_action"
        row.data["amount_capturable"] = row.data["amount"]
        add_attempt(conn, row, "pending", now_iso, {}, first)
        return
    status = card_answer(conn, state, row, now)
    decline = row.data if row.status == "failed" else {}
    add_attempt(conn, row, status, now_iso, decline, first)


def confirm_method(
    conn: sqlite3.Connection,
    state: SandboxState,
    row: Row,
    base: str,
    now: float,
    first: bool,
) -> None:
    """Confirm with a non-card method: its flow decides (see `payscope.sandbox.method_types`)."""
    rule = row.card_rule or {}
    flow = str(rule["flow"])
    now_iso = iso(now)
    if flow in method_types.ASYNC_FLOWS and row.data.get("capture_method") in MANUAL:
        raise invalid(
            "capture_method",
            row.data.get("capture_method"),
            f"'automatic' for {rule['family']}/{rule['type']}: the money arrives when the "
            "customer pays, so there is nothing to capture later",
        )
    clear_decline(row.data)
    row.data["next_action"] = None
    # A charge on a mandate has no customer to send anywhere: it goes straight through.
    if flow == method_types.SYNC or (
        rule.get("mandate") and flow in (method_types.REDIRECT, method_types.QR)
    ):
        if rule.get("outcome") == cards.DECLINED:
            decline = fail(row, str(rule["code"]))
            add_attempt(conn, row, "failure", now_iso, decline, first)
            return
        status = authorise(conn, state, row, now)
        add_attempt(conn, row, status, now_iso, {}, first)
        return
    if flow == method_types.DEBIT and not (
        row.data.get("setup_future_usage") == "off_session" and not rule.get("mandate")
    ):
        row.status = "processing"
        row.expires_at = now + method_types.SETTLE_AFTER[flow]
        add_attempt(conn, row, "pending", now_iso, {}, first)
        return
    # A debit that sets up a mandate first has the customer verify the account and accept
    # the mandate on the bank's page (as the real service's debits do), then it processes.
    row.status = "requires_customer_action"
    row.data["next_action"] = next_action_for(state, base, row, rule, now)
    if flow in method_types.SETTLE_AFTER:
        lapses = rule.get("settle") == method_types.EXPIRED
        row.expires_at = now + (
            method_types.INSTRUCTIONS_LAPSE if lapses else method_types.SETTLE_AFTER[flow]
        )
    waiting = (
        "authentication_pending" if flow in (method_types.REDIRECT, method_types.QR) else "pending"
    )
    add_attempt(conn, row, waiting, now_iso, {}, first)


def next_action_for(
    state: SandboxState, base: str, row: Row, rule: dict[str, Any], now: float
) -> dict[str, Any]:
    """The real service's next action for a method waiting on the customer."""
    flow = rule["flow"]
    page = redirect_url(base, row)
    millis = int(now * 1000)
    if flow == method_types.QR:
        return {
            "type": "qr_code_information",
            "image_data_url": methods.qr_image(page),
            "qr_code_url": page,
            "display_to_timestamp": millis + 15 * 60 * 1000,
            "display_text": None,
            "border_color": None,
        }
    if flow == method_types.TRANSFER:
        method = method_types.BY_TYPE[(str(rule["family"]), str(rule["type"]))]
        return {
            "type": "display_bank_transfer_information",
            "bank_transfer_steps_and_charges_details": methods.transfer_instructions(
                method,
                int(row.data["amount"]),
                str(row.data["currency"]),
                row.payment_id,
                state.credentials.merchant_id,
            ),
        }
    if flow == method_types.VOUCHER:
        return {
            "type": "display_voucher_information",
            "voucher_details": {
                "reference": row.payment_id.removeprefix("pay_")[-12:].upper(),
                "download_url": page,
                "instructions_url": page,
                "expires_at": iso(now + method_types.INSTRUCTIONS_LAPSE),
            },
        }
    if flow == method_types.WAIT:
        return {
            "type": "wait_screen_information",
            "display_from_timestamp": millis,
            "display_to_timestamp": millis + int(method_types.SETTLE_AFTER[flow] * 1000),
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
    if (
        result == "authorize"
        and rule.get("settle") == method_types.FAILED
        and flow != method_types.DEBIT
    ):
        result = "fail"  # the VPA's test value: the customer declines in their app
    if result == "authorize":
        if rule.get("delayed") or flow == method_types.DEBIT:
            row.status = "processing"
            row.data["next_action"] = None
            if flow == method_types.DEBIT:  # the account is verified: now the debit runs
                row.expires_at = now + method_types.SETTLE_AFTER[flow]
            else:
                row.expires_at = now + method_types.DELAYED_REDIRECT_SECONDS
                rule["settle"] = method_types.SUCCEEDED
            update_last_attempt(conn, row, "pending", now_iso, {})
            return
        status = authorise(conn, state, row, now)
        update_last_attempt(conn, row, status, now_iso, {})
    elif result == "fail":
        code = rule.get("settle_code") or rule.get("fail_code") or "UE_1007"
        decline = fail(row, str(code))
        update_last_attempt(conn, row, "failure", now_iso, decline)
    elif flow in (method_types.TRANSFER, method_types.VOUCHER):
        lapse(row)
        update_last_attempt(conn, row, "failure", now_iso, {})
    else:
        decline = fail(row, method_types.ABANDON_CODE)
        update_last_attempt(conn, row, "failure", now_iso, decline)


def lapse(row: Row) -> None:
    row.status = "expired"
    row.expires_at = None
    row.data.update({"amount_capturable": 0, "next_action": None})


def settle_method(conn: sqlite3.Connection, state: SandboxState, row: Row, now: float) -> None:
    """The sandbox clock reached a method's settlement: the money arrived (or the debit
    failed, or the instructions lapsed)."""
    rule = row.card_rule or {}
    settle = rule.get("settle", method_types.SUCCEEDED)
    if settle == method_types.SUCCEEDED:
        status = authorise(conn, state, row, now)
        update_last_attempt(conn, row, status, iso(now), {})
    elif settle == method_types.FAILED:
        decline = fail(row, str(rule.get("settle_code") or rule.get("fail_code")))
        update_last_attempt(conn, row, "failure", iso(now), decline)
    else:
        lapse(row)
        update_last_attempt(conn, row, "failure", iso(now), {})


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
