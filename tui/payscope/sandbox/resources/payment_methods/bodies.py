"""The body of the browser SDK's ephemeral key route, which the API models do not cover. Its
validator answers as the route did when it read the body by hand (`_support.refused`)."""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, Field, field_validator

from payscope.sandbox.errors import missing
from payscope.sandbox.resources._support import refused


class EphemeralKeyBody(BaseModel):
    """`POST /ephemeral_keys`: the customer the key is for."""

    customer_id: str = Field(default="", validate_default=True)

    @field_validator("customer_id", mode="before")
    @classmethod
    def _named(cls, value: Any) -> Any:
        if not isinstance(value, str) or not value:
            raise refused(missing("customer_id", "The customer this key is for."))
        return value
