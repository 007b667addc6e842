"""The body of the refunds resource's sandbox control (a review decided), which the API models
do not cover. Its validator answers as the route did when it read the body by hand
(`_support.refused`)."""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, Field, field_validator

from payscope.sandbox.errors import invalid, missing
from payscope.sandbox.resources._support import refused


class ReviewBody(BaseModel):
    """`POST /_sandbox/refunds/{id}/review`: how the processor's review ended."""

    outcome: str | None = Field(default=None, validate_default=True)

    @field_validator("outcome", mode="before")
    @classmethod
    def _decided(cls, value: Any) -> Any:
        if value is None:
            raise refused(
                missing(
                    "outcome", 'Say how the review ended: {"outcome": "succeeded"} or "failed".'
                )
            )
        if value not in ("succeeded", "failed"):
            raise refused(invalid("outcome", value, "'succeeded' or 'failed'"))
        return value
