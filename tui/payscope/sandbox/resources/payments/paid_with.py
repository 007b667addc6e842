"""How a payment is to be paid, taken from a create, update or confirm body: a card or another
method's data (the card's outcome decided now, the number never kept), a saved method's
`payment_token`, or a mandate (a recurring, merchant-initiated charge).
"""

from __future__ import annotations

import sqlite3
from typing import Any

from payscope.api.models.payments import BILLING_REQUIRED_LATER, lacks_billing
from payscope.sandbox import cards, methods
from payscope.sandbox.errors import INVALID, SandboxError, invalid, missing
from payscope.sandbox.resources import _saved_methods as payment_methods
from payscope.sandbox.resources._cards import (
    card_rule,
    card_view,
    refuse_expired,
    refuse_expired_expiry,
    this_month,
)
from payscope.sandbox.resources.payments.store import Row
from payscope.sandbox.state import SandboxState


def needs_billing(row: Row, body: Any) -> None:
    """400 IR_01 when an update or confirm brings payment_method_data and no billing while the
    payment has none either: the real service uses the billing the payment already has."""
    method = row.data.get("payment_method_data") or {}
    if lacks_billing(body, row.data.get("billing"), method.get("billing")):
        raise SandboxError(400, INVALID, "IR_01", BILLING_REQUIRED_LATER)


def apply_method(state: SandboxState, row: Row, body: Any) -> None:
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


def apply_saved(conn: sqlite3.Connection, state: SandboxState, row: Row, body: Any) -> None:
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
