"""The bodies of the payments resource's own routes that the API models do not cover: the
browser SDK's session tokens and the 3-D Secure control. Each validator answers as the route
did when it read the body by hand (`_support.refused`)."""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, Field, field_validator

from payscope.sandbox.errors import invalid, missing
from payscope.sandbox.resources._support import refused
from payscope.sandbox.resources.payments.engine import THREE_DS_RESULTS


class SessionTokensBody(BaseModel):
    """`POST /payments/session_tokens`: the payment, the wallets asked for (none: every wallet
    the sandbox takes), its client secret (read only when it is a string)."""

    payment_id: str = Field(default="", validate_default=True)
    wallets: list[str] = Field(default_factory=list)
    client_secret: str | None = None

    @field_validator("payment_id", mode="before")
    @classmethod
    def _named(cls, value: Any) -> Any:
        if not isinstance(value, str) or not value:
            raise refused(missing("payment_id", "The payment whose SDK session this is."))
        return value

    @field_validator("wallets", mode="before")
    @classmethod
    def _wallet_names(cls, value: Any) -> Any:
        value = value or []
        if not isinstance(value, list) or not all(isinstance(w, str) for w in value):
            raise refused(invalid("wallets", value, "a list of wallet types, e.g. ['google_pay']"))
        return value

    @field_validator("client_secret", mode="before")
    @classmethod
    def _string_only(cls, value: Any) -> Any:
        return value if isinstance(value, str) else None


class ChallengeBody(BaseModel):
    """`POST /_sandbox/payments/{id}/3ds`: how the customer's challenge ends."""

    result: str = "authorize"

    @field_validator("result", mode="before")
    @classmethod
    def _known(cls, value: Any) -> Any:
        if value not in THREE_DS_RESULTS:
            raise refused(invalid("result", value, "'authorize', 'fail' or 'abandon'"))
        return value
