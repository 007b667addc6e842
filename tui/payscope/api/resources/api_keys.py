"""`client.api_keys`: create (the key is shown once), list, retrieve, revoke."""

from __future__ import annotations

import builtins

from payscope.api.models.api_keys import ApiKey, ApiKeyCreated, ApiKeyCreateRequest
from payscope.api.resources._base import Resource, body_of, seg


class ApiKeysResource(Resource):
    """The merchant's API keys under /api_keys/{merchant_id}."""

    def _base(self, operation: str) -> str:
        return f"/api_keys/{seg(self._client.require_merchant_id(operation))}"

    async def create(self, request: ApiKeyCreateRequest) -> ApiKeyCreated:
        """POST /api_keys/{merchant_id}; `api_key` in the answer is the only copy (the request
        journal keeps it redacted)."""
        path = self._base("Creating an API key")
        return await self._client.call("POST", path, ApiKeyCreated, body=body_of(request))

    async def list(self) -> builtins.list[ApiKey]:
        """GET /api_keys/{merchant_id}/list."""
        return await self._client.call_list("GET", f"{self._base('Listing API keys')}/list", ApiKey)

    async def retrieve(self, key_id: str) -> ApiKey:
        """GET /api_keys/{merchant_id}/{key_id}."""
        path = f"{self._base('Reading an API key')}/{seg(key_id)}"
        return await self._client.call("GET", path, ApiKey)

    async def revoke(self, key_id: str) -> ApiKey:
        """DELETE /api_keys/{merchant_id}/{key_id}; requests with that key then get AU_02."""
        path = f"{self._base('Revoking an API key')}/{seg(key_id)}"
        return await self._client.call("DELETE", path, ApiKey)
