"""`client.refunds`: create, list, retrieve, update."""

from __future__ import annotations

from payscope.api.models.refunds import (
    Refund,
    RefundCreateRequest,
    RefundListRequest,
    RefundListResponse,
    RefundUpdateRequest,
)
from payscope.api.resources._base import Resource, body_of, seg
from payscope.api.retry import Replay


class RefundsResource(Resource):
    """Refunds of succeeded payments."""

    async def create(self, request: RefundCreateRequest) -> Refund:
        """POST /refunds. With a `refund_id` the call is retried safely and a repeat answered
        as a duplicate (HE_01 or 409) returns the existing refund; without one it is never
        repeated once the service may have seen it."""
        body = body_of(request)
        refund_id = body.get("refund_id")
        if refund_id:
            return await self._client.call(
                "POST",
                "/refunds",
                Refund,
                body=body,
                replay=Replay.KEYED,
                resolve_duplicate=f"/refunds/{seg(str(refund_id))}",
                duplicate_statuses=frozenset({409}),
            )
        return await self._client.call("POST", "/refunds", Refund, body=body, replay=Replay.UNSAFE)

    async def list(self, request: RefundListRequest | None = None) -> RefundListResponse:
        """POST /refunds/list with the filter body (newest first)."""
        body = body_of(request or RefundListRequest())
        return await self._client.call(
            "POST", "/refunds/list", RefundListResponse, body=body, replay=Replay.SAFE
        )

    async def retrieve(self, refund_id: str) -> Refund:
        """GET /refunds/{refund_id}."""
        return await self._client.call("GET", f"/refunds/{seg(refund_id)}", Refund)

    async def update(self, refund_id: str, request: RefundUpdateRequest) -> Refund:
        """POST /refunds/{refund_id}: change the reason or the metadata."""
        return await self._client.call(
            "POST", f"/refunds/{seg(refund_id)}", Refund, body=body_of(request)
        )
