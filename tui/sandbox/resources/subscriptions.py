"""Subscriptions: plans (and the real service's name for them, items), create-and-confirm,
create then confirm, estimate, retrieve, update plan, pause, resume, cancel.

Every call needs `X-Profile-Id` (this sandbox's business profile). Charges are real sandbox
payments (they show in the payments list and analytics) made off-session with the stored card:

    create   -> active (first term charged: `payment` + `invoice` invoice_paid)
             -> trial (a price with a trial period: charged when the trial ends)
             -> failed (the first charge was declined)
    create (POST /subscriptions/create) -> created, no card yet; confirm (with the card) then
             goes on as create-and-confirm does; confirming twice is a 409
    renewal on the clock at next_billing_at -> active with a new invoice and payment,
             or unpaid when the charge fails (billing stops until resumed)
    update   active/unpaid -> charged on the new price now: active, or unpaid when it fails;
             trial -> stays trial on the new price; paused -> pending (activated on resume)
    pause    active/trial -> paused (immediately, end_of_term or specific_date)
    resume   paused/pending/unpaid -> active (immediately or on a specific_date)
    cancel   -> cancelled (immediately, end_of_term or specific_date)

Charges go through mandates, as the real service's do. The first charge is customer-initiated
with `setup_future_usage: off_session` and the `payment_details.customer_acceptance`: once
authorised it saves the card (or uses the saved `payment_method_id`) and sets up an `active`
mandate (`mandate_active`), named on the subscription as `mandate_id`. Every later charge
(renewal, plan change, resume) is a recurring payment on it (`mandate_id`, `off_session: true`,
no method data), declining by the saved method's test value. A mandate that can no longer be
charged (revoked, its method deleted) makes no payment: the invoice is `payment_failed` with
the payments API's `error_code` and `error_message`, and the subscription goes `unpaid` (the
spec's status for a failed charge). Without the customer's acceptance there is no mandate, and
later charges take the stored card off-session (so does seeded history).

`client_secret` lives 15 minutes on the sandbox clock, then reads null. The card
4000000000000341 pays the first term and fails every later charge (renewals, plan changes).

The real service's routes where the spec is silent follow its OpenAPI document's shapes:
`GET /subscriptions/items?item_type=plan` is a bare array of `{item_id, name, description,
price_id[]}` (the sandbox has no add-ons: `addon` lists none), and `GET /subscriptions/estimate`
answers `{amount, currency, plan_id, item_price_id, coupon_code, customer_id, line_items[]}`.
A path whose segment after `/subscriptions/` is no subscription id (`/subscriptions/foo`,
`/subscriptions/foo/pause`) is not a route (404 IR_02, whatever the method).
"""

from __future__ import annotations

import calendar
import json
import sqlite3
from collections.abc import Sequence
from datetime import UTC, datetime
from typing import Any, Final

from fastapi import APIRouter, Request
from starlette.convertors import StringConvertor, register_url_convertor
from starlette.responses import Response

from tui.api.models.subscriptions import (
    InvoiceListRequest,
    PaymentDetails,
    SubscriptionCancelRequest,
    SubscriptionConfirmRequest,
    SubscriptionCreateOnlyRequest,
    SubscriptionCreateRequest,
    SubscriptionEstimateRequest,
    SubscriptionItemsRequest,
    SubscriptionListRequest,
    SubscriptionPauseRequest,
    SubscriptionResumeRequest,
    SubscriptionUpdateRequest,
)
from tui.sandbox import cards, ids
from tui.sandbox.clock import iso, parse_iso
from tui.sandbox.db import dumps
from tui.sandbox.errors import SandboxError, bad_state, conflict, invalid, missing, not_found
from tui.sandbox.outbox import emit
from tui.sandbox.resource import Job, Resource, SeedContext
from tui.sandbox.resources import payment_methods, payments
from tui.sandbox.resources._support import (
    charge_off_session,
    insert_payment,
    new_payment,
    validate,
)
from tui.sandbox.responses import (
    json_body,
    read_body,
    read_object,
    respond,
    respond_list,
    validate_query,
)
from tui.sandbox.state import SandboxState, state_of

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


class SubscriptionIdConvertor(StringConvertor):
    """A path segment that can be a subscription id (`sub_...`). Any other word after
    `/subscriptions/` is a route of its own (`items`, `estimate`, `create`, `plans`) or no route
    at all (404 IR_02, like any unknown path), never a subscription to look up."""

    regex = "sub_[^/]+"


register_url_convertor("sub_id", SubscriptionIdConvertor())

router = APIRouter(tags=["subscriptions"])


# -- profile header, storage ----------------------------------------------------------------


def _profile(request: Request) -> str:
    """The X-Profile-Id header, which must name this sandbox's business profile."""
    value = request.headers.get("x-profile-id")
    expected = state_of(request).credentials.profile_id
    if not value:
        raise missing(
            "X-Profile-Id",
            f"Subscription calls need the X-Profile-Id header: this sandbox's profile is "
            f"{expected}.",
        )
    if value != expected:
        raise not_found("Business profile", value)
    return value


class Sub:
    """A loaded subscription: the public record and its scheduling columns."""

    def __init__(self, data: dict[str, Any], rule: dict[str, Any] | None) -> None:
        self.data = data
        self.rule = rule
        self.billing_at: float | None = _ts(data.get("next_billing_at"))
        self.secret_expires_at: float | None = _ts(data.get("client_secret_expires_at"))
        scheduled = data.get("scheduled_change")
        self.scheduled_at: float | None = _ts(scheduled["at"]) if scheduled else None


def _ts(value: Any) -> float | None:
    return None if value is None else parse_iso(str(value))


def _load(conn: sqlite3.Connection, sub_id: str, profile_id: str | None = None) -> Sub:
    found = conn.execute(
        "SELECT data, card_rule, profile_id FROM subscriptions WHERE id = ?", (sub_id,)
    ).fetchone()
    if found is None or (profile_id is not None and found[2] != profile_id):
        raise not_found("Subscription", sub_id)
    return Sub(json.loads(found[0]), json.loads(found[1]) if found[1] else None)


def _derive(sub: Sub, now: float) -> None:
    """Set the fields that follow from the others: modified_at, next_billing_at."""
    data = sub.data
    data["modified_at"] = iso(now)
    billing = sub.billing_at if data["status"] in ("active", "trial") else None
    data["next_billing_at"] = iso(billing) if billing is not None else None
    sub.billing_at = billing


def _save(conn: sqlite3.Connection, sub: Sub, now: float) -> None:
    _derive(sub, now)
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


def _view(sub: Sub) -> dict[str, Any]:
    return {k: v for k, v in sub.data.items() if k != "client_secret_expires_at"}


# -- billing --------------------------------------------------------------------------------


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


def _price(sub: Sub) -> dict[str, Any]:
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


def _first_payment(
    conn: sqlite3.Connection, state: SandboxState, sub: Sub, row: payments.Row
) -> None:
    """The first charge pays with the subscription's method (a new card, or one the customer
    saved), customer-initiated with `setup_future_usage: off_session` and, when the customer
    accepted, `customer_acceptance`: once authorised it saves the method and sets up the
    mandate every later charge uses."""
    rule = sub.rule or {}
    outcome = {k: rule[k] for k in _OUTCOME_KEYS if k in rule}
    saved = rule.get("saved")
    if saved:
        payments.use_saved(state, row, payment_methods.method_record(conn, str(saved)), outcome)
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


def _legacy_payment(sub: Sub, row: payments.Row) -> None:
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


def _charge(conn: sqlite3.Connection, state: SandboxState, sub: Sub, now: float) -> bool:
    """Invoice the current price and charge it; True when it was paid.

    The first charge sets up the mandate (`_first_payment`); every later one is a recurring
    payment on it (`mandate_id`, `off_session`), declining as the saved method's test value
    says. A mandate that can no longer be charged (revoked, its method deleted, its card
    expired) makes no payment: the invoice fails with the reason the payments API gives."""
    price = _price(sub)
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
            payments.pay_on_mandate(conn, state, row, str(mandate_id))
        except SandboxError as exc:
            refused = exc
    elif sub.data.get("invoice") is None:
        _first_payment(conn, state, sub, row)
    else:
        _legacy_payment(sub, row)
    paid = refused is None and charge_off_session(row, now)
    if paid:
        payments.authorised(conn, state, row)
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
    conn.execute(
        "INSERT INTO subscription_invoices(id, subscription_id, created, data) VALUES (?, ?, ?, ?)",
        (invoice["id"], sub.data["id"], invoice["created"], dumps(invoice)),
    )
    sub.data["invoice"] = invoice
    return paid


def _announce_paid(conn: sqlite3.Connection, state: SandboxState, sub: Sub, now: float) -> None:
    """`invoice_paid`, carrying the subscription as the API now returns it: sent once the
    charge's consequences (status, next term) are applied, not before."""
    _derive(sub, now)
    emit(
        conn,
        state,
        event_type="invoice_paid",
        event_class="subscriptions",
        # One event per (object, type): each invoice is paid once, a subscription many times.
        object_id=str(sub.data["invoice"]["id"]),
        obj=_view(sub) | {"client_secret": None},
    )


def _start_term(sub: Sub, now: float) -> None:
    price = _price(sub)
    sub.billing_at = add_interval(now, str(price["interval"]), int(price["interval_count"]))


def _charge_new_term(
    conn: sqlite3.Connection, state: SandboxState, sub: Sub, now: float, fail_status: str
) -> None:
    if _charge(conn, state, sub, now):
        sub.data["status"] = "active"
        _start_term(sub, now)
        _announce_paid(conn, state, sub, now)
    else:
        sub.data["status"] = fail_status
        sub.billing_at = None


# -- routes -----------------------------------------------------------------------------------


@router.get("/subscriptions/plans", summary="The plan catalogue and its prices")
async def list_plans(request: Request) -> Response:
    """Plans with `price_id[]` (amount, currency, interval, interval_count, trial_period days)."""
    _profile(request)
    return respond({"count": len(PLANS), "total_count": len(PLANS), "data": list(PLANS)})


@router.get("/subscriptions/items", summary="The plan catalogue as the real service names it")
async def list_items(request: Request) -> Response:
    """Query `item_type` (plan or addon, required), `limit`, `offset`, `product_id` (the item of
    that id): a bare array of `{item_id, name, description, price_id[]}`, each price naming
    its `item_id` and `trial_period_unit` (Day) when it has a trial."""
    _profile(request)
    q = validate_query(SubscriptionItemsRequest, request.query_params)
    plans = PLANS if q.item_type.value == "plan" else ()
    if q.product_id is not None:
        plans = tuple(p for p in plans if p["plan_id"] == q.product_id)
    start = q.offset or 0
    end = None if q.limit is None else start + q.limit
    return respond([_item(plan) for plan in plans[start:end]])


def _item(plan: dict[str, Any]) -> dict[str, Any]:
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


@router.get("/subscriptions/estimate", summary="What a subscription to a plan costs at its start")
async def estimate(request: Request) -> Response:
    """Query `plan_id` (a plan, priced at its first price, or one of its prices; required),
    `customer_id` (must exist), `coupon_id` (recorded: the sandbox has no coupons, so no
    discount), `trial_days` (overrides the price's trial). A trial makes the first charge 0."""
    _profile(request)
    q = validate_query(SubscriptionEstimateRequest, request.query_params)
    if q.plan_id in PRICES:
        plan_id, price = PRICES[q.plan_id]
    else:
        plan = next((p for p in PLANS if p["plan_id"] == q.plan_id), None)
        if plan is None:
            raise not_found("Plan", q.plan_id)
        plan_id, price = plan["plan_id"], plan["price_id"][0]
    if q.customer_id is not None:
        payments.check_customer(state_of(request).db.conn, q.customer_id)
    name = next(p["name"] for p in PLANS if p["plan_id"] == plan_id)
    trial = q.trial_days if q.trial_days is not None else price["trial_period"] or 0
    every = _every(str(price["interval"]), int(price["interval_count"]))
    description = f"{name}, {every}" + (f", {trial}-day trial" if trial else "")
    amount = 0 if trial else int(price["amount"])
    line = {
        "item_id": price["price_id"],
        "item_type": "plan",
        "description": description,
        "amount": amount,
        "currency": price["currency"],
        "quantity": 1,
    }
    return respond(
        {
            "amount": amount,
            "currency": price["currency"],
            "plan_id": plan_id,
            "item_price_id": price["price_id"],
            "coupon_code": q.coupon_id,
            "customer_id": q.customer_id,
            "line_items": [line],
        }
    )


def _every(interval: str, count: int) -> str:
    unit = interval.lower()
    return f"every {unit}" if count == 1 else f"every {count} {unit}s"


def _resolve_price(plan_id: str | None, price_id: str, status: int) -> dict[str, Any]:
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


def _card_of(
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
        rule = payments.card_rule(state, card)
        rule["card"] = payments.card_view(card)
        rule["fails_renewals"] = card.card_number == cards.RENEWAL_FAILS_CARD
        rule["payment_method_id"] = None  # set when the first charge saves it
        rule["acceptance"] = acceptance
        return rule
    if details.payment_method_id:
        found = payment_methods.saved_for(conn, details.payment_method_id, customer_id)
        if found is not None:
            method, saved_rule = found
            return {
                **saved_rule,
                "card": payment_methods.card_of(method),
                "saved": details.payment_method_id,
                "payment_method_id": details.payment_method_id,
                "acceptance": acceptance,
            }
        for (text,) in conn.execute(
            "SELECT card_rule FROM subscriptions WHERE customer_id = ? AND card_rule IS NOT NULL",
            (customer_id,),
        ):
            stored: dict[str, Any] = json.loads(text)
            if stored.get("payment_method_id") == details.payment_method_id:
                return {**stored, "acceptance": acceptance}
        raise not_found("Payment method", details.payment_method_id)
    raise missing(
        "payment_details.payment_method_data",
        "Give the card in payment_details.payment_method_data.card (card_number, "
        "card_exp_month, card_exp_year, card_holder_name, card_cvc) or a saved "
        "payment_method_id.",
    )


@router.post("/subscriptions", summary="Create and confirm a subscription")
async def create_subscription(request: Request, body: SubscriptionCreateRequest) -> Response:
    """Charges the first term now (or starts the trial); answers with `payment` and `invoice`."""
    profile_id = _profile(request)
    state = state_of(request)
    now = state.clock.now()
    price = _resolve_price(body.plan_id, body.item_price_id, 404)
    sub_id = ids.new_id("sub")  # drawn before the card's id: seeded runs keep their ids
    with state.db.transaction() as conn:
        payments.check_customer(conn, body.customer_id)
        rule = _card_of(conn, state, body.payment_details, body.customer_id)
        sub = _insert(conn, state, sub_id, profile_id, body, rule, now)
        _first_term(conn, state, sub, price, now)
        _save(conn, sub, now)
    return respond(_view(sub))


@router.post(
    "/subscriptions/create",
    summary="Create a subscription, to confirm later",
    openapi_extra=json_body(SubscriptionCreateOnlyRequest),
)
async def create_only(request: Request) -> Response:
    """The real service's first step: the subscription in `created` with its 15-minute
    `client_secret`, no payment and no invoice yet. `POST /subscriptions/{id}/confirm` with
    the card then charges the first term (or starts the trial)."""
    profile_id = _profile(request)
    body = await read_body(request, SubscriptionCreateOnlyRequest)
    state = state_of(request)
    now = state.clock.now()
    _resolve_price(body.plan_id, body.item_price_id, 404)
    with state.db.transaction() as conn:
        payments.check_customer(conn, body.customer_id)
        sub = _insert(conn, state, ids.new_id("sub"), profile_id, body, None, now)
        sub.data["return_url"] = body.payment_details.return_url
        _save(conn, sub, now)
    return respond(_view(sub))


@router.post(
    "/subscriptions/{subscription_id:sub_id}/confirm",
    summary="Confirm a subscription made by POST /subscriptions/create",
    openapi_extra=json_body(SubscriptionConfirmRequest),
)
async def confirm_subscription(request: Request, subscription_id: str) -> Response:
    """Body `{client_secret?, payment_details: {payment_method, payment_method_data: {card},
    customer_acceptance, billing, shipping, ...}}`; answers as create-and-confirm does. Only
    a `created` subscription can be confirmed (409 otherwise)."""
    profile_id = _profile(request)
    body = await read_body(request, SubscriptionConfirmRequest)
    state = state_of(request)
    now = state.clock.now()
    with state.db.transaction() as conn:
        sub = _load(conn, subscription_id, profile_id)
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
        sub.rule = _card_of(conn, state, details, str(sub.data["customer_id"]))
        sub.data["payment_method_id"] = sub.rule.get("payment_method_id")
        for part in ("billing", "shipping"):
            given = getattr(details, part)
            if given is not None:
                sub.data[part] = given.to_body()
        _first_term(conn, state, sub, _price(sub), now)
        _save(conn, sub, now)
    return respond(_view(sub))


def _insert(
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
    conn.execute(
        "INSERT INTO subscriptions(id, profile_id, customer_id, status, created, card_rule, "
        "data) VALUES (?, ?, ?, 'created', ?, ?, ?)",
        (
            sub_id,
            profile_id,
            body.customer_id,
            iso(now),
            dumps(rule) if rule else None,
            dumps(data),
        ),
    )
    return Sub(data, rule)


def _first_term(
    conn: sqlite3.Connection, state: SandboxState, sub: Sub, price: dict[str, Any], now: float
) -> None:
    """Start a confirmed subscription: its trial, or its first term charged now."""
    rule = sub.rule or {}
    if price["trial_period"] and rule.get("outcome") != cards.DECLINED:
        sub.data["status"] = "trial"
        sub.billing_at = now + int(price["trial_period"]) * 86400
        sub.data["trial_end"] = iso(sub.billing_at)
    else:
        _charge_new_term(conn, state, sub, now, "failed")


@router.get("/subscriptions/{subscription_id:sub_id}", summary="Retrieve a subscription")
async def retrieve_subscription(request: Request, subscription_id: str) -> Response:
    """The subscription with its latest `payment` and `invoice`."""
    profile_id = _profile(request)
    return respond(_view(_load(state_of(request).db.conn, subscription_id, profile_id)))


# -- sandbox controls: the lists the real service's dashboard has (its API has none) ----------


def _control_profile(request: Request) -> str:
    """The key's business profile; an X-Profile-Id, when sent, must name it."""
    expected = state_of(request).credentials.profile_id
    value = request.headers.get("x-profile-id")
    if value and value != expected:
        raise not_found("Business profile", value)
    return expected


@router.get(
    "/_sandbox/subscriptions",
    tags=["sandbox controls"],
    summary="List subscriptions, newest first (the service has no such route)",
)
async def list_subscriptions(request: Request) -> Response:
    """Query `status` (repeatable or a comma list), `customer_id`, `plan_id`, `limit` (1-100,
    default 20), `offset`: `{count, total_count, data}`, each as GET /subscriptions/{id}."""
    q = validate_query(SubscriptionListRequest, request.query_params, many=("status",))
    where, params = ["profile_id = ?"], [_control_profile(request)]
    if q.status:
        where.append(f"status IN ({', '.join('?' * len(q.status))})")
        params += [s.value for s in q.status]
    if q.customer_id is not None:
        where.append("customer_id = ?")
        params.append(q.customer_id)
    if q.plan_id is not None:
        where.append("json_extract(data, '$.plan_id') = ?")
        params.append(q.plan_id)
    clause = " AND ".join(where)
    conn = state_of(request).db.conn
    rows = conn.execute(
        f"SELECT data FROM subscriptions WHERE {clause} "
        "ORDER BY created DESC, rowid DESC LIMIT ? OFFSET ?",
        (*params, q.limit, q.offset),
    ).fetchall()
    total = int(
        conn.execute(f"SELECT COUNT(*) FROM subscriptions WHERE {clause}", params).fetchone()[0]
    )
    shown = [dumps(_view(Sub(json.loads(r[0]), None))) for r in rows]
    return respond_list(shown, total)


@router.get(
    "/_sandbox/subscriptions/{subscription_id}/invoices",
    tags=["sandbox controls"],
    summary="A subscription's invoices, newest first (its renewal history)",
)
async def list_invoices(request: Request, subscription_id: str) -> Response:
    """Query `limit` (1-100, default 20), `offset`: `{count, total_count, data}`; each invoice
    carries its `payment` (`payment_id, status, amount, currency, unified_code,
    unified_message`) when it was charged here (seeded history has none)."""
    q = validate_query(InvoiceListRequest, request.query_params)
    conn = state_of(request).db.conn
    _load(conn, subscription_id, _control_profile(request))
    rows = conn.execute(
        "SELECT data FROM subscription_invoices WHERE subscription_id = ? "
        "ORDER BY created DESC, rowid DESC LIMIT ? OFFSET ?",
        (subscription_id, q.limit, q.offset),
    ).fetchall()
    total = int(
        conn.execute(
            "SELECT COUNT(*) FROM subscription_invoices WHERE subscription_id = ?",
            (subscription_id,),
        ).fetchone()[0]
    )
    invoices = [json.loads(r[0]) for r in rows]
    for invoice in invoices:
        invoice["payment"] = _invoice_payment(conn, invoice.get("payment_id"))
    return respond_list([dumps(i) for i in invoices], total)


def _invoice_payment(conn: sqlite3.Connection, payment_id: Any) -> dict[str, Any] | None:
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


@router.put(
    "/subscriptions/{subscription_id:sub_id}/update",
    summary="Change a subscription's plan",
    openapi_extra=json_body(SubscriptionUpdateRequest),
)
async def update_subscription(request: Request, subscription_id: str) -> Response:
    """Body `{plan_id, item_price_id}`; see the module docstring for the resulting status."""
    profile_id = _profile(request)
    raw = await read_object(
        request, '{"plan_id": "plan_pro", "item_price_id": "price_pro_monthly"}'
    )
    body = validate(SubscriptionUpdateRequest, raw)
    _resolve_price(body.plan_id, body.item_price_id, 400)
    state = state_of(request)
    now = state.clock.now()
    with state.db.transaction() as conn:
        sub = _load(conn, subscription_id, profile_id)
        status = str(sub.data["status"])
        if status not in UPDATABLE:
            raise bad_state("change the plan of", "subscription", status, UPDATABLE)
        sub.data["plan_id"], sub.data["item_price_id"] = body.plan_id, body.item_price_id
        if status == "paused":
            sub.data["status"] = "pending"
        elif status in ("active", "unpaid"):
            _charge_new_term(conn, state, sub, now, "unpaid")
        _save(conn, sub, now)
    return respond(_view(sub))


def _future(field: str, value: str, now: float) -> float:
    when = parse_iso(value if "T" in value else f"{value}T00:00:00Z")
    if when <= now:
        raise invalid(field, value, f"a time after the sandbox's now ({iso(now)})")
    return when


def _schedule(sub: Sub, action: str, at: float) -> None:
    sub.data["scheduled_change"] = {"action": action, "at": iso(at)}
    sub.scheduled_at = at


@router.post(
    "/subscriptions/{subscription_id:sub_id}/pause",
    summary="Pause a subscription",
    openapi_extra=json_body(SubscriptionPauseRequest, required=False),
)
async def pause_subscription(request: Request, subscription_id: str) -> Response:
    """`pause_option`: immediately (default), end_of_term, or specific_date with `pause_at`."""
    return await _stop(request, subscription_id, "pause", SubscriptionPauseRequest, PAUSABLE)


@router.post(
    "/subscriptions/{subscription_id:sub_id}/resume",
    summary="Resume a subscription",
    openapi_extra=json_body(SubscriptionResumeRequest, required=False),
)
async def resume_subscription(request: Request, subscription_id: str) -> Response:
    """`resume_option` immediately (default) or specific_date with `resume_date`;
    `charges_handling` and `unpaid_invoices_handling` as in the spec."""
    profile_id = _profile(request)
    body = validate(
        SubscriptionResumeRequest, await read_object(request, '{"resume_option": "immediately"}')
    )
    state = state_of(request)
    now = state.clock.now()
    with state.db.transaction() as conn:
        sub = _load(conn, subscription_id, profile_id)
        if sub.data["status"] not in RESUMABLE:
            raise bad_state("resume", "subscription", str(sub.data["status"]), RESUMABLE)
        if body.resume_option is not None and body.resume_option.value == "specific_date":
            _schedule(sub, "resume", _future("resume_date", str(body.resume_date), now))
        else:
            _resume(conn, state, sub, now, body)
        _save(conn, sub, now)
    return respond(_view(sub))


def _resume(
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
        _start_term(sub, now)
    elif status == "paused" and charges == "add_to_unbilled_charges":
        sub.data["status"] = "active"  # this term is billed with the next cycle
        _start_term(sub, now)
    else:
        _charge_new_term(conn, state, sub, now, "unpaid")


@router.post(
    "/subscriptions/{subscription_id:sub_id}/cancel",
    summary="Cancel a subscription",
    openapi_extra=json_body(SubscriptionCancelRequest, required=False),
)
async def cancel_subscription(request: Request, subscription_id: str) -> Response:
    """`cancel_option`: immediately (default), end_of_term, or specific_date with `cancel_at`."""
    return await _stop(request, subscription_id, "cancel", SubscriptionCancelRequest, CANCELLABLE)


async def _stop(
    request: Request,
    subscription_id: str,
    action: str,
    model: type[SubscriptionPauseRequest | SubscriptionCancelRequest],
    allowed: Sequence[str],
) -> Response:
    """Pause or cancel (`action`) now, at the end of the term, or on `{action}_at`: both
    bodies name their fields after the action (`pause_option`/`pause_at`, `cancel_...`)."""
    profile_id = _profile(request)
    body = validate(model, await read_object(request, f'{{"{action}_option": "immediately"}}'))
    chosen = getattr(body, f"{action}_option")
    at: str | None = getattr(body, f"{action}_at")
    state = state_of(request)
    now = state.clock.now()
    with state.db.transaction() as conn:
        sub = _load(conn, subscription_id, profile_id)
        if sub.data["status"] not in allowed:
            raise bad_state(action, "subscription", str(sub.data["status"]), allowed)
        option = chosen.value if chosen else "immediately"
        if option == "end_of_term" and sub.billing_at is not None:
            _schedule(sub, action, sub.billing_at)
        elif option == "specific_date" and at:
            _schedule(sub, action, _future(f"{action}_at", at, now))
        else:
            _apply_change(conn, state, sub, action, now)
        _save(conn, sub, now)
    return respond(_view(sub))


def _apply_change(
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
        _resume(conn, state, sub, now, None)


# -- clock job: secrets expire, scheduled changes apply, terms renew --------------------------


def _next_due(conn: sqlite3.Connection) -> float | None:
    row = conn.execute(
        "SELECT MIN(t) FROM (SELECT MIN(billing_at) AS t FROM subscriptions "
        "UNION ALL SELECT MIN(secret_expires_at) FROM subscriptions "
        "UNION ALL SELECT MIN(scheduled_at) FROM subscriptions)"
    ).fetchone()
    return None if row is None or row[0] is None else float(row[0])


def _run_due(state: SandboxState, now: float) -> int:
    ids_due = [
        str(r[0])
        for r in state.db.conn.execute(
            "SELECT id FROM subscriptions WHERE billing_at <= ?1 OR secret_expires_at <= ?1 "
            "OR scheduled_at <= ?1",
            (now,),
        )
    ]
    for sub_id in ids_due:
        with state.db.transaction() as conn:
            sub = _load(conn, sub_id)
            if sub.secret_expires_at is not None and sub.secret_expires_at <= now:
                sub.data["client_secret"] = None
                sub.data["client_secret_expires_at"] = None
                sub.secret_expires_at = None
            if sub.scheduled_at is not None and sub.scheduled_at <= now:
                change = sub.data["scheduled_change"] or {}
                _apply_change(conn, state, sub, str(change.get("action")), sub.scheduled_at)
            if sub.billing_at is not None and sub.billing_at <= now:
                due = sub.billing_at
                if _charge(conn, state, sub, due):
                    sub.data["status"] = "active"
                    price = _price(sub)
                    sub.billing_at = add_interval(
                        due, str(price["interval"]), int(price["interval_count"])
                    )
                    _announce_paid(conn, state, sub, now)
                else:
                    sub.data["status"] = "unpaid"
                    sub.billing_at = None
            _save(conn, sub, now)
    return len(ids_due)


# -- demo seed --------------------------------------------------------------------------------

_SEED_STATES: Final = ("active", "active", "active", "trial", "paused", "cancelled", "unpaid")


def seed_subscriptions(ctx: SeedContext) -> None:
    """Subscriptions in several states for about one customer in five (at least 7).

    Seeded history carries its latest invoice but no payment object: `seed(n)` writes exactly
    n payments.
    """
    rng = ctx.rng
    customers: list[str] = ctx.shared.get("customers", [])
    if not customers:
        return
    rows: list[tuple[Any, ...]] = []
    invoices: list[tuple[Any, ...]] = []
    paid_prices = [p for p in PRICES if not PRICES[p][1]["trial_period"]]
    for i in range(max(7, len(customers) // 5)):
        status = _SEED_STATES[i % len(_SEED_STATES)]
        customer_id = customers[i % len(customers)]
        price_id = "price_pro_monthly_trial" if status == "trial" else rng.choice(paid_prices)
        plan_id, price = PRICES[price_id]
        sub_id = ids.new_id("sub", rng)
        step = (str(price["interval"]), int(price["interval_count"]))
        # The current term began up to 5 days ago, so the next charge is at least 2 days after
        # the seed's day starts: seeded history never falls due (and sends nothing) at start.
        term_start = ctx.now - rng.uniform(3600, 5 * 86400)
        created = term_start
        for _ in range(rng.randint(0, 3)):
            created = add_interval(created, step[0], -step[1])
        if status == "trial":
            created = ctx.now - rng.uniform(3600, 10 * 86400)
        billing: float | None = add_interval(term_start, *step)
        if status == "trial":
            billing = created + int(price["trial_period"]) * 86400
        if status not in ("active", "trial"):
            billing = None
        invoice = None
        if status != "trial":
            invoice = {
                "id": ids.new_id("inv", rng),
                "subscription_id": sub_id,
                "amount": price["amount"],
                "currency": price["currency"],
                "status": "payment_failed" if status == "unpaid" else "invoice_paid",
                "payment_id": None,
                "created": iso(term_start),
            }
            invoices.append((invoice["id"], sub_id, invoice["created"], dumps(invoice)))
        data = {
            "id": sub_id,
            "status": status,
            "profile_id": ctx.profile_id,
            "merchant_id": ctx.merchant_id,
            "customer_id": customer_id,
            "plan_id": plan_id,
            "item_price_id": price_id,
            "merchant_reference_id": f"order_{rng.randint(10000, 99999)}",
            "coupon_code": None,
            "client_secret": None,
            "payment_method_id": None,
            "mandate_id": None,
            "payment": None,
            "invoice": invoice,
            "next_billing_at": iso(billing) if billing is not None else None,
            "trial_end": iso(billing) if status == "trial" and billing else None,
            "scheduled_change": None,
            "billing": None,
            "shipping": None,
            "created_at": iso(created),
            "modified_at": iso(term_start),
        }
        rule: dict[str, Any] = {
            "outcome": cards.SUCCEEDED,
            "code": None,
            "brand": "Visa",
            "card": {
                "last4": "4242",
                "brand": "Visa",
                "exp_month": "12",
                "exp_year": "2031",
                "card_holder_name": None,
            },
            "fails_renewals": False,
            "payment_method_id": ids.new_id("pm", rng),
        }
        data["payment_method_id"] = rule["payment_method_id"]
        rows.append(
            (
                sub_id,
                ctx.profile_id,
                customer_id,
                status,
                iso(created),
                billing,
                dumps(rule),
                dumps(data),
            )
        )
    ctx.conn.executemany(
        "INSERT OR IGNORE INTO subscriptions(id, profile_id, customer_id, status, created, "
        "billing_at, card_rule, data) VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
        rows,
    )
    ctx.conn.executemany(
        "INSERT OR IGNORE INTO subscription_invoices(id, subscription_id, created, data) "
        "VALUES (?, ?, ?, ?)",
        invoices,
    )


RESOURCE = Resource(
    name="subscriptions",
    router=router,
    schema=SCHEMA,
    jobs=(Job("subscriptions_due", _next_due, _run_due),),
    seed=seed_subscriptions,
)
