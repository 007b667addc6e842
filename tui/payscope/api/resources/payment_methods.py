"""`client.payment_methods` and `client.mandates`: a customer's saved methods (each with the
`payment_token` a confirm may send) and the mandates later payments charge off session."""

from __future__ import annotations

import builtins
from typing import Any

from payscope.api.models.payment_methods import (
    CustomerPaymentMethods,
    Mandate,
    PaymentMethodCreateRequest,
    PaymentMethodRecord,
    PaymentMethodUpdateRequest,
)
from payscope.api.resources._base import Resource, body_of, seg


class PaymentMethodsResource(Resource):
    """Saved payment methods."""

    async def create(self, request: PaymentMethodCreateRequest) -> PaymentMethodRecord:
        """POST /payment_methods: save a card (or another family's data) for a customer."""
        return await self._client.call(
            "POST", "/payment_methods", PaymentMethodRecord, body=body_of(request)
        )

    async def retrieve(self, payment_method_id: str) -> PaymentMethodRecord:
        """GET /payment_methods/{payment_method_id}."""
        return await self._client.call(
            "GET", f"/payment_methods/{seg(payment_method_id)}", PaymentMethodRecord
        )

    async def update(
        self, payment_method_id: str, request: PaymentMethodUpdateRequest
    ) -> PaymentMethodRecord:
        """POST /payment_methods/{payment_method_id}/update: a card's expiry, holder, nickname."""
        return await self._client.call(
            "POST",
            f"/payment_methods/{seg(payment_method_id)}/update",
            PaymentMethodRecord,
            body=body_of(request),
        )

    async def delete(self, payment_method_id: str) -> dict[str, Any]:
        """DELETE /payment_methods/{payment_method_id}: `{payment_method_id, deleted}`."""
        return await self._client.call_json("DELETE", f"/payment_methods/{seg(payment_method_id)}")

    async def list_for_customer(self, customer_id: str) -> CustomerPaymentMethods:
        """GET /customers/{customer_id}/payment_methods, newest first."""
        return await self._client.call(
            "GET", f"/customers/{seg(customer_id)}/payment_methods", CustomerPaymentMethods
        )

    async def set_default(self, customer_id: str, payment_method_id: str) -> dict[str, Any]:
        """POST /{customer_id}/payment_methods/{payment_method_id}/default."""
        return await self._client.call_json(
            "POST", f"/{seg(customer_id)}/payment_methods/{seg(payment_method_id)}/default"
        )


class MandatesResource(Resource):
    """Mandates: retrieve, revoke, a customer's list."""

    async def retrieve(self, mandate_id: str) -> Mandate:
        """GET /mandates/{mandate_id}."""
        return await self._client.call("GET", f"/mandates/{seg(mandate_id)}", Mandate)

    async def revoke(self, mandate_id: str) -> dict[str, Any]:
        """POST /mandates/revoke/{mandate_id}: `{mandate_id, status: revoked, ...}`."""
        return await self._client.call_json("POST", f"/mandates/revoke/{seg(mandate_id)}")

    async def list_for_customer(self, customer_id: str) -> builtins.list[Mandate]:
        """GET /customers/{customer_id}/mandates (a bare array), newest first."""
        return await self._client.call_list(
            "GET", f"/customers/{seg(customer_id)}/mandates", Mandate
        )
