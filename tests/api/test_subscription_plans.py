"""`client.subscriptions.plans()`: `GET /subscriptions/plans`, or the real service's renamed
`GET /subscriptions/items?item_type=plan` (a bare array of items) when the first is not there.

The service is a scripted one on a real loopback port: the real service cannot run here."""

from __future__ import annotations

from typing import Any

import pytest

from payscope.api.errors import NotFoundError
from tests.api.conftest import ClientFactory, Reply, ScriptedApp, envelope

PLANS = {
    "count": 1,
    "total_count": 1,
    "data": [
        {
            "plan_id": "plan_basic",
            "name": "Basic",
            "price_id": [
                {"price_id": "price_basic_monthly", "amount": 900, "currency": "USD",
                 "interval": "Month", "interval_count": 1},
            ],
        }
    ],
}  # fmt: skip
# The real service's GetSubscriptionItemsResponse[] (see real-service-openapi-v1.json).
ITEMS = [
    {
        "item_id": "cbdemo_basic",
        "name": "Basic",
        "description": None,
        "price_id": [
            {"price_id": "cbdemo_basic-USD-monthly", "item_id": "cbdemo_basic", "amount": 1000,
             "currency": "USD", "interval": "Month", "interval_count": 1, "trial_period": 7,
             "trial_period_unit": "Day"},
        ],
    },
    {"item_id": "cbdemo_pro", "name": "Pro", "price_id": []},
]  # fmt: skip
ROUTE_MISSING = envelope(404, "HE_02", "Unrecognized request URL")


async def test_plans_are_read_from_the_plans_route(
    app: tuple[ScriptedApp, str], make_client: ClientFactory
) -> None:
    scripted, url = app
    scripted.script("GET", "/subscriptions/plans", Reply(200, PLANS))
    plans = await make_client(url, profile_id="pro_1").subscriptions.plans()
    assert [p.plan_id for p in plans.data] == ["plan_basic"]
    assert [(r.method, r.path) for r in scripted.requests] == [("GET", "/subscriptions/plans")]


async def test_a_missing_plans_route_falls_back_to_the_items_route(
    app: tuple[ScriptedApp, str], make_client: ClientFactory
) -> None:
    scripted, url = app
    scripted.script("GET", "/subscriptions/plans", ROUTE_MISSING)
    scripted.script("GET", "/subscriptions/items", Reply(200, ITEMS))
    plans = await make_client(url, profile_id="pro_1").subscriptions.plans()
    assert [p.plan_id for p in plans.data] == ["cbdemo_basic", "cbdemo_pro"]
    assert plans.count == 2 and plans.total_count is None
    (price,) = plans.data[0].price_id
    assert (price.price_id, price.amount, price.interval, price.trial_period) == (
        "cbdemo_basic-USD-monthly",
        1000,
        "Month",
        7,
    )
    first, second = scripted.requests
    assert (first.path, second.path) == ("/subscriptions/plans", "/subscriptions/items")
    assert second.query == "item_type=plan"
    assert second.headers["x-profile-id"] == "pro_1"


async def test_when_neither_route_exists_the_first_404_is_raised(
    app: tuple[ScriptedApp, str], make_client: ClientFactory
) -> None:
    scripted, url = app
    scripted.script("GET", "/subscriptions/plans", envelope(404, "HE_02", "plans: no such route"))
    scripted.script("GET", "/subscriptions/items", envelope(404, "HE_02", "items: no such route"))
    with pytest.raises(NotFoundError, match="plans: no such route"):
        await make_client(url, profile_id="pro_1").subscriptions.plans()
    assert len(scripted.requests) == 2


@pytest.mark.parametrize("status", [400, 401, 500])
async def test_other_failures_do_not_fall_back(
    app: tuple[ScriptedApp, str], make_client: ClientFactory, status: int
) -> None:
    from payscope.api.errors import ApiError

    scripted, url = app
    scripted.script("GET", "/subscriptions/plans", envelope(status, "IR_04", "no"))
    client: Any = make_client(url, profile_id="pro_1", max_attempts=1)
    with pytest.raises(ApiError):
        await client.subscriptions.plans()
    assert {r.path for r in scripted.requests} == {"/subscriptions/plans"}
