"""`client.subscriptions`: plans (items), estimate, create (in one step or two), retrieve, update,
pause, resume, cancel.

Every subscription call carries `X-Profile-Id`; a client without a profile id raises
`MissingProfileIdError` before sending anything.
"""

from __future__ import annotations

from typing import Any

from payscope.api.errors import NotFoundError
from payscope.api.models.subscriptions import (
    PlanListResponse,
    Subscription,
    SubscriptionCancelRequest,
    SubscriptionConfirmRequest,
    SubscriptionCreateOnlyRequest,
    SubscriptionCreateRequest,
    SubscriptionEstimate,
    SubscriptionEstimateRequest,
    SubscriptionItemType,
    SubscriptionPauseRequest,
    SubscriptionResumeRequest,
    SubscriptionUpdateRequest,
)
from payscope.api.resources._base import Resource, body_of, seg


class SubscriptionsResource(Resource):
    """Recurring subscriptions of the client's business profile."""

    def _headers(self, operation: str) -> dict[str, str]:
        return {"X-Profile-Id": self._client.require_profile_id(operation)}

    async def _call(self, operation: str, method: str, path: str, body: Any = None) -> Subscription:
        headers = self._headers(operation)
        return await self._client.call(method, path, Subscription, body=body, headers=headers)

    async def plans(self) -> PlanListResponse:
        """The plans and their prices: `GET /subscriptions/plans` (the spec), or the real
        service's rename `GET /subscriptions/items?item_type=plan` (a bare array of
        `{item_id, name, description, price_id[]}`), read into the same plans.

        A client speaking the real contract asks the items route first, the spec's client the
        plans route; on a 404 the other is tried. If both are missing, the first 404 is raised.
        """
        headers = self._headers("Listing subscription plans")

        async def plans_route() -> PlanListResponse:
            return await self._client.call(
                "GET", "/subscriptions/plans", PlanListResponse, headers=headers
            )

        async def items_route() -> PlanListResponse:
            return await self._client.call(
                "GET",
                "/subscriptions/items",
                PlanListResponse,
                params={"item_type": "plan"},
                headers=headers,
            )

        first, second = (
            (items_route, plans_route)
            if self._client.contract == "real"
            else (plans_route, items_route)
        )
        try:
            return await first()
        except NotFoundError as missing:
            try:
                return await second()
            except NotFoundError:
                raise missing from None

    async def items(
        self,
        item_type: SubscriptionItemType | str = SubscriptionItemType.PLAN,
        *,
        limit: int | None = None,
        offset: int | None = None,
        product_id: str | None = None,
    ) -> PlanListResponse:
        """GET /subscriptions/items: the real service's catalogue of plans (or add-ons)."""
        params: dict[str, Any] = {"item_type": str(item_type)}
        for name, value in (("limit", limit), ("offset", offset), ("product_id", product_id)):
            if value is not None:
                params[name] = value
        return await self._client.call(
            "GET",
            "/subscriptions/items",
            PlanListResponse,
            params=params,
            headers=self._headers("Listing subscription items"),
        )

    async def estimate(self, request: SubscriptionEstimateRequest) -> SubscriptionEstimate:
        """GET /subscriptions/estimate: what subscribing to a plan costs at its start."""
        params = body_of(request)
        return await self._client.call(
            "GET",
            "/subscriptions/estimate",
            SubscriptionEstimate,
            params=params,
            headers=self._headers("Estimating a subscription"),
        )

    async def create_only(self, request: SubscriptionCreateOnlyRequest) -> Subscription:
        """POST /subscriptions/create: a subscription in `created`, to confirm later."""
        return await self._call(
            "Creating a subscription", "POST", "/subscriptions/create", body_of(request)
        )

    async def confirm(
        self, subscription_id: str, request: SubscriptionConfirmRequest
    ) -> Subscription:
        """POST /subscriptions/{subscription_id}/confirm: pay the first term with the card."""
        path = f"/subscriptions/{seg(subscription_id)}/confirm"
        return await self._call("Confirming a subscription", "POST", path, body_of(request))

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
