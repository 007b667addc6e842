"""The real service's subscription routes in the sandbox, over real HTTP: create then confirm,
items (its name for plans), estimate; and a one-segment path that is no subscription id is an
unknown route, not a missing subscription. Shapes: real-service-openapi-v1.json
(SubscriptionResponse, GetSubscriptionItemsResponse, EstimateSubscriptionResponse)."""

from __future__ import annotations

from typing import Any

import httpx
import pytest

from payscope.api.errors import ConflictError, InvalidRequestError, NotFoundError
from payscope.api.models.subscriptions import (
    SubscriptionConfirmRequest,
    SubscriptionCreateOnlyRequest,
    SubscriptionEstimateRequest,
)
from tests.sandbox.conftest import Served, api_client, envelope

CARD = {
    "card_number": "4242424242424242",
    "card_exp_month": "12",
    "card_exp_year": "2040",
    "card_holder_name": "Ada Lovelace",
    "card_cvc": "123",
}
# SubscriptionResponse's required fields, and GetSubscriptionItemsResponse's / its prices'.
SUBSCRIPTION_REQUIRED = {"id", "status", "profile_id", "merchant_id", "customer_id"}
ITEM_FIELDS = {"item_id", "name", "description", "price_id"}
PRICE_FIELDS = {
    "price_id",
    "item_id",
    "amount",
    "currency",
    "interval",
    "interval_count",
    "trial_period",
    "trial_period_unit",
}
ESTIMATE_FIELDS = {
    "amount",
    "currency",
    "plan_id",
    "item_price_id",
    "coupon_code",
    "customer_id",
    "line_items",
}
LINE_FIELDS = {"item_id", "item_type", "description", "amount", "currency", "quantity"}


async def _customer(http: httpx.AsyncClient) -> str:
    made = await http.post("/customers", json={"name": "Ada", "email": "ada@example.com"})
    assert made.status_code == 200, made.text
    return str(made.json()["customer_id"])


def _create(customer_id: str, price: str = "price_basic_monthly") -> dict[str, Any]:
    # The real document's example body, on this sandbox's customer and price.
    return {
        "customer_id": customer_id,
        "item_price_id": price,
        "payment_details": {
            "authentication_type": "no_three_ds",
            "capture_method": "automatic",
            "return_url": "https://example.com/return",
            "setup_future_usage": "off_session",
        },
    }


def _confirm(number: str = "4242424242424242", **extra: Any) -> dict[str, Any]:
    return {
        "payment_details": {
            "payment_method": "card",
            "payment_method_type": "credit",
            "payment_method_data": {"card": {**CARD, "card_number": number}},
            "customer_acceptance": {
                "acceptance_type": "online",
                "online": {"ip_address": "127.0.0.1", "user_agent": "pytest"},
            },
            "billing": {"address": {"city": "London", "country": "GB"}},
        },
        **extra,
    }


async def test_create_then_confirm(served: Served) -> None:
    http = served.http
    customer_id = await _customer(http)
    made = await http.post("/subscriptions/create", json=_create(customer_id))
    assert made.status_code == 200, made.text
    created = made.json()
    assert set(created) >= SUBSCRIPTION_REQUIRED
    assert created["status"] == "created" and created["client_secret"]
    assert created["payment"] is None and created["invoice"] is None
    assert created["next_billing_at"] is None
    assert (await http.get(f"/subscriptions/{created['id']}")).json()["status"] == "created"
    # nothing charged yet
    charged = served.sandbox.state.db.conn.execute(
        "SELECT COUNT(*) FROM payments WHERE customer_id = ?", (customer_id,)
    ).fetchone()[0]
    assert charged == 0

    confirmed = await served.client.subscriptions.confirm(
        created["id"],
        SubscriptionConfirmRequest.model_validate(_confirm(client_secret=created["client_secret"])),
    )
    assert confirmed.id == created["id"] and confirmed.status == "active"
    assert confirmed.payment is not None and confirmed.payment.status == "succeeded"
    assert confirmed.payment.amount == 900
    assert confirmed.invoice is not None and confirmed.invoice.status == "invoice_paid"
    assert confirmed.next_billing_at is not None
    assert confirmed.model_extra is not None
    assert confirmed.model_extra["billing"]["address"]["city"] == "London"
    events = served.sandbox.state.db.conn.execute(
        "SELECT COUNT(*) FROM events WHERE event_type = 'invoice_paid'"
    ).fetchone()[0]
    assert events == 1

    # a second confirm is refused, and changes nothing
    again = await http.post(f"/subscriptions/{created['id']}/confirm", json=_confirm())
    assert again.status_code == 409 and "already confirmed" in envelope(again)["message"]
    with pytest.raises(ConflictError):
        await served.client.subscriptions.confirm(
            created["id"], SubscriptionConfirmRequest.model_validate(_confirm())
        )
    after = (await http.get(f"/subscriptions/{created['id']}")).json()
    assert after["invoice"]["id"] == confirmed.invoice.id


async def test_confirm_outcomes_follow_the_card_and_the_price(served: Served) -> None:
    client = served.client
    customer_id = await _customer(served.http)
    trial = await client.subscriptions.create_only(
        SubscriptionCreateOnlyRequest.model_validate(
            _create(customer_id, "price_pro_monthly_trial")
        )
    )
    assert trial.status == "created"
    started = await client.subscriptions.confirm(
        trial.id, SubscriptionConfirmRequest.model_validate(_confirm())
    )
    assert started.status == "trial" and started.payment is None and started.trial_end
    declined = await client.subscriptions.create_only(
        SubscriptionCreateOnlyRequest.model_validate(_create(customer_id))
    )
    failed = await client.subscriptions.confirm(
        declined.id, SubscriptionConfirmRequest.model_validate(_confirm("4000000000000002"))
    )
    assert failed.status == "failed"
    assert failed.payment is not None and failed.payment.status == "failed"


@pytest.mark.parametrize(
    ("path_kind", "body", "status", "code", "word"),
    [
        ("create", {"payment_details": {}}, 400, "IR_01", "return_url"),
        ("create", {"item_price_id": "price_gold"}, 404, "IR_05", "price_gold"),
        ("create", {"customer_id": "cus_missing"}, 404, "IR_05", "cus_missing"),
        ("confirm", {"payment_details": {}}, 400, "IR_01", "payment_method"),
        ("confirm", {"client_secret": "sub_x_secret_wrong"}, 400, "IR_04", "client_secret"),
        ("confirm", {"payment_details": {"payment_method": "wallet"}}, 400, "IR_04", "card"),
        ("confirm_missing", {}, 404, "IR_05", "sub_missing"),
    ],
)
async def test_create_and_confirm_refusals(
    served: Served, path_kind: str, body: dict[str, Any], status: int, code: str, word: str
) -> None:
    http = served.http
    customer_id = await _customer(http)
    if path_kind == "create":
        response = await http.post("/subscriptions/create", json={**_create(customer_id), **body})
    else:
        made = (await http.post("/subscriptions/create", json=_create(customer_id))).json()
        target = "sub_missing" if path_kind == "confirm_missing" else made["id"]
        response = await http.post(f"/subscriptions/{target}/confirm", json={**_confirm(), **body})
    assert response.status_code == status, response.text
    error = envelope(response)
    assert error["code"] == code and word in error["message"]


async def test_items_are_the_plans_in_the_real_shape(served: Served) -> None:
    http = served.http
    plans = (await http.get("/subscriptions/plans")).json()["data"]
    response = await http.get("/subscriptions/items", params={"item_type": "plan"})
    assert response.status_code == 200
    items = response.json()
    assert isinstance(items, list)  # a bare array, as the real service answers
    assert [i["item_id"] for i in items] == [p["plan_id"] for p in plans]
    for item, plan in zip(items, plans, strict=True):
        assert set(item) == ITEM_FIELDS
        assert item["name"] == plan["name"]
        for price, spec_price in zip(item["price_id"], plan["price_id"], strict=True):
            assert set(price) == PRICE_FIELDS and price["item_id"] == item["item_id"]
            assert price["amount"] == spec_price["amount"]
            assert price["trial_period_unit"] == ("Day" if price["trial_period"] else None)
    assert (await http.get("/subscriptions/items?item_type=addon")).json() == []
    paged = await http.get("/subscriptions/items?item_type=plan&limit=1&offset=1")
    assert [i["item_id"] for i in paged.json()] == [plans[1]["plan_id"]]
    one = await http.get("/subscriptions/items?item_type=plan&product_id=plan_team")
    assert [i["item_id"] for i in one.json()] == ["plan_team"]
    missing = await http.get("/subscriptions/items")
    assert missing.status_code == 400 and envelope(missing)["code"] == "IR_01"
    assert "item_type" in envelope(missing)["message"]
    bad = await http.get("/subscriptions/items?item_type=bundle")
    assert bad.status_code == 400 and envelope(bad)["code"] == "IR_04"
    no_profile = await http.get("/subscriptions/items?item_type=plan", headers={"X-Profile-Id": ""})
    assert no_profile.status_code == 400 and "X-Profile-Id" in envelope(no_profile)["message"]

    # the client reads them as plans, and asks the items route first on the real contract
    listed = await served.client.subscriptions.items()
    assert [p.plan_id for p in listed.data] == [p["plan_id"] for p in plans]
    assert listed.data[1].price_id[-1].trial_period_unit == "Day"
    real = api_client(served.sandbox, str(http.base_url).rstrip("/"), contract="real")
    try:
        via_items = await real.subscriptions.plans()
        assert [p.plan_id for p in via_items.data] == [p["plan_id"] for p in plans]
        assert [e.path for e in real.journal.entries()] == ["/subscriptions/items?item_type=plan"]
    finally:
        await real.aclose()


async def test_estimate(served: Served) -> None:
    http = served.http
    customer_id = await _customer(http)
    response = await http.get(
        "/subscriptions/estimate", params={"plan_id": "plan_pro", "customer_id": customer_id}
    )
    assert response.status_code == 200, response.text
    body = response.json()
    assert set(body) == ESTIMATE_FIELDS
    assert body["amount"] == 2900 and body["currency"] == "USD"
    assert body["plan_id"] == "plan_pro" and body["item_price_id"] == "price_pro_monthly"
    assert body["customer_id"] == customer_id and body["coupon_code"] is None
    (line,) = body["line_items"]
    assert set(line) == LINE_FIELDS
    assert line["item_id"] == "price_pro_monthly" and line["quantity"] == 1
    assert line["amount"] == 2900 and "Pro" in line["description"]

    client = served.client.subscriptions
    trial = await client.estimate(
        SubscriptionEstimateRequest(plan_id="price_pro_monthly_trial", coupon_id="WELCOME")
    )
    assert trial.amount == 0 and trial.plan_id == "plan_pro" and trial.coupon_code == "WELCOME"
    assert "14-day trial" in str(trial.line_items[0].description)
    no_trial = await client.estimate(
        SubscriptionEstimateRequest(plan_id="price_pro_monthly_trial", trial_days=0)
    )
    assert no_trial.amount == 2900
    weekly = await client.estimate(SubscriptionEstimateRequest(plan_id="plan_team", trial_days=7))
    assert weekly.currency == "EUR" and weekly.amount == 0

    for params, status, code in (
        ({"plan_id": "plan_gold"}, 404, "IR_05"),
        ({"plan_id": "plan_pro", "customer_id": "cus_missing"}, 404, "IR_05"),
        ({}, 400, "IR_01"),
        ({"plan_id": "plan_pro", "trial_days": "-1"}, 400, "IR_04"),
    ):
        refused = await http.get("/subscriptions/estimate", params=params)
        assert refused.status_code == status, (params, refused.text)
        assert envelope(refused)["code"] == code
    with pytest.raises(NotFoundError):
        await client.estimate(SubscriptionEstimateRequest(plan_id="plan_gold"))


@pytest.mark.parametrize(
    ("method", "path"),
    [
        ("GET", "/subscriptions/foo"),
        ("GET", "/subscriptions/items-old"),
        ("POST", "/subscriptions/foo"),
        ("POST", "/subscriptions/foo/pause"),
        ("PUT", "/subscriptions/items/update"),
        ("GET", "/nothing"),
    ],
)
async def test_unknown_sub_paths_are_unknown_routes(served: Served, method: str, path: str) -> None:
    response = await served.http.request(method, path, json={})
    assert response.status_code == 404
    error = envelope(response)
    assert error["code"] == "IR_02" and "not a route" in error["message"]
    assert "Subscription" not in error["message"]


async def test_a_missing_subscription_is_still_not_found(served: Served) -> None:
    response = await served.http.get("/subscriptions/sub_missing")
    assert response.status_code == 404 and envelope(response)["code"] == "IR_05"
    with pytest.raises(InvalidRequestError):
        await served.client.subscriptions.items("bundle")
