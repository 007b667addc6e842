"""`client.events`: the webhook delivery history (list, attempts, retry). Needs a merchant id."""

from __future__ import annotations

import builtins

from payscope.api.models.events import EventDeliveryAttempt, EventListRequest, EventListResponse
from payscope.api.resources._base import Resource, body_of, seg
from payscope.api.retry import Replay


class EventsResource(Resource):
    """Events the service sent (or tried to send) to the merchant's webhook endpoint."""

    def _base(self, operation: str) -> str:
        return f"/events/{seg(self._client.require_merchant_id(operation))}"

    async def list(self, request: EventListRequest | None = None) -> EventListResponse:
        """POST /events/{merchant_id} with the filters; `{events[], total_count}`."""
        path = self._base("Listing events")
        body = body_of(request or EventListRequest())
        return await self._client.call(
            "POST", path, EventListResponse, body=body, replay=Replay.SAFE
        )

    async def attempts(self, event_id: str) -> builtins.list[EventDeliveryAttempt]:
        """GET /events/{merchant_id}/{event_id}/attempts: each delivery's request and answer."""
        path = f"{self._base('Reading delivery attempts')}/{seg(event_id)}/attempts"
        return await self._client.call_list("GET", path, EventDeliveryAttempt)

    async def retry(self, event_id: str) -> EventDeliveryAttempt:
        """POST /events/{merchant_id}/{event_id}/retry: deliver the event again now."""
        path = f"{self._base('Retrying an event')}/{seg(event_id)}/retry"
        return await self._client.call("POST", path, EventDeliveryAttempt)
