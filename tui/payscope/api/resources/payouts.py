"""`client.payouts`: create, retrieve, update, confirm, fulfill, cancel, list.

Bank accounts go as the contract the client speaks names them: `payout_method_data.bank_transfer`
to a service following the spec (the local sandbox), `payout_method_data.bank` to the real
service (`real_service_body`). An "auto" client that has not told the contracts apart yet asks
once (`ApiClient.probe_contract`) before sending a bank account.
"""

from __future__ import annotations

from typing import Any

from payscope.api.models.payouts import (
    Payout,
    PayoutCreateRequest,
    PayoutListRequest,
    PayoutListResponse,
    PayoutUpdateRequest,
)
from payscope.api.models.real_payouts import real_service_body
from payscope.api.resources._base import Resource, body_of, seg
from payscope.api.retry import Replay


class PayoutsResource(Resource):
    """Payouts: the usual flow is create, update, confirm, fulfill."""

    async def _speaks_real(self) -> bool:
        client = self._client
        if client.contract_setting == "auto":
            await client.probe_contract()
        return client.contract == "real"

    async def _body(self, request: PayoutCreateRequest | PayoutUpdateRequest) -> dict[str, Any]:
        body = body_of(request)
        method = body.get("payout_method_data")
        if isinstance(method, dict) and "bank_transfer" in method and await self._speaks_real():
            return real_service_body(body)
        return body

    async def create(self, request: PayoutCreateRequest) -> Payout:
        """POST /payouts/create (only repeated when the service cannot have seen it)."""
        body = await self._body(request)
        return await self._client.call(
            "POST", "/payouts/create", Payout, body=body, replay=Replay.UNSAFE
        )

    async def retrieve(self, payout_id: str) -> Payout:
        """GET /payouts/{payout_id}."""
        return await self._client.call("GET", f"/payouts/{seg(payout_id)}", Payout)

    async def update(self, payout_id: str, request: PayoutUpdateRequest) -> Payout:
        """PUT /payouts/{payout_id} (POST on the real service, whose document has no PUT): e.g.
        set `payout_type` or the method before confirming."""
        body = await self._body(request)
        method = "POST" if self._client.contract == "real" else "PUT"
        return await self._client.call(method, f"/payouts/{seg(payout_id)}", Payout, body=body)

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
