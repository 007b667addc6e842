"""`client.profiles`: the business profile (webhook endpoint and signing key)."""

from __future__ import annotations

from payscope.api.models.profiles import BusinessProfile, BusinessProfileUpdate
from payscope.api.resources._base import Resource, body_of, seg


class ProfilesResource(Resource):
    """The business profile at /account/{merchant_id}/business_profile/{profile_id}.

    Both ids default to the client's; the profile holds `webhook_details.webhook_url` and the
    `payment_response_hash_key` that signs webhooks.
    """

    def _path(self, operation: str, profile_id: str | None) -> str:
        merchant_id = self._client.require_merchant_id(operation)
        profile = profile_id or self._client.require_profile_id(operation)
        return f"/account/{seg(merchant_id)}/business_profile/{seg(profile)}"

    async def retrieve(self, profile_id: str | None = None) -> BusinessProfile:
        """GET the business profile."""
        path = self._path("Reading the business profile", profile_id)
        return await self._client.call("GET", path, BusinessProfile)

    async def update(
        self, request: BusinessProfileUpdate, profile_id: str | None = None
    ) -> BusinessProfile:
        """POST the fields to change (e.g. `webhook_details`)."""
        path = self._path("Updating the business profile", profile_id)
        return await self._client.call("POST", path, BusinessProfile, body=body_of(request))
