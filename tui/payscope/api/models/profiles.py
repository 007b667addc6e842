"""The business profile: where webhooks go and the key that signs them."""

from __future__ import annotations

from typing import Annotated, Any
from urllib.parse import urlsplit

from pydantic import BeforeValidator, Field, ValidationInfo
from pydantic_core import PydanticCustomError

from payscope.api.models._base import RequestModel, ResponseModel

__all__ = ["BusinessProfile", "BusinessProfileUpdate", "HttpUrl", "WebhookDetails"]


def _http_url(value: Any, info: ValidationInfo) -> Any:
    field = info.field_name or "url"
    if isinstance(value, str):
        parts = urlsplit(value.strip())
        if parts.scheme in ("http", "https") and parts.hostname:
            return value.strip()
    raise PydanticCustomError(
        "url",
        "{field} must be an http:// or https:// address with a host, "
        "such as https://example.com/webhooks (got {value})",
        {"field": field, "value": repr(value)},
    )


HttpUrl = Annotated[str, BeforeValidator(_http_url)]
"""An http(s) URL with a host, kept as text."""


class WebhookDetails(RequestModel):
    """`webhook_details` of a profile: the endpoint events are posted to."""

    webhook_url: HttpUrl | None = None
    webhook_version: str | None = None
    payment_created_enabled: bool | None = None
    payment_succeeded_enabled: bool | None = None
    payment_failed_enabled: bool | None = None


class BusinessProfile(ResponseModel):
    """GET /account/{merchant_id}/business_profile/{profile_id}.

    `payment_response_hash_key` signs webhooks (X-Webhook-Signature-512); it is kept out of
    the repr so it does not reach a log by accident.
    """

    profile_id: str
    merchant_id: str
    profile_name: str | None = None
    return_url: str | None = None
    webhook_details: WebhookDetails | None = None
    payment_response_hash_key: str | None = Field(default=None, repr=False)
    enable_payment_response_hash: bool | None = None


class BusinessProfileUpdate(RequestModel):
    """POST /account/{merchant_id}/business_profile/{profile_id}: fields to change."""

    profile_name: str | None = Field(default=None, min_length=1, max_length=64)
    return_url: HttpUrl | None = None
    webhook_details: WebhookDetails | None = None
    payment_response_hash_key: str | None = Field(
        default=None, min_length=16, max_length=256, repr=False
    )
    enable_payment_response_hash: bool | None = None
