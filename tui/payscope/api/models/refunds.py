"""Refunds: create, update, list filter, the refund record and its list."""

from __future__ import annotations

from enum import StrEnum
from typing import Annotated, Any

from pydantic import BeforeValidator, Field, ValidationInfo, model_validator
from pydantic_core import PydanticCustomError

from payscope.api.models._base import RequestModel, ResponseModel, raise_field_errors
from payscope.api.models.common import (
    Currency,
    IdStr,
    Limit,
    ListResponse,
    Metadata,
    Offset,
    PaymentIdStr,
    PositiveAmount,
    Timestamp,
    choice,
    created_range_errors,
    enum_or_none,
    one_or_many,
)

__all__ = [
    "Refund",
    "RefundCreateRequest",
    "RefundListRequest",
    "RefundListResponse",
    "RefundStatus",
    "RefundType",
    "RefundUpdateRequest",
]


class RefundStatus(StrEnum):
    """Refund statuses of the reference service; only succeeded and failed emit events."""

    PENDING = "pending"
    SUCCEEDED = "succeeded"
    FAILED = "failed"
    REVIEW = "review"


class RefundType(StrEnum):
    """How fast the refund is made."""

    INSTANT = "instant"
    SCHEDULED = "scheduled"


RefundStatusField = Annotated[RefundStatus, BeforeValidator(choice(RefundStatus, "refund status"))]


def _refund_type(value: Any, info: ValidationInfo) -> Any:
    # the spec's own example sends "Instant"; the reference service reads lowercase
    if isinstance(value, str):
        lowered = value.strip().lower()
        if lowered in RefundType._value2member_map_:
            return lowered
        raise PydanticCustomError(
            "refund_type",
            "refund_type must be 'instant' or 'scheduled' (any case), got '{value}'",
            {"value": value},
        )
    return value


class RefundCreateRequest(RequestModel):
    """POST /refunds. Omit `amount` for a full refund; send `refund_id` to make retries safe."""

    payment_id: PaymentIdStr
    refund_id: IdStr | None = None
    amount: PositiveAmount | None = None
    reason: str | None = Field(default=None, max_length=255)
    refund_type: Annotated[RefundType | None, BeforeValidator(_refund_type)] = None
    metadata: Metadata | None = None


class RefundUpdateRequest(RequestModel):
    """POST /refunds/{refund_id}: only the reason and the metadata can change."""

    reason: str | None = Field(default=None, max_length=255)
    metadata: Metadata | None = None


class RefundListRequest(RequestModel):
    """POST /refunds/list: filters of the reference service."""

    payment_id: PaymentIdStr | None = None
    refund_id: IdStr | None = None
    limit: Limit = 10
    offset: Offset = 0
    created_gte: Timestamp | None = None
    created_lte: Timestamp | None = None
    refund_status: Annotated[
        list[Annotated[RefundStatus, BeforeValidator(choice(RefundStatus, "refund status"))]]
        | None,
        BeforeValidator(one_or_many),
    ] = None
    currency: Annotated[list[Currency] | None, BeforeValidator(one_or_many)] = None

    @model_validator(mode="after")
    def _range_in_order(self) -> RefundListRequest:
        raise_field_errors(type(self), created_range_errors(self.created_gte, self.created_lte))
        return self


class Refund(ResponseModel):
    """A refund record."""

    refund_id: str
    payment_id: str
    amount: int
    currency: str
    status: str
    reason: str | None = None
    refund_type: str | None = None
    metadata: Metadata | None = None
    created: str | None = None
    modified_at: str | None = None
    # The real service's names for `created` and `modified_at`.
    created_at: str | None = None
    updated_at: str | None = None
    error_code: str | None = None
    error_message: str | None = None
    unified_code: str | None = None
    unified_message: str | None = None
    profile_id: str | None = None
    connector: str | None = None

    @property
    def created_time(self) -> str | None:
        """When it was created, whichever name it came under (`created`, `created_at`)."""
        return self.created or self.created_at

    @property
    def modified_time(self) -> str | None:
        """When it last changed, whichever name it came under (`modified_at`, `updated_at`)."""
        return self.modified_at or self.updated_at

    @property
    def status_enum(self) -> RefundStatus | None:
        """The status as a `RefundStatus`, or None for a value this version does not know."""
        return enum_or_none(RefundStatus, self.status)


class RefundListResponse(ListResponse[Refund]):
    """`{count, total_count, data[]}` of refunds."""
