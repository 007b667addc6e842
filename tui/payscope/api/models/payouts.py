"""Payouts: create, update, list filter, the payout object and every payout method variant.

`payout_method_data.bank_transfer` comes without a type field, so its variant is told from
the fields present (a bank_routing_number means ACH, a bank_sort_code BACS, a bic SEPA, ...).
`source_bank_data` carries `payout_method_type` and is read by it. Errors inside a variant
keep the path of the field the user sent (`payout_method_data.bank_transfer.iban`), without
a variant name in between.
"""

from __future__ import annotations

from collections.abc import Mapping
from enum import StrEnum
from typing import Annotated, Any, Final, Literal

from pydantic import BaseModel, BeforeValidator, Field, ValidationInfo, model_validator
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
from payscope.api.models.payments import CardNumber, ExpiryMonth, ExpiryYear

__all__ = [
    "BANK_TRANSFER_VARIANTS",
    "METADATA_KEY_MAX",
    "METADATA_PAIRS_MAX",
    "METADATA_VALUE_MAX",
    "PAYOUT_METHOD_KEYS",
    "REAL_BANK_FIELDS",
    "REAL_CARD_FIELDS",
    "SOURCE_BANK_VARIANTS",
    "AchBankTransfer",
    "AchSourceBank",
    "ApplePayDecrypt",
    "BacsBankTransfer",
    "BacsSourceBank",
    "BankTransfer",
    "CardNetwork",
    "EntityType",
    "GooglePayDecrypt",
    "Interac",
    "OpenBankingSourceBank",
    "OpenBankingTransfer",
    "OpenBankingUk",
    "Passthrough",
    "Payout",
    "PayoutBankRedirect",
    "PayoutCard",
    "PayoutCreateRequest",
    "PayoutCustomer",
    "PayoutLinkConfig",
    "PayoutListRequest",
    "PayoutListResponse",
    "PayoutMetadata",
    "PayoutMethodData",
    "PayoutPriority",
    "PayoutStatus",
    "PayoutType",
    "PayoutUpdateRequest",
    "PayoutWallet",
    "Paypal",
    "PixBankTransfer",
    "PixEmvSourceBank",
    "PixEmvTransfer",
    "PixKeySourceBank",
    "PixKeyTransfer",
    "PixSourceBank",
    "SepaBankTransfer",
    "SepaSourceBank",
    "SourceBank",
    "TimeRange",
    "TrustlyBankTransfer",
    "TrustlySourceBank",
    "Venmo",
    "real_payout_method_type",
    "real_service_body",
]


# The fields of a payout method that hold an account or card number or a token: the service
# returns them masked (the sandbox stores them so), and payscope shows them masked whatever a
# service sends.
ACCOUNT_NUMBER_FIELDS: Final = frozenset(
    {
        "card_number",
        "bank_account_number",
        "account_number",
        "iban",
        "dpan",
        "application_primary_account_number",
        "psp_token",
        "pix_key",
        "emv",
    }
)


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


class CardNetwork(StrEnum):
    """Card networks a payout card may name."""

    VISA = "Visa"
    MASTERCARD = "Mastercard"
    AMERICAN_EXPRESS = "AmericanExpress"
    JCB = "JCB"
    DINERS_CLUB = "DinersClub"
    DISCOVER = "Discover"
    CARTES_BANCAIRES = "CartesBancaires"
    UNION_PAY = "UnionPay"
    INTERAC = "Interac"
    RUPAY = "RuPay"
    MAESTRO = "Maestro"
    STAR = "Star"
    PULSE = "Pulse"
    ACCEL = "Accel"
    NYCE = "Nyce"


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


CardNetworkField = Annotated[CardNetwork, BeforeValidator(choice(CardNetwork, "card network"))]
EntityTypeField = Annotated[EntityType, BeforeValidator(_entity_type)]


# --- card ---------------------------------------------------------------------------------


class PayoutCard(RequestModel):
    """`payout_method_data.card`."""

    card_number: CardNumber = Field(repr=False)
    expiry_month: ExpiryMonth
    expiry_year: ExpiryYear
    card_holder_name: str = Field(min_length=1)
    card_network: CardNetworkField | None = None


# --- bank transfer, told apart by their fields ---------------------------------------------


class _BankOptional(RequestModel):
    """Optional fields that ACH, BACS and SEPA share."""

    bank_name: str | None = None
    bank_country_code: CountryCode | None = None
    bank_city: str | None = None
    account_holder_name: str | None = None


class AchBankTransfer(_BankOptional):
    """A US bank account (ACH)."""

    bank_account_number: str = Field(min_length=1)
    bank_routing_number: str = Field(min_length=1)


class BacsBankTransfer(_BankOptional):
    """A UK bank account (BACS)."""

    bank_account_number: str = Field(min_length=1)
    bank_sort_code: str = Field(min_length=1)


class SepaBankTransfer(_BankOptional):
    """A SEPA account."""

    iban: str = Field(min_length=1)
    bic: str = Field(min_length=1)


class TrustlyBankTransfer(RequestModel):
    """A Trustly account."""

    iban: str = Field(min_length=1)
    country_code: CountryCode
    account_number: str = Field(min_length=1)
    bank_number: str = Field(min_length=1)


class _PixOptional(RequestModel):
    bank_name: str | None = None
    bank_branch: str | None = None
    tax_id: str | None = None
    ispb: str | None = None


class PixBankTransfer(_PixOptional):
    """A Pix account (Brazil)."""

    bank_account_number: str = Field(min_length=1)
    pix_key: str = Field(min_length=1)
    emv: str = Field(min_length=1)


class PixKeyTransfer(RequestModel):
    """A Pix key alone."""

    pix_key: str = Field(min_length=1)


class PixEmvTransfer(RequestModel):
    """A Pix QR code string (EMV) alone."""

    emv: str = Field(min_length=1)


class OpenBankingTransfer(RequestModel):
    """An Open Banking account."""

    account_holder_name: str = Field(min_length=1)
    iban: str = Field(min_length=1)


# --- the same accounts with the payout_method_type discriminator ---------------------------


class AchSourceBank(AchBankTransfer):
    """ACH with `payout_method_type: ach`."""

    payout_method_type: Literal["ach"] = "ach"


class BacsSourceBank(BacsBankTransfer):
    """BACS with `payout_method_type: bacs`."""

    payout_method_type: Literal["bacs"] = "bacs"


class SepaSourceBank(SepaBankTransfer):
    """SEPA with `payout_method_type: sepa`."""

    payout_method_type: Literal["sepa"] = "sepa"


class TrustlySourceBank(RequestModel):
    """Trustly with `payout_method_type: trustly` (its fields carry the bank_ prefix here)."""

    payout_method_type: Literal["trustly"] = "trustly"
    iban: str = Field(min_length=1)
    bank_country_code: CountryCode
    bank_account_number: str = Field(min_length=1)
    bank_number: str = Field(min_length=1)


class PixSourceBank(_PixOptional):
    """Pix with `payout_method_type: pix`: only the account number is required."""

    payout_method_type: Literal["pix"] = "pix"
    bank_account_number: str = Field(min_length=1)
    pix_key: str | None = None


class PixKeySourceBank(PixKeyTransfer):
    """A Pix key with `payout_method_type: pix_key`."""

    payout_method_type: Literal["pix_key"] = "pix_key"


class PixEmvSourceBank(PixEmvTransfer):
    """A Pix EMV string with `payout_method_type: pix_emv`."""

    payout_method_type: Literal["pix_emv"] = "pix_emv"


class OpenBankingSourceBank(OpenBankingTransfer):
    """Open Banking with `payout_method_type: open_banking`."""

    payout_method_type: Literal["open_banking"] = "open_banking"


SOURCE_BANK_VARIANTS: Final[dict[str, type[RequestModel]]] = {
    "ach": AchSourceBank,
    "bacs": BacsSourceBank,
    "sepa": SepaSourceBank,
    "trustly": TrustlySourceBank,
    "pix": PixSourceBank,
    "pix_key": PixKeySourceBank,
    "pix_emv": PixEmvSourceBank,
    "open_banking": OpenBankingSourceBank,
}

BANK_TRANSFER_VARIANTS: Final[dict[str, type[RequestModel]]] = {
    "ach": AchBankTransfer,
    "bacs": BacsBankTransfer,
    "sepa": SepaBankTransfer,
    "trustly": TrustlyBankTransfer,
    "pix": PixBankTransfer,
    "pix_key": PixKeyTransfer,
    "pix_emv": PixEmvTransfer,
    "open_banking": OpenBankingTransfer,
}


def _bank_variant(data: Mapping[str, Any]) -> str | None:
    """Which undiscriminated bank account `data` describes, from its distinctive fields."""
    present = {key for key, value in data.items() if value not in (None, "")}
    if "bank_routing_number" in present:
        return "ach"
    if "bank_sort_code" in present:
        return "bacs"
    if "bic" in present:
        return "sepa"
    if present & {"bank_number", "account_number", "country_code"}:
        return "trustly"
    if "bank_account_number" in present or {"pix_key", "emv"} <= present:
        return "pix"
    if "pix_key" in present:
        return "pix_key"
    if "emv" in present:
        return "pix_emv"
    if "account_holder_name" in present and "iban" in present:
        return "open_banking"
    return None


_BANK_HINT: Final = (
    "bank_transfer does not say which kind of account it is: give bank_account_number with "
    "bank_routing_number (ACH) or bank_sort_code (BACS); iban with bic (SEPA) or with "
    "account_holder_name (Open Banking); iban, country_code, account_number and bank_number "
    "(Trustly); or pix_key and/or emv (Pix)"
)


def _pick_bank_transfer(value: Any) -> Any:
    if isinstance(value, BaseModel) or not isinstance(value, Mapping):
        return value
    if "payout_method_type" in value:
        return _pick_source_bank(value)
    variant = _bank_variant(value)
    if variant is None:
        raise PydanticCustomError("bank_transfer_variant", _BANK_HINT)
    return BANK_TRANSFER_VARIANTS[variant].model_validate(value)


def _pick_source_bank(value: Any) -> Any:
    if isinstance(value, BaseModel) or not isinstance(value, Mapping):
        return value
    kind = value.get("payout_method_type")
    allowed = ", ".join(SOURCE_BANK_VARIANTS)
    if kind is None:
        raise_field_errors(
            PayoutMethodData,
            [
                field_error(
                    "payout_method_type",
                    "missing",
                    f"payout_method_type is required here: one of {allowed}",
                )
            ],
        )
    variant = SOURCE_BANK_VARIANTS.get(str(kind).strip().lower())
    if variant is None:
        raise_field_errors(
            PayoutMethodData,
            [
                field_error(
                    "payout_method_type",
                    "enum",
                    f"payout_method_type {kind!r} is not a bank account type; use one of {allowed}",
                    kind,
                )
            ],
        )
        raise AssertionError("unreachable")  # raise_field_errors raised
    return variant.model_validate({**value, "payout_method_type": str(kind).strip().lower()})


BankTransfer = Annotated[
    AchBankTransfer
    | BacsBankTransfer
    | SepaBankTransfer
    | TrustlyBankTransfer
    | PixBankTransfer
    | PixKeyTransfer
    | PixEmvTransfer
    | OpenBankingTransfer
    | AchSourceBank
    | BacsSourceBank
    | SepaSourceBank
    | TrustlySourceBank
    | PixSourceBank
    | PixKeySourceBank
    | PixEmvSourceBank
    | OpenBankingSourceBank,
    BeforeValidator(_pick_bank_transfer),
]
"""A bank account as `payout_method_data.bank_transfer` takes it (variant told from fields)."""

SourceBank = Annotated[
    AchSourceBank
    | BacsSourceBank
    | SepaSourceBank
    | TrustlySourceBank
    | PixSourceBank
    | PixKeySourceBank
    | PixEmvSourceBank
    | OpenBankingSourceBank,
    BeforeValidator(_pick_source_bank),
]
"""A bank account with its `payout_method_type` discriminator (`source_bank_data`)."""


# --- the real service's `bank` --------------------------------------------------------------

# `payout_method_data.bank` of the real service (its OpenAPI document's AchBankTransfer,
# BacsBankTransfer, SepaBankTransfer and PixBankTransfer): the variants and their fields.
REAL_BANK_FIELDS: Final[dict[str, tuple[str, ...]]] = {
    "ach": ("bank_account_number", "bank_routing_number", "bank_name", "bank_country_code",
            "bank_city"),
    "bacs": ("bank_account_number", "bank_sort_code", "bank_name", "bank_country_code",
             "bank_city"),
    "sepa": ("iban", "bic", "bank_name", "bank_country_code", "bank_city"),
    "pix": ("bank_account_number", "pix_key", "bank_name", "bank_branch", "tax_id"),
}  # fmt: skip


def real_service_body(body: Mapping[str, Any]) -> dict[str, Any]:
    """A payout create or update body as the real service takes it.

    The spec's `payout_method_data.bank_transfer` is the real service's
    `payout_method_data.bank`: ACH, BACS, SEPA or Pix, with only the fields its schema has (the
    real service refuses unknown fields: `account_holder_name`, a Pix `emv` or `ispb` and the
    spec's `payout_method_type` are left out). A Trustly, Pix-key-only, EMV-only or Open
    Banking account has no `bank` variant there: refused here (a ValidationError naming
    `payout_method_data.bank_transfer`) rather than by the service. Anything else is unchanged.
    """
    out = dict(body)
    method = out.get("payout_method_data")
    if not isinstance(method, Mapping) or not isinstance(method.get("bank_transfer"), Mapping):
        return out
    account: Mapping[str, Any] = method["bank_transfer"]
    kind = str(account.get("payout_method_type") or _bank_variant(account) or "")
    fields = REAL_BANK_FIELDS.get(kind)
    if fields is None:
        raise_field_errors(
            PayoutMethodData,
            [
                field_error(
                    ("payout_method_data", "bank_transfer"),
                    "real_bank_variant",
                    f"the real service pays out to ACH, BACS, SEPA or Pix bank accounts; "
                    f"a {kind or 'bank'} account is not one of them",
                )
            ],
        )
        raise AssertionError("unreachable")  # raise_field_errors raised
    bank = {name: account[name] for name in fields if account.get(name) is not None}
    rest = {key: value for key, value in method.items() if key != "bank_transfer"}
    out["payout_method_data"] = {**rest, "bank": bank}
    return out


# --- "exactly one key" unions --------------------------------------------------------------


def _exactly_one(model: type[BaseModel], what: str, data: Any) -> None:
    if not isinstance(data, Mapping):
        return
    keys = list(model.model_fields)
    found = [key for key, value in data.items() if value is not None]
    if len(found) == 1 and found[0] in keys:
        return
    choices = ", ".join(keys)
    if not found:
        message = f"{what} needs exactly one of {choices}; it has none"
        error_type = "missing"
    else:
        unknown = [key for key in found if key not in keys]
        named = " and ".join(repr(key) for key in found)
        message = f"{what} needs exactly one of {choices}; it has {named}"
        if unknown:
            message += f" ({', '.join(repr(key) for key in unknown)} is not one of them)"
        error_type = "exactly_one"
    raise_field_errors(model, [field_error((), error_type, message)])


class ApplePayDecrypt(RequestModel):
    """A decrypted Apple Pay token."""

    dpan: str = Field(min_length=1, repr=False)
    expiry_month: ExpiryMonth
    expiry_year: ExpiryYear
    card_holder_name: str = Field(min_length=1)
    card_network: CardNetworkField | None = None


class GooglePayDecrypt(RequestModel):
    """A decrypted Google Pay token."""

    application_primary_account_number: str = Field(min_length=1, repr=False)
    expiry_month: ExpiryMonth
    expiry_year: ExpiryYear
    card_holder_name: str = Field(min_length=1)
    card_network: CardNetworkField | None = None


class Paypal(RequestModel):
    """A PayPal account."""

    email: Email
    telephone_number: str = Field(min_length=1)
    paypal_id: str = Field(min_length=1)


class Venmo(RequestModel):
    """A Venmo account."""

    telephone_number: str = Field(min_length=1)


class PayoutWallet(RequestModel):
    """`payout_method_data.wallet`: exactly one of its keys."""

    apple_pay_decrypt: ApplePayDecrypt | None = None
    google_pay_decrypt: GooglePayDecrypt | None = None
    paypal: Paypal | None = None
    venmo: Venmo | None = None

    @model_validator(mode="before")
    @classmethod
    def _one_wallet(cls, data: Any) -> Any:
        _exactly_one(cls, "wallet", data)
        return data


class Interac(RequestModel):
    """An Interac e-Transfer recipient."""

    email: Email


class OpenBankingUk(RequestModel):
    """A UK Open Banking account."""

    account_holder_name: str = Field(min_length=1)
    iban: str = Field(min_length=1)


class PayoutBankRedirect(RequestModel):
    """`payout_method_data.bank_redirect`: exactly one of its keys."""

    interac: Interac | None = None
    open_banking_uk: OpenBankingUk | None = None

    @model_validator(mode="before")
    @classmethod
    def _one_redirect(cls, data: Any) -> Any:
        _exactly_one(cls, "bank_redirect", data)
        return data


class Passthrough(RequestModel):
    """A token held by another payment service provider."""

    psp_token: str = Field(min_length=1, repr=False)
    psp_customer_id: str = Field(min_length=1)
    token_type: str = Field(min_length=1)


class PayoutMethodData(RequestModel):
    """`payout_method_data`: exactly one of card, bank_transfer, wallet, bank_redirect or
    passthrough."""

    card: PayoutCard | None = None
    bank_transfer: BankTransfer | None = None
    wallet: PayoutWallet | None = None
    bank_redirect: PayoutBankRedirect | None = None
    passthrough: Passthrough | None = None

    @model_validator(mode="before")
    @classmethod
    def _one_method(cls, data: Any) -> Any:
        _exactly_one(cls, "payout_method_data", data)
        return data

    @property
    def method(self) -> str:
        """Which key is set: "card", "bank_transfer", ..."""
        return next(name for name in type(self).model_fields if getattr(self, name) is not None)


PAYOUT_METHOD_KEYS: Final[tuple[str, ...]] = tuple(PayoutMethodData.model_fields)

# payout_method_data key -> the payout_type it implies (passthrough fits any)
_METHOD_PAYOUT_TYPE: Final[dict[str, PayoutType]] = {
    "card": PayoutType.CARD,
    "bank_transfer": PayoutType.BANK,
    "wallet": PayoutType.WALLET,
    "bank_redirect": PayoutType.BANK_REDIRECT,
}


# --- the real service's shapes in answers --------------------------------------------------

# The real service's card payout method in an answer (its CardAdditionalData): the card
# described, its number reduced to the last four digits and the BIN (`card_isin`).
REAL_CARD_FIELDS: Final = (
    "card_issuer",
    "card_network",
    "card_type",
    "card_issuing_country",
    "bank_code",
    "last4",
    "card_isin",
    "card_extended_bin",
    "card_exp_month",
    "card_exp_year",
    "card_holder_name",
)
# payout_method_data kind -> the real service's payout_method_type (its PaymentMethodType):
# a bank account by its scheme, a wallet or a redirect by its name; a card payout is paid to a
# debit card.
_REAL_METHOD_TYPES: Final[dict[str, str]] = {
    "card": "debit",
    "ach": "ach",
    "bacs": "bacs",
    "sepa": "sepa",
    "pix": "pix",
    "pix_key": "pix",
    "pix_emv": "pix",
    "trustly": "trustly",
    "open_banking": "open_banking",
    "paypal": "paypal",
    "venmo": "venmo",
    "apple_pay_decrypt": "apple_pay",
    "google_pay_decrypt": "google_pay",
    "interac": "interac",
    "open_banking_uk": "open_banking_uk",
}


def real_payout_method_type(method_data: Mapping[str, Any] | None) -> str | None:
    """The real service's `payout_method_type` for `payout_method_data` (as sent, or as the
    sandbox answers it): "debit" for a card, "ach", "sepa", "paypal", "interac"...; None when
    it cannot be told (a passthrough token, an unknown shape)."""
    if not method_data:
        return None
    key, inner = next(((k, v) for k, v in method_data.items() if v is not None), ("", None))
    if key == "card":
        return _REAL_METHOD_TYPES["card"]
    if not isinstance(inner, Mapping):
        return None
    if key in ("bank_transfer", "bank"):
        kind = inner.get("payout_method_type") or _bank_variant(inner)
        if kind is None and "iban" in inner:
            kind = "sepa"
        return _REAL_METHOD_TYPES.get(str(kind)) if kind else None
    if key in ("wallet", "bank_redirect"):
        nested = [name for name, value in inner.items() if isinstance(value, Mapping)]
        return _REAL_METHOD_TYPES.get(nested[0]) if len(nested) == 1 else None
    return None


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
