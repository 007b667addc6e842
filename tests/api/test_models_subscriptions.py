"""Subscriptions: create with payment details, update, resume, pause, cancel, plans."""

from __future__ import annotations

import copy
from typing import Any

import pytest
from pydantic import ValidationError

from payscope.api.models.subscriptions import (
    PlanListResponse,
    Subscription,
    SubscriptionCancelRequest,
    SubscriptionCreateRequest,
    SubscriptionPauseRequest,
    SubscriptionResumeRequest,
    SubscriptionStatus,
    SubscriptionUpdateRequest,
)

CREATE: dict[str, Any] = {
    "customer_id": "cus_1",
    "item_price_id": "price_monthly",
    "plan_id": "plan_pro",
    "merchant_reference_id": "sub-ref-1",
    "coupon_code": "WELCOME",
    "billing": {"address": {"line1": "1 Main St", "country": "US"}, "email": "jane@example.com"},
    "shipping": {"address": {"city": "Austin"}},
    "payment_details": {
        "payment_method": "card",
        "payment_method_type": "credit",
        "payment_method_data": {
            "card": {
                "card_number": "4242424242424242",
                "card_exp_month": "10",
                "card_exp_year": "2030",
                "card_holder_name": "Jane Doe",
                "card_cvc": "123",
                "card_network": "Visa",
                "nick_name": "work",
            }
        },
        "authentication_type": "no_three_ds",
        "capture_method": "automatic",
        "setup_future_usage": "off_session",
        "payment_type": "setup_mandate",
        "return_url": "https://shop.example/return",
        "customer_acceptance": {
            "acceptance_type": "online",
            "accepted_at": "2024-05-01T10:00:00Z",
            "online": {"ip_address": "127.0.0.1", "user_agent": "Mozilla/5.0"},
        },
    },
}


def errors_of(model: type[Any], data: dict[str, Any]) -> list[dict[str, Any]]:
    with pytest.raises(ValidationError) as caught:
        model.model_validate(data)
    return [dict(error) for error in caught.value.errors()]


def with_details(**change: Any) -> dict[str, Any]:
    data = copy.deepcopy(CREATE)
    data["payment_details"].update(change)
    return data


def test_create_with_every_field_round_trips() -> None:
    assert SubscriptionCreateRequest.model_validate(CREATE).to_body() == CREATE


def test_payment_details_all_optional() -> None:
    body = {"customer_id": "c", "item_price_id": "p", "payment_details": {}}
    assert SubscriptionCreateRequest.model_validate(body).to_body() == body


@pytest.mark.parametrize(
    "method",
    [
        "card",
        "wallet",
        "bank_redirect",
        "bank_transfer",
        "bank_debit",
        "pay_later",
        "crypto",
        "upi",
        "voucher",
        "gift_card",
        "open_banking",
        "mobile_payment",
        "network_token",
    ],
)
def test_every_payment_method_value(method: str) -> None:
    assert (
        SubscriptionCreateRequest.model_validate(
            with_details(payment_method=method)
        ).payment_details.payment_method
        == method
    )


@pytest.mark.parametrize(
    "capture", ["automatic", "manual", "manual_multiple", "scheduled", "sequential_automatic"]
)
def test_every_capture_method(capture: str) -> None:
    assert (
        SubscriptionCreateRequest.model_validate(with_details(capture_method=capture)).to_body()[
            "payment_details"
        ]["capture_method"]
        == capture
    )


@pytest.mark.parametrize(
    ("change", "loc", "fragment"),
    [
        ({"payment_method": "cash"}, ("payment_details", "payment_method"), "not a payment method"),
        (
            {"setup_future_usage": "later"},
            ("payment_details", "setup_future_usage"),
            "not a setup_future_usage value",
        ),
        ({"payment_type": "one_off"}, ("payment_details", "payment_type"), "not a payment type"),
        (
            {"authentication_type": "sms"},
            ("payment_details", "authentication_type"),
            "not a authentication type",
        ),
        (
            {"customer_acceptance": {"acceptance_type": "online"}},
            ("payment_details", "customer_acceptance", "online"),
            "required when acceptance_type is 'online'",
        ),
        (
            {"customer_acceptance": {"acceptance_type": "verbal"}},
            ("payment_details", "customer_acceptance", "acceptance_type"),
            "not a acceptance type",
        ),
        (
            {
                "customer_acceptance": {
                    "acceptance_type": "online",
                    "online": {"ip_address": "1.2.3.4"},
                }
            },
            ("payment_details", "customer_acceptance", "online", "user_agent"),
            "",
        ),
        (
            {
                "payment_method_data": {
                    "card": {
                        "card_number": "4242424242424242",
                        "card_exp_month": "10",
                        "card_exp_year": "2030",
                        "card_cvc": "123",
                    }
                }
            },
            ("payment_details", "payment_method_data", "card", "card_holder_name"),
            "",
        ),
        (
            {
                "payment_method_data": {
                    "card": {
                        "card_number": "4242424242424242",
                        "card_exp_month": "10",
                        "card_exp_year": "2030",
                        "card_holder_name": "J",
                    }
                }
            },
            ("payment_details", "payment_method_data", "card", "card_cvc"),
            "",
        ),
    ],
)
def test_payment_details_constraints(
    change: dict[str, Any], loc: tuple[Any, ...], fragment: str
) -> None:
    errors = errors_of(SubscriptionCreateRequest, with_details(**change))
    assert [tuple(e["loc"]) for e in errors] == [loc] and fragment in errors[0]["msg"]


def test_offline_acceptance_needs_no_online_block() -> None:
    data = with_details(customer_acceptance={"acceptance_type": "offline"})
    assert SubscriptionCreateRequest.model_validate(data).to_body()["payment_details"][
        "customer_acceptance"
    ] == {"acceptance_type": "offline"}


@pytest.mark.parametrize("missing", ["customer_id", "item_price_id", "payment_details"])
def test_create_required_fields(missing: str) -> None:
    errors = errors_of(SubscriptionCreateRequest, {k: v for k, v in CREATE.items() if k != missing})
    assert [(tuple(e["loc"]), e["type"]) for e in errors] == [((missing,), "missing")]


def test_update_needs_plan_and_price() -> None:
    assert SubscriptionUpdateRequest(plan_id="p", item_price_id="i").to_body() == {
        "plan_id": "p",
        "item_price_id": "i",
    }
    assert {tuple(e["loc"]) for e in errors_of(SubscriptionUpdateRequest, {})} == {
        ("plan_id",),
        ("item_price_id",),
    }


@pytest.mark.parametrize(
    ("data", "ok"),
    [
        ({}, True),
        (
            {
                "resume_option": "immediately",
                "charges_handling": "invoice_immediately",
                "unpaid_invoices_handling": "no_action",
            },
            True,
        ),
        (
            {
                "resume_option": "specific_date",
                "resume_date": "2030-01-31",
                "charges_handling": "add_to_unbilled_charges",
                "unpaid_invoices_handling": "schedule_payment_collection",
            },
            True,
        ),
        ({"resume_option": "specific_date"}, False),
        ({"resume_option": "later"}, False),
        ({"resume_option": "specific_date", "resume_date": "31/01/2030"}, False),
        ({"charges_handling": "ignore"}, False),
    ],
)
def test_resume(data: dict[str, Any], ok: bool) -> None:
    if ok:
        assert SubscriptionResumeRequest.model_validate(data).to_body() == data
    else:
        assert errors_of(SubscriptionResumeRequest, data)


def test_resume_date_missing_is_a_missing_error_at_resume_date() -> None:
    errors = errors_of(SubscriptionResumeRequest, {"resume_option": "specific_date"})
    assert [(tuple(e["loc"]), e["type"]) for e in errors] == [(("resume_date",), "missing")]


@pytest.mark.parametrize(
    ("model", "option", "at"),
    [
        (SubscriptionPauseRequest, "pause_option", "pause_at"),
        (SubscriptionCancelRequest, "cancel_option", "cancel_at"),
    ],
)
def test_pause_and_cancel(model: type[Any], option: str, at: str) -> None:
    for value in ("immediately", "end_of_term"):
        assert model.model_validate({option: value}).to_body() == {option: value}
    dated = {option: "specific_date", at: "2030-01-01T00:00:00Z"}
    assert model.model_validate(dated).to_body() == dated
    assert [tuple(e["loc"]) for e in errors_of(model, {option: "specific_date"})] == [(at,)]
    assert [tuple(e["loc"]) for e in errors_of(model, {option: "whenever"})] == [(option,)]


SUBSCRIPTION = {
    "id": "sub_Ab12Cd34Ef56Gh78Ij90",
    "status": "active",
    "profile_id": "pro_1",
    "merchant_id": "merchant_1",
    "customer_id": "cus_1",
    "plan_id": "plan_pro",
    "item_price_id": "price_monthly",
    "merchant_reference_id": "sub-ref-1",
    "coupon_code": None,
    "client_secret": "sub_secret_xyz",
    "payment": {
        "payment_id": "pay_1",
        "status": "succeeded",
        "amount": 1500,
        "currency": "USD",
        "payment_method_type": "credit",
    },
    "invoice": {
        "id": "inv_1",
        "subscription_id": "sub_Ab12Cd34Ef56Gh78Ij90",
        "amount": 1500,
        "currency": "USD",
        "status": "invoice_paid",
    },
    "next_billing_at": "2024-06-01T00:00:00Z",
    "billing_processor": "sandbox",
}


def test_subscription_with_payment_and_invoice() -> None:
    subscription = Subscription.model_validate(SUBSCRIPTION)
    assert subscription.status_enum is SubscriptionStatus.ACTIVE
    assert subscription.payment is not None and subscription.payment.amount == 1500
    assert subscription.invoice is not None and subscription.invoice.status == "invoice_paid"
    assert subscription.model_dump(exclude_unset=True) == SUBSCRIPTION
    assert "sub_secret_xyz" not in repr(subscription)
    resumed = Subscription.model_validate(
        {
            k: SUBSCRIPTION[k]
            for k in (
                "id",
                "status",
                "profile_id",
                "merchant_id",
                "customer_id",
                "merchant_reference_id",
                "next_billing_at",
            )
        }
    )
    assert resumed.payment is None and resumed.next_billing_at


def test_plans() -> None:
    raw = [
        {
            "plan_id": "plan_pro",
            "name": "Pro",
            "description": "All features",
            "price_id": [
                {
                    "price_id": "price_monthly",
                    "amount": 1500,
                    "currency": "USD",
                    "interval": "Month",
                    "interval_count": 1,
                    "trial_period": 14,
                }
            ],
        }
    ]
    plans = PlanListResponse.model_validate(raw)
    assert plans.data[0].price_id[0].interval == "Month" and plans.count == 1
