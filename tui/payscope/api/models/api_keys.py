"""API keys of a merchant: create (the key is shown once), list, retrieve, revoke."""

from __future__ import annotations

from typing import Annotated, Any

from pydantic import BeforeValidator, Field
from pydantic_core import PydanticCustomError

from payscope.api.models._base import RequestModel, ResponseModel
from payscope.api.models.common import parse_timestamp

__all__ = ["ApiKey", "ApiKeyCreateRequest", "ApiKeyCreated", "ApiKeyExpiration"]


def _expiration(value: Any) -> Any:
    if isinstance(value, str):
        text = value.strip()
        if text.lower() == "never":
            return "never"
        try:
            parse_timestamp(text)
        except ValueError:
            pass
        else:
            return text
    raise PydanticCustomError(
        "expiration",
        'expiration must be "never" or an ISO 8601 date-time such as 2030-01-01T00:00:00Z '
        "(got {value})",
        {"value": repr(value)},
    )


ApiKeyExpiration = Annotated[str, BeforeValidator(_expiration)]
"""\"never\" or an ISO 8601 date-time."""


class ApiKeyCreateRequest(RequestModel):
    """POST /api_keys/{merchant_id}."""

    name: str = Field(min_length=1, max_length=64)
    description: str | None = Field(default=None, max_length=256)
    expiration: ApiKeyExpiration = "never"


class ApiKey(ResponseModel):
    """An API key's record, without the key itself."""

    key_id: str
    merchant_id: str | None = None
    name: str | None = None
    description: str | None = None
    prefix: str | None = None
    created: str | None = None
    expiration: str | None = None
    revoked: bool | None = None


class ApiKeyCreated(ApiKey):
    """The answer to key creation: the only time `api_key` is shown (never in a repr)."""

    api_key: str = Field(repr=False)
