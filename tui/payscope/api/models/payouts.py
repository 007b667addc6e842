"""Payouts: create, update, list filter and the payout object.

The method a payout is paid to (`payout_method_data`, `source_bank_data`) is in
`payscope.api.models.payout_methods`; the real service's names for it in
`payscope.api.models.real_payouts`.
"""

from __future__ import annotations

from collections.abc import Mapping
from enum import StrEnum
from typing import Annotated, Any, Final

from pydantic import BeforeValidator, Field, ValidationInfo, model_validator
from pydantic_core import InitErrorDetails, PydanticCustomError

from payscope.api.models._base import RequestModel, ResponseModel, field_error, raise_field_errors
from payscope.api.models.common import (
    Amount,
    Billing,
    BrowserInfo,
    CountryCode,
    Currency,
    Email,
    Limit,
    ListResponse,
    Metadata,
    Offset,
    PhoneCountryCode,
    Timestamp,
    choice,
    created_range_errors,
    enum_or_none,
    max_chars,
    one_or_many,
)
from payscope.api.models.payout_methods import PayoutMethodData, SourceBank

__all__ = [
    "METADATA_KEY_MAX",
    "METADATA_PAIRS_MAX",
    "METADATA_VALUE_MAX",
    "EntityType",
    "Payout",
    "PayoutCreateRequest",
    "PayoutCustomer",
    "PayoutLinkConfig",
    "PayoutListRequest",
    "PayoutListResponse",
    "PayoutMetadata",
    "PayoutPriority",
    "PayoutStatus",
    "PayoutType",
    "PayoutUpdateRequest",
    "TimeRange",
]


class PayoutStatus(StrEnum):
    """Payout statuses of the spec."""

    SUCCESS = "success"
    FAILED = "failed"
    CANCELLED = "cancelled"
    INITIATED = "initiated"
    EXPIRED = "expired"
    REVERSED = "reversed"
    PENDING = "pending"
    INELIGIBLE = "ineligible"
    REQUIRES_CREATION = "requires_creation"
    REQUIRES_CONFIRMATION = "requires_confirmation"
    REQUIRES_PAYOUT_METHOD_DATA = "requires_payout_method_data"
    REQUIRES_FULFILLMENT = "requires_fulfillment"
    REQUIRES_VENDOR_ACCOUNT_CREATION = "requires_vendor_account_creation"


class PayoutType(StrEnum):
    """Kind of payout; must be set before confirmation."""

    CARD = "card"
    BANK = "bank"
    WALLET = "wallet"
    BANK_REDIRECT = "bank_redirect"


class PayoutPriority(StrEnum):
    """How fast the payout should travel."""

    INSTANT = "instant"
    FAST = "fast"
    REGULAR = "regular"
    WIRE = "wire"
    CROSS_BORDER = "cross_border"
    INTERNAL = "internal"


class EntityType(StrEnum):
    """Who receives the payout. Lowercase and snake_case spellings are read too."""

    INDIVIDUAL = "Individual"
    COMPANY = "Company"
    NON_PROFIT = "NonProfit"
    PUBLIC_SECTOR = "PublicSector"
    NATURAL_PERSON = "NaturalPerson"
    PERSONAL = "Personal"


def _entity_type(value: Any) -> Any:
    if isinstance(value, str):
        key = value.strip().replace("_", "").replace(" ", "").lower()
        for member in EntityType:
            if member.value.lower() == key:
                return member
        allowed = ", ".join(member.value for member in EntityType)
        raise PydanticCustomError(
            "enum",
            "'{value}' is not an entity type; use one of {allowed} (any case)",
            {"value": value, "allowed": allowed},
        )
    return value


EntityTypeField = Annotated[EntityType, BeforeValidator(_entity_type)]


# payout_method_data key -> the payout_type it implies (passthrough fits any)
_METHOD_PAYOUT_TYPE: Final[dict[str, PayoutType]] = {
    "card": PayoutType.CARD,
    "bank_transfer": PayoutType.BANK,
    "wallet": PayoutType.WALLET,
    "bank_redirect": PayoutType.BANK_REDIRECT,
}


# --- metadata, customer, link config --------------------------------------------------------

METADATA_PAIRS_MAX: Final = 50
METADATA_KEY_MAX: Final = 40
METADATA_VALUE_MAX: Final = 500


def _payout_metadata(value: Any, info: ValidationInfo) -> Any:
    if not isinstance(value, Mapping):
        return value
    field = info.field_name or "metadata"
    errors: list[InitErrorDetails] = []
    if len(value) > METADATA_PAIRS_MAX:
        errors.append(
            field_error(
                (),
                "metadata_too_many",
                f"{field} may hold at most {METADATA_PAIRS_MAX} pairs (it has {len(value)})",
            )
        )
    for key, item in value.items():
        if len(str(key)) > METADATA_KEY_MAX:
            errors.append(
                field_error(
                    (str(key),),
                    "metadata_key_too_long",
                    f"{field} key {str(key)[:20]!r}... is {len(str(key))} characters; "
                    f"keys may have at most {METADATA_KEY_MAX}",
                )
            )
        text = item if isinstance(item, str) else str(item)
        if len(text) > METADATA_VALUE_MAX:
            errors.append(
                field_error(
                    (str(key),),
                    "metadata_value_too_long",
                    f"{field} value of {str(key)!r} is {len(text)} characters; "
                    f"values may have at most {METADATA_VALUE_MAX}",
                )
            )
    if errors:
        raise_field_errors(PayoutCreateRequest, errors)
    return value


PayoutMetadata = Annotated[Metadata, BeforeValidator(_payout_metadata)]
"""Payout metadata: at most 50 pairs, keys up to 40 characters, values up to 500."""


class PayoutCustomer(RequestModel):
    """`customer` of a payout request: creates or attaches a customer (preferred)."""

    id: str | None = None
    name: str | None = None
    email: Email | None = None
    phone: str | None = None
    phone_country_code: PhoneCountryCode | None = None
    tax_registration_id: str | None = None
    document_details: dict[str, Any] | None = None


class PayoutLinkConfig(RequestModel):
    """`payout_link_config`: how the hosted payout link looks."""

    logo: str | None = None
    merchant_name: str | None = None
    theme: str | None = None
    enabled_payment_methods: list[Any] | None = None
    form_layout: str | None = None
    test_mode: bool | None = None


# --- requests -------------------------------------------------------------------------------


class _PayoutFields(RequestModel):
    """Fields that create and update share."""

    merchant_order_reference_id: Annotated[str, BeforeValidator(max_chars(255))] | None = None
    payout_type: (
        Annotated[PayoutType, BeforeValidator(choice(PayoutType, "payout type"))] | None
    ) = None
    payout_method_data: PayoutMethodData | None = None
    source_bank_data: SourceBank | None = None
    payout_token: str | None = None
    payout_method_id: str | None = None
    customer: PayoutCustomer | None = None
    # deprecated in favour of customer.*, still accepted
    customer_id: str | None = None
    email: Email | None = None
    name: str | None = None
    phone: str | None = None
    phone_country_code: PhoneCountryCode | None = None
    billing: Billing | None = None
    confirm: bool | None = None
    auto_fulfill: bool | None = None
    recurring: bool | None = None
    entity_type: EntityTypeField | None = None
    priority: (
        Annotated[PayoutPriority, BeforeValidator(choice(PayoutPriority, "payout priority"))] | None
    ) = None
    business_country: CountryCode | None = None
    profile_id: str | None = None
    description: str | None = None
    return_url: str | None = None
    metadata: PayoutMetadata | None = None
    session_expiry: int | None = Field(default=None, ge=1)
    browser_info: BrowserInfo | None = None

    @model_validator(mode="after")
    def _type_matches_method(self) -> _PayoutFields:
        data = self.payout_method_data
        if data is None or self.payout_type is None:
            return self
        implied = _METHOD_PAYOUT_TYPE.get(data.method)
        if implied is not None and implied is not self.payout_type:
            raise_field_errors(
                type(self),
                [
                    field_error(
                        "payout_type",
                        "payout_type_mismatch",
                        f"payout_type '{self.payout_type}' does not match "
                        f"payout_method_data.{data.method}, which is a '{implied}' payout",
                        str(self.payout_type),
                    )
                ],
            )
        return self


class PayoutCreateRequest(_PayoutFields):
    """POST /payouts/create. Only amount and currency are mandatory."""

    amount: Amount
    currency: Currency
    payout_link: bool | None = None
    payout_link_config: PayoutLinkConfig | None = None


class PayoutUpdateRequest(_PayoutFields):
    """PUT /payouts/{payout_id}. `payout_link` is fixed at creation and cannot change here."""

    amount: Amount | None = None
    currency: Currency | None = None

    @model_validator(mode="before")
    @classmethod
    def _no_payout_link(cls, data: Any) -> Any:
        if isinstance(data, Mapping) and data.get("payout_link") is not None:
            raise_field_errors(
                cls,
                [
                    field_error(
                        "payout_link",
                        "immutable_field",
                        "payout_link can only be set when the payout is created, not on update",
                        data["payout_link"],
                    )
                ],
            )
        return data


class TimeRange(RequestModel):
    """A created-time window, bounds included."""

    start_time: Timestamp
    end_time: Timestamp | None = None

    @model_validator(mode="after")
    def _ordered(self) -> TimeRange:
        raise_field_errors(
            type(self),
            created_range_errors(
                self.start_time, self.end_time, start_name="start_time", end_name="end_time"
            ),
        )
        return self


class PayoutListRequest(RequestModel):
    """POST /payouts/list (GET takes the same names as query parameters)."""

    payout_id: str | None = None
    customer_id: str | None = None
    status: Annotated[
        list[Annotated[PayoutStatus, BeforeValidator(choice(PayoutStatus, "payout status"))]]
        | None,
        BeforeValidator(one_or_many),
    ] = None
    currency: Annotated[list[Currency] | None, BeforeValidator(one_or_many)] = None
    payout_method: Annotated[list[str] | None, BeforeValidator(one_or_many)] = None
    entity_type: EntityTypeField | None = None
    limit: Limit = 10
    offset: Offset = 0
    time_range: TimeRange | None = None


# --- responses ------------------------------------------------------------------------------


class PayoutCustomerInfo(ResponseModel):
    """`customer` of a payout."""

    id: str | None = None
    name: str | None = None
    email: str | None = None
    phone: str | None = None
    phone_country_code: str | None = None


class Payout(ResponseModel):
    """The payout object. Fields without a value come back as null; account numbers masked
    (a card as the real service describes it: `card {last4, card_network, card_exp_month,
    card_exp_year, card_holder_name, ...}`)."""

    payout_id: str
    status: str
    amount: int
    currency: str
    merchant_id: str | None = None
    merchant_order_reference_id: str | None = None
    payout_type: str | None = None
    payout_method_data: dict[str, Any] | None = None
    billing: dict[str, Any] | None = None
    auto_fulfill: bool | None = None
    customer_id: str | None = None
    customer: PayoutCustomerInfo | None = None
    client_secret: str | None = Field(default=None, repr=False)
    return_url: str | None = None
    business_country: str | None = None
    description: str | None = None
    entity_type: str | None = None
    recurring: bool | None = None
    metadata: Metadata | None = None
    error_message: str | None = None
    error_code: str | None = None
    profile_id: str | None = None
    created: str | None = None
    connector_transaction_id: str | None = None
    priority: str | None = None
    attempts: list[dict[str, Any]] | None = None
    payout_link: Any = None
    unified_code: str | None = None
    unified_message: str | None = None
    payout_method_id: str | None = None
    connector: str | None = None

    @property
    def status_enum(self) -> PayoutStatus | None:
        """The status as a `PayoutStatus`, or None for one this version does not know."""
        return enum_or_none(PayoutStatus, self.status)


class PayoutListResponse(ListResponse[Payout]):
    """`{count, total_count, data[]}` of payouts; the real service's `{size, data,
    total_count?}` reads `size` as `count`."""

    @model_validator(mode="before")
    @classmethod
    def _size(cls, data: Any) -> Any:
        if isinstance(data, Mapping) and "count" not in data and "size" in data:
            return {**data, "count": data["size"]}
        return data
