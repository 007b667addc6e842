"""Payment links."""

from __future__ import annotations

from typing import Any

import pytest
from pydantic import ValidationError

from payscope.api.models.links import (
    PaymentLink,
    PaymentLinkCreateRequest,
    PaymentLinkListRequest,
    PaymentLinkListResponse,
    PaymentLinkStatus,
)

CREATE = {
    "amount": 2500,
    "currency": "GBP",
    "description": "Invoice 7",
    "link_type": "one_time",
    "expiry": "2030-01-01T00:00:00Z",
    "customer_id": "cus_1",
    "send_email": True,
    "email": "jane@example.com",
    "capture_method": "automatic",
    "authentication_type": "three_ds",
    "require_customer_info": False,
    "payment_link_config": {
        "seller_name": "Shop",
        "sdk_layout": "accordion",
        "allowed_payment_method_types": ["credit", "debit"],
    },
}


def test_create_with_every_spec_field_round_trips() -> None:
    assert PaymentLinkCreateRequest.model_validate(CREATE).to_body() == CREATE


@pytest.mark.parametrize(
    ("change", "loc"),
    [
        ({"amount": 25.0}, ("amount",)),
        ({"currency": "XYZ"}, ("currency",)),
        ({"expiry": "next week"}, ("expiry",)),
        ({"capture_method": "eventually"}, ("capture_method",)),
        ({"email": "jane"}, ("email",)),
        ({"send_email": True, "email": None, "customer_id": None}, ("email",)),
    ],
)
def test_create_constraints(change: dict[str, Any], loc: tuple[str, ...]) -> None:
    with pytest.raises(ValidationError) as caught:
        PaymentLinkCreateRequest.model_validate({**CREATE, **change})
    assert [tuple(e["loc"]) for e in caught.value.errors()] == [loc]


def test_link_record_and_list() -> None:
    raw = {
        "payment_link_id": "plink_Ab12Cd34Ef56Gh78Ij90",
        "merchant_id": "merchant_1",
        "link_to_pay": "http://127.0.0.1:8080/payment_link/plink_1",
        "amount": 2500,
        "currency": "GBP",
        "description": "Invoice 7",
        "created_at": "2024-05-01T10:00:00Z",
        "expiry": "2024-05-02T10:00:00Z",
        "status": "expired",
        "secure_link": None,
        "payment_id": "pay_1",
        "theme": "#000",
    }
    link = PaymentLink.model_validate(raw)
    assert link.status_enum is PaymentLinkStatus.EXPIRED
    assert link.model_dump(exclude_unset=True) == raw
    assert (
        PaymentLinkListResponse.model_validate([raw]).data[0].payment_link_id.startswith("plink_")
    )


def test_list_request() -> None:
    assert PaymentLinkListRequest(limit=20).to_body() == {"limit": 20, "offset": 0}
    with pytest.raises(ValidationError):
        PaymentLinkListRequest.model_validate(
            {"created_gte": "2024-05-02", "created_lte": "2024-05-01"}
        )
