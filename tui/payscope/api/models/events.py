"""Webhook events: the envelope the service posts, and the delivery history around it."""

from __future__ import annotations

from enum import StrEnum
from typing import Annotated, Any, Final

from pydantic import BeforeValidator, Field, model_validator

from payscope.api.models._base import RequestModel, ResponseModel, raise_field_errors
from payscope.api.models.common import (
    Limit,
    Offset,
    Timestamp,
    created_range_errors,
    enum_or_none,
    one_or_many,
)

__all__ = [
    "CONTENT_TYPE_ID_FIELD",
    "PAYMENT_STATUS_EVENTS",
    "ContentType",
    "EventContent",
    "EventDeliveryAttempt",
    "EventDeliveryRequest",
    "EventDeliveryResponse",
    "EventListRequest",
    "EventListResponse",
    "EventSummary",
    "EventType",
    "WebhookEvent",
]


class EventType(StrEnum):
    """Event types of the reference service (payloads may carry newer ones)."""

    PAYMENT_SUCCEEDED = "payment_succeeded"
    PAYMENT_FAILED = "payment_failed"
    PAYMENT_PROCESSING = "payment_processing"
    PAYMENT_CANCELLED = "payment_cancelled"
    PAYMENT_AUTHORIZED = "payment_authorized"
    PAYMENT_CAPTURED = "payment_captured"
    PAYMENT_EXPIRED = "payment_expired"
    ACTION_REQUIRED = "action_required"
    REFUND_SUCCEEDED = "refund_succeeded"
    REFUND_FAILED = "refund_failed"
    DISPUTE_OPENED = "dispute_opened"
    DISPUTE_EXPIRED = "dispute_expired"
    DISPUTE_ACCEPTED = "dispute_accepted"
    DISPUTE_CANCELLED = "dispute_cancelled"
    DISPUTE_CHALLENGED = "dispute_challenged"
    DISPUTE_WON = "dispute_won"
    DISPUTE_LOST = "dispute_lost"
    MANDATE_ACTIVE = "mandate_active"
    MANDATE_REVOKED = "mandate_revoked"
    PAYOUT_SUCCESS = "payout_success"
    PAYOUT_FAILED = "payout_failed"
    PAYOUT_INITIATED = "payout_initiated"
    PAYOUT_PROCESSING = "payout_processing"
    PAYOUT_CANCELLED = "payout_cancelled"
    PAYOUT_EXPIRED = "payout_expired"
    PAYOUT_REVERSED = "payout_reversed"
    INVOICE_PAID = "invoice_paid"


class ContentType(StrEnum):
    """`content.type`: which kind of object the event carries."""

    PAYMENT_DETAILS = "payment_details"
    REFUND_DETAILS = "refund_details"
    DISPUTE_DETAILS = "dispute_details"
    PAYOUT_DETAILS = "payout_details"
    SUBSCRIPTION_DETAILS = "subscription_details"
    MANDATE_DETAILS = "mandate_details"


# content.type -> the field of content.object that identifies the object
CONTENT_TYPE_ID_FIELD: Final[dict[str, str]] = {
    ContentType.PAYMENT_DETAILS: "payment_id",
    ContentType.REFUND_DETAILS: "refund_id",
    ContentType.DISPUTE_DETAILS: "dispute_id",
    ContentType.PAYOUT_DETAILS: "payout_id",
    ContentType.SUBSCRIPTION_DETAILS: "id",
    ContentType.MANDATE_DETAILS: "mandate_id",
}

# refunds and disputes also carry a payment_id, so their own ids are looked at first
_ID_FIELDS_IN_ORDER: Final = (
    "refund_id",
    "dispute_id",
    "payout_id",
    "mandate_id",
    "payment_id",
    "id",
)

# payment status -> the event it emits; statuses without an event are absent
PAYMENT_STATUS_EVENTS: Final[dict[str, EventType]] = {
    "succeeded": EventType.PAYMENT_SUCCEEDED,
    "failed": EventType.PAYMENT_FAILED,
    "processing": EventType.PAYMENT_PROCESSING,
    "requires_customer_action": EventType.ACTION_REQUIRED,
    "requires_action": EventType.ACTION_REQUIRED,
    "requires_merchant_action": EventType.ACTION_REQUIRED,
    "cancelled": EventType.PAYMENT_CANCELLED,
    "requires_capture": EventType.PAYMENT_AUTHORIZED,
    "partially_authorized_and_requires_capture": EventType.PAYMENT_AUTHORIZED,
    "partially_captured": EventType.PAYMENT_CAPTURED,
    "partially_captured_and_capturable": EventType.PAYMENT_CAPTURED,
    "expired": EventType.PAYMENT_EXPIRED,
}


class EventContent(ResponseModel):
    """`content`: the object's kind and a snapshot of it (fields vary by event type)."""

    type: str
    object: dict[str, Any] = Field(default_factory=dict)


class WebhookEvent(ResponseModel):
    """The body the service posts to the merchant's webhook endpoint."""

    merchant_id: str
    event_id: str
    event_type: str
    content: EventContent
    timestamp: str

    @property
    def event_type_enum(self) -> EventType | None:
        """The event type as an `EventType`, or None for one this version does not know."""
        return enum_or_none(EventType, self.event_type)

    @property
    def object_id(self) -> str | None:
        """The id of the object the event is about (payment_id, refund_id, ...)."""
        obj = self.content.object
        preferred = CONTENT_TYPE_ID_FIELD.get(self.content.type)
        for name in (preferred, *_ID_FIELDS_IN_ORDER):
            if name and isinstance(obj.get(name), str) and obj[name]:
                return str(obj[name])
        return None

    @property
    def object_status(self) -> str | None:
        """The object's status as the snapshot gives it (disputes call it dispute_status)."""
        obj = self.content.object
        for name in ("status", "dispute_status", "refund_status"):
            if isinstance(obj.get(name), str):
                return str(obj[name])
        return None


class EventListRequest(RequestModel):
    """POST /events/{merchant_id}: filters of the delivery history."""

    created_after: Timestamp | None = None
    created_before: Timestamp | None = None
    limit: Limit = 10
    offset: Offset = 0
    object_id: str | None = None
    event_types: Annotated[list[str] | None, BeforeValidator(one_or_many)] = None
    is_delivered: bool | None = None

    @model_validator(mode="after")
    def _range_in_order(self) -> EventListRequest:
        raise_field_errors(
            type(self),
            created_range_errors(
                self.created_after,
                self.created_before,
                start_name="created_after",
                end_name="created_before",
            ),
        )
        return self


class EventSummary(ResponseModel):
    """One event in the delivery history."""

    event_id: str
    event_type: str
    event_class: str | None = None
    object_id: str | None = None
    is_delivery_successful: bool | None = None
    created: str | None = None
    merchant_id: str | None = None
    # Always sent by the real service: the business profile, and the first delivery
    # attempt's id (the event's own id there).
    profile_id: str | None = None
    initial_attempt_id: str | None = None


class EventListResponse(ResponseModel):
    """`{events[], total_count}`."""

    events: list[EventSummary] = Field(default_factory=list)
    total_count: int | None = None


def _header_pairs(value: Any) -> Any:
    # the reference service writes headers as [[name, value], ...]
    if isinstance(value, list):
        return {str(pair[0]): str(pair[1]) for pair in value if len(pair) == 2}
    return value


class EventDeliveryRequest(ResponseModel):
    """The request a delivery attempt sent: where to (the local sandbox names the endpoint),
    headers and the exact body."""

    url: str | None = None
    headers: Annotated[dict[str, str], BeforeValidator(_header_pairs)] = Field(default_factory=dict)
    body: str = ""


class EventDeliveryResponse(ResponseModel):
    """What the endpoint answered (no status when it could not be reached)."""

    status_code: int | None = None
    body: str | None = None


class EventDeliveryAttempt(ResponseModel):
    """One delivery attempt: GET /events/{merchant_id}/{event_id}/attempts."""

    event_id: str | None = None
    attempt_id: str | None = None
    request: EventDeliveryRequest = Field(default_factory=EventDeliveryRequest)
    response: EventDeliveryResponse = Field(default_factory=EventDeliveryResponse)
    delivered: bool = False
    is_delivery_successful: bool | None = None
    delivery_attempt: str | None = None
    created: str | None = None

    @model_validator(mode="before")
    @classmethod
    def _delivered_from_reference_name(cls, data: Any) -> Any:
        # the reference service (and the sandbox) name the outcome `is_delivery_successful`
        # as in the event list; `delivered` is this model's short name for the same fact
        if isinstance(data, dict) and "delivered" not in data:
            successful = data.get("is_delivery_successful")
            if isinstance(successful, bool):
                return {**data, "delivered": successful}
        return data
