"""Customers: create, update, list filter, the customer record and its list."""

from __future__ import annotations

from payscope.api.models._base import RequestModel, ResponseModel
from payscope.api.models.common import (
    Address,
    Email,
    IdStr,
    Limit,
    ListResponse,
    Metadata,
    Offset,
    PhoneCountryCode,
)

__all__ = [
    "Customer",
    "CustomerCreateRequest",
    "CustomerListRequest",
    "CustomerListResponse",
    "CustomerUpdateRequest",
]


class CustomerUpdateRequest(RequestModel):
    """POST /customers/{customer_id}: any of the create fields except the id."""

    email: Email | None = None
    name: str | None = None
    phone: str | None = None
    phone_country_code: PhoneCountryCode | None = None
    description: str | None = None
    address: Address | None = None
    metadata: Metadata | None = None


class CustomerCreateRequest(CustomerUpdateRequest):
    """POST /customers. Use the returned `customer_id` on later payments."""

    customer_id: IdStr | None = None


class CustomerListRequest(RequestModel):
    """GET /customers/list query."""

    limit: Limit = 10
    offset: Offset = 0


class Customer(ResponseModel):
    """A customer record."""

    customer_id: str
    email: str | None = None
    name: str | None = None
    phone: str | None = None
    phone_country_code: str | None = None
    description: str | None = None
    address: Address | None = None
    metadata: Metadata | None = None
    created: str | None = None
    # The real service's name for `created` (always sent there; the local sandbox sends both).
    created_at: str | None = None

    @property
    def created_time(self) -> str | None:
        """When it was created, whichever name it came under (`created`, `created_at`)."""
        return self.created or self.created_at


class CustomerListResponse(ListResponse[Customer]):
    """Customers; a bare array from the real service is read as `data`."""
