"""Payments: create, update, confirm, capture, cancel, the list filter, the payment object.

Response statuses are kept as plain strings (the service may add new ones); `PaymentStatus`
is there for code that compares.
"""

from __future__ import annotations

from enum import StrEnum
from typing import Annotated, Any, ClassVar, Final

from pydantic import BeforeValidator, Field, model_validator
from pydantic_core import InitErrorDetails

from payscope.api.models._base import RequestModel, ResponseModel, field_error, raise_field_errors
from payscope.api.models.card_fields import CardCvc, CardData
from payscope.api.models.common import (
    Address,
    Amount,
    Billing,
    BrowserInfo,
    Currency,
    Email,
    Limit,
    ListResponse,
    Metadata,
    Offset,
    PaymentIdStr,
    PhoneCountryCode,
    PositiveAmount,
    Timestamp,
    choice,
    created_range_errors,
    enum_or_none,
    one_or_many,
)
from payscope.api.models.disputes import Dispute
from payscope.api.models.mandates import CustomerAcceptance, FutureUsageField, MandateData
from payscope.api.models.refunds import Refund
from payscope.api.vocabulary import PaymentStatus

__all__ = [
    "BILLING_REQUIRED",
    "BILLING_REQUIRED_LATER",
    "SESSION_EXPIRY_MAX",
    "SESSION_EXPIRY_MIN",
    "STATEMENT_DESCRIPTOR_MAX",
    "TERMINAL_PAYMENT_STATUSES",
    "AmountFilter",
    "AuthenticationType",
    "AuthenticationTypeField",
    "BillingAddressInfo",
    "BillingInfo",
    "CaptureMethod",
    "CaptureMethodField",
    "CardInfo",
    "ConnectorDetails",
    "ErrorDetails",
    "IssuerDetails",
    "ListOrder",
    "NetworkDetails",
    "NextAction",
    "OrderDetail",
    "Payment",
    "PaymentAttempt",
    "PaymentCancelRequest",
    "PaymentCaptureRequest",
    "PaymentConfirmRequest",
    "PaymentCreateRequest",
    "PaymentLinkInfo",
    "PaymentListRequest",
    "PaymentListResponse",
    "PaymentMethodData",
    "PaymentMethodDataResponse",
    "PaymentStatus",
    "PaymentStatusField",
    "PaymentUpdateRequest",
    "UnifiedDetails",
    "lacks_billing",
]


TERMINAL_PAYMENT_STATUSES: Final[frozenset[PaymentStatus]] = frozenset(
    {
        PaymentStatus.SUCCEEDED,
        PaymentStatus.FAILED,
        PaymentStatus.CANCELLED,
        PaymentStatus.PARTIALLY_CAPTURED,
        PaymentStatus.EXPIRED,
    }
)


class CaptureMethod(StrEnum):
    """When the authorised money is taken."""

    AUTOMATIC = "automatic"
    MANUAL = "manual"
    MANUAL_MULTIPLE = "manual_multiple"
    SCHEDULED = "scheduled"
    SEQUENTIAL_AUTOMATIC = "sequential_automatic"


class AuthenticationType(StrEnum):
    """Whether 3-D Secure is asked for."""

    THREE_DS = "three_ds"
    NO_THREE_DS = "no_three_ds"


STATEMENT_DESCRIPTOR_MAX: Final = 22

CaptureMethodField = Annotated[
    CaptureMethod, BeforeValidator(choice(CaptureMethod, "capture method"))
]
AuthenticationTypeField = Annotated[
    AuthenticationType, BeforeValidator(choice(AuthenticationType, "authentication type"))
]
PaymentStatusField = Annotated[
    PaymentStatus, BeforeValidator(choice(PaymentStatus, "payment status"))
]


class PaymentMethodData(RequestModel):
    """`payment_method_data` of a request: a `card`, or another method's object (kept as is),
    and the method's own `billing` address (the real service's payment-method billing)."""

    card: CardData | None = None
    billing: Billing | None = None

    @model_validator(mode="before")
    @classmethod
    def _bare_family(cls, data: Any) -> Any:
        # The real service takes a few families as a bare string ("reward").
        if isinstance(data, str) and data in ("reward", "mandate_payment"):
            return {data: {}}
        return data


class OrderDetail(RequestModel):
    """One order line."""

    name: str = Field(min_length=1)
    quantity: int = Field(ge=1)
    amount: Amount
    currency: Currency | None = None


_ORDER_DETAILS_WRONG_NAMES: Final = {
    "items": "order_details",
    "line_items": "order_details",
    "cart_items": "order_details",
}


BILLING_REQUIRED: Final = (
    "billing is required on a request that carries payment_method_data: "
    "add billing (or payment_method_data.billing) with the customer's address "
    "(and phone or email)"
)
# Update and confirm: the real service uses the billing the payment already has.
BILLING_REQUIRED_LATER: Final = BILLING_REQUIRED + "; this payment has no billing yet to use"


def lacks_billing(request: Any, *already: Any) -> bool:
    """True when `request` carries `payment_method_data` without any billing: none on the
    request, none in its method data, and none of `already` (the billing the payment has)."""
    pmd = getattr(request, "payment_method_data", None)
    if pmd is None or request.billing is not None or pmd.billing is not None:
        return False
    return not any(already)


def _billing_errors(request: Any) -> list[InitErrorDetails]:
    if lacks_billing(request):
        return [field_error("billing", "missing", BILLING_REQUIRED)]
    return []


class _SavedMethodFields(RequestModel):
    """Saved methods and mandates (the real service's fields), on create, update and confirm:
    keep the method for later (with a customer), the customer's acceptance of a mandate, pay
    with a saved method's token (from GET /customers/{id}/payment_methods) or an existing
    mandate, and say the customer is not present (off_session)."""

    setup_future_usage: FutureUsageField | None = None
    customer_acceptance: CustomerAcceptance | None = None
    mandate_data: MandateData | None = None
    mandate_id: str | None = Field(default=None, min_length=1, max_length=255)
    off_session: bool | None = None
    payment_token: str | None = Field(default=None, min_length=1, repr=False)


class _PaymentFields(_SavedMethodFields):
    """Fields that create and update share."""

    wrong_names: ClassVar = _ORDER_DETAILS_WRONG_NAMES

    customer_id: str | None = Field(default=None, min_length=1, max_length=64)
    capture_method: CaptureMethodField | None = None
    authentication_type: AuthenticationTypeField | None = None
    description: str | None = None
    return_url: str | None = None
    email: Email | None = None
    name: str | None = None
    phone: str | None = None
    phone_country_code: PhoneCountryCode | None = None
    payment_method: str | None = None
    payment_method_type: str | None = None
    payment_method_data: PaymentMethodData | None = None
    billing: Billing | None = None
    shipping: Address | None = None
    browser_info: BrowserInfo | None = None
    order_details: list[OrderDetail] | None = None
    metadata: Metadata | None = None
    statement_descriptor_name: str | None = None
    statement_descriptor_suffix: str | None = None
    # The issuer may approve less than asked: partially_authorized_and_requires_capture.
    enable_partial_authorization: bool | None = None


# The real service's bounds for session_expiry (seconds): a minute to about three months.
SESSION_EXPIRY_MIN: Final = 60
SESSION_EXPIRY_MAX: Final = 7_890_000


class PaymentCreateRequest(_PaymentFields):
    """POST /payments.

    `profile_id` is optional here because the client fills it from its own profile. Send your
    own `payment_id` to make retries safe (a repeat is answered HE_01).
    """

    amount: Amount
    currency: Currency
    profile_id: str | None = None
    payment_id: PaymentIdStr | None = None
    confirm: bool | None = None
    # The real service's way to make a payment link: answered with `payment_link`.
    payment_link: bool | None = None
    payment_link_config: dict[str, Any] | None = None
    # How long the client secret (and a link made here) lives, in seconds (default 900).
    session_expiry: int | None = Field(default=None, ge=SESSION_EXPIRY_MIN, le=SESSION_EXPIRY_MAX)

    @model_validator(mode="after")
    def _conditional_fields(self) -> PaymentCreateRequest:
        errors = _billing_errors(self)
        if self.confirm and self.payment_method_data is not None and not self.payment_method:
            errors.append(
                field_error(
                    "payment_method",
                    "missing",
                    "payment_method is required when confirming in the same request: "
                    "set it (e.g. 'card') or send confirm: false",
                )
            )
        raise_field_errors(type(self), errors)
        return self


class PaymentUpdateRequest(_PaymentFields):
    """POST /payments/{payment_id}: allowed before confirmation only. `payment_method_data`
    needs billing only when the payment has none yet (the service checks: `lacks_billing`)."""

    amount: Amount | None = None
    currency: Currency | None = None


class PaymentConfirmRequest(_SavedMethodFields):
    """POST /payments/{payment_id}/confirm. `client_secret` is for the publishable-key flow.
    `payment_method_data` needs billing only when the payment has none yet: the service uses
    the billing the payment was created (or updated) with (`lacks_billing`)."""

    payment_method: str | None = None
    payment_method_type: str | None = None
    payment_method_data: PaymentMethodData | None = None
    billing: Billing | None = None
    return_url: str | None = None
    browser_info: BrowserInfo | None = None
    client_secret: str | None = Field(default=None, repr=False)
    # With a saved card's payment_token: the security code the customer typed again.
    card_cvc: CardCvc | None = Field(default=None, repr=False)


class PaymentCaptureRequest(RequestModel):
    """POST /payments/{payment_id}/capture. Omit `amount_to_capture` to take all that is held."""

    amount_to_capture: PositiveAmount | None = None
    statement_descriptor_prefix: str | None = None
    statement_descriptor_suffix: str | None = None

    @model_validator(mode="after")
    def _descriptor_length(self) -> PaymentCaptureRequest:
        prefix = self.statement_descriptor_prefix or ""
        suffix = self.statement_descriptor_suffix or ""
        total = len(prefix) + len(suffix)
        if total > STATEMENT_DESCRIPTOR_MAX:
            where = "statement_descriptor_suffix" if suffix else "statement_descriptor_prefix"
            raise_field_errors(
                type(self),
                [
                    field_error(
                        where,
                        "statement_descriptor_too_long",
                        f"statement_descriptor_prefix and statement_descriptor_suffix together "
                        f"are {total} characters ({prefix!r} + {suffix!r}); "
                        f"they may not exceed {STATEMENT_DESCRIPTOR_MAX}",
                        suffix if suffix else prefix,
                    )
                ],
            )
        return self


class PaymentCancelRequest(RequestModel):
    """POST /payments/{payment_id}/cancel."""

    cancellation_reason: str | None = None


class AmountFilter(RequestModel):
    """An amount range for the list filter, in minor units, bounds included."""

    start_amount: Amount | None = None
    end_amount: Amount | None = None

    @model_validator(mode="after")
    def _ordered(self) -> AmountFilter:
        if (
            self.start_amount is not None
            and self.end_amount is not None
            and self.end_amount < self.start_amount
        ):
            raise_field_errors(
                type(self),
                [
                    field_error(
                        "end_amount",
                        "amount_range",
                        f"end_amount ({self.end_amount}) is below start_amount "
                        f"({self.start_amount}): no payment could match",
                        self.end_amount,
                    )
                ],
            )
        return self


class ListOrder(RequestModel):
    """Sort order of a list: `on` a field, `by` asc or desc."""

    on: str = "created"
    by: str = Field(default="desc", pattern=r"^(asc|desc)$")


class PaymentListRequest(RequestModel):
    """POST /payments/list. Results come newest first.

    `status` and `currency` take one value or a list (the reference service's `status[]`).
    """

    limit: Limit = 10
    offset: Offset = 0
    status: Annotated[list[PaymentStatusField] | None, BeforeValidator(one_or_many)] = None
    customer_id: str | None = None
    created_gte: Timestamp | None = None
    created_lte: Timestamp | None = None
    currency: Annotated[list[Currency] | None, BeforeValidator(one_or_many)] = None
    payment_id: PaymentIdStr | None = None
    amount_filter: AmountFilter | None = None
    payment_method: Annotated[list[str] | None, BeforeValidator(one_or_many)] = None
    order: ListOrder | None = None

    @model_validator(mode="after")
    def _range_in_order(self) -> PaymentListRequest:
        raise_field_errors(type(self), created_range_errors(self.created_gte, self.created_lte))
        return self


class CardInfo(ResponseModel):
    """`payment_method_data.card` of a payment: never the full number.

    The spec names the network and expiry `brand`, `exp_month`, `exp_year`; the real service
    `card_network`, `card_exp_month`, `card_exp_year`, with the card's type, issuer and more
    beside them. `network`, `expiry_month` and `expiry_year` read whichever came.
    """

    last4: str | None = None
    brand: str | None = None
    exp_month: str | None = None
    exp_year: str | None = None
    card_network: str | None = None
    card_type: str | None = None
    card_issuer: str | None = None
    card_issuing_country: str | None = None
    card_isin: str | None = None
    card_extended_bin: str | None = None
    card_exp_month: str | None = None
    card_exp_year: str | None = None
    card_holder_name: str | None = None

    @property
    def network(self) -> str | None:
        """The card network (Visa, Mastercard, ...), whichever name it came under."""
        return self.brand or self.card_network

    @property
    def expiry_month(self) -> str | None:
        """The expiry month, whichever name it came under."""
        return self.exp_month or self.card_exp_month

    @property
    def expiry_year(self) -> str | None:
        """The expiry year, whichever name it came under."""
        return self.exp_year or self.card_exp_year


class BillingAddressInfo(ResponseModel):
    """`billing.address` of a payment: where the buyer's name is (first and last)."""

    first_name: str | None = None
    last_name: str | None = None
    city: str | None = None
    country: str | None = None


class BillingInfo(ResponseModel):
    """`billing` of a payment (or of its method): address, phone and e-mail, as the buyer
    gave them (a hosted link page's buyer gives them here, not at the top level)."""

    address: BillingAddressInfo | None = None
    email: str | None = None

    @property
    def name(self) -> str | None:
        """The first and last names of the address, or None."""
        address = self.address
        if address is None:
            return None
        parts = [part.strip() for part in (address.first_name, address.last_name) if part]
        return " ".join(part for part in parts if part) or None


class PaymentMethodDataResponse(ResponseModel):
    """`payment_method_data` of a payment."""

    card: CardInfo | None = None
    billing: BillingInfo | None = None


class UnifiedDetails(ResponseModel):
    """`error_details.unified_details`: the unified family (`category`, the real service's
    UE_1000, UE_2000, UE_3000, UE_4000 or UE_9000) and its message; the real service may add
    a standardised code, a description, guidance for the customer and a recommended action."""

    category: str | None = None
    message: str | None = None
    standardised_code: str | None = None
    description: str | None = None
    user_guidance_message: str | None = None
    recommended_action: str | None = None


class NetworkDetails(ResponseModel):
    """`error_details.issuer_details.network_details`: the card network, and its advice."""

    name: str | None = None
    advice_code: str | None = None
    advice_message: str | None = None


class IssuerDetails(ResponseModel):
    """`error_details.issuer_details`."""

    code: str | None = None
    message: str | None = None
    network_details: NetworkDetails | None = None


class ConnectorDetails(ResponseModel):
    """`error_details.connector_details`: acquirer wording, not a stable surface."""

    code: str | None = None
    message: str | None = None
    reason: str | None = None


class ErrorDetails(ResponseModel):
    """Why a payment failed, at each level."""

    unified_details: UnifiedDetails | None = None
    issuer_details: IssuerDetails | None = None
    connector_details: ConnectorDetails | None = None


class NextAction(ResponseModel):
    """What the customer must do next, e.g. `redirect_to_url` for a 3-D Secure challenge."""

    type: str
    redirect_to_url: str | None = None


class PaymentLinkInfo(ResponseModel):
    """`payment_link` of a payment made with `payment_link: true`: where the link is."""

    payment_link_id: str
    link: str
    secure_link: str | None = None


class PaymentAttempt(ResponseModel):
    """One confirmation attempt of a payment."""

    attempt_id: str
    status: str
    amount: int | None = None
    error_code: str | None = None
    error_message: str | None = None
    unified_code: str | None = None
    unified_message: str | None = None
    created_at: str | None = None


class Payment(ResponseModel):
    """The payment object (also the shape of list items, webhook objects and action answers)."""

    payment_id: str
    status: str
    amount: int
    currency: str
    merchant_id: str | None = None
    amount_received: int | None = None
    amount_capturable: int | None = None
    capture_method: str | None = None
    authentication_type: str | None = None
    payment_method: str | None = None
    payment_method_type: str | None = None
    payment_method_data: PaymentMethodDataResponse | None = None
    customer_id: str | None = None
    email: str | None = None
    name: str | None = None
    phone: str | None = None
    description: str | None = None
    statement_descriptor: str | None = None
    metadata: Metadata | None = None
    profile_id: str | None = None
    return_url: str | None = None
    created: str | None = None
    modified_at: str | None = None
    captured_at: str | None = None
    client_secret: str | None = Field(default=None, repr=False)
    error_code: str | None = None
    error_message: str | None = None
    unified_code: str | None = None
    unified_message: str | None = None
    error_details: ErrorDetails | None = None
    next_action: NextAction | None = None
    attempts: list[PaymentAttempt] | None = None
    refunds: list[Refund] | None = None
    disputes: list[Dispute] | None = None
    # Always sent by the real service (the spec does not show them): amount plus surcharge,
    # tax and shipping; the processor's merchant account (the merchant's own unless on a
    # platform); how many attempts were made.
    net_amount: int | None = None
    processor_merchant_id: str | None = None
    attempt_count: int | None = None
    # The processor that handled it (null until it is attempted; `sandbox` on the sandbox).
    connector: str | None = None
    enable_partial_authorization: bool | None = None
    expires_on: str | None = None
    payment_link: PaymentLinkInfo | None = None
    billing: BillingInfo | None = None
    # Saved methods and mandates: the mandate this payment made or charged, its terms and the
    # customer's acceptance, and whether the method was kept for later (and for whom present).
    mandate_id: str | None = None
    mandate_data: dict[str, Any] | None = None
    setup_future_usage: str | None = None
    off_session: bool | None = None

    @property
    def status_enum(self) -> PaymentStatus | None:
        """The status as a `PaymentStatus`, or None for a value this version does not know."""
        return enum_or_none(PaymentStatus, self.status)

    def _billings(self) -> list[BillingInfo]:
        method = self.payment_method_data
        found = [self.billing, method.billing if method is not None else None]
        return [billing for billing in found if billing is not None]

    @property
    def buyer_email(self) -> str | None:
        """The payment's `email`, else the billing e-mail (the payment's, then its method's):
        a hosted link page's buyer gives theirs in `billing`."""
        return self.email or next((b.email for b in self._billings() if b.email), None)

    @property
    def buyer_name(self) -> str | None:
        """The payment's `name`, else the billing address's first and last names."""
        return self.name or next((b.name for b in self._billings() if b.name), None)

    @property
    def is_terminal(self) -> bool:
        """True once the payment can no longer change state (succeeded, failed, ...)."""
        return self.status_enum in TERMINAL_PAYMENT_STATUSES


class PaymentListResponse(ListResponse[Payment]):
    """`{count, total_count, data[]}` of payments."""
