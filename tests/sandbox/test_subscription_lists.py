"""The sandbox's own subscription lists (`/_sandbox/subscriptions`, `.../{id}/invoices`) over
real HTTP through `client.sandbox`: the seeded subscriptions, filters, paging, the renewal
history growing on the clock, and mistakes answered in the service's error envelope."""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import Any

import httpx
import pytest

from payscope.api import ApiClient
from payscope.api.errors import InvalidRequestError, NotFoundError
from payscope.api.models.subscriptions import (
    InvoiceListRequest,
    SubscriptionCreateRequest,
    SubscriptionListRequest,
)
from payscope.sandbox.clock import parse_iso
from payscope.sandbox.server import Sandbox
from tests.sandbox.conftest import API_KEY, api_client, envelope
from tests.waits import REQUEST_TIMEOUT

CARD = {
    "card_number": "4242424242424242",
    "card_exp_month": "12",
    "card_exp_year": "2040",
    "card_holder_name": "Ada Lovelace",
    "card_cvc": "123",
}
RENEWAL_FAILS = "4000000000000341"


@pytest.fixture
async def served(sandbox: Sandbox) -> AsyncIterator[tuple[ApiClient, str]]:
    """The seeded sandbox on a free loopback port, and the shared client over HTTP to it."""
    sandbox.seed(40)
    url = await sandbox.start()
    client = api_client(sandbox, base_url=url)
    yield client, url
    await client.aclose()


async def _get(url: str, path: str, **params: Any) -> httpx.Response:
    async with httpx.AsyncClient(
        timeout=REQUEST_TIMEOUT, base_url=url, headers={"api-key": API_KEY}
    ) as http:
        return await http.get(path, params=params)


async def _create(client: ApiClient, customer_id: str, price: str, number: str) -> Any:
    body = SubscriptionCreateRequest.model_validate(
        {
            "customer_id": customer_id,
            "item_price_id": price,
            "payment_details": {
                "payment_method": "card",
                "payment_method_data": {"card": {**CARD, "card_number": number}},
            },
        }
    )
    return await client.subscriptions.create(body)


async def test_the_seeded_subscriptions_newest_first_with_filters_and_paging(
    served: tuple[ApiClient, str],
) -> None:
    client, _url = served
    page = await client.sandbox.subscriptions()
    assert page.total_count == len(page.data) >= 7
    statuses = {s.status for s in page.data}
    assert {"active", "trial", "paused", "cancelled", "unpaid"} <= statuses
    created = [s.created_at for s in page.data]
    assert created == sorted(created, reverse=True)
    # The same object as GET /subscriptions/{id}.
    first = page.data[0]
    assert (await client.subscriptions.retrieve(first.id)).model_dump() == first.model_dump()

    active = await client.sandbox.subscriptions(
        SubscriptionListRequest.model_validate({"status": ["active", "trial"]})
    )
    assert active.data and {s.status for s in active.data} <= {"active", "trial"}
    assert active.total_count == sum(s.status in ("active", "trial") for s in page.data)

    customer = first.customer_id
    mine = await client.sandbox.subscriptions(SubscriptionListRequest(customer_id=customer))
    assert mine.data and {s.customer_id for s in mine.data} == {customer}
    plan = await client.sandbox.subscriptions(SubscriptionListRequest(plan_id="plan_pro"))
    assert plan.total_count == sum(s.plan_id == "plan_pro" for s in page.data)

    two = await client.sandbox.subscriptions(SubscriptionListRequest(limit=2, offset=1))
    assert [s.id for s in two.data] == [s.id for s in page.data[1:3]]
    assert two.count == 2 and two.total_count == page.total_count


async def test_status_as_repeated_parameters_and_a_comma_list(
    served: tuple[ApiClient, str],
) -> None:
    _client, url = served
    repeated = await _get(url, "/_sandbox/subscriptions", status=["paused", "cancelled"])
    comma = await _get(url, "/_sandbox/subscriptions", status="paused,cancelled")
    assert repeated.status_code == comma.status_code == 200
    assert repeated.json() == comma.json()
    assert {s["status"] for s in repeated.json()["data"]} == {"paused", "cancelled"}


@pytest.mark.parametrize(
    ("params", "code", "words"),
    [
        ({"limit": "0"}, "IR_04", "limit must be a whole number from 1 to 100"),
        ({"limit": "101"}, "IR_04", "1 to 100"),
        ({"limit": "ten"}, "IR_04", "limit"),
        ({"offset": "-1"}, "IR_04", "offset"),
        ({"status": "sleeping"}, "IR_04", "'sleeping' is not a subscription status"),
        ({"customer_id": "cus/1"}, "IR_04", "customer_id"),
    ],
)
async def test_a_bad_query_is_said_in_the_error_envelope(
    served: tuple[ApiClient, str], params: dict[str, str], code: str, words: str
) -> None:
    _client, url = served
    response = await _get(url, "/_sandbox/subscriptions", **params)
    assert response.status_code == 400
    error = envelope(response)
    assert error["code"] == code and words in error["message"]


async def test_the_client_refuses_a_bad_status_before_sending(
    served: tuple[ApiClient, str],
) -> None:
    from pydantic import ValidationError

    with pytest.raises(ValidationError, match="not a subscription status"):
        SubscriptionListRequest.model_validate({"status": ["sleeping"]})
    client, _url = served
    response = await _get(_url, "/_sandbox/subscriptions", status="active,sleeping")
    assert response.status_code == 400
    with pytest.raises(InvalidRequestError):
        await client.request("GET", "/_sandbox/subscriptions", params={"limit": 0})


async def test_another_profile_and_an_unknown_subscription_are_not_found(
    served: tuple[ApiClient, str],
) -> None:
    client, url = served
    async with httpx.AsyncClient(
        timeout=REQUEST_TIMEOUT, base_url=url, headers={"api-key": API_KEY}
    ) as http:
        other = await http.get("/_sandbox/subscriptions", headers={"X-Profile-Id": "pro_other"})
        assert other.status_code == 404 and "pro_other" in envelope(other)["message"]
    with pytest.raises(NotFoundError):
        await client.sandbox.subscription_invoices("sub_nobody_has_this")
    missing = await _get(url, "/_sandbox/subscriptions/sub_nobody/invoices")
    assert missing.status_code == 404 and envelope(missing)["code"] == "IR_05"


async def test_the_renewal_history_grows_on_the_clock_newest_first(
    served: tuple[ApiClient, str],
) -> None:
    client, _url = served
    customer = (await client.sandbox.subscriptions()).data[0].customer_id
    assert customer is not None
    sub = await _create(client, customer, "price_team_weekly", RENEWAL_FAILS)
    history = await client.sandbox.subscription_invoices(sub.id)
    assert history.total_count == 1
    (first,) = history.data
    assert first.status == "invoice_paid" and first.payment is not None
    assert first.payment.status == "succeeded" and first.paid_by == sub.payment.payment_id

    # A new subscription is listed first.
    assert (await client.sandbox.subscriptions(SubscriptionListRequest(limit=1))).data[0].id == (
        sub.id
    )

    # A week on: the renewal-failure card declines the renewal; the history says why.
    due = parse_iso(str(sub.next_billing_at))
    now = parse_iso((await client.sandbox.clock())["now"])
    await client.sandbox.advance_clock(due - now + 60)
    history = await client.sandbox.subscription_invoices(sub.id)
    assert history.total_count == 2
    latest, older = history.data
    assert older.id == first.id
    assert latest.status == "payment_failed" and latest.payment is not None
    assert latest.payment.status == "failed" and latest.payment.unified_code
    assert (await client.subscriptions.retrieve(sub.id)).status == "unpaid"

    paged = await client.sandbox.subscription_invoices(sub.id, InvoiceListRequest(limit=1))
    assert [i.id for i in paged.data] == [latest.id] and paged.total_count == 2


async def test_seeded_history_has_invoices_without_payments(
    served: tuple[ApiClient, str],
) -> None:
    client, _url = served
    page = await client.sandbox.subscriptions(SubscriptionListRequest(status=["active"]))
    history = await client.sandbox.subscription_invoices(page.data[0].id)
    assert history.total_count == 1
    assert history.data[0].status == "invoice_paid" and history.data[0].payment is None
