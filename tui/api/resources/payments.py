"""`client.payments`: create, update, confirm, retrieve, list, capture, cancel, approve, reject."""

from __future__ import annotations

from tui.api.models.payments import (
    Payment,
    PaymentCancelRequest,
    PaymentCaptureRequest,
    PaymentConfirmRequest,
    PaymentCreateRequest,
    PaymentListRequest,
    PaymentListResponse,
    PaymentUpdateRequest,
)
from tui.api.resources._base import Resource, body_of, seg
from tui.api.retry import Replay


class PaymentsResource(Resource):
    """Payments. A decline is not an exception: it is a `Payment` with `status == "failed"`
    and a `unified_code`, returned normally."""

    async def create(self, request: PaymentCreateRequest) -> Payment:
        """POST /payments.

        With a merchant `payment_id` the creation is retried on transient failures, and a
        retry answered `HE_01` (the earlier attempt went through) returns
        `GET /payments/{payment_id}`: the caller sees exactly one payment. Without a
        `payment_id` each attempt would create a new payment, so it is only repeated when the
        service cannot have seen it (connect error, 429, 503).
        """
        body = body_of(request)
        if body.get("profile_id") is None and self._client.profile_id:
            body["profile_id"] = self._client.profile_id
        payment_id = body.get("payment_id")
        if payment_id:
            return await self._client.call(
                "POST",
                "/payments",
                Payment,
                body=body,
                replay=Replay.KEYED,
                resolve_duplicate=f"/payments/{seg(str(payment_id))}",
            )
        return await self._client.call(
            "POST", "/payments", Payment, body=body, replay=Replay.UNSAFE
        )

    async def update(self, payment_id: str, request: PaymentUpdateRequest) -> Payment:
        """POST /payments/{payment_id}: change a payment that is not confirmed yet."""
        return await self._client.call(
            "POST", f"/payments/{seg(payment_id)}", Payment, body=body_of(request)
        )

    async def confirm(
        self, payment_id: str, request: PaymentConfirmRequest | None = None
    ) -> Payment:
        """POST /payments/{payment_id}/confirm: authorise with the payment method."""
        return await self._client.call(
            "POST", f"/payments/{seg(payment_id)}/confirm", Payment, body=body_of(request)
        )

    async def retrieve(self, payment_id: str) -> Payment:
        """GET /payments/{payment_id} (unknown ids raise `NotFoundError`, IR_05)."""
        return await self._client.call("GET", f"/payments/{seg(payment_id)}", Payment)

    async def list(self, request: PaymentListRequest | None = None) -> PaymentListResponse:
        """POST /payments/list with the filter body; newest first."""
        return await self._client.call(
            "POST",
            "/payments/list",
            PaymentListResponse,
            body=body_of(request or PaymentListRequest()),
            replay=Replay.SAFE,
        )

    async def capture(
        self, payment_id: str, request: PaymentCaptureRequest | None = None
    ) -> Payment:
        """POST /payments/{payment_id}/capture (the full capturable amount by default)."""
        return await self._client.call(
            "POST", f"/payments/{seg(payment_id)}/capture", Payment, body=body_of(request)
        )

    async def cancel(self, payment_id: str, request: PaymentCancelRequest | None = None) -> Payment:
        """POST /payments/{payment_id}/cancel: void an authorisation or an unconfirmed payment."""
        return await self._client.call(
            "POST", f"/payments/{seg(payment_id)}/cancel", Payment, body=body_of(request)
        )

    async def approve(self, payment_id: str) -> Payment:
        """POST /payments/{payment_id}/approve: release a payment held for manual review."""
        return await self._client.call("POST", f"/payments/{seg(payment_id)}/approve", Payment)

    async def reject(self, payment_id: str) -> Payment:
        """POST /payments/{payment_id}/reject: refuse a held payment (the customer is not
        charged)."""
        return await self._client.call("POST", f"/payments/{seg(payment_id)}/reject", Payment)
