"""Refund requests and records."""

from __future__ import annotations

from typing import Any

import pytest
from pydantic import ValidationError

from payscope.api.models.refunds import (
    Refund,
    RefundCreateRequest,
    RefundListRequest,
    RefundListResponse,
    RefundStatus,
    RefundType,
    RefundUpdateRequest,
)

REFUND = {
    "refund_id": "ref_Qw12Er34Ty56Ui78Op90",
    "payment_id": "pay_1",
    "amount": 500,
    "currency": "USD",
    "status": "succeeded",
    "reason": "Customer returned item",
    "refund_type": "instant",
    "metadata": {"rma": "9"},
    "created": "2024-05-02T10:00:00.000Z",
    "modified_at": "2024-05-02T10:00:01.000Z",
    "error_code": None,
    "error_message": None,
    "unified_code": None,
    "unified_message": None,
    "profile_id": "pro_1",
    "connector": "sandbox",
    "split_refunds": None,
}


def errors_of(model: type[Any], data: dict[str, Any]) -> list[dict[str, Any]]:
    with pytest.raises(ValidationError) as caught:
        model.model_validate(data)
    return [dict(error) for error in caught.value.errors()]


def test_create_with_every_field() -> None:
    data = {
        "payment_id": "pay_1",
        "refund_id": "rma-9",
        "amount": 500,
        "reason": "returned",
        "refund_type": "Instant",
        "metadata": {"rma": "9"},
    }
    assert RefundCreateRequest.model_validate(data).to_body() == {**data, "refund_type": "instant"}
    assert RefundCreateRequest(payment_id="pay_1").to_body() == {"payment_id": "pay_1"}


@pytest.mark.parametrize(
    ("given", "stored"),
    [
        ("Instant", RefundType.INSTANT),
        ("INSTANT", RefundType.INSTANT),
        ("scheduled", RefundType.SCHEDULED),
        (" Scheduled ", RefundType.SCHEDULED),
    ],
)
def test_refund_type_any_case(given: str, stored: RefundType) -> None:
    assert RefundCreateRequest(payment_id="p", refund_type=given).refund_type is stored  # type: ignore[arg-type]


@pytest.mark.parametrize(
    ("change", "loc", "fragment"),
    [
        ({"payment_id": None}, ("payment_id",), ""),
        ({"refund_id": "rma 9"}, ("refund_id",), "1 to 64 characters"),
        ({"amount": 0}, ("amount",), "1 or more"),
        ({"amount": 4.5}, ("amount",), "whole number"),
        ({"refund_type": "fast"}, ("refund_type",), "'instant' or 'scheduled'"),
    ],
)
def test_create_constraints(change: dict[str, Any], loc: tuple[Any, ...], fragment: str) -> None:
    errors = errors_of(RefundCreateRequest, {"payment_id": "pay_1", **change})
    assert [e["loc"] for e in errors] == [loc] and fragment in errors[0]["msg"]


def test_missing_payment_id_is_a_missing_error() -> None:
    assert errors_of(RefundCreateRequest, {})[0]["type"] == "missing"


def test_update_request() -> None:
    assert RefundUpdateRequest(reason="x", metadata={"a": 1}).to_body() == {
        "reason": "x",
        "metadata": {"a": 1},
    }


def test_list_request() -> None:
    body = RefundListRequest.model_validate(
        {
            "payment_id": "pay_1",
            "refund_status": "succeeded",
            "currency": ["usd"],
            "created_gte": "2024-01-01T00:00:00Z",
            "limit": 5,
        }
    ).to_body()
    assert body == {
        "payment_id": "pay_1",
        "refund_status": ["succeeded"],
        "currency": ["USD"],
        "created_gte": "2024-01-01T00:00:00Z",
        "limit": 5,
        "offset": 0,
    }
    errors = errors_of(RefundListRequest, {"refund_status": ["done"]})
    assert errors[0]["loc"] == ("refund_status", 0) and "not a refund status" in errors[0]["msg"]
    errors = errors_of(
        RefundListRequest, {"created_gte": "2024-02-01", "created_lte": "2024-01-01"}
    )
    assert errors[0]["loc"] == ("created_lte",)


def test_refund_record_round_trips() -> None:
    refund = Refund.model_validate(REFUND)
    assert refund.status_enum is RefundStatus.SUCCEEDED
    assert refund.model_extra == {"split_refunds": None}
    assert refund.model_dump(exclude_unset=True) == REFUND
    assert Refund.model_validate({**REFUND, "status": "new_one"}).status_enum is None
    assert RefundListResponse.model_validate({"count": 1, "data": [REFUND]}).data[0].amount == 500
