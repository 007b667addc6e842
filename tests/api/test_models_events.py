"""The webhook envelope and the delivery history."""

from __future__ import annotations

import json

import pytest
from pydantic import ValidationError

from payscope.api.models.events import (
    PAYMENT_STATUS_EVENTS,
    EventDeliveryAttempt,
    EventListRequest,
    EventListResponse,
    EventType,
    WebhookEvent,
)
from payscope.api.models.payments import PaymentStatus

PAYMENT_EVENT = {
    "merchant_id": "merchant_1",
    "event_id": "evt_018f2a7b3c4d5e6f7a8b",
    "event_type": "payment_succeeded",
    "content": {
        "type": "payment_details",
        "object": {
            "payment_id": "pay_1",
            "status": "succeeded",
            "amount": 6540,
            "currency": "USD",
            "metadata": {"order_id": "42"},
            "unified_code": None,
        },
    },
    "timestamp": "2024-05-01T10:00:01.123Z",
    "api_version": "v1",
}


def test_payment_event_parses_keeps_unknown_fields_and_round_trips() -> None:
    event = WebhookEvent.model_validate(PAYMENT_EVENT)
    assert event.event_type_enum is EventType.PAYMENT_SUCCEEDED
    assert (event.object_id, event.object_status) == ("pay_1", "succeeded")
    assert event.model_extra == {"api_version": "v1"}
    assert event.model_dump() == PAYMENT_EVENT
    assert WebhookEvent.model_validate_json(json.dumps(PAYMENT_EVENT)) == event


@pytest.mark.parametrize(
    ("content_type", "obj", "object_id", "status"),
    [
        (
            "refund_details",
            {"refund_id": "ref_1", "payment_id": "pay_1", "status": "succeeded"},
            "ref_1",
            "succeeded",
        ),
        (
            "dispute_details",
            {"dispute_id": "dp_1", "payment_id": "pay_1", "dispute_status": "dispute_won"},
            "dp_1",
            "dispute_won",
        ),
        ("payout_details", {"payout_id": "payout_1", "status": "success"}, "payout_1", "success"),
        ("subscription_details", {"id": "sub_1", "status": "active"}, "sub_1", "active"),
        ("something_new", {"refund_id": "ref_2", "payment_id": "pay_2"}, "ref_2", None),
        ("payment_details", {}, None, None),
    ],
)
def test_object_id_and_status_per_kind(
    content_type: str, obj: dict[str, str], object_id: str | None, status: str | None
) -> None:
    event = WebhookEvent.model_validate(
        {**PAYMENT_EVENT, "event_type": "x", "content": {"type": content_type, "object": obj}}
    )
    assert event.object_id == object_id and event.object_status == status
    assert event.event_type_enum is None


def test_envelope_fields_are_required() -> None:
    for field in ("merchant_id", "event_id", "event_type", "content", "timestamp"):
        with pytest.raises(ValidationError) as caught:
            WebhookEvent.model_validate({k: v for k, v in PAYMENT_EVENT.items() if k != field})
        assert caught.value.errors()[0]["loc"] == (field,)


def test_payment_status_to_event_mapping() -> None:
    assert PAYMENT_STATUS_EVENTS[PaymentStatus.REQUIRES_CAPTURE] is EventType.PAYMENT_AUTHORIZED
    assert (
        PAYMENT_STATUS_EVENTS[PaymentStatus.REQUIRES_MERCHANT_ACTION] is EventType.ACTION_REQUIRED
    )
    assert PaymentStatus.REQUIRES_PAYMENT_METHOD not in PAYMENT_STATUS_EVENTS
    assert PaymentStatus.REQUIRES_CONFIRMATION not in PAYMENT_STATUS_EVENTS
    assert set(PAYMENT_STATUS_EVENTS) <= {s.value for s in PaymentStatus}


def test_event_list_request_and_response() -> None:
    request = EventListRequest.model_validate(
        {
            "created_after": "2024-05-01T00:00:00Z",
            "event_types": "payment_failed",
            "is_delivered": False,
            "object_id": "pay_1",
        }
    )
    assert request.to_body() == {
        "created_after": "2024-05-01T00:00:00Z",
        "event_types": ["payment_failed"],
        "is_delivered": False,
        "object_id": "pay_1",
        "limit": 10,
        "offset": 0,
    }
    with pytest.raises(ValidationError) as caught:
        EventListRequest.model_validate(
            {"created_after": "2024-05-02T00:00:00Z", "created_before": "2024-05-01T00:00:00Z"}
        )
    assert caught.value.errors()[0]["loc"] == ("created_before",)
    page = EventListResponse.model_validate(
        {
            "events": [
                {
                    "event_id": "evt_1",
                    "event_type": "payment_failed",
                    "event_class": "payments",
                    "object_id": "pay_1",
                    "is_delivery_successful": True,
                    "created": "2024-05-01T10:00:00Z",
                }
            ],
            "total_count": 1,
        }
    )
    assert page.events[0].is_delivery_successful is True and page.total_count == 1


def test_delivery_attempt_takes_headers_as_pairs_or_mapping() -> None:
    raw = {
        "attempt_id": "att_1",
        "request": {
            "headers": [["Content-Type", "application/json"], ["X-Webhook-Signature-512", "ab12"]],
            "body": '{"a":1}',
        },
        "response": {"status_code": 200, "body": "ok"},
        "delivered": True,
        "created": "2024-05-01T10:00:01Z",
    }
    attempt = EventDeliveryAttempt.model_validate(raw)
    assert attempt.request.headers == {
        "Content-Type": "application/json",
        "X-Webhook-Signature-512": "ab12",
    }
    assert attempt.response.status_code == 200 and attempt.delivered
    unreachable = EventDeliveryAttempt.model_validate(
        {"request": {"headers": {"A": "b"}, "body": "{}"}, "response": {}, "delivered": False}
    )
    assert unreachable.response.status_code is None


def test_event_list_item_profile_and_initial_attempt() -> None:
    page = EventListResponse.model_validate(
        {
            "events": [
                {
                    "event_id": "evt_1",
                    "merchant_id": "merchant_1",
                    "profile_id": "pro_1",
                    "object_id": "pay_1",
                    "event_type": "payment_succeeded",
                    "event_class": "payments",
                    "initial_attempt_id": "evt_1",
                    "created": "2024-05-01T10:00:00Z",
                }
            ],
            "total_count": 1,
        }
    )
    item = page.events[0]
    assert (item.merchant_id, item.profile_id, item.initial_attempt_id) == (
        "merchant_1",
        "pro_1",
        "evt_1",
    )
    assert item.model_extra == {}
    assert PAYMENT_STATUS_EVENTS["partially_authorized_and_requires_capture"] is (
        EventType.PAYMENT_AUTHORIZED
    )
