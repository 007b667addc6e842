"""`client.payment_links`: create, retrieve, list."""

from __future__ import annotations

from tui.api.models.links import (
    PaymentLink,
    PaymentLinkCreateRequest,
    PaymentLinkListRequest,
    PaymentLinkListResponse,
)
from tui.api.resources._base import Resource, body_of, seg
from tui.api.retry import Replay


class PaymentLinksResource(Resource):
    """Hosted payment pages (`link_to_pay`) for an amount."""

    async def create(self, request: PaymentLinkCreateRequest) -> PaymentLink:
        """POST /payment_link."""
        return await self._client.call("POST", "/payment_link", PaymentLink, body=body_of(request))

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
