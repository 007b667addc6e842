"""Payment links: create, list filter, the link record and its list.

The service's link status is `active` or `expired`; a link whose payment went through is shown
`paid` (`PaymentLink.state`), judged by `payment_status`, which the local sandbox answers with
every link. The real service makes links through `POST /payments` with `payment_link: true`
(`PaymentLinkCreateRequest.payment_body`, answered as `PaymentWithLink`).
"""

from __future__ import annotations

from enum import StrEnum
from typing import Any, Final

from pydantic import Field, model_validator

from payscope.api.models._base import RequestModel, ResponseModel, field_error, raise_field_errors
from payscope.api.models.common import (
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
from payscope.api.models.payments import (
    AuthenticationTypeField,
    CaptureMethodField,
    PaymentLinkInfo,
)

__all__ = [
    "LINK_STATES",
    "PAID_PAYMENT_STATUSES",
    "PaymentLink",
    "PaymentLinkConfig",
    "PaymentLinkCreateRequest",
    "PaymentLinkListRequest",
    "PaymentLinkListResponse",
    "PaymentLinkRef",
    "PaymentLinkStatus",
    "PaymentWithLink",
]


class PaymentLinkStatus(StrEnum):
    """A link is `expired` once its expiry has passed."""

    ACTIVE = "active"
    EXPIRED = "expired"


# A link's payment in one of these has been paid by the customer (authorised or captured).
PAID_PAYMENT_STATUSES: Final = frozenset(
    {"succeeded", "requires_capture", "partially_captured", "partially_captured_and_capturable"}
)
# What a link is shown as: the service's status, or `paid` once its payment went through.
LINK_STATES: Final = ("active", "expired", "paid")
# The real service's `POST /payments` takes none of these: they are the local route's own.
_LINK_ONLY_FIELDS: Final = ("link_type", "expiry", "send_email", "email", "require_customer_info")


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

    def payment_body(self, session_expiry: int | None = None) -> dict[str, Any]:
        """This link as the real service's `POST /payments` body (`payment_link: true`).

        Its payment takes the amount, currency, description, customer, return URL, capture,
        authentication, metadata and the link's look; the link lives `session_expiry` seconds
        (the real service's default is 15 minutes). The local route's own fields are left out.
        """
        body = self.to_body()
        for name in _LINK_ONLY_FIELDS:
            body.pop(name, None)
        body["payment_link"] = True
        if session_expiry is not None:
            body["session_expiry"] = session_expiry
        return body

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
    # The local sandbox's: its payment's status (the real service's record has neither).
    payment_status: str | None = None
    link_type: str | None = None
    customer_id: str | None = None
    payment_link_config: dict[str, Any] | None = None

    @property
    def status_enum(self) -> PaymentLinkStatus | None:
        """The status as a `PaymentLinkStatus`, or None when absent or unknown."""
        return enum_or_none(PaymentLinkStatus, self.status)

    @property
    def paid(self) -> bool:
        """True once the link's payment went through (known when `payment_status` is given)."""
        return self.payment_status in PAID_PAYMENT_STATUSES

    @property
    def state(self) -> str | None:
        """What the link is now: `paid` once its payment went through (even past its expiry),
        else the service's status (`active`, `expired`, or a newer one)."""
        return "paid" if self.paid else self.status


class PaymentLinkListResponse(ListResponse[PaymentLink]):
    """Payment links; a bare array is read as `data`."""


# `payment_link` of the real service's payment answer: where the link is.
PaymentLinkRef = PaymentLinkInfo


class PaymentWithLink(ResponseModel):
    """The real service's answer to `POST /payments` with `payment_link: true`: the payment,
    and the link made for it."""

    payment_id: str
    status: str | None = None
    amount: int | None = None
    currency: str | None = None
    description: str | None = None
    customer_id: str | None = None
    created: str | None = None
    expires_on: str | None = None
    merchant_id: str | None = None
    payment_link: PaymentLinkRef

    def as_link(self) -> PaymentLink:
        """The link record, as far as the payment's answer tells it."""
        ref = self.payment_link
        return PaymentLink(
            payment_link_id=ref.payment_link_id,
            merchant_id=self.merchant_id,
            link_to_pay=ref.link,
            secure_link=ref.secure_link,
            amount=self.amount,
            currency=self.currency,
            description=self.description,
            created_at=self.created,
            expiry=self.expires_on,
            status=PaymentLinkStatus.ACTIVE.value,
            payment_id=self.payment_id,
            payment_status=self.status,
            customer_id=self.customer_id,
        )
