"""`client.payment_links`: create (the local route, or the real service's way through a
payment), retrieve, list."""

from __future__ import annotations

from payscope.api.errors import NotFoundError
from payscope.api.models.links import (
    PaymentLink,
    PaymentLinkCreateRequest,
    PaymentLinkListRequest,
    PaymentLinkListResponse,
    PaymentWithLink,
)
from payscope.api.resources._base import Resource, body_of, seg
from payscope.api.retry import Replay


class PaymentLinksResource(Resource):
    """Hosted payment pages (`link_to_pay`) for an amount."""

    async def create(self, request: PaymentLinkCreateRequest) -> PaymentLink:
        """POST /payment_link."""
        return await self._client.call("POST", "/payment_link", PaymentLink, body=body_of(request))

    async def create_with_payment(
        self, request: PaymentLinkCreateRequest, *, session_expiry: int | None = None
    ) -> PaymentLink:
        """POST /payments with `payment_link: true`: how the real service makes a link (its
        `/payment_link` routes list and retrieve only). The link lives `session_expiry`
        seconds. The record is then read (GET /payment_link/{id}); the payment's answer fills
        in what that record lacks (its payment and the payment's status)."""
        body = request.payment_body(session_expiry)
        if body.get("profile_id") is None and self._client.profile_id:
            body["profile_id"] = self._client.profile_id
        answer = await self._client.call(
            "POST", "/payments", PaymentWithLink, body=body, replay=Replay.UNSAFE
        )
        made = answer.as_link()
        try:
            link = await self.retrieve(made.payment_link_id)
        except NotFoundError:
            return made  # not readable yet: what the payment's answer told
        return link.model_copy(
            update={
                "payment_id": link.payment_id or made.payment_id,
                "payment_status": link.payment_status or made.payment_status,
                "customer_id": link.customer_id or made.customer_id,
            }
        )

    async def retrieve(self, payment_link_id: str) -> PaymentLink:
        """GET /payment_link/{payment_link_id} (`status` is `expired` after the expiry)."""
        return await self._client.call("GET", f"/payment_link/{seg(payment_link_id)}", PaymentLink)

    async def list(self, request: PaymentLinkListRequest | None = None) -> PaymentLinkListResponse:
        """POST /payment_link/list with `limit` and created-time bounds."""
        return await self._client.call(
            "POST",
            "/payment_link/list",
            PaymentLinkListResponse,
            body=body_of(request or PaymentLinkListRequest()),
            replay=Replay.SAFE,
        )
