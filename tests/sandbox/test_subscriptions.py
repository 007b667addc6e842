"""Subscriptions end to end through ApiClient: plans, create-and-confirm, renewals on the clock,
plan changes, pause/resume/cancel, the 15-minute client_secret, X-Profile-Id."""

from __future__ import annotations

import json
from typing import Any

import httpx
import pytest

from payscope.api import ApiClient
from payscope.api.errors import InvalidRequestError, NotFoundError
from payscope.api.models.subscriptions import (
    SubscriptionCancelRequest,
    SubscriptionCreateRequest,
    SubscriptionPauseRequest,
    SubscriptionResumeRequest,
    SubscriptionUpdateRequest,
)
from payscope.sandbox.clock import parse_iso
from payscope.sandbox.server import Sandbox

CARD = {
    "card_number": "4242424242424242",
    "card_exp_month": "12",
    "card_exp_year": "2040",
    "card_holder_name": "Ada Lovelace",
    "card_cvc": "123",
}


async def customer(raw: httpx.AsyncClient) -> str:
    made = await raw.post("/customers", json={"name": "Ada", "email": "ada@example.com"})
    return str(made.json()["customer_id"])


def create_body(
    customer_id: str, price: str = "price_basic_monthly", **card: str
) -> SubscriptionCreateRequest:
    return SubscriptionCreateRequest.model_validate(
        {
            "customer_id": customer_id,
            "item_price_id": price,
            "payment_details": {
                "payment_method": "card",
                "payment_method_data": {"card": {**CARD, **card}},
                "customer_acceptance": {
                    "acceptance_type": "online",
                    "online": {"ip_address": "127.0.0.1", "user_agent": "pytest"},
                },
            },
        }
    )


async def advance(raw: httpx.AsyncClient, seconds: float) -> None:
    response = await raw.post("/_sandbox/clock/advance", json={"seconds": seconds})
    assert response.status_code == 200


async def test_plans_and_profile_header(client: ApiClient, raw: httpx.AsyncClient) -> None:
    plans = await client.subscriptions.plans()
    prices = {p.price_id: p for plan in plans.data for p in plan.price_id}
    assert {p.interval for p in prices.values()} >= {"Month", "Year"}
    assert any(p.trial_period for p in prices.values())
    missing = await raw.get("/subscriptions/plans")
    assert missing.status_code == 400 and "X-Profile-Id" in missing.json()["error"]["message"]
    wrong = await raw.get("/subscriptions/plans", headers={"X-Profile-Id": "pro_other"})
    assert wrong.status_code == 404


async def test_create_renew_and_events(
    client: ApiClient, raw: httpx.AsyncClient, sandbox: Sandbox
) -> None:
    sub = await client.subscriptions.create(create_body(await customer(raw)))
    assert sub.status == "active" and sub.client_secret
    assert (
        sub.payment is not None and sub.payment.status == "succeeded" and sub.payment.amount == 900
    )
    assert sub.invoice is not None and sub.invoice.status == "invoice_paid"
    first_bill = parse_iso(str(sub.next_billing_at))
    payment = (await raw.get(f"/payments/{sub.payment.payment_id}")).json()
    assert payment["amount_received"] == 900 and payment["customer_id"] == sub.customer_id
    # the client secret lives 15 minutes on the sandbox clock
    await advance(raw, 15 * 60 + 1)
    assert (await client.subscriptions.retrieve(sub.id)).client_secret is None
    # a month and a bit later: renewed, with a new invoice and payment, next_billing_at moved on
    await advance(raw, first_bill - sandbox.state.clock.now() + 60)
    renewed = await client.subscriptions.retrieve(sub.id)
    assert renewed.status == "active"
    assert renewed.invoice is not None and renewed.invoice.id != sub.invoice.id
    assert renewed.payment is not None and renewed.payment.payment_id != sub.payment.payment_id
    assert parse_iso(str(renewed.next_billing_at)) > first_bill + 27 * 86400
    paid = sandbox.state.db.conn.execute(
        "SELECT COUNT(*) FROM events WHERE event_type = 'invoice_paid'"
    ).fetchone()[0]
    assert paid == 2


async def test_renewal_failure_card_goes_unpaid_then_resumes(
    client: ApiClient, raw: httpx.AsyncClient, sandbox: Sandbox
) -> None:
    sub = await client.subscriptions.create(
        create_body(await customer(raw), "price_team_weekly", card_number="4000000000000341")
    )
    assert sub.status == "active" and sub.invoice is not None and sub.invoice.currency == "EUR"
    await advance(raw, 7 * 86400 + 10)
    unpaid = await client.subscriptions.retrieve(sub.id)
    assert unpaid.status == "unpaid" and unpaid.next_billing_at is None
    assert unpaid.payment is not None and unpaid.payment.status == "failed"
    assert unpaid.invoice is not None and unpaid.invoice.status == "payment_failed"
    # no_action: active again on a new term, the failed invoice stays unpaid
    resumed = await client.subscriptions.resume(
        sub.id, SubscriptionResumeRequest.model_validate({"unpaid_invoices_handling": "no_action"})
    )
    assert resumed.status == "active" and resumed.next_billing_at is not None
    assert resumed.invoice is not None and resumed.invoice.id == unpaid.invoice.id


async def test_declined_card_fails_and_guards(client: ApiClient, raw: httpx.AsyncClient) -> None:
    customer_id = await customer(raw)
    failed = await client.subscriptions.create(
        create_body(customer_id, card_number="4000000000000002")
    )
    assert failed.status == "failed" and failed.payment is not None
    assert failed.payment.status == "failed" and failed.next_billing_at is None
    with pytest.raises(NotFoundError):
        await client.subscriptions.create(create_body("cus_missing"))
    with pytest.raises(NotFoundError):
        await client.subscriptions.create(create_body(customer_id, "price_gold"))
    with pytest.raises(NotFoundError):
        await client.subscriptions.retrieve("sub_missing")
    with pytest.raises(InvalidRequestError):
        await client.subscriptions.pause(failed.id)


@pytest.mark.parametrize(
    ("details", "code", "word"),
    [
        ({}, "IR_01", "payment_method_data"),
        ({"payment_method": "cash"}, "IR_04", "payment_method"),
        ({"payment_method": "wallet"}, "IR_04", "card"),
        (
            {"payment_method_data": {"card": {k: v for k, v in CARD.items() if k != "card_cvc"}}},
            "IR_01",
            "card_cvc",
        ),
        (
            {
                "payment_method_data": {
                    "card": {k: v for k, v in CARD.items() if k != "card_holder_name"}
                }
            },
            "IR_01",
            "card_holder_name",
        ),
        ({"payment_method_data": {"card": CARD}, "capture_method": "later"}, "IR_04", "capture"),
        (
            {"payment_method_data": {"card": CARD}, "setup_future_usage": "never"},
            "IR_04",
            "setup_future_usage",
        ),
        ({"payment_method_data": {"card": CARD}, "payment_type": "odd"}, "IR_04", "payment"),
        (
            {"payment_method_data": {"card": CARD}, "authentication_type": "maybe"},
            "IR_04",
            "authentication",
        ),
        (
            {
                "payment_method_data": {"card": CARD},
                "customer_acceptance": {"acceptance_type": "online"},
            },
            "IR_01",
            "online",
        ),
        (
            {
                "payment_method_data": {"card": CARD},
                "customer_acceptance": {"acceptance_type": "nod"},
            },
            "IR_04",
            "acceptance",
        ),
        ({"payment_method_id": "pm_unknown"}, "IR_05", "pm_unknown"),
    ],
)
async def test_payment_details_validation(
    raw: httpx.AsyncClient, sandbox: Sandbox, details: dict[str, Any], code: str, word: str
) -> None:
    response = await raw.post(
        "/subscriptions",
        json={
            "customer_id": await customer(raw),
            "item_price_id": "price_basic_monthly",
            "payment_details": details,
        },
        headers={"X-Profile-Id": sandbox.credentials.profile_id},
    )
    assert response.status_code in (400, 404), response.text
    error = response.json()["error"]
    assert error["code"] == code and word in error["message"], error


async def test_update_plan_statuses(client: ApiClient, raw: httpx.AsyncClient) -> None:
    customer_id = await customer(raw)
    sub = await client.subscriptions.create(create_body(customer_id))
    pro = SubscriptionUpdateRequest(plan_id="plan_pro", item_price_id="price_pro_yearly")
    updated = await client.subscriptions.update(sub.id, pro)
    assert updated.status == "active" and updated.invoice is not None
    assert updated.invoice.amount == 29000 and updated.plan_id == "plan_pro"
    with pytest.raises(InvalidRequestError):
        await client.subscriptions.update(
            sub.id,
            SubscriptionUpdateRequest(plan_id="plan_basic", item_price_id="price_pro_yearly"),
        )
    with pytest.raises(InvalidRequestError):
        await client.subscriptions.update(
            sub.id, SubscriptionUpdateRequest(plan_id="plan_pro", item_price_id="price_nope")
        )
    paused = await client.subscriptions.pause(sub.id)
    assert paused.status == "paused" and paused.next_billing_at is None
    pending = await client.subscriptions.update(
        sub.id, SubscriptionUpdateRequest(plan_id="plan_basic", item_price_id="price_basic_monthly")
    )
    assert pending.status == "pending"
    active = await client.subscriptions.resume(sub.id)
    assert active.status == "active" and active.invoice is not None
    assert active.invoice.amount == 900
    # the renewal-failure card: a plan change that cannot be paid leaves it unpaid
    failing = await client.subscriptions.create(
        create_body(customer_id, card_number="4000000000000341")
    )
    unpaid = await client.subscriptions.update(failing.id, pro)
    assert unpaid.status == "unpaid"


async def test_trial_then_first_charge(client: ApiClient, raw: httpx.AsyncClient) -> None:
    sub = await client.subscriptions.create(
        create_body(await customer(raw), "price_pro_monthly_trial")
    )
    assert sub.status == "trial" and sub.payment is None
    await advance(raw, 14 * 86400 + 5)
    charged = await client.subscriptions.retrieve(sub.id)
    assert charged.status == "active" and charged.invoice is not None
    assert charged.invoice.status == "invoice_paid" and charged.invoice.amount == 2900


async def test_pause_resume_cancel_options(
    client: ApiClient, raw: httpx.AsyncClient, sandbox: Sandbox
) -> None:
    customer_id = await customer(raw)
    sub = await client.subscriptions.create(create_body(customer_id))
    assert sub.invoice is not None
    term_end = parse_iso(str(sub.next_billing_at))
    at_end = await client.subscriptions.pause(
        sub.id, SubscriptionPauseRequest.model_validate({"pause_option": "end_of_term"})
    )
    assert at_end.status == "active"
    await advance(raw, term_end - sandbox.state.clock.now() + 5)
    paused = await client.subscriptions.retrieve(sub.id)
    assert paused.status == "paused" and paused.invoice is not None
    assert paused.invoice.id == sub.invoice.id  # paused at the term's end: nothing charged
    with pytest.raises(InvalidRequestError) as info:
        await client.subscriptions.resume(
            sub.id,
            SubscriptionResumeRequest.model_validate(
                {"resume_option": "specific_date", "resume_date": "2001-01-01"}
            ),
        )
    assert "resume_date" in info.value.message
    headers = {"X-Profile-Id": sandbox.credentials.profile_id}
    for bad in ({"resume_option": "whenever"}, {"resume_option": "specific_date"}):
        response = await raw.post(f"/subscriptions/{sub.id}/resume", json=bad, headers=headers)
        assert response.status_code == 400 and "resume" in response.json()["error"]["message"]
    unbilled = await client.subscriptions.resume(
        sub.id,
        SubscriptionResumeRequest.model_validate({"charges_handling": "add_to_unbilled_charges"}),
    )
    assert unbilled.status == "active" and unbilled.invoice is not None
    assert unbilled.invoice.id == paused.invoice.id
    later = await client.subscriptions.cancel(
        sub.id,
        SubscriptionCancelRequest.model_validate(
            {"cancel_option": "specific_date", "cancel_at": "2099-01-01T00:00:00Z"}
        ),
    )
    assert later.status == "active"
    cancelled = await client.subscriptions.cancel(
        sub.id, SubscriptionCancelRequest.model_validate({"cancel_option": "immediately"})
    )
    assert cancelled.status == "cancelled" and cancelled.next_billing_at is None
    with pytest.raises(InvalidRequestError):
        await client.subscriptions.resume(sub.id)


async def test_invoice_paid_carries_the_subscription_as_the_api_returns_it(
    client: ApiClient, raw: httpx.AsyncClient, sandbox: Sandbox
) -> None:
    def last_paid_event() -> dict[str, Any]:
        row = sandbox.state.db.conn.execute(
            "SELECT body FROM events WHERE event_type = 'invoice_paid' ORDER BY rowid DESC LIMIT 1"
        ).fetchone()
        body: dict[str, Any] = json.loads(row[0])
        return body["content"]["object"]

    sub = await client.subscriptions.create(create_body(await customer(raw)))
    sent = last_paid_event()
    assert sent["status"] == sub.status == "active"
    assert sent["next_billing_at"] == sub.next_billing_at is not None

    headers = {"X-Profile-Id": sandbox.state.credentials.profile_id}
    paused = await raw.post(f"/subscriptions/{sub.id}/pause", json={}, headers=headers)
    assert paused.json()["status"] == "paused"
    resumed = (await raw.post(f"/subscriptions/{sub.id}/resume", json={}, headers=headers)).json()
    sent = last_paid_event()
    assert resumed["status"] == sent["status"] == "active"
    assert sent["next_billing_at"] == resumed["next_billing_at"] is not None
    assert sent["invoice"]["id"] == resumed["invoice"]["id"] != sub.invoice.id  # type: ignore[union-attr]
