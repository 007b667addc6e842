"""`client.customers`: create, list, retrieve, update, delete."""

from __future__ import annotations

from typing import Any

from payscope.api.models.customers import (
    Customer,
    CustomerCreateRequest,
    CustomerListRequest,
    CustomerListResponse,
    CustomerUpdateRequest,
)
from payscope.api.resources._base import Resource, body_of, seg


class CustomersResource(Resource):
    """Customers whose ids later payments refer to."""

    async def create(self, request: CustomerCreateRequest) -> Customer:
        """POST /customers; use the returned `customer_id` on later payments."""
        return await self._client.call("POST", "/customers", Customer, body=body_of(request))

    async def list(self, request: CustomerListRequest | None = None) -> CustomerListResponse:
        """GET /customers/list with `limit` and `offset` as query parameters."""
        params = body_of(request or CustomerListRequest())
        return await self._client.call(
            "GET", "/customers/list", CustomerListResponse, params=params
        )

    async def retrieve(self, customer_id: str) -> Customer:
        """GET /customers/{customer_id}."""
        return await self._client.call("GET", f"/customers/{seg(customer_id)}", Customer)

    async def update(self, customer_id: str, request: CustomerUpdateRequest) -> Customer:
        """POST /customers/{customer_id}."""
        return await self._client.call(
            "POST", f"/customers/{seg(customer_id)}", Customer, body=body_of(request)
        )

    async def delete(self, customer_id: str) -> dict[str, Any]:
        """DELETE /customers/{customer_id}; the answer says what was deleted."""
        return await self._client.call_json("DELETE", f"/customers/{seg(customer_id)}")
