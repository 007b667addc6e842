"""`client.subscriptions`: plans, create, retrieve, update, pause, resume, cancel.

Every subscription call carries `X-Profile-Id`; a client without a profile id raises
`MissingProfileIdError` before sending anything.
"""

from __future__ import annotations

from typing import Any

from tui.api.errors import NotFoundError
from tui.api.models.subscriptions import (
    PlanListResponse,
    Subscription,
    SubscriptionCancelRequest,
    SubscriptionCreateRequest,
    SubscriptionPauseRequest,
    SubscriptionResumeRequest,
    SubscriptionUpdateRequest,
)
from tui.api.resources._base import Resource, body_of, seg


class SubscriptionsResource(Resource):
    """Recurring subscriptions of the client's business profile."""

    def _headers(self, operation: str) -> dict[str, str]:
        return {"X-Profile-Id": self._client.require_profile_id(operation)}

    async def _call(self, operation: str, method: str, path: str, body: Any = None) -> Subscription:
        headers = self._headers(operation)
        return await self._client.call(method, path, Subscription, body=body, headers=headers)

    async def plans(self) -> PlanListResponse:
        """GET /subscriptions/plans: plans and their prices.

        The real service renamed the route `GET /subscriptions/items?item_type=plan` (a bare
        array of `{item_id, name, description, price_id[]}`): on a 404 that route is read
        instead, into the same plans. If it is missing too, the first 404 is what is raised.
        """
        headers = self._headers("Listing subscription plans")
        try:
            return await self._client.call(
                "GET", "/subscriptions/plans", PlanListResponse, headers=headers
            )
        except NotFoundError as missing:
            try:
                return await self._client.call(
                    "GET",
                    "/subscriptions/items",
                    PlanListResponse,
                    params={"item_type": "plan"},
                    headers=headers,
                )
            except NotFoundError:
                raise missing from None

    async def create(self, request: SubscriptionCreateRequest) -> Subscription:
        """POST /subscriptions: create and confirm (the answer has `payment` and `invoice`)."""
        return await self._call(
            "Creating a subscription", "POST", "/subscriptions", body_of(request)
        )

    async def retrieve(self, subscription_id: str) -> Subscription:
        """GET /subscriptions/{subscription_id}."""
        return await self._call(
            "Reading a subscription", "GET", f"/subscriptions/{seg(subscription_id)}"
        )

    async def update(
        self, subscription_id: str, request: SubscriptionUpdateRequest
    ) -> Subscription:
        """PUT /subscriptions/{subscription_id}/update: move to another plan and price."""
        path = f"/subscriptions/{seg(subscription_id)}/update"
        return await self._call("Updating a subscription", "PUT", path, body_of(request))

    async def pause(
        self, subscription_id: str, request: SubscriptionPauseRequest | None = None
    ) -> Subscription:
        """POST /subscriptions/{subscription_id}/pause."""
        path = f"/subscriptions/{seg(subscription_id)}/pause"
        return await self._call("Pausing a subscription", "POST", path, body_of(request))

    async def resume(
        self, subscription_id: str, request: SubscriptionResumeRequest | None = None
    ) -> Subscription:
        """POST /subscriptions/{subscription_id}/resume (immediately by default)."""
        path = f"/subscriptions/{seg(subscription_id)}/resume"
        return await self._call("Resuming a subscription", "POST", path, body_of(request))

    async def cancel(
        self, subscription_id: str, request: SubscriptionCancelRequest | None = None
    ) -> Subscription:
        """POST /subscriptions/{subscription_id}/cancel."""
        path = f"/subscriptions/{seg(subscription_id)}/cancel"
        return await self._call("Cancelling a subscription", "POST", path, body_of(request))
