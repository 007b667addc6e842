"""Subscriptions' state changes: the plan catalogue, charging a term, confirming, plan changes,
pause, resume and cancel (now or scheduled). No Request here: `routes.py` reads the HTTP side
and calls these; `jobs.py` calls them as the clock moves."""

from __future__ import annotations

import calendar
import sqlite3
from collections.abc import Sequence
from datetime import UTC, datetime
from typing import Any, Final

from payscope.api.models.subscriptions import (
    PaymentDetails,
    SubscriptionConfirmRequest,
    SubscriptionCreateOnlyRequest,
    SubscriptionCreateRequest,
    SubscriptionEstimateRequest,
    SubscriptionResumeRequest,
    SubscriptionUpdateRequest,
)
from payscope.sandbox import cards, ids
from payscope.sandbox.clock import iso, parse_iso
from payscope.sandbox.errors import SandboxError, bad_state, conflict, invalid, missing, not_found
from payscope.sandbox.outbox import emit
from payscope.sandbox.resources import _cards, _saved_methods
from payscope.sandbox.resources.payments.engine import (
    charge_off_session,
    check_customer,
    insert_payment,
    new_payment,
)
from payscope.sandbox.resources.payments.outcomes import authorised
from payscope.sandbox.resources.payments.paid_with import pay_on_mandate, use_saved
from payscope.sandbox.resources.payments.store import Row
from payscope.sandbox.resources.subscriptions import store
from payscope.sandbox.resources.subscriptions.store import Sub, derive, load, save, view
from payscope.sandbox.state import SandboxState

CLIENT_SECRET_LIFETIME: Final = 15 * 60

PLANS: Final[tuple[dict[str, Any], ...]] = (
    {
        "plan_id": "plan_basic",
        "name": "Basic",
        "description": "One seat, email support",
        "price_id": [
            {
                "price_id": "price_basic_monthly",
                "amount": 900,
                "currency": "USD",
                "interval": "Month",
                "interval_count": 1,
                "trial_period": None,
            },
            {
                "price_id": "price_basic_yearly",
                "amount": 9000,
                "currency": "USD",
                "interval": "Year",
                "interval_count": 1,
                "trial_period": None,
            },
        ],
    },
    {
        "plan_id": "plan_pro",
        "name": "Pro",
        "description": "Five seats, priority support; try it free for 14 days",
        "price_id": [
            {
                "price_id": "price_pro_monthly",
                "amount": 2900,
                "currency": "USD",
                "interval": "Month",
                "interval_count": 1,
                "trial_period": None,
            },
            {
                "price_id": "price_pro_yearly",
                "amount": 29000,
                "currency": "USD",
                "interval": "Year",
                "interval_count": 1,
                "trial_period": None,
            },
            {
                "price_id": "price_pro_monthly_trial",
                "amount": 2900,
                "currency": "USD",
                "interval": "Month",
                "interval_count": 1,
                "trial_period": 14,
            },
        ],
    },
    {
        "plan_id": "plan_team",
        "name": "Team",
        "description": "Unlimited seats, billed weekly in euros",
        "price_id": [
            {
                "price_id": "price_team_weekly",
                "amount": 4900,
                "currency": "EUR",
                "interval": "Week",
                "interval_count": 1,
                "trial_period": None,
            },
        ],
    },
)
PRICES: Final[dict[str, tuple[str, dict[str, Any]]]] = {
    price["price_id"]: (plan["plan_id"], price) for plan in PLANS for price in plan["price_id"]
}

PAUSABLE: Final = ("active", "trial")
RESUMABLE: Final = ("paused", "pending", "unpaid")
UPDATABLE: Final = ("active", "trial", "paused", "unpaid")
CANCELLABLE: Final = ("active", "trial", "paused", "pending", "unpaid")


def add_interval(ts: float, interval: str, count: int) -> float:
    """`ts` moved on by `count` intervals (Day, Week, Month, Year); months on the calendar."""
    if interval == "Day":
        return ts + 86400 * count
    if interval == "Week":
        return ts + 7 * 86400 * count
    months = count * (12 if interval == "Year" else 1)
    dt = datetime.fromtimestamp(ts, UTC)
    total = dt.month - 1 + months
    year, month = dt.year + total // 12, total % 12 + 1
    day = min(dt.day, calendar.monthrange(year, month)[1])
    return dt.replace(year=year, month=month, day=day).timestamp()


def price_of(sub: Sub) -> dict[str, Any]:
    return PRICES[str(sub.data["item_price_id"])][1]


# The keys of a subscription's stored rule that say what its method does when charged (the
# rest say what it is: `card`, `saved`, `acceptance`, ...).
_OUTCOME_KEYS: Final[tuple[str, ...]] = (
    "outcome",
    "code",
    "brand",
    "issuer",
    "fails_later",
    "family",
    "type",
    "flow",
    "fail_code",
    "settle",
    "settle_code",
)


def _first_payment(conn: sqlite3.Connection, state: SandboxState, sub: Sub, row: Row) -> None:
    """The first charge pays with the subscription's method (a new card, or one the customer
    saved), customer-initiated with `setup_future_usage: off_session` and, when the customer
    accepted, `customer_acceptance`: once authorised it saves the method and sets up the
    mandate every later charge uses."""
    rule = sub.rule or {}
    outcome = {k: rule[k] for k in _OUTCOME_KEYS if k in rule}
    saved = rule.get("saved")
    if saved:
        use_saved(state, row, _saved_methods.method_record(conn, str(saved)), outcome)
    else:
        row.card_rule = outcome
        row.data.update(
            {
                "payment_method": "card",
                "payment_method_type": "credit",
                "payment_method_data": {"card": dict(rule.get("card") or {}), "billing": None},
            }
        )
    row.data["setup_future_usage"] = "off_session"
    if rule.get("acceptance"):
        row.data["mandate_data"] = {
            "update_mandate_id": None,
            "customer_acceptance": rule["acceptance"],
            "mandate_type": None,
        }


def _legacy_payment(sub: Sub, row: Row) -> None:
    """A later charge of a subscription with no mandate (made without the customer's
    acceptance, or seeded): its stored card, charged off-session as before."""
    rule = sub.rule or {}
    row.card_rule = {k: rule[k] for k in _OUTCOME_KEYS if k in rule}
    row.card_rule["fails_renewals"] = bool(rule.get("fails_renewals"))
    row.data.update(
        {
            "payment_method": "card",
            "payment_method_type": "credit",
            "payment_method_data": {"card": dict(rule.get("card") or {}), "billing": None},
            "off_session": True,
        }
    )


def charge(conn: sqlite3.Connection, state: SandboxState, sub: Sub, now: float) -> bool:
    """Invoice the current price and charge it; True when it was paid.

    The first charge sets up the mandate (`_first_payment`); every later one is a recurring
    payment on it (`mandate_id`, `off_session`), declining as the saved method's test value
    says. A mandate that can no longer be charged (revoked, its method deleted, its card
    expired) makes no payment: the invoice fails with the reason the payments API gives."""
    price = price_of(sub)
    row = new_payment(
        state,
        amount=int(price["amount"]),
        currency=str(price["currency"]),
        now=now,
        customer_id=str(sub.data["customer_id"]),
        description=f"Subscription {sub.data['id']} ({price['price_id']})",
        metadata={"subscription_id": sub.data["id"]},
    )
    mandate_id = sub.data.get("mandate_id")
    refused: SandboxError | None = None
    if mandate_id:
        try:
            pay_on_mandate(conn, state, row, str(mandate_id))
        except SandboxError as exc:
            refused = exc
    elif sub.data.get("invoice") is None:
        _first_payment(conn, state, sub, row)
    else:
        _legacy_payment(sub, row)
    paid = refused is None and charge_off_session(row, now)
    if paid:
        authorised(conn, state, row)
        if not mandate_id and row.data.get("mandate_id"):
            sub.data["mandate_id"] = row.data["mandate_id"]
        if row.data.get("payment_method_id"):
            sub.data["payment_method_id"] = row.data["payment_method_id"]
    invoice: dict[str, Any] = {
        "id": ids.new_id("inv"),
        "subscription_id": sub.data["id"],
        "amount": price["amount"],
        "currency": price["currency"],
        "status": "invoice_paid" if paid else "payment_failed",
        "payment_id": None,
        "payment_method_id": sub.data.get("payment_method_id"),
        "mandate_id": sub.data.get("mandate_id"),
        "created": iso(now),
    }
    if refused is not None:
        # No payment was made: the reason is what POST /payments would have answered.
        invoice["error_code"] = refused.code
        invoice["error_message"] = refused.message
        sub.data["payment"] = None
    else:
        insert_payment(conn, state, row)
        invoice["payment_id"] = row.payment_id
        sub.data["payment"] = {
            "payment_id": row.payment_id,
            "status": row.data["status"],
            "amount": row.data["amount"],
            "currency": row.data["currency"],
            "payment_method_type": row.data.get("payment_method_type"),
            "payment_method_id": row.data.get("payment_method_id"),
            "mandate_id": row.data.get("mandate_id"),
            "unified_code": row.data.get("unified_code"),
            "unified_message": row.data.get("unified_message"),
        }
    store.insert_invoice(conn, invoice)
    sub.data["invoice"] = invoice
    return paid


def announce_paid(conn: sqlite3.Connection, state: SandboxState, sub: Sub, now: float) -> None:
    """`invoice_paid`, carrying the subscription as the API now returns it: sent once the
    charge's consequences (status, next term) are applied, not before."""
    derive(sub, now)
    emit(
        conn,
        state,
        event_type="invoice_paid",
        event_class="subscriptions",
        # One event per (object, type): each invoice is paid once, a subscription many times.
        object_id=str(sub.data["invoice"]["id"]),
        obj=view(sub) | {"client_secret": None},
    )


def start_term(sub: Sub, now: float) -> None:
    price = price_of(sub)
    sub.billing_at = add_interval(now, str(price["interval"]), int(price["interval_count"]))


def charge_new_term(
    conn: sqlite3.Connection, state: SandboxState, sub: Sub, now: float, fail_status: str
) -> None:
    if charge(conn, state, sub, now):
        sub.data["status"] = "active"
        start_term(sub, now)
        announce_paid(conn, state, sub, now)
    else:
        sub.data["status"] = fail_status
        sub.billing_at = None


# -- catalogue and methods ------------------------------------------------------------------


def item(plan: dict[str, Any]) -> dict[str, Any]:
    """A plan as the real service's items route shows it."""
    return {
        "item_id": plan["plan_id"],
        "name": plan["name"],
        "description": plan["description"],
        "price_id": [
            {
                **price,
                "item_id": plan["plan_id"],
                "trial_period_unit": "Day" if price["trial_period"] else None,
            }
            for price in plan["price_id"]
        ],
    }


def estimate(conn: sqlite3.Connection, q: SubscriptionEstimateRequest) -> dict[str, Any]:
    """What a subscription to `q.plan_id` costs at its start (a trial makes it 0)."""
    if q.plan_id in PRICES:
        plan_id, price = PRICES[q.plan_id]
    else:
        plan = next((p for p in PLANS if p["plan_id"] == q.plan_id), None)
        if plan is None:
            raise not_found("Plan", q.plan_id)
        plan_id, price = plan["plan_id"], plan["price_id"][0]
    if q.customer_id is not None:
        check_customer(conn, q.customer_id)
    name = next(p["name"] for p in PLANS if p["plan_id"] == plan_id)
    trial = q.trial_days if q.trial_days is not None else price["trial_period"] or 0
    cadence = every(str(price["interval"]), int(price["interval_count"]))
    description = f"{name}, {cadence}" + (f", {trial}-day trial" if trial else "")
    amount = 0 if trial else int(price["amount"])
    line = {
        "item_id": price["price_id"],
        "item_type": "plan",
        "description": description,
        "amount": amount,
        "currency": price["currency"],
        "quantity": 1,
    }
    return {
        "amount": amount,
        "currency": price["currency"],
        "plan_id": plan_id,
        "item_price_id": price["price_id"],
        "coupon_code": q.coupon_id,
        "customer_id": q.customer_id,
        "line_items": [line],
    }


def every(interval: str, count: int) -> str:
    unit = interval.lower()
    return f"every {unit}" if count == 1 else f"every {count} {unit}s"


def resolve_price(plan_id: str | None, price_id: str, status: int) -> dict[str, Any]:
    found = PRICES.get(price_id)
    allowed = ", ".join(PRICES)
    if found is None:
        if status == 404:
            raise SandboxError(
                404,
                "invalid_request",
                "IR_05",
                f"Price {price_id!r} does not exist; GET /subscriptions/plans lists them "
                f"({allowed}).",
            )
        raise invalid("item_price_id", price_id, allowed)
    if plan_id is not None and plan_id != found[0]:
        plans = ", ".join(p["plan_id"] for p in PLANS)
        if status == 404 and plan_id not in {p["plan_id"] for p in PLANS}:
            raise not_found("Plan", plan_id)
        raise invalid(
            "plan_id", plan_id, f"the plan that owns {price_id} ({found[0]}); plans: {plans}"
        )
    return found[1]


def card_of(
    conn: sqlite3.Connection, state: SandboxState, details: PaymentDetails, customer_id: str
) -> dict[str, Any]:
    """The stored rule of the subscription's method (a new card, or one saved earlier): what
    it does when charged, how it shows, and the customer's acceptance of the mandate its first
    charge sets up (`acceptance`)."""
    if details.payment_method is not None and details.payment_method.value != "card":
        raise invalid(
            "payment_details.payment_method",
            details.payment_method.value,
            "'card' (the local sandbox charges subscriptions to cards, or to a saved "
            "payment_method_id)",
        )
    acceptance = (
        details.customer_acceptance.to_body() if details.customer_acceptance is not None else None
    )
    card = details.payment_method_data.card if details.payment_method_data else None
    if card is not None:
        rule = _cards.card_rule(state, card)
        rule["card"] = _cards.card_view(card)
        rule["fails_renewals"] = card.card_number == cards.RENEWAL_FAILS_CARD
        rule["payment_method_id"] = None  # set when the first charge saves it
        rule["acceptance"] = acceptance
        return rule
    if details.payment_method_id:
        found = _saved_methods.saved_for(conn, details.payment_method_id, customer_id)
        if found is not None:
            method, saved_rule = found
            return {
                **saved_rule,
                "card": _saved_methods.card_of(method),
                "saved": details.payment_method_id,
                "payment_method_id": details.payment_method_id,
                "acceptance": acceptance,
            }
        for stored in store.stored_rules(conn, customer_id):
            if stored.get("payment_method_id") == details.payment_method_id:
                return {**stored, "acceptance": acceptance}
        raise not_found("Payment method", details.payment_method_id)
    raise missing(
        "payment_details.payment_method_data",
        "Give the card in payment_details.payment_method_data.card (card_number, "
        "card_exp_month, card_exp_year, card_holder_name, card_cvc) or a saved "
        "payment_method_id.",
    )


# -- creating and confirming ---------------------------------------------------------------


def create(
    state: SandboxState, profile_id: str, body: SubscriptionCreateRequest, now: float
) -> Sub:
    """Create and confirm: the first term charged now (or the trial started)."""
    price = resolve_price(body.plan_id, body.item_price_id, 404)
    sub_id = ids.new_id("sub")  # drawn before the card's id: seeded runs keep their ids
    with state.db.transaction() as conn:
        check_customer(conn, body.customer_id)
        rule = card_of(conn, state, body.payment_details, body.customer_id)
        sub = insert(conn, state, sub_id, profile_id, body, rule, now)
        first_term(conn, state, sub, price, now)
        save(conn, sub, now)
    return sub


def create_only(
    state: SandboxState, profile_id: str, body: SubscriptionCreateOnlyRequest, now: float
) -> Sub:
    """A subscription in `created` with its client_secret, no payment and no invoice yet."""
    resolve_price(body.plan_id, body.item_price_id, 404)
    with state.db.transaction() as conn:
        check_customer(conn, body.customer_id)
        sub = insert(conn, state, ids.new_id("sub"), profile_id, body, None, now)
        sub.data["return_url"] = body.payment_details.return_url
        save(conn, sub, now)
    return sub


def confirm(
    state: SandboxState,
    profile_id: str,
    subscription_id: str,
    body: SubscriptionConfirmRequest,
    now: float,
) -> Sub:
    """Confirm a `created` subscription with its method (409 once confirmed)."""
    with state.db.transaction() as conn:
        sub = load(conn, subscription_id, profile_id)
        status = str(sub.data["status"])
        if status != "created":
            raise conflict(
                "IR_04",
                f"Subscription {subscription_id!r} is already confirmed (it is {status}); "
                "read it with GET /subscriptions/{id}.",
            )
        if body.client_secret is not None and body.client_secret != sub.data["client_secret"]:
            raise invalid(
                "client_secret",
                body.client_secret,
                "this subscription's own client_secret, within 15 minutes of its creation",
            )
        details = body.payment_details
        sub.rule = card_of(conn, state, details, str(sub.data["customer_id"]))
        sub.data["payment_method_id"] = sub.rule.get("payment_method_id")
        for part in ("billing", "shipping"):
            given = getattr(details, part)
            if given is not None:
                sub.data[part] = given.to_body()
        first_term(conn, state, sub, price_of(sub), now)
        save(conn, sub, now)
    return sub


def insert(
    conn: sqlite3.Connection,
    state: SandboxState,
    sub_id: str,
    profile_id: str,
    body: SubscriptionCreateRequest | SubscriptionCreateOnlyRequest,
    rule: dict[str, Any] | None,
    now: float,
) -> Sub:
    """A new subscription in `created` (its row written; the caller saves what follows)."""
    data: dict[str, Any] = {
        "id": sub_id,
        "status": "created",
        "profile_id": profile_id,
        "merchant_id": state.credentials.merchant_id,
        "customer_id": body.customer_id,
        "plan_id": PRICES[body.item_price_id][0],
        "item_price_id": body.item_price_id,
        "merchant_reference_id": body.merchant_reference_id,
        "coupon_code": body.coupon_code,
        "client_secret": f"{sub_id}_secret_{ids.random_part(20)}",
        "client_secret_expires_at": iso(now + CLIENT_SECRET_LIFETIME),
        "payment_method_id": rule.get("payment_method_id") if rule else None,
        "mandate_id": None,
        "payment": None,
        "invoice": None,
        "next_billing_at": None,
        "trial_end": None,
        "scheduled_change": None,
        "billing": body.billing.to_body() if body.billing else None,
        "shipping": body.shipping.to_body() if body.shipping else None,
        "created_at": iso(now),
        "modified_at": iso(now),
    }
    store.insert(conn, data, rule)
    return Sub(data, rule)


def first_term(
    conn: sqlite3.Connection, state: SandboxState, sub: Sub, price: dict[str, Any], now: float
) -> None:
    """Start a confirmed subscription: its trial, or its first term charged now."""
    rule = sub.rule or {}
    if price["trial_period"] and rule.get("outcome") != cards.DECLINED:
        sub.data["status"] = "trial"
        sub.billing_at = now + int(price["trial_period"]) * 86400
        sub.data["trial_end"] = iso(sub.billing_at)
    else:
        charge_new_term(conn, state, sub, now, "failed")


# -- plan changes, pause, resume, cancel ---------------------------------------------------


def update(
    state: SandboxState,
    profile_id: str,
    subscription_id: str,
    body: SubscriptionUpdateRequest,
    now: float,
) -> Sub:
    """Move to another price: charged now when active or unpaid, pending when paused."""
    resolve_price(body.plan_id, body.item_price_id, 400)
    with state.db.transaction() as conn:
        sub = load(conn, subscription_id, profile_id)
        status = str(sub.data["status"])
        if status not in UPDATABLE:
            raise bad_state("change the plan of", "subscription", status, UPDATABLE)
        sub.data["plan_id"], sub.data["item_price_id"] = body.plan_id, body.item_price_id
        if status == "paused":
            sub.data["status"] = "pending"
        elif status in ("active", "unpaid"):
            charge_new_term(conn, state, sub, now, "unpaid")
        save(conn, sub, now)
    return sub


def resume(
    state: SandboxState,
    profile_id: str,
    subscription_id: str,
    body: SubscriptionResumeRequest,
    now: float,
) -> Sub:
    """Resume now, or on `resume_date` (`resume_option: specific_date`)."""
    with state.db.transaction() as conn:
        sub = load(conn, subscription_id, profile_id)
        if sub.data["status"] not in RESUMABLE:
            raise bad_state("resume", "subscription", str(sub.data["status"]), RESUMABLE)
        if body.resume_option is not None and body.resume_option.value == "specific_date":
            schedule(sub, "resume", future("resume_date", str(body.resume_date), now))
        else:
            resume_now(conn, state, sub, now, body)
        save(conn, sub, now)
    return sub


def stop(
    state: SandboxState,
    profile_id: str,
    subscription_id: str,
    action: str,
    option: str,
    at: str | None,
    allowed: Sequence[str],
    now: float,
) -> Sub:
    """Pause or cancel (`action`) now, at the end of the term, or at `at`."""
    with state.db.transaction() as conn:
        sub = load(conn, subscription_id, profile_id)
        if sub.data["status"] not in allowed:
            raise bad_state(action, "subscription", str(sub.data["status"]), allowed)
        if option == "end_of_term" and sub.billing_at is not None:
            schedule(sub, action, sub.billing_at)
        elif option == "specific_date" and at:
            schedule(sub, action, future(f"{action}_at", at, now))
        else:
            apply_change(conn, state, sub, action, now)
        save(conn, sub, now)
    return sub


def future(field: str, value: str, now: float) -> float:
    when = parse_iso(value if "T" in value else f"{value}T00:00:00Z")
    if when <= now:
        raise invalid(field, value, f"a time after the sandbox's now ({iso(now)})")
    return when


def schedule(sub: Sub, action: str, at: float) -> None:
    sub.data["scheduled_change"] = {"action": action, "at": iso(at)}
    sub.scheduled_at = at


def resume_now(
    conn: sqlite3.Connection,
    state: SandboxState,
    sub: Sub,
    now: float,
    body: SubscriptionResumeRequest | None,
) -> None:
    status = sub.data["status"]
    sub.data["scheduled_change"], sub.scheduled_at = None, None
    charges = body.charges_handling.value if body and body.charges_handling else None
    unpaid = body.unpaid_invoices_handling.value if body and body.unpaid_invoices_handling else None
    if status == "unpaid" and unpaid == "no_action":
        sub.data["status"] = "active"  # the failed invoice stays unpaid
        start_term(sub, now)
    elif status == "paused" and charges == "add_to_unbilled_charges":
        sub.data["status"] = "active"  # this term is billed with the next cycle
        start_term(sub, now)
    else:
        charge_new_term(conn, state, sub, now, "unpaid")


def apply_change(
    conn: sqlite3.Connection, state: SandboxState, sub: Sub, action: str, now: float
) -> None:
    sub.data["scheduled_change"], sub.scheduled_at = None, None
    if action == "pause":
        if sub.data["status"] in PAUSABLE:
            sub.data["status"] = "paused"
            sub.data["paused_at"] = iso(now)
            sub.billing_at = None
    elif action == "cancel":
        if sub.data["status"] in CANCELLABLE:
            sub.data["status"] = "cancelled"
            sub.data["cancelled_at"] = iso(now)
            sub.billing_at = None
    elif sub.data["status"] in RESUMABLE:
        resume_now(conn, state, sub, now, None)


# -- clock job: secrets expire, scheduled changes apply, terms renew --------------------------
