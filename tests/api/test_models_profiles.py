"""Business profile (webhook endpoint and signing key) and API keys."""

from __future__ import annotations

from typing import Any

import pytest
from pydantic import ValidationError

from payscope.api.models.api_keys import ApiKey, ApiKeyCreated, ApiKeyCreateRequest
from payscope.api.models.profiles import BusinessProfile, BusinessProfileUpdate

HASH_KEY = "k" * 64
PROFILE = {
    "profile_id": "pro_1",
    "merchant_id": "merchant_1",
    "profile_name": "default",
    "webhook_details": {
        "webhook_url": "http://127.0.0.1:8787/webhooks",
        "webhook_version": "1.0.1",
    },
    "payment_response_hash_key": HASH_KEY,
    "enable_payment_response_hash": True,
    "routing_algorithm": None,
}


def test_profile_parses_keeps_unknown_and_hides_key_from_repr() -> None:
    profile = BusinessProfile.model_validate(PROFILE)
    assert profile.webhook_details is not None
    assert profile.webhook_details.webhook_url == "http://127.0.0.1:8787/webhooks"
    assert profile.model_dump(exclude_unset=True) == PROFILE
    assert HASH_KEY not in repr(profile)


@pytest.mark.parametrize(
    ("data", "ok"),
    [
        ({"webhook_details": {"webhook_url": "https://example.com/hook"}}, True),
        ({"webhook_details": {"webhook_url": "ftp://example.com"}}, False),
        ({"webhook_details": {"webhook_url": "example.com/hook"}}, False),
        ({"payment_response_hash_key": "tooShort-1"}, False),
        ({"payment_response_hash_key": HASH_KEY}, True),
        ({"profile_name": ""}, False),
    ],
)
def test_profile_update(data: dict[str, Any], ok: bool) -> None:
    if ok:
        assert BusinessProfileUpdate.model_validate(data).to_body() == data
        return
    with pytest.raises(ValidationError) as caught:
        BusinessProfileUpdate.model_validate(data)
    assert caught.value.errors()[0]["loc"][0] == next(iter(data))
    assert "tooShort-1" not in str(caught.value)


@pytest.mark.parametrize(
    ("expiration", "stored"),
    [("never", "never"), ("NEVER", "never"), ("2030-01-01T00:00:00Z", "2030-01-01T00:00:00Z")],
)
def test_api_key_expiration_accepted(expiration: str, stored: str) -> None:
    request = ApiKeyCreateRequest(name="ci", expiration=expiration)
    assert request.to_body() == {"name": "ci", "expiration": stored}


@pytest.mark.parametrize(
    "data", [{"name": "ci", "expiration": "tomorrow"}, {"name": ""}, {"expiration": "never"}]
)
def test_api_key_request_refused(data: dict[str, Any]) -> None:
    with pytest.raises(ValidationError):
        ApiKeyCreateRequest.model_validate(data)


def test_created_key_shown_once_but_never_in_repr() -> None:
    raw = {
        "key_id": "key_1",
        "merchant_id": "m",
        "name": "ci",
        "api_key": "snd_SuperSecretValue123",
        "created": "2024-05-01T10:00:00Z",
        "expiration": "never",
        "prefix": "snd_Supe",
    }
    created = ApiKeyCreated.model_validate(raw)
    assert created.api_key == "snd_SuperSecretValue123"
    assert "SuperSecretValue" not in repr(created)
    assert created.model_dump(exclude_unset=True) == raw
    listed = ApiKey.model_validate({k: v for k, v in raw.items() if k != "api_key"})
    assert not hasattr(listed, "api_key")
