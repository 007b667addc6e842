"""Customer requests and records."""

from __future__ import annotations

from typing import Any

import pytest
from pydantic import ValidationError

from payscope.api.models.customers import (
    Customer,
    CustomerCreateRequest,
    CustomerListRequest,
    CustomerListResponse,
    CustomerUpdateRequest,
)

CUSTOMER = {
    "customer_id": "cus_Ab12Cd34Ef56Gh78Ij90",
    "email": "jane@example.com",
    "name": "Jane Doe",
    "phone": "5550100",
    "phone_country_code": "+1",
    "description": "VIP",
    "address": {"line1": "1 Main St", "city": "Berlin", "country": "DE"},
    "metadata": {"crm_id": "77"},
    "created": "2024-05-01T10:00:00.000Z",
    "default_payment_method_id": "pm_1",
}


def test_create_with_every_spec_field() -> None:
    data = {k: v for k, v in CUSTOMER.items() if k not in ("created", "default_payment_method_id")}
    request = CustomerCreateRequest.model_validate({**data, "customer_id": "crm-77"})
    assert request.to_body() == {**data, "customer_id": "crm-77"}


@pytest.mark.parametrize(
    ("change", "loc"),
    [
        ({"customer_id": "crm 77"}, ("customer_id",)),
        ({"email": "jane"}, ("email",)),
        ({"phone_country_code": "one"}, ("phone_country_code",)),
        ({"address": {"country": "Germany"}}, ("address", "country")),
    ],
)
def test_create_constraints(change: dict[str, Any], loc: tuple[Any, ...]) -> None:
    with pytest.raises(ValidationError) as caught:
        CustomerCreateRequest.model_validate({"name": "Jane", **change})
    assert [e["loc"] for e in caught.value.errors()] == [loc]


def test_update_has_no_id_but_takes_the_rest() -> None:
    assert "customer_id" not in CustomerUpdateRequest.model_fields
    assert CustomerUpdateRequest(description="x").to_body() == {"description": "x"}


def test_customer_record_keeps_unknown_fields() -> None:
    customer = Customer.model_validate(CUSTOMER)
    assert customer.address is not None and customer.address.country == "DE"
    assert customer.model_extra == {"default_payment_method_id": "pm_1"}
    assert customer.model_dump(exclude_unset=True) == CUSTOMER


def test_list_envelope_or_bare_array_and_list_request() -> None:
    assert CustomerListResponse.model_validate([CUSTOMER]).data[0].name == "Jane Doe"
    page = CustomerListResponse.model_validate({"count": 1, "total_count": 5, "data": [CUSTOMER]})
    assert page.total_count == 5
    assert CustomerListRequest(limit=50).to_body() == {"limit": 50, "offset": 0}
    with pytest.raises(ValidationError):
        CustomerListRequest(limit=500)


def test_created_at_of_the_real_service_is_read() -> None:
    customer = Customer.model_validate({**CUSTOMER, "created_at": "2024-05-01T10:00:00.000Z"})
    assert customer.created_at == customer.created == "2024-05-01T10:00:00.000Z"
    # The real service sends only created_at; the spec's created may be absent.
    real = {k: v for k, v in CUSTOMER.items() if k != "created"}
    only = Customer.model_validate({**real, "created_at": "2024-05-01T10:00:00.000Z"})
    assert (only.created, only.created_at) == (None, "2024-05-01T10:00:00.000Z")
