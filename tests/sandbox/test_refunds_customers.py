"""Refunds (settled at once; the asynchronous cards' settlement on the clock; guards, failure
card) and customers, via ApiClient."""

from __future__ import annotations

import httpx
import pytest

from payscope.api import ApiClient
from payscope.api.errors import InvalidRequestError, NotFoundError
from payscope.api.models.customers import (
    CustomerCreateRequest,
    CustomerListRequest,
    CustomerUpdateRequest,
)
from payscope.api.models.events import EventListRequest
from payscope.api.models.payments import PaymentCreateRequest
from payscope.api.models.refunds import RefundCreateRequest, RefundListRequest, RefundUpdateRequest
from tests.sandbox.conftest import payment_body

# Refunds of a payment made with this card start pending and settle on the clock.
PENDING_CARD = "4000000000007726"


async def paid(client: ApiClient, number: str = "4242424242424242", **fields: object) -> str:
    payment = await client.payments.create(
        PaymentCreateRequest.model_validate(payment_body(number, **fields))
    )
    return payment.payment_id


async def test_a_card_refund_settles_at_once(client: ApiClient, raw: httpx.AsyncClient) -> None:
    """As the real service's own sandbox processor: `succeeded` in the answer, and the
    refund_succeeded event is sent all the same."""
    payment_id = await paid(client)
    refund = await client.refunds.create(RefundCreateRequest(payment_id=payment_id, amount=400))
    assert (refund.status, refund.amount, refund.error_code) == ("succeeded", 400, None)
    assert (await client.refunds.retrieve(refund.refund_id)).status == "succeeded"
    listed = (await client.payments.retrieve(payment_id)).refunds
    assert listed is not None and [r.status for r in listed] == ["succeeded"]
    events = await client.events.list(EventListRequest(object_id=refund.refund_id))
    assert [e.event_type for e in events.events] == ["refund_succeeded"]
    # scheduled as well: nothing is left to wait for
    later = await client.refunds.create(
        RefundCreateRequest.model_validate({"payment_id": payment_id, "refund_type": "scheduled"})
    )
    assert (later.status, later.amount) == ("succeeded", 1100)


async def test_full_refund_settles_on_the_clock(client: ApiClient, raw: httpx.AsyncClient) -> None:
    """The asynchronous path: a payment made with the refund-pending card."""
    payment_id = await paid(client, PENDING_CARD)
    refund = await client.refunds.create(
        RefundCreateRequest.model_validate({"payment_id": payment_id, "refund_type": "Instant"})
    )
    assert (refund.status, refund.amount, refund.currency) == ("pending", 1500, "USD")
    assert refund.refund_type == "instant"
    await raw.post("/_sandbox/clock/advance", json={"seconds": 5})
    assert (await client.refunds.retrieve(refund.refund_id)).status == "pending"
    await raw.post("/_sandbox/clock/advance", json={"seconds": 6})
    assert (await client.refunds.retrieve(refund.refund_id)).status == "succeeded"
    listed = (await client.payments.retrieve(payment_id)).refunds
    assert listed is not None and [r.status for r in listed] == ["succeeded"]


async def test_partial_refunds_never_exceed_amount_received(client: ApiClient) -> None:
    payment_id = await paid(client)
    await client.refunds.create(RefundCreateRequest(payment_id=payment_id, amount=1000))
    with pytest.raises(InvalidRequestError) as info:
        await client.refunds.create(RefundCreateRequest(payment_id=payment_id, amount=501))
    # In the real service's words (the spec gives none).
    assert info.value.code == "IR_04"
    assert info.value.message == "The refund amount exceeds the amount captured"
    rest = await client.refunds.create(RefundCreateRequest(payment_id=payment_id))
    assert rest.amount == 500
    with pytest.raises(InvalidRequestError) as full:
        await client.refunds.create(RefundCreateRequest(payment_id=payment_id, amount=1))
    assert "fully refunded" in full.value.message


async def test_refund_guards(client: ApiClient, raw: httpx.AsyncClient) -> None:
    failed = await paid(client, "4000000000000002")
    with pytest.raises(InvalidRequestError) as info:
        await client.refunds.create(RefundCreateRequest(payment_id=failed))
    assert "failed" in info.value.message and "succeeded" in info.value.message
    with pytest.raises(NotFoundError):
        await client.refunds.create(RefundCreateRequest(payment_id="pay_unknown"))
    held = await paid(client, capture_method="manual")
    with pytest.raises(InvalidRequestError):
        await client.refunds.create(RefundCreateRequest(payment_id=held))
    partly = await client.payments.capture(held)
    assert partly.status == "succeeded"


async def test_refund_id_is_idempotent(client: ApiClient, raw: httpx.AsyncClient) -> None:
    payment_id = await paid(client)
    body = {"payment_id": payment_id, "refund_id": "rf_1", "amount": 100}
    assert (await raw.post("/refunds", json=body)).status_code == 200
    again = await raw.post("/refunds", json={**body, "amount": 200})
    assert again.status_code == 409 and again.json()["error"]["code"] == "HE_01"
    assert (await client.refunds.retrieve("rf_1")).amount == 100


async def test_refund_fails_with_the_refund_fails_card(
    client: ApiClient, raw: httpx.AsyncClient
) -> None:
    payment_id = await paid(client, "4000000000005126")
    refund = await client.refunds.create(RefundCreateRequest(payment_id=payment_id, amount=100))
    await raw.post("/_sandbox/clock/advance", json={"seconds": 3600})
    settled = await client.refunds.retrieve(refund.refund_id)
    assert (settled.status, settled.error_code) == ("failed", "refund_failed")
    # a failed refund gives its amount back: the whole payment can still be refunded
    again = await client.refunds.create(RefundCreateRequest(payment_id=payment_id))
    assert again.amount == 1500


async def test_scheduled_refund_takes_an_hour(client: ApiClient, raw: httpx.AsyncClient) -> None:
    payment_id = await paid(client, PENDING_CARD)
    refund = await client.refunds.create(
        RefundCreateRequest.model_validate({"payment_id": payment_id, "refund_type": "SCHEDULED"})
    )
    await raw.post("/_sandbox/clock/advance", json={"seconds": 3500})
    assert (await client.refunds.retrieve(refund.refund_id)).status == "pending"
    await raw.post("/_sandbox/clock/advance", json={"seconds": 200})
    assert (await client.refunds.retrieve(refund.refund_id)).status == "succeeded"


async def test_refund_list_filters_and_update(client: ApiClient) -> None:
    first = await paid(client, PENDING_CARD)
    second = await paid(client, PENDING_CARD, currency="EUR")
    r1 = await client.refunds.create(RefundCreateRequest(payment_id=first, amount=10))
    await client.refunds.create(RefundCreateRequest(payment_id=second, amount=20))
    everything = await client.refunds.list()
    assert everything.total_count == 2
    only_first = await client.refunds.list(RefundListRequest(payment_id=first))
    assert [r.refund_id for r in only_first.data] == [r1.refund_id]
    eur = await client.refunds.list(RefundListRequest.model_validate({"currency": "EUR"}))
    assert [r.amount for r in eur.data] == [20]
    pending = await client.refunds.list(
        RefundListRequest.model_validate({"refund_status": "pending"})
    )
    assert pending.total_count == 2
    updated = await client.refunds.update(
        r1.refund_id, RefundUpdateRequest(reason="duplicate", metadata={"ticket": "T-1"})
    )
    assert (updated.reason, updated.metadata) == ("duplicate", {"ticket": "T-1"})
    assert updated.amount == 10


async def test_customers_crud(client: ApiClient) -> None:
    made = await client.customers.create(
        CustomerCreateRequest.model_validate(
            {"name": "Ada", "email": "ada@example.com", "metadata": {"crm": "42"}}
        )
    )
    assert made.customer_id.startswith("cus_")
    mine = await client.customers.create(CustomerCreateRequest(customer_id="cust_own", name="B"))
    assert mine.customer_id == "cust_own"
    assert (await client.customers.retrieve(made.customer_id)).email == "ada@example.com"
    updated = await client.customers.update(made.customer_id, CustomerUpdateRequest(name="Ada L"))
    assert (updated.name, updated.email) == ("Ada L", "ada@example.com")
    page = await client.customers.list(CustomerListRequest(limit=1))
    assert (page.count, page.total_count) == (1, 2)
    # payments accept the customer's id
    payment_id = await paid(client, customer_id=made.customer_id)
    assert (await client.payments.retrieve(payment_id)).customer_id == made.customer_id
    await client.customers.delete(made.customer_id)
    with pytest.raises(NotFoundError):
        await client.customers.retrieve(made.customer_id)
    assert (await client.payments.retrieve(payment_id)).customer_id == made.customer_id


async def test_duplicate_customer_id_is_he_01(raw: httpx.AsyncClient) -> None:
    assert (await raw.post("/customers", json={"customer_id": "c1"})).status_code == 200
    again = await raw.post("/customers", json={"customer_id": "c1"})
    assert again.status_code == 409 and again.json()["error"]["code"] == "HE_01"
