"""Subscriptions: create (with payment details), update, resume, pause, cancel, plans; the real
service's create-then-confirm, items (its name for plans) and estimate.

Every subscription call also carries the `X-Profile-Id` header; that is the client's job.
"""

from __future__ import annotations

from datetime import date
from enum import StrEnum
from typing import Annotated, Any

from pydantic import BeforeValidator, Field, ValidationInfo, model_validator
from pydantic_core import InitErrorDetails, PydanticCustomError

from payscope.api.models._base import RequestModel, ResponseModel, field_error, raise_field_errors
from payscope.api.models.card_fields import CardCvc, CardData
from payscope.api.models.common import (
    Billing,
    IdStr,
    Limit,
    ListResponse,
    Offset,
    Timestamp,
    choice,
    enum_or_none,
    parse_timestamp,
)
from payscope.api.models.payments import AuthenticationTypeField, CaptureMethodField

__all__ = [
    "AcceptanceType",
    "ConfirmPaymentDetails",
    "CreatePaymentDetails",
    "CustomerAcceptance",
    "EstimateLineItem",
    "Invoice",
    "InvoiceListRequest",
    "InvoiceListResponse",
    "OnlineAcceptance",
    "PaymentDetails",
    "PaymentMethodKind",
    "PaymentType",
    "Plan",
    "PlanListResponse",
    "PlanPrice",
    "SetupFutureUsage",
    "Subscription",
    "SubscriptionCancelRequest",
    "SubscriptionCardData",
    "SubscriptionConfirmRequest",
    "SubscriptionCreateOnlyRequest",
    "SubscriptionCreateRequest",
    "SubscriptionEstimate",
    "SubscriptionEstimateRequest",
    "SubscriptionItemType",
    "SubscriptionItemsRequest",
    "SubscriptionListRequest",
    "SubscriptionListResponse",
    "SubscriptionPauseRequest",
    "SubscriptionPayment",
    "SubscriptionPaymentMethodData",
    "SubscriptionResumeRequest",
    "SubscriptionStatus",
    "SubscriptionUpdateRequest",
]


class SubscriptionStatus(StrEnum):
    """Subscription statuses of the reference service (the spec's list plus created, paused)."""

    ACTIVE = "active"
    CREATED = "created"
    IN_ACTIVE = "in_active"
    PENDING = "pending"
    TRIAL = "trial"
    PAUSED = "paused"
    UNPAID = "unpaid"
    ONETIME = "onetime"
    CANCELLED = "cancelled"
    FAILED = "failed"


class PaymentMethodKind(StrEnum):
    """`payment_details.payment_method` values."""

    CARD = "card"
    WALLET = "wallet"
    BANK_REDIRECT = "bank_redirect"
    BANK_TRANSFER = "bank_transfer"
    BANK_DEBIT = "bank_debit"
    PAY_LATER = "pay_later"
    CRYPTO = "crypto"
    UPI = "upi"
    VOUCHER = "voucher"
    GIFT_CARD = "gift_card"
    OPEN_BANKING = "open_banking"
    MOBILE_PAYMENT = "mobile_payment"
    NETWORK_TOKEN = "network_token"


class SetupFutureUsage(StrEnum):
    """Whether the payment method is saved for payments without the customer present."""

    OFF_SESSION = "off_session"
    ON_SESSION = "on_session"


class PaymentType(StrEnum):
    """Kind of payment; `setup_mandate` is a zero-amount authorisation."""

    NORMAL = "normal"
    NEW_MANDATE = "new_mandate"
    SETUP_MANDATE = "setup_mandate"
    RECURRING_MANDATE = "recurring_mandate"


class AcceptanceType(StrEnum):
    """How the customer accepted the mandate."""

    ONLINE = "online"
    OFFLINE = "offline"


class SubscriptionCardData(CardData):
    """A card for a subscription: holder name and security code are required here."""

    card_holder_name: str = Field(min_length=1)
    card_cvc: CardCvc = Field(repr=False)


class SubscriptionPaymentMethodData(RequestModel):
    """`payment_details.payment_method_data`, keyed by the chosen method."""

    card: SubscriptionCardData | None = None


class OnlineAcceptance(RequestModel):
    """Where an online acceptance came from."""

    ip_address: str = Field(min_length=1)
    user_agent: str = Field(min_length=1)


class CustomerAcceptance(RequestModel):
    """The customer's acceptance of a mandate; `online` is required for online acceptance."""

    acceptance_type: Annotated[
        AcceptanceType, BeforeValidator(choice(AcceptanceType, "acceptance type"))
    ]
    accepted_at: Timestamp | None = None
    online: OnlineAcceptance | None = None

    @model_validator(mode="after")
    def _online_details(self) -> CustomerAcceptance:
        if self.acceptance_type is AcceptanceType.ONLINE and self.online is None:
            raise_field_errors(
                type(self),
                [
                    field_error(
                        "online",
                        "missing",
                        "online (ip_address and user_agent) is required when "
                        "acceptance_type is 'online'",
                    )
                ],
            )
        return self


class PaymentDetails(RequestModel):
    """`payment_details` of a subscription; every field optional."""

    payment_method: (
        Annotated[PaymentMethodKind, BeforeValidator(choice(PaymentMethodKind, "payment method"))]
        | None
    ) = None
    payment_method_data: SubscriptionPaymentMethodData | None = None
    payment_method_id: str | None = None
    payment_method_type: str | None = None
    authentication_type: AuthenticationTypeField | None = None
    capture_method: CaptureMethodField | None = None
    setup_future_usage: (
        Annotated[
            SetupFutureUsage, BeforeValidator(choice(SetupFutureUsage, "setup_future_usage value"))
        ]
        | None
    ) = None
    payment_type: (
        Annotated[PaymentType, BeforeValidator(choice(PaymentType, "payment type"))] | None
    ) = None
    return_url: str | None = None
    customer_acceptance: CustomerAcceptance | None = None


class SubscriptionCreateRequest(RequestModel):
    """POST /subscriptions: create and confirm."""

    customer_id: str = Field(min_length=1)
    item_price_id: str = Field(min_length=1)
    payment_details: PaymentDetails
    merchant_reference_id: str | None = None
    plan_id: str | None = None
    coupon_code: str | None = None
    billing: Billing | None = None
    shipping: Billing | None = None


class CreatePaymentDetails(RequestModel):
    """`payment_details` of POST /subscriptions/create: how the later payments are taken (the
    payment method itself comes with the confirm). `return_url` is required, as on the real
    service."""

    return_url: str = Field(min_length=1)
    setup_future_usage: (
        Annotated[
            SetupFutureUsage, BeforeValidator(choice(SetupFutureUsage, "setup_future_usage value"))
        ]
        | None
    ) = None
    capture_method: CaptureMethodField | None = None
    authentication_type: AuthenticationTypeField | None = None
    payment_type: (
        Annotated[PaymentType, BeforeValidator(choice(PaymentType, "payment type"))] | None
    ) = None


class SubscriptionCreateOnlyRequest(RequestModel):
    """POST /subscriptions/create: a subscription in `created`, confirmed later with
    POST /subscriptions/{subscription_id}/confirm (the real service's two-step flow)."""

    customer_id: str = Field(min_length=1)
    item_price_id: str = Field(min_length=1)
    payment_details: CreatePaymentDetails
    merchant_reference_id: str | None = None
    plan_id: str | None = None
    coupon_code: str | None = None
    billing: Billing | None = None
    shipping: Billing | None = None


class ConfirmPaymentDetails(PaymentDetails):
    """`payment_details` of a confirm: the payment method is required here."""

    payment_method: Annotated[
        PaymentMethodKind, BeforeValidator(choice(PaymentMethodKind, "payment method"))
    ]
    billing: Billing | None = None
    shipping: Billing | None = None
    payment_token: str | None = Field(default=None, repr=False)


class SubscriptionConfirmRequest(RequestModel):
    """POST /subscriptions/{subscription_id}/confirm: pays the first term (or starts the
    trial) of a subscription made by POST /subscriptions/create. `client_secret`, when sent,
    must be the subscription's own (it lives 15 minutes)."""

    client_secret: str | None = Field(default=None, repr=False)
    payment_details: ConfirmPaymentDetails


class SubscriptionItemType(StrEnum):
    """What GET /subscriptions/items lists: plans or add-ons."""

    PLAN = "plan"
    ADDON = "addon"


class SubscriptionItemsRequest(RequestModel):
    """GET /subscriptions/items query. `item_type` is required; `product_id` keeps the item
    of that id."""

    item_type: Annotated[
        SubscriptionItemType, BeforeValidator(choice(SubscriptionItemType, "item type"))
    ]
    limit: int | None = Field(default=None, ge=0, le=100)
    offset: int | None = Field(default=None, ge=0)
    product_id: str | None = None


class SubscriptionEstimateRequest(RequestModel):
    """GET /subscriptions/estimate query: `plan_id` (a plan, or one of its prices) is required;
    `trial_days` overrides the price's own trial."""

    plan_id: str = Field(min_length=1)
    customer_id: str | None = None
    coupon_id: str | None = None
    trial_days: int | None = Field(default=None, ge=0, le=3650)


class SubscriptionUpdateRequest(RequestModel):
    """PUT /subscriptions/{subscription_id}/update: change the plan."""

    plan_id: str = Field(min_length=1)
    item_price_id: str = Field(min_length=1)


def _iso_date(value: Any, info: ValidationInfo) -> Any:
    field = info.field_name or "date"
    if isinstance(value, date):
        return value.isoformat()
    if isinstance(value, str):
        text = value.strip()
        try:
            date.fromisoformat(text)
        except ValueError:
            try:
                parse_timestamp(text)
            except ValueError:
                pass
            else:
                return text
        else:
            return text
    raise PydanticCustomError(
        "date",
        "{field} must be an ISO 8601 date such as 2030-01-31 (got {value})",
        {"field": field, "value": repr(value)},
    )


IsoDate = Annotated[str, BeforeValidator(_iso_date)]


class ResumeOption(StrEnum):
    """When a paused subscription resumes."""

    IMMEDIATELY = "immediately"
    SPECIFIC_DATE = "specific_date"


class ChargesHandling(StrEnum):
    """What happens to charges accrued while paused."""

    INVOICE_IMMEDIATELY = "invoice_immediately"
    ADD_TO_UNBILLED_CHARGES = "add_to_unbilled_charges"


class UnpaidInvoicesHandling(StrEnum):
    """What happens to invoices left unpaid."""

    NO_ACTION = "no_action"
    SCHEDULE_PAYMENT_COLLECTION = "schedule_payment_collection"


class ScheduleOption(StrEnum):
    """When a pause or a cancellation takes effect."""

    IMMEDIATELY = "immediately"
    END_OF_TERM = "end_of_term"
    SPECIFIC_DATE = "specific_date"


def _date_required(
    option: str | None, value: str | None, option_name: str, date_name: str
) -> list[InitErrorDetails]:
    if option == "specific_date" and not value:
        return [
            field_error(
                date_name,
                "missing",
                f"{date_name} is required when {option_name} is 'specific_date'",
            )
        ]
    return []


class SubscriptionResumeRequest(RequestModel):
    """POST /subscriptions/{subscription_id}/resume; every field optional."""

    resume_option: (
        Annotated[ResumeOption, BeforeValidator(choice(ResumeOption, "resume option"))] | None
    ) = None
    resume_date: IsoDate | None = None
    charges_handling: (
        Annotated[ChargesHandling, BeforeValidator(choice(ChargesHandling, "charges handling"))]
        | None
    ) = None
    unpaid_invoices_handling: (
        Annotated[
            UnpaidInvoicesHandling,
            BeforeValidator(choice(UnpaidInvoicesHandling, "unpaid invoices handling")),
        ]
        | None
    ) = None

    @model_validator(mode="after")
    def _date_when_specific(self) -> SubscriptionResumeRequest:
        raise_field_errors(
            type(self),
            _date_required(self.resume_option, self.resume_date, "resume_option", "resume_date"),
        )
        return self


ScheduleOptionField = Annotated[
    ScheduleOption, BeforeValidator(choice(ScheduleOption, "schedule option"))
]


class SubscriptionPauseRequest(RequestModel):
    """POST /subscriptions/{subscription_id}/pause -> `paused`."""

    pause_option: ScheduleOptionField | None = None
    pause_at: Timestamp | None = None

    @model_validator(mode="after")
    def _date_when_specific(self) -> SubscriptionPauseRequest:
        raise_field_errors(
            type(self), _date_required(self.pause_option, self.pause_at, "pause_option", "pause_at")
        )
        return self


class SubscriptionCancelRequest(RequestModel):
    """POST /subscriptions/{subscription_id}/cancel -> `cancelled`."""

    cancel_option: ScheduleOptionField | None = None
    cancel_at: Timestamp | None = None

    @model_validator(mode="after")
    def _date_when_specific(self) -> SubscriptionCancelRequest:
        raise_field_errors(
            type(self),
            _date_required(self.cancel_option, self.cancel_at, "cancel_option", "cancel_at"),
        )
        return self


class SubscriptionPayment(ResponseModel):
    """`payment` of a subscription: its most recent payment."""

    payment_id: str
    status: str | None = None
    amount: int | None = None
    currency: str | None = None
    payment_method_type: str | None = None
    payment_method_id: str | None = None
    # The mandate a renewal was charged on (the local sandbox sends it).
    mandate_id: str | None = None
    # Why it failed: the local sandbox sends the unified code, the real service error_code.
    unified_code: str | None = None
    unified_message: str | None = None
    error_code: str | None = None
    error_message: str | None = None


class Invoice(ResponseModel):
    """`invoice` of a subscription: its most recent invoice (`invoice_paid` once paid).

    The local sandbox names the invoice's payment `payment_id` (and, in its renewal history,
    adds that `payment`); the real service names it `payment_intent_id`."""

    id: str
    subscription_id: str | None = None
    amount: int | None = None
    currency: str | None = None
    status: str | None = None
    payment_id: str | None = None
    payment_intent_id: str | None = None
    payment_method_id: str | None = None
    created: str | None = None
    payment: SubscriptionPayment | None = None
    # The local sandbox: the mandate it was charged on, and why no payment was made when the
    # mandate could not be charged (the payments API's error code and message).
    mandate_id: str | None = None
    error_code: str | None = None
    error_message: str | None = None

    @property
    def paid_by(self) -> str | None:
        """The id of the payment that settles this invoice, whichever name it came under."""
        return self.payment_id or self.payment_intent_id


class Subscription(ResponseModel):
    """A subscription. `client_secret` is a 15-minute SDK token, kept out of the repr."""

    id: str
    status: str
    profile_id: str | None = None
    merchant_id: str | None = None
    customer_id: str | None = None
    plan_id: str | None = None
    item_price_id: str | None = None
    merchant_reference_id: str | None = None
    coupon_code: str | None = None
    client_secret: str | None = Field(default=None, repr=False)
    payment: SubscriptionPayment | None = None
    invoice: Invoice | None = None
    next_billing_at: str | None = None
    # Sent by the local sandbox (and, for the *_at fields, by the real pause, cancel and resume
    # answers); absent elsewhere.
    payment_method_id: str | None = None
    # The off-session mandate the first charge set up; every renewal is charged on it.
    mandate_id: str | None = None
    trial_end: str | None = None
    scheduled_change: dict[str, Any] | None = None
    paused_at: str | None = None
    cancelled_at: str | None = None
    created_at: str | None = None
    modified_at: str | None = None

    @property
    def status_enum(self) -> SubscriptionStatus | None:
        """The status as a `SubscriptionStatus`, or None for one this version does not know."""
        return enum_or_none(SubscriptionStatus, self.status)


class PlanPrice(ResponseModel):
    """One price of a plan (`item_id` and `trial_period_unit` come with the items route)."""

    price_id: str
    item_id: str | None = None
    amount: int | None = None
    currency: str | None = None
    interval: str | None = None
    interval_count: int | None = None
    trial_period: int | None = None
    trial_period_unit: str | None = None


class Plan(ResponseModel):
    """A plan of GET /subscriptions/plans; its prices are listed under `price_id`.

    The real service's `GET /subscriptions/items` names the plan `item_id`: read as `plan_id`.
    """

    plan_id: str
    name: str | None = None
    description: str | None = None
    price_id: list[PlanPrice] = Field(default_factory=list)

    @model_validator(mode="before")
    @classmethod
    def _item_id(cls, data: Any) -> Any:
        if isinstance(data, dict) and "plan_id" not in data and "item_id" in data:
            return {**data, "plan_id": data["item_id"]}
        return data


class PlanListResponse(ListResponse[Plan]):
    """Plans; a bare array is read as `data`."""


class EstimateLineItem(ResponseModel):
    """One line of an estimate."""

    item_id: str
    item_type: str | None = None
    description: str | None = None
    amount: int | None = None
    currency: str | None = None
    quantity: int | None = None


class SubscriptionEstimate(ResponseModel):
    """GET /subscriptions/estimate: what a subscription to a plan costs at its start."""

    amount: int
    currency: str
    plan_id: str | None = None
    item_price_id: str | None = None
    coupon_code: str | None = None
    customer_id: str | None = None
    line_items: list[EstimateLineItem] = Field(default_factory=list)


SubscriptionStatusField = Annotated[
    SubscriptionStatus, BeforeValidator(choice(SubscriptionStatus, "subscription status"))
]


class SubscriptionListRequest(RequestModel):
    """`GET /_sandbox/subscriptions` query (the local sandbox only: the service has no list of
    subscriptions). `status` may be repeated or a comma list."""

    status: list[SubscriptionStatusField] | None = None
    customer_id: IdStr | None = None
    plan_id: IdStr | None = None
    limit: Limit = 20
    offset: Offset = 0


class SubscriptionListResponse(ListResponse[Subscription]):
    """Subscriptions, newest first."""


class InvoiceListRequest(RequestModel):
    """`GET /_sandbox/subscriptions/{id}/invoices` query."""

    limit: Limit = 20
    offset: Offset = 0


class InvoiceListResponse(ListResponse[Invoice]):
    """A subscription's invoices (its renewal history), newest first."""
