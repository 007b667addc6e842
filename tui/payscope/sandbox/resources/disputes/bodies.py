"""The body of the card network's decision on a dispute (a sandbox control), which the API
models do not cover. Its validator answers as the route did when it read the body by hand
(`_support.refused`)."""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, Field, field_validator

from payscope.sandbox.errors import invalid, missing
from payscope.sandbox.resources._support import refused


class ResolveBody(BaseModel):
    """`POST /_sandbox/disputes/{id}/resolve`: how the network decided."""

    outcome: str | None = Field(default=None, validate_default=True)

    @field_validator("outcome", mode="before")
    @classmethod
    def _decided(cls, value: Any) -> Any:
        if value is None:
            raise refused(
                missing("outcome", 'Say how the network decided: {"outcome": "won"} or "lost".')
            )
        if value not in ("won", "lost"):
            raise refused(invalid("outcome", value, "'won' or 'lost'"))
        return value
