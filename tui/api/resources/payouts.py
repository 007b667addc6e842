"""`client.payouts`: create, retrieve, update, confirm, fulfill, cancel, list."""

from __future__ import annotations

from tui.api.models.payouts import (
    Payout,
    PayoutCreateRequest,
    PayoutListRequest,
    PayoutListResponse,
    PayoutUpdateRequest,
)
from tui.api.resources._base import Resource, body_of, seg
from tui.api.retry import Replay


class PayoutsResource(Resource):
    """Payouts: the usual flow is create, update, confirm, fulfill."""

    async def create(self, request: PayoutCreateRequest) -> Payout:
        """POST /payouts/create (only repeated when the service cannot have seen it)."""
        return await self._client.call(
            "POST", "/payouts/create", Payout, body=body_of(request), replay=Replay.UNSAFE
        )

    async def retrieve(self, payout_id: str) -> Payout:
        """GET /payouts/{payout_id}."""
        return await self._client.call("GET", f"/payouts/{seg(payout_id)}", Payout)

    async def update(self, payout_id: str, request: PayoutUpdateRequest) -> Payout:
        """PUT /payouts/{payout_id}: e.g. set `payout_type` or the method before confirming."""
        return await self._client.call(
            "PUT", f"/payouts/{seg(payout_id)}", Payout, body=body_of(request)
        )

    async def confirm(self, payout_id: str) -> Payout:
        """POST /payouts/{payout_id}/confirm."""
        return await self._client.call(
            "POST", f"/payouts/{seg(payout_id)}/confirm", Payout, body={}
        )

    async def fulfill(self, payout_id: str) -> Payout:
        """POST /payouts/{payout_id}/fulfill: send a confirmed payout."""
        return await self._client.call(
            "POST", f"/payouts/{seg(payout_id)}/fulfill", Payout, body={}
        )

    async def cancel(self, payout_id: str) -> Payout:
        """POST /payouts/{payout_id}/cancel: any state that is not final."""
        return await self._client.call("POST", f"/payouts/{seg(payout_id)}/cancel", Payout, body={})

    async def list(self, request: PayoutListRequest | None = None) -> PayoutListResponse:
        """POST /payouts/list with the filter body."""
        return await self._client.call(
            "POST",
            "/payouts/list",
            PayoutListResponse,
            body=body_of(request or PayoutListRequest()),
            replay=Replay.SAFE,
        )
