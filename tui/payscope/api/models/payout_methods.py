"""`payout_method_data` of a payout request: a card, a bank account, a wallet, a bank redirect
or a passthrough token, and every variant of each.

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

from pydantic import BaseModel, BeforeValidator, Field, model_validator
from pydantic_core import PydanticCustomError

from payscope.api.models._base import RequestModel, field_error, raise_field_errors
from payscope.api.models.card_fields import CardNumber, ExpiryMonth, ExpiryYear
from payscope.api.models.common import (
    CountryCode,
    Email,
    choice,
)

__all__ = [
    "ACCOUNT_NUMBER_FIELDS",
    "BANK_TRANSFER_VARIANTS",
    "PAYOUT_METHOD_KEYS",
    "SOURCE_BANK_VARIANTS",
    "AchBankTransfer",
    "AchSourceBank",
    "ApplePayDecrypt",
    "BacsBankTransfer",
    "BacsSourceBank",
    "BankTransfer",
    "CardNetwork",
    "GooglePayDecrypt",
    "Interac",
    "OpenBankingSourceBank",
    "OpenBankingTransfer",
    "OpenBankingUk",
    "Passthrough",
    "PayoutBankRedirect",
    "PayoutCard",
    "PayoutMethodData",
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
    "TrustlyBankTransfer",
    "TrustlySourceBank",
    "Venmo",
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


CardNetworkField = Annotated[CardNetwork, BeforeValidator(choice(CardNetwork, "card network"))]


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


def bank_variant(data: Mapping[str, Any]) -> str | None:
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
    variant = bank_variant(value)
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
