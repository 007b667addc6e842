"""Payment requests and the payment object against the spec's shapes and constraints."""

from __future__ import annotations

import copy
from typing import Any

import pytest
from pydantic import ValidationError

from payscope.api.cards import luhn_ok
from payscope.api.models.card_fields import CardData
from payscope.api.models.payments import (
    TERMINAL_PAYMENT_STATUSES,
    Payment,
    PaymentCancelRequest,
    PaymentCaptureRequest,
    PaymentConfirmRequest,
    PaymentCreateRequest,
    PaymentListRequest,
    PaymentListResponse,
    PaymentStatus,
    PaymentUpdateRequest,
    lacks_billing,
)

CARD = {
    "card_number": "4242424242424242",
    "card_exp_month": "10",
    "card_exp_year": "2030",
    "card_cvc": "123",
    "card_holder_name": "Jane Doe",
}
BILLING = {
    "address": {"line1": "1 Main St", "city": "San Francisco", "zip": "94122", "country": "US"},
    "phone": {"number": "5550100", "country_code": "+1"},
    "email": "jane@example.com",
}

# the payment object as the spec's response table describes it, plus what the reference adds
PAYMENT: dict[str, Any] = {
    "payment_id": "pay_Xk2mP9qR4tV7wY1zA3bC",
    "merchant_id": "merchant_1",
    "status": "failed",
    "amount": 6540,
    "amount_received": 0,
    "amount_capturable": 0,
    "currency": "USD",
    "capture_method": "automatic",
    "payment_method": "card",
    "payment_method_data": {
        "card": {
            "last4": "0002",
            "brand": "Visa",
            "exp_month": "10",
            "exp_year": "2030",
            "card_isin": "400000",
        }
    },
    "customer_id": "cus_Ab12Cd34Ef56Gh78Ij90",
    "email": "jane@example.com",
    "description": "Order 42",
    "statement_descriptor": "ACME",
    "metadata": {"order_id": "42"},
    "created": "2024-05-01T10:00:00.000Z",
    "modified_at": "2024-05-01T10:00:01.000Z",
    "captured_at": None,
    "client_secret": "pay_Xk2mP9qR4tV7wY1zA3bC_secret_abc",
    "error_code": "card_declined",
    "error_message": "Your card was declined.",
    "unified_code": "UE_1007",
    "unified_message": "Declined by issuer",
    "error_details": {
        "unified_details": {"category": "UE_1000", "message": "Declined by issuer"},
        "issuer_details": {
            "code": "05",
            "message": "Do not honor",
            "network_details": {"name": "visa", "advice_code": "01"},
        },
        "connector_details": {
            "code": "card_declined",
            "message": "declined",
            "reason": "generic_decline",
        },
    },
    "next_action": None,
    "attempts": [
        {
            "attempt_id": "pay_Xk2mP9qR4tV7wY1zA3bC_1",
            "status": "failure",
            "amount": 6540,
            "error_code": "card_declined",
            "error_message": "Your card was declined.",
            "unified_code": "UE_1007",
            "unified_message": "Declined by issuer",
            "created_at": "2024-05-01T10:00:00.500Z",
            "connector": "sandbox",
        }
    ],
    "refunds": [],
    "disputes": [],
    "connector": "sandbox",
    "surcharge_details": {"amount": 0},
}


def errors_of(model: type[Any], data: dict[str, Any]) -> list[dict[str, Any]]:
    with pytest.raises(ValidationError) as caught:
        model.model_validate(data)
    return [dict(error) for error in caught.value.errors()]


def locs(errors: list[dict[str, Any]]) -> list[tuple[Any, ...]]:
    return [tuple(error["loc"]) for error in errors]


# --- the payment object -------------------------------------------------------------------------


def test_payment_parses_the_spec_shape_and_keeps_unknown_fields() -> None:
    payment = Payment.model_validate(PAYMENT)
    assert payment.status_enum is PaymentStatus.FAILED and payment.is_terminal
    assert payment.payment_method_data is not None and payment.payment_method_data.card is not None
    assert payment.payment_method_data.card.last4 == "0002"
    assert payment.error_details is not None
    assert payment.error_details.issuer_details is not None
    assert payment.error_details.issuer_details.network_details is not None
    assert payment.error_details.issuer_details.network_details.name == "visa"
    assert payment.attempts is not None and payment.attempts[0].unified_code == "UE_1007"
    assert payment.connector == "sandbox"
    assert payment.model_extra == {"surcharge_details": {"amount": 0}}
    assert payment.model_dump(mode="json", exclude_unset=True) == PAYMENT
    assert Payment.model_validate_json(payment.model_dump_json()) == payment


def test_payment_repr_hides_the_client_secret() -> None:
    assert "secret_abc" not in repr(Payment.model_validate(PAYMENT))


def test_payment_accepts_a_status_it_does_not_know() -> None:
    payment = Payment.model_validate({**PAYMENT, "status": "requires_something_new"})
    assert payment.status == "requires_something_new"
    assert payment.status_enum is None and not payment.is_terminal


def test_payment_with_3ds_next_action_and_nested_refunds_disputes() -> None:
    payment = Payment.model_validate(
        {
            "payment_id": "pay_1",
            "status": "requires_customer_action",
            "amount": 100,
            "currency": "EUR",
            "next_action": {"type": "redirect_to_url", "redirect_to_url": "http://127.0.0.1/3ds"},
            "refunds": [
                {
                    "refund_id": "ref_1",
                    "payment_id": "pay_1",
                    "amount": 50,
                    "currency": "EUR",
                    "status": "succeeded",
                }
            ],
            "disputes": [
                {"dispute_id": "dp_1", "payment_id": "pay_1", "amount": "100", "status": "won"}
            ],
        }
    )
    assert payment.next_action is not None and payment.next_action.type == "redirect_to_url"
    assert payment.refunds is not None and payment.refunds[0].amount == 50
    assert payment.disputes is not None and payment.disputes[0].amount == 100


def test_approve_and_reject_answers_parse_as_payments() -> None:
    approved = Payment.model_validate(
        {
            "payment_id": "p",
            "status": "succeeded",
            "amount": 1,
            "currency": "USD",
            "captured_at": "2024-05-01T10:00:00Z",
        }
    )
    rejected = Payment.model_validate(
        {
            "payment_id": "p",
            "status": "failed",
            "amount": 1,
            "currency": "USD",
            "error_code": "manual_review_rejected",
            "error_message": "x",
        }
    )
    assert approved.captured_at and rejected.error_code == "manual_review_rejected"


def test_payment_list_response() -> None:
    items = [
        {
            "payment_id": f"p{i}",
            "status": "succeeded",
            "amount": i,
            "currency": "USD",
            "created": "2024-05-01T10:00:00Z",
        }
        for i in range(3)
    ]
    page = PaymentListResponse.model_validate({"count": 3, "total_count": 30, "data": items})
    assert [p.amount for p in page.data] == [0, 1, 2] and page.total_count == 30


def test_status_enum_is_the_full_reference_set() -> None:
    assert {s.value for s in PaymentStatus} == {
        "requires_payment_method", "requires_confirmation", "requires_action",
        "requires_customer_action", "requires_merchant_action", "requires_capture",
        "processing", "succeeded", "failed", "cancelled", "partially_captured",
        "partially_captured_and_capturable", "partially_authorized_and_requires_capture",
        "expired",
    }  # fmt: skip
    assert {s.value for s in TERMINAL_PAYMENT_STATUSES} == {
        "succeeded", "failed", "cancelled", "partially_captured", "expired"
    }  # fmt: skip


# --- creation -----------------------------------------------------------------------------------


def full_create() -> dict[str, Any]:
    return {
        "amount": 6540,
        "currency": "usd",
        "profile_id": "pro_1",
        "payment_id": "order-42_try",
        "customer_id": "cus_1",
        "confirm": True,
        "capture_method": "manual",
        "authentication_type": "no_three_ds",
        "description": "Order 42",
        "return_url": "https://shop.example/return",
        "email": "jane@example.com",
        "name": "Jane Doe",
        "phone": "5550100",
        "phone_country_code": "+1",
        "payment_method": "card",
        "payment_method_type": "credit",
        "payment_method_data": {"card": dict(CARD)},
        "billing": copy.deepcopy(BILLING),
        "browser_info": {
            "ip_address": "127.0.0.1",
            "user_agent": "curl",
            "color_depth": 24,
            "java_enabled": False,
        },
        "order_details": [{"name": "Book", "quantity": 2, "amount": 3270, "currency": "USD"}],
        "metadata": {"order_id": "42"},
        "setup_future_usage": "off_session",
    }


def test_create_with_every_spec_field_round_trips() -> None:
    data = full_create()
    request = PaymentCreateRequest.model_validate(data)
    body = request.to_body()
    assert body["currency"] == "USD"
    assert body["setup_future_usage"] == "off_session"  # unknown to the model, passed through
    expected = {**data, "currency": "USD"}
    assert body == expected
    assert PaymentCreateRequest.model_validate(body).to_body() == body


def test_minimal_create_and_profile_id_optional() -> None:
    assert PaymentCreateRequest(amount=100, currency="EUR").to_body() == {
        "amount": 100,
        "currency": "EUR",
    }


@pytest.mark.parametrize("wrong", ["items", "line_items", "cart_items"])
def test_order_lines_under_a_wrong_name_are_refused(wrong: str) -> None:
    data = {
        "amount": 100,
        "currency": "USD",
        wrong: [{"name": "Book", "quantity": 1, "amount": 100}],
    }
    errors = errors_of(PaymentCreateRequest, data)
    assert locs(errors) == [(wrong,)]
    assert "order_details" in errors[0]["msg"]
    with pytest.raises(ValidationError):
        PaymentUpdateRequest.model_validate({wrong: []})


@pytest.mark.parametrize(
    ("change", "loc", "fragment"),
    [
        ({"amount": 65.4}, ("amount",), "whole number"),
        ({"amount": "6540"}, ("amount",), "whole number"),
        ({"currency": "DOLLARS"}, ("currency",), "ISO 4217"),
        ({"payment_id": "order 42"}, ("payment_id",), "1 to 64 characters"),
        ({"payment_id": "p" * 65}, ("payment_id",), "65 characters"),
        ({"capture_method": "later"}, ("capture_method",), "not a capture method"),
        ({"authentication_type": "3ds"}, ("authentication_type",), "not a authentication type"),
        ({"email": "not-an-email"}, ("email",), "e-mail address"),
        (
            {"billing": {**BILLING, "address": {"country": "USA"}}},
            ("billing", "address", "country"),
            "ISO 3166-1",
        ),
        (
            {"order_details": [{"name": "Book", "quantity": 0, "amount": 1}]},
            ("order_details", 0, "quantity"),
            "",
        ),
        (
            {"order_details": [{"name": "Book", "quantity": 1, "amount": 9.99}]},
            ("order_details", 0, "amount"),
            "whole number",
        ),
    ],
)
def test_create_constraints(change: dict[str, Any], loc: tuple[Any, ...], fragment: str) -> None:
    errors = errors_of(PaymentCreateRequest, {**full_create(), **change})
    assert locs(errors) == [loc]
    assert fragment in errors[0]["msg"]


def test_payment_method_data_needs_billing_on_the_same_request() -> None:
    data = full_create()
    del data["billing"]
    errors = errors_of(PaymentCreateRequest, data)
    assert locs(errors) == [("billing",)] and errors[0]["type"] == "missing"
    assert "billing is required" in errors[0]["msg"]


def test_update_and_confirm_leave_billing_to_the_payment() -> None:
    """An update or confirm may bring a card without billing: the payment may have billing
    already (the service checks, with `lacks_billing`)."""
    for model, body in [
        (PaymentUpdateRequest, {"payment_method_data": {"card": CARD}}),
        (PaymentConfirmRequest, {"payment_method": "card", "payment_method_data": {"card": CARD}}),
    ]:
        request = model.model_validate(body)
        assert lacks_billing(request)
        assert not lacks_billing(request, BILLING)  # the payment's own billing
        assert not lacks_billing(request, None, BILLING)  # or its method's
        with_billing = model.model_validate({**body, "billing": BILLING})
        assert with_billing.to_body()["billing"]["email"] and not lacks_billing(with_billing)
    assert not lacks_billing(PaymentConfirmRequest.model_validate({}))  # nothing to bill


def test_confirming_with_payment_method_data_needs_payment_method() -> None:
    data = full_create()
    del data["payment_method"]
    errors = errors_of(PaymentCreateRequest, data)
    assert locs(errors) == [("payment_method",)] and errors[0]["type"] == "missing"
    # two-step flow: the method may come with the confirm call
    assert PaymentCreateRequest.model_validate({**data, "confirm": False}).confirm is False


# --- cards --------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "number",
    [
        "4242424242424242",
        "4111 1111 1111 1111",
        "378282246310005",
        "6011111111111117",
        "4000000000000002",
    ],
)
def test_card_numbers_that_pass(number: str) -> None:
    card = CardData.model_validate({**CARD, "card_number": number})
    assert card.card_number == number.replace(" ", "") and card.last4 == number[-4:]


@pytest.mark.parametrize(
    ("number", "fragment"),
    [
        ("4242424242424243", "ending 4243 fails the Luhn check"),
        ("4242-4242-4242-4242", "digits only"),
        ("42424242", "12 to 19 digits (this one has 8)"),
        ("4" * 20, "12 to 19 digits"),
        (4242424242424242, "string of digits"),
    ],
)
def test_card_numbers_refused(number: Any, fragment: str) -> None:
    errors = errors_of(CardData, {**CARD, "card_number": number})
    assert locs(errors) == [("card_number",)] and fragment in errors[0]["msg"]


def test_card_errors_never_carry_the_number_or_cvc_in_text() -> None:
    data = full_create()
    data["payment_method_data"]["card"].update(card_number="4242424242424243", card_cvc="12")
    with pytest.raises(ValidationError) as caught:
        PaymentCreateRequest.model_validate(data)
    text = str(caught.value)
    assert "4242424242424243" not in text and "'12'" not in text
    assert locs([dict(e) for e in caught.value.errors()]) == [
        ("payment_method_data", "card", "card_number"),
        ("payment_method_data", "card", "card_cvc"),
    ]
    card = CardData.model_validate(CARD)
    assert "4242424242424242" not in repr(card) and "123" not in repr(card)


@pytest.mark.parametrize(("month", "stored"), [("1", "01"), (3, "03"), ("12", "12")])
def test_expiry_month_normalised(month: Any, stored: str) -> None:
    assert CardData.model_validate({**CARD, "card_exp_month": month}).card_exp_month == stored


@pytest.mark.parametrize(
    ("field", "value"),
    [
        ("card_exp_month", "13"),
        ("card_exp_month", "0"),
        ("card_exp_year", "203"),
        ("card_exp_year", "soon"),
        ("card_cvc", "12345"),
        ("card_cvc", "abc"),
    ],
)
def test_card_field_constraints(field: str, value: str) -> None:
    assert locs(errors_of(CardData, {**CARD, field: value})) == [(field,)]


@pytest.mark.parametrize(
    ("field", "value"),
    [
        ("card_exp_month", "١٢"),  # Arabic-Indic 12: str.isdigit() is true for it
        ("card_exp_month", "²"),
        ("card_exp_year", "٢٠٤٠"),
        ("card_exp_year", "\uff12\uff10\uff14\uff10"),  # fullwidth 2040
        ("card_cvc", "١٢٣"),
        ("card_number", "٤٢٤٢٤٢٤٢٤٢٤٢٤٢٤٢"),
    ],
)
def test_card_digits_must_be_ascii(field: str, value: str) -> None:
    # Before: the expiry fields took "١٢" as month 12 (int() reads other scripts' digits).
    errors = errors_of(CardData, {**CARD, field: value})
    assert locs(errors) == [(field,)]
    assert errors[0]["msg"].startswith(field)
    assert "ASCII digits 0-9" in errors[0]["msg"]


def test_luhn() -> None:
    assert luhn_ok("79927398713") and not luhn_ok("79927398710")


# --- capture, cancel, list ----------------------------------------------------------------------


@pytest.mark.parametrize(
    ("prefix", "suffix", "ok"),
    [
        ("ACME", "ORDER42", True),
        ("A" * 11, "B" * 11, True),
        ("A" * 12, "B" * 11, False),
        ("A" * 23, None, False),
        (None, "B" * 23, False),
    ],
)
def test_statement_descriptor_prefix_plus_suffix_at_most_22(
    prefix: str | None, suffix: str | None, ok: bool
) -> None:
    data = {"statement_descriptor_prefix": prefix, "statement_descriptor_suffix": suffix}
    if ok:
        assert PaymentCaptureRequest.model_validate(data).statement_descriptor_prefix == prefix
    else:
        errors = errors_of(PaymentCaptureRequest, data)
        assert "may not exceed 22" in errors[0]["msg"]
        assert locs(errors) == [
            ("statement_descriptor_suffix",) if suffix else ("statement_descriptor_prefix",)
        ]


@pytest.mark.parametrize(("amount", "ok"), [(1, True), (500, True), (0, False), (1.5, False)])
def test_amount_to_capture(amount: Any, ok: bool) -> None:
    if ok:
        assert PaymentCaptureRequest(amount_to_capture=amount).to_body() == {
            "amount_to_capture": amount
        }
    else:
        assert locs(errors_of(PaymentCaptureRequest, {"amount_to_capture": amount})) == [
            ("amount_to_capture",)
        ]


def test_cancel_request() -> None:
    assert PaymentCancelRequest(cancellation_reason="duplicate").to_body() == {
        "cancellation_reason": "duplicate"
    }
    assert PaymentCancelRequest().to_body() == {}


def test_list_request_defaults_and_one_or_many() -> None:
    assert PaymentListRequest().to_body() == {"limit": 10, "offset": 0}
    one = PaymentListRequest.model_validate({"status": "succeeded", "currency": "eur"})
    many = PaymentListRequest.model_validate(
        {"status": ["failed", "cancelled"], "currency": ["usd", "JPY"]}
    )
    assert one.to_body()["status"] == ["succeeded"] and one.to_body()["currency"] == ["EUR"]
    assert many.to_body()["status"] == ["failed", "cancelled"] and many.to_body()["currency"] == [
        "USD",
        "JPY",
    ]
    full = PaymentListRequest.model_validate(
        {
            "limit": 100,
            "offset": 20,
            "customer_id": "cus_1",
            "created_gte": "2024-05-01T00:00:00Z",
            "created_lte": "2024-05-31T23:59:59Z",
            "payment_id": "pay_1",
            "amount_filter": {"start_amount": 100, "end_amount": 1000},
            "payment_method": "card",
            "order": {"on": "amount", "by": "asc"},
        }
    )
    assert full.to_body()["payment_method"] == ["card"] and full.to_body()["order"] == {
        "on": "amount",
        "by": "asc",
    }


@pytest.mark.parametrize(
    ("data", "loc", "fragment"),
    [
        ({"limit": 0}, ("limit",), "1 to 100"),
        ({"limit": 101}, ("limit",), "1 to 100"),
        ({"offset": -1}, ("offset",), "0 or more"),
        ({"status": ["succeeded", "done"]}, ("status", 1), "'done' is not a payment status"),
        ({"currency": ["USD", "ABC"]}, ("currency", 1), "ISO 4217"),
        (
            {"created_gte": "2024-05-02T00:00:00Z", "created_lte": "2024-05-01T00:00:00Z"},
            ("created_lte",),
            "before created_gte",
        ),
        (
            {"amount_filter": {"start_amount": 10, "end_amount": 5}},
            ("amount_filter", "end_amount"),
            "below start_amount",
        ),
        ({"order": {"on": "created", "by": "sideways"}}, ("order", "by"), ""),
    ],
)
def test_list_request_constraints(
    data: dict[str, Any], loc: tuple[Any, ...], fragment: str
) -> None:
    errors = errors_of(PaymentListRequest, data)
    assert locs(errors) == [loc] and fragment in errors[0]["msg"]


# --- fields the real service always sends -------------------------------------------------------


def test_real_service_fields_are_read_typed_and_optional() -> None:
    answer = {
        "payment_id": "pay_1",
        "status": "partially_authorized_and_requires_capture",
        "amount": 1001,
        "currency": "USD",
        "net_amount": 1101,
        "processor_merchant_id": "merchant_1",
        "attempt_count": 2,
        "enable_partial_authorization": True,
        "expires_on": "2024-05-01T10:15:00Z",
        "payment_link": {
            "link": "https://pay.example/plink_1",
            "secure_link": None,
            "payment_link_id": "plink_1",
        },
    }
    payment = Payment.model_validate(answer)
    assert (payment.net_amount, payment.processor_merchant_id, payment.attempt_count) == (
        1101,
        "merchant_1",
        2,
    )
    assert payment.status_enum is PaymentStatus.PARTIALLY_AUTHORIZED_AND_REQUIRES_CAPTURE
    assert not payment.is_terminal
    assert payment.payment_link is not None and payment.payment_link.payment_link_id == "plink_1"
    assert payment.model_extra == {}  # every one of them is a declared field
    # A service that leaves them out (the spec's shape) still parses.
    bare = Payment.model_validate(
        {"payment_id": "pay_1", "status": "x", "amount": 1, "currency": "USD"}
    )
    assert (bare.net_amount, bare.attempt_count, bare.payment_link) == (None, None, None)
    with pytest.raises(ValidationError):
        Payment.model_validate({**answer, "attempt_count": "many"})


def test_payment_link_and_partial_authorisation_on_create() -> None:
    request = PaymentCreateRequest.model_validate(
        {
            "amount": 100,
            "currency": "USD",
            "payment_link": True,
            "session_expiry": 3600,
            "payment_link_config": {"seller_name": "Shop"},
            "enable_partial_authorization": True,
        }
    )
    assert request.to_body() == {
        "amount": 100,
        "currency": "USD",
        "payment_link": True,
        "session_expiry": 3600,
        "payment_link_config": {"seller_name": "Shop"},
        "enable_partial_authorization": True,
    }
    for seconds in (59, 7_890_001):
        with pytest.raises(ValidationError) as caught:
            PaymentCreateRequest.model_validate(
                {"amount": 100, "currency": "USD", "session_expiry": seconds}
            )
        assert caught.value.errors()[0]["loc"] == ("session_expiry",)
    update = PaymentUpdateRequest.model_validate({"enable_partial_authorization": False})
    assert update.to_body() == {"enable_partial_authorization": False}
