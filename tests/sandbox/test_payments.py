"""Payments through the shared ApiClient, in-process: every transition and guard."""

from __future__ import annotations

from typing import Any

import httpx
import pytest

from payscope.api import ApiClient
from payscope.api.errors import (
    ConflictError,
    DuplicateError,
    InvalidRequestError,
    NotFoundError,
    PermissionDeniedError,
)
from payscope.api.models.payments import (
    Payment,
    PaymentCancelRequest,
    PaymentCaptureRequest,
    PaymentConfirmRequest,
    PaymentCreateRequest,
    PaymentListRequest,
    PaymentUpdateRequest,
)
from payscope.sandbox.cards import code_card
from payscope.sandbox.server import Sandbox
from tests.sandbox.conftest import BILLING, card, payment_body

DAY = 86400


async def create(client: ApiClient, number: str = "4242424242424242", **fields: Any) -> Payment:
    return await client.payments.create(
        PaymentCreateRequest.model_validate(payment_body(number, **fields))
    )


async def advance(raw: httpx.AsyncClient, seconds: float) -> dict[str, Any]:
    response = await raw.post("/_sandbox/clock/advance", json={"seconds": seconds})
    assert response.status_code == 200, response.text
    result: dict[str, Any] = response.json()
    return result


async def test_one_step_success_sets_amounts_and_captured_at(client: ApiClient) -> None:
    payment = await create(client)
    assert payment.status == "succeeded"
    assert payment.amount_received == 1500
    assert payment.amount_capturable == 0
    assert payment.captured_at is not None
    assert payment.client_secret and payment.client_secret.startswith(
        f"{payment.payment_id}_secret_"
    )
    assert payment.payment_method_data and payment.payment_method_data.card
    assert payment.payment_method_data.card.last4 == "4242"
    assert payment.payment_method_data.card.brand == "Visa"
    assert payment.payment_id.startswith("pay_") and len(payment.payment_id) == 24


async def test_two_step_create_then_confirm(client: ApiClient) -> None:
    created = await client.payments.create(
        PaymentCreateRequest(amount=900, currency="EUR", confirm=False)
    )
    assert created.status == "requires_payment_method"
    confirmed = await client.payments.confirm(
        created.payment_id,
        PaymentConfirmRequest.model_validate(
            {
                "payment_method": "card",
                "payment_method_data": {"card": card("5555555555554444")},
                "billing": BILLING,
            }
        ),
    )
    assert confirmed.status == "succeeded"
    assert confirmed.payment_method_data and confirmed.payment_method_data.card
    assert confirmed.payment_method_data.card.brand == "Mastercard"


async def test_create_with_card_unconfirmed_requires_confirmation(client: ApiClient) -> None:
    created = await create(client, confirm=False)
    assert created.status == "requires_confirmation"
    confirmed = await client.payments.confirm(created.payment_id, PaymentConfirmRequest())
    assert confirmed.status == "succeeded"


async def test_confirm_without_any_card_is_ir_01(client: ApiClient) -> None:
    created = await client.payments.create(PaymentCreateRequest(amount=900, currency="EUR"))
    with pytest.raises(InvalidRequestError) as info:
        await client.payments.confirm(created.payment_id, PaymentConfirmRequest())
    assert info.value.code == "IR_01"
    assert "payment_method_data" in info.value.message


async def test_update_before_confirmation_only(client: ApiClient) -> None:
    created = await client.payments.create(PaymentCreateRequest(amount=900, currency="EUR"))
    updated = await client.payments.update(
        created.payment_id, PaymentUpdateRequest(amount=1200, description="bigger")
    )
    assert (updated.amount, updated.description) == (1200, "bigger")
    done = await create(client)
    with pytest.raises(InvalidRequestError) as info:
        await client.payments.update(done.payment_id, PaymentUpdateRequest(amount=5))
    assert "succeeded" in info.value.message and "requires_payment_method" in info.value.message


async def test_confirm_twice_is_refused_naming_the_states(client: ApiClient) -> None:
    done = await create(client)
    with pytest.raises(InvalidRequestError) as info:
        await client.payments.confirm(done.payment_id, PaymentConfirmRequest())
    assert info.value.status == 400
    assert "succeeded" in info.value.message and "requires_confirmation" in info.value.message


async def test_manual_capture_full(client: ApiClient) -> None:
    payment = await create(client, capture_method="manual")
    assert (payment.status, payment.amount_capturable) == ("requires_capture", 1500)
    captured = await client.payments.capture(payment.payment_id)
    assert captured.status == "succeeded"
    assert (captured.amount_received, captured.amount_capturable) == (1500, 0)
    assert captured.captured_at is not None
    with pytest.raises(ConflictError) as info:
        await client.payments.capture(payment.payment_id)
    assert info.value.status == 409


async def test_manual_partial_capture_is_final(client: ApiClient) -> None:
    payment = await create(client, capture_method="manual")
    captured = await client.payments.capture(
        payment.payment_id, PaymentCaptureRequest(amount_to_capture=500)
    )
    assert captured.status == "partially_captured"
    assert (captured.amount_received, captured.amount_capturable) == (500, 0)


async def test_manual_multiple_partial_captures_until_zero(client: ApiClient) -> None:
    payment = await create(client, capture_method="manual_multiple")
    first = await client.payments.capture(
        payment.payment_id, PaymentCaptureRequest(amount_to_capture=500)
    )
    assert (first.status, first.amount_capturable) == ("partially_captured_and_capturable", 1000)
    with pytest.raises(InvalidRequestError) as info:
        await client.payments.capture(
            payment.payment_id, PaymentCaptureRequest(amount_to_capture=1001)
        )
    assert info.value.code == "IR_04" and "1000" in info.value.message
    last = await client.payments.capture(payment.payment_id)
    assert (last.status, last.amount_received, last.amount_capturable) == ("succeeded", 1500, 0)


async def _attempt_status(client: ApiClient, payment_id: str) -> str:
    fetched = await client.payments.retrieve(payment_id)
    assert fetched.attempts
    return str(fetched.attempts[-1].status)


async def test_the_attempt_says_what_each_capture_did(client: ApiClient) -> None:
    final = await create(client, capture_method="manual")
    assert await _attempt_status(client, final.payment_id) == "authorized"
    await client.payments.capture(final.payment_id, PaymentCaptureRequest(amount_to_capture=500))
    assert await _attempt_status(client, final.payment_id) == "partial_charged"
    several = await create(client, capture_method="manual_multiple")
    await client.payments.capture(several.payment_id, PaymentCaptureRequest(amount_to_capture=500))
    assert await _attempt_status(client, several.payment_id) == "partial_charged_and_chargeable"
    await client.payments.capture(several.payment_id)
    assert await _attempt_status(client, several.payment_id) == "charged"


async def test_capture_guards(client: ApiClient) -> None:
    automatic = await client.payments.create(PaymentCreateRequest(amount=10, currency="USD"))
    with pytest.raises(InvalidRequestError) as info:
        await client.payments.capture(automatic.payment_id)
    assert info.value.status == 400
    with pytest.raises(NotFoundError) as missing:
        await client.payments.capture("pay_nope")
    assert missing.value.code == "IR_05"
    cancelled = await create(client, capture_method="manual")
    await client.payments.cancel(cancelled.payment_id)
    with pytest.raises(ConflictError):
        await client.payments.capture(cancelled.payment_id)


async def test_cancel_voids_and_guards(client: ApiClient) -> None:
    held = await create(client, capture_method="manual")
    cancelled = await client.payments.cancel(
        held.payment_id, PaymentCancelRequest(cancellation_reason="duplicate")
    )
    assert (cancelled.status, cancelled.amount_capturable) == ("cancelled", 0)
    for payment_id in (cancelled.payment_id, (await create(client)).payment_id):
        with pytest.raises(InvalidRequestError):
            await client.payments.cancel(payment_id)


async def test_three_ds_challenge_authorize(client: ApiClient, raw: httpx.AsyncClient) -> None:
    payment = await create(client, "4000003800000446")
    assert payment.status == "requires_action"
    assert payment.next_action and payment.next_action.type == "redirect_to_url"
    assert payment.next_action.redirect_to_url and payment.next_action.redirect_to_url.endswith(
        f"/_sandbox/payments/{payment.payment_id}/3ds?client_secret={payment.client_secret}"
    )
    done = await raw.post(
        f"/_sandbox/payments/{payment.payment_id}/3ds", json={"result": "authorize"}
    )
    assert done.json()["status"] == "succeeded"
    again = await raw.post(f"/_sandbox/payments/{payment.payment_id}/3ds", json={})
    assert again.status_code == 400


@pytest.mark.parametrize(("result", "code"), [("fail", "UE_5001"), ("abandon", "UE_5003")])
async def test_three_ds_failures(
    client: ApiClient, raw: httpx.AsyncClient, result: str, code: str
) -> None:
    payment = await create(client, "4242424242424242", authentication_type="three_ds")
    assert payment.status == "requires_action"
    done = (
        await raw.post(f"/_sandbox/payments/{payment.payment_id}/3ds", json={"result": result})
    ).json()
    assert (done["status"], done["unified_code"]) == ("failed", code)


async def test_three_ds_bad_result_is_ir_04(client: ApiClient, raw: httpx.AsyncClient) -> None:
    payment = await create(client, "4000003800000446")
    bad = await raw.post(f"/_sandbox/payments/{payment.payment_id}/3ds", json={"result": "ok"})
    assert bad.status_code == 400
    assert bad.json()["error"]["code"] == "IR_04" and "authorize" in bad.json()["error"]["message"]


async def test_three_ds_manual_capture_goes_to_requires_capture(
    client: ApiClient, raw: httpx.AsyncClient
) -> None:
    payment = await create(client, "4000003800000446", capture_method="manual")
    done = await raw.post(f"/_sandbox/payments/{payment.payment_id}/3ds", json={})
    assert done.json()["status"] == "requires_capture"


async def test_manual_review_approve_and_reject(client: ApiClient) -> None:
    held = await create(client, "4000000000009235")
    assert held.status == "requires_merchant_action"
    approved = await client.payments.approve(held.payment_id)
    assert approved.status == "succeeded" and approved.captured_at is not None
    with pytest.raises(InvalidRequestError):
        await client.payments.approve(held.payment_id)
    other = await create(client, "4000000000009235")
    rejected = await client.payments.reject(other.payment_id)
    assert rejected.status == "failed"
    assert rejected.error_code == "manual_review_rejected"
    assert rejected.amount_capturable == 0
    with pytest.raises(InvalidRequestError):
        await client.payments.reject(other.payment_id)
    with pytest.raises(NotFoundError):
        await client.payments.approve("pay_unknown")


async def test_authorisation_expires_after_seven_days(
    client: ApiClient, raw: httpx.AsyncClient
) -> None:
    payment = await create(client, capture_method="manual")
    ran = await advance(raw, 7 * DAY - 60)
    assert ran["ran"]["expired_payments"] == 0
    assert (await client.payments.retrieve(payment.payment_id)).status == "requires_capture"
    ran = await advance(raw, 120)
    assert ran["ran"]["expired_payments"] == 1
    expired = await client.payments.retrieve(payment.payment_id)
    assert (expired.status, expired.amount_capturable) == ("expired", 0)
    with pytest.raises(ConflictError):
        await client.payments.capture(payment.payment_id)


async def test_merchant_payment_id_is_idempotent(client: ApiClient, raw: httpx.AsyncClient) -> None:
    first = await create(client, payment_id="order_42", amount=700)
    second = await raw.post("/payments", json=payment_body(payment_id="order_42", amount=9999))
    assert second.status_code == 409
    assert second.json()["error"]["code"] == "HE_01"
    assert (await client.payments.retrieve("order_42")).amount == first.amount == 700
    listed = await client.payments.list(PaymentListRequest(payment_id="order_42"))
    assert listed.total_count == 1


async def test_client_resolves_duplicate_to_the_original(client: ApiClient) -> None:
    first = await create(client, payment_id="order_43")
    try:
        again = await create(client, payment_id="order_43")
    except DuplicateError:
        return  # the client surfaces HE_01 itself: also a correct outcome
    assert again.payment_id == first.payment_id and again.status == first.status


async def test_unknown_customer_is_rejected(client: ApiClient) -> None:
    with pytest.raises(NotFoundError) as info:
        await create(client, customer_id="cus_invented")
    assert "POST /customers" in info.value.message


async def test_attempts_are_recorded(client: ApiClient) -> None:
    created = await create(client, code_card("UE_1001"), confirm=False)
    failed = await client.payments.confirm(created.payment_id, PaymentConfirmRequest())
    assert failed.status == "failed"
    fetched = await client.payments.retrieve(created.payment_id)
    assert fetched.attempts is not None and len(fetched.attempts) == 1
    attempt = fetched.attempts[0]
    assert attempt.attempt_id == f"{created.payment_id}_1"
    assert (attempt.status, attempt.unified_code) == ("failure", "UE_1001")
    assert fetched.refunds == [] and fetched.disputes == []


async def test_publishable_key_sdk_flow(sandbox: Sandbox, client: ApiClient) -> None:
    created = await client.payments.create(PaymentCreateRequest(amount=300, currency="GBP"))
    pk = sandbox.credentials.publishable_key
    async with httpx.AsyncClient(
        transport=httpx.ASGITransport(app=sandbox.app),
        base_url="http://sandbox.test",
        headers={"api-key": pk},
    ) as browser:
        path = f"/payments/{created.payment_id}"
        assert (await browser.get(path)).status_code == 403
        wrong = await browser.get(path, params={"client_secret": "nope"})
        assert wrong.status_code == 403
        ok = await browser.get(path, params={"client_secret": created.client_secret})
        assert ok.status_code == 200 and ok.json()["status"] == "requires_payment_method"
        body = {
            "client_secret": created.client_secret,
            "payment_method": "card",
            "payment_method_data": {"card": card("4242424242424242")},
            "billing": BILLING,
        }
        assert (
            await browser.post(f"{path}/confirm", json={**body, "client_secret": "x"})
        ).status_code == 403
        confirmed = await browser.post(f"{path}/confirm", json=body)
        assert confirmed.status_code == 200 and confirmed.json()["status"] == "succeeded"
        for method, other in (
            ("POST", "/payments"),
            ("POST", "/payments/list"),
            ("GET", "/payments/list"),
            ("POST", f"{path}/capture"),
            ("POST", "/refunds"),
            ("GET", "/customers/list"),
            ("GET", "/_sandbox/clock"),
        ):
            denied = await browser.request(method, other, json={})
            assert denied.status_code == 403, (method, other)
            assert denied.json()["error"]["type"] == "authentication_error"


async def test_publishable_key_through_the_client_is_permission_denied(
    sandbox: Sandbox,
) -> None:
    from tests.sandbox.conftest import api_client

    api = api_client(sandbox, api_key=sandbox.credentials.publishable_key)
    try:
        with pytest.raises(PermissionDeniedError):
            await api.payments.list()
    finally:
        await api.aclose()


async def test_list_filters_post_and_get(client: ApiClient, raw: httpx.AsyncClient) -> None:
    await create(client, amount=100, currency="USD")
    await create(client, "4000000000000002", amount=200, currency="EUR")
    await create(client, amount=300, currency="EUR", capture_method="manual")
    everything = await client.payments.list()
    assert everything.total_count == 3
    assert [p.amount for p in everything.data] == [300, 200, 100]  # newest first
    eur = await client.payments.list(PaymentListRequest(currency=["EUR"]))
    assert sorted(p.amount for p in eur.data) == [200, 300]
    failed = await client.payments.list(PaymentListRequest(status=["failed"]))
    assert [p.unified_code for p in failed.data] == ["UE_1007"]
    page = await client.payments.list(PaymentListRequest(limit=1, offset=1))
    assert (page.count, page.total_count, page.data[0].amount) == (1, 3, 200)
    ranged = await client.payments.list(
        PaymentListRequest.model_validate({"amount_filter": {"start_amount": 150}})
    )
    assert ranged.total_count == 2
    by_get = await raw.get("/payments/list", params={"status": "requires_capture", "limit": 5})
    assert by_get.status_code == 200 and by_get.json()["total_count"] == 1
    none = await client.payments.list(PaymentListRequest(created_gte="2999-01-01T00:00:00Z"))
    assert none.total_count == 0
    bad = await raw.get("/payments/list", params={"limit": 500})
    assert bad.status_code == 400 and bad.json()["error"]["code"] == "IR_04"
    assert "limit" in bad.json()["error"]["message"]


async def test_generated_payment_ids_sort_like_their_creation(
    client: ApiClient, raw: httpx.AsyncClient
) -> None:
    # Time-ordered ids append to every index keyed by the id (a random id would dirty a page
    # anywhere in it); the order holds across a clock advance too.
    first = await create(client)
    await advance(raw, 3600)
    second = await create(client)
    third = await create(client)
    assert first.payment_id < second.payment_id
    assert second.payment_id[:14] <= third.payment_id[:14]  # same millisecond stamp or later
    for payment in (first, second, third):
        assert payment.payment_id[4:].isalnum() and len(payment.payment_id) == 24
