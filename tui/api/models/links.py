"""Payment links: create, list filter, the link record and its list."""

from __future__ import annotations

from enum import StrEnum

from pydantic import Field, model_validator

from tui.api.models._base import RequestModel, ResponseModel, field_error, raise_field_errors
from tui.api.models.common import (
    Amount,
    Currency,
    Email,
    Limit,
    ListResponse,
    Metadata,
    Offset,
    Timestamp,
    created_range_errors,
    enum_or_none,
)
from tui.api.models.payments import AuthenticationTypeField, CaptureMethodField

__all__ = [
    "PaymentLink",
    "PaymentLinkConfig",
    "PaymentLinkCreateRequest",
    "PaymentLinkListRequest",
    "PaymentLinkListResponse",
    "PaymentLinkStatus",
]


class PaymentLinkStatus(StrEnum):
    """A link is `expired` once its expiry has passed."""

    ACTIVE = "active"
    EXPIRED = "expired"


class PaymentLinkConfig(RequestModel):
    """How the hosted payment page looks and which methods it offers."""

    seller_name: str | None = None
    sdk_layout: str | None = None
    allowed_payment_method_types: list[str] | None = None
    theme: str | None = None
    logo: str | None = None


class PaymentLinkCreateRequest(RequestModel):
    """POST /payment_link."""

    amount: Amount
    currency: Currency
    description: str | None = None
    link_type: str | None = Field(default=None, min_length=1)
    expiry: Timestamp | None = None
    customer_id: str | None = None
    send_email: bool | None = None
    email: Email | None = None
    capture_method: CaptureMethodField | None = None
    authentication_type: AuthenticationTypeField | None = None
    require_customer_info: bool | None = None
    payment_link_config: PaymentLinkConfig | None = None
    return_url: str | None = None
    metadata: Metadata | None = None

    @model_validator(mode="after")
    def _someone_to_email(self) -> PaymentLinkCreateRequest:
        if self.send_email and not self.email and not self.customer_id:
            raise_field_errors(
                type(self),
                [
                    field_error(
                        "email",
                        "missing",
                        "send_email is true but there is no one to send to: "
                        "give email (or a customer_id whose customer has one)",
                    )
                ],
            )
        return self


class PaymentLinkListRequest(RequestModel):
    """POST /payment_link/list."""

    limit: Limit = 10
    offset: Offset = 0
    created_gte: Timestamp | None = None
    created_lte: Timestamp | None = None

    @model_validator(mode="after")
    def _range_in_order(self) -> PaymentLinkListRequest:
        raise_field_errors(type(self), created_range_errors(self.created_gte, self.created_lte))
        return self


class PaymentLink(ResponseModel):
    """A payment link record. `link_to_pay` is the page the customer opens."""

    payment_link_id: str
    merchant_id: str | None = None
    link_to_pay: str | None = None
    amount: int | None = None
    currency: str | None = None
    description: str | None = None
    created_at: str | None = None
    expiry: str | None = None
    status: str | None = None
    secure_link: str | None = None
    payment_id: str | None = None

    @property
    def status_enum(self) -> PaymentLinkStatus | None:
        """The status as a `PaymentLinkStatus`, or None when absent or unknown."""
        return enum_or_none(PaymentLinkStatus, self.status)


class PaymentLinkListResponse(ListResponse[PaymentLink]):
    """Payment links; a bare array is read as `data`."""
