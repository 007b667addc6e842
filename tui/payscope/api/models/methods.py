"""What each way to pay besides cards puts in `payment_method_data` (the real OpenAPI's shapes).

One model per variant: `{family: {variant: <model>}}` (for example
`{"bank_redirect": {"ideal": {"bank_name": "ing"}}}`); a family without variants takes its model
as `{family: <model>}` (crypto, network tokens); the few the real service takes as a bare
string (`"reward"`, `{"voucher": "oxxo"}`) have no model and no fields. `KINDS` lists every
family and type with its variant and model, in the order a form offers them; `method_data`
puts a kind's fields where the service reads them.

These models check a form's fields before sending; the request itself carries the data as
`PaymentMethodData` keeps it (extra keys), so the service's own rules still decide.
"""

from __future__ import annotations

import builtins
from dataclasses import dataclass
from typing import Any, Final

from pydantic import Field

from payscope.api.models._base import RequestModel

__all__ = ["KINDS", "MethodKind", "kinds_of", "method_data"]


# -- wallets --------------------------------------------------------------------------------------


class ApplePayMethod(RequestModel):
    """The card behind an Apple Pay token."""

    display_name: str = Field(min_length=1, examples=["Visa 1111"])
    network: str = Field(min_length=1, examples=["Visa"])
    type: str = Field(min_length=1, examples=["debit"])


class ApplePay(RequestModel):
    """An Apple Pay token (`payment_data`) and the card it stands for."""

    payment_data: str = Field(min_length=1, repr=False, examples=["sandbox_success"])
    transaction_identifier: str = Field(min_length=1, examples=["sandbox-apple-pay"])
    payment_method: ApplePayMethod


class GooglePayInfo(RequestModel):
    """The card behind a Google Pay token."""

    card_network: str = Field(min_length=1, examples=["VISA"])
    card_details: str = Field(min_length=1, examples=["1111"])


class GooglePayToken(RequestModel):
    """The Google Pay token itself."""

    type: str = Field(min_length=1, examples=["PAYMENT_GATEWAY"])
    token: str = Field(min_length=1, repr=False, examples=["sandbox_success"])


class GooglePay(RequestModel):
    """A Google Pay token (`tokenization_data.token`) and the card it stands for."""

    type: str = Field(min_length=1, examples=["CARD"])
    description: str = Field(min_length=1, examples=["Visa •••• 1111"])
    info: GooglePayInfo
    tokenization_data: GooglePayToken


class SamsungPayToken(RequestModel):
    """The Samsung Pay token's data."""

    data: str = Field(min_length=1, repr=False, examples=["sandbox_success"])


class SamsungPayCredential(RequestModel):
    """Samsung Pay's payment credential."""

    token_data: SamsungPayToken


class SamsungPay(RequestModel):
    """A Samsung Pay token (`payment_credential.token_data.data`)."""

    payment_credential: SamsungPayCredential


# -- pay later --------------------------------------------------------------------------------


class KlarnaRedirect(RequestModel):
    """Klarna's hosted checkout: the customer is sent to Klarna."""

    billing_email: str | None = Field(default=None, examples=["ada@example.com"])
    billing_country: str | None = Field(default=None, examples=["US"])


class KlarnaSdk(RequestModel):
    """A token from Klarna's SDK in the merchant's page."""

    token: str = Field(min_length=1, repr=False, examples=["sandbox_success"])


class AfterpayClearpay(RequestModel):
    """Afterpay / Clearpay's hosted checkout."""

    billing_name: str | None = Field(default=None, examples=["Ada Lovelace"])
    billing_email: str | None = Field(default=None, examples=["ada@example.com"])


# -- bank redirects -----------------------------------------------------------------------------


class BankName(RequestModel):
    """A bank redirect where the customer picks their bank."""

    bank_name: str | None = Field(default=None, examples=["ing"])


class BankCountry(RequestModel):
    """A bank redirect that needs the bank's country."""

    country: str | None = Field(default=None, examples=["DE"])


class Eps(BankName, BankCountry):
    """EPS (Austria): the bank and its country."""


class Sofort(BankCountry):
    """Sofort: the bank's country and the page's language."""

    preferred_language: str | None = Field(default=None, examples=["en"])


# -- bank transfers and debits ----------------------------------------------------------------


class TransferBilling(RequestModel):
    """Who pays into the account."""

    name: str | None = Field(default=None, examples=["Ada Lovelace"])
    email: str | None = Field(default=None, examples=["ada@example.com"])


class Transfer(RequestModel):
    """A bank transfer: the service answers with the account to pay into."""

    billing_details: TransferBilling | None = None


class SepaTransfer(Transfer):
    """A SEPA credit transfer: the account's country."""

    country: str | None = Field(default=None, examples=["DE"])


class _Holder(RequestModel):
    bank_account_holder_name: str | None = Field(default=None, examples=["Ada Lovelace"])


class AchDebit(_Holder):
    """An ACH debit (US account)."""

    account_number: str = Field(min_length=1, examples=["000123456789"])
    routing_number: str = Field(min_length=1, examples=["110000000"])


class SepaDebit(_Holder):
    """A SEPA direct debit (an IBAN)."""

    iban: str = Field(min_length=1, examples=["DE89370400440532013000"])


class BacsDebit(_Holder):
    """A Bacs direct debit (UK account and sort code)."""

    account_number: str = Field(min_length=1, examples=["00012345"])
    sort_code: str = Field(min_length=1, examples=["108800"])


class BecsDebit(_Holder):
    """A BECS direct debit (Australian account and BSB)."""

    account_number: str = Field(min_length=1, examples=["000123456"])
    bsb_number: str = Field(min_length=1, examples=["000000"])


# -- the rest -----------------------------------------------------------------------------------


class Crypto(RequestModel):
    """A hosted crypto checkout: the currency and network the customer pays in."""

    pay_currency: str | None = Field(default=None, examples=["BTC"])
    network: str | None = Field(default=None, examples=["bitcoin"])


class UpiCollect(RequestModel):
    """A UPI collect request sent to the customer's VPA."""

    vpa_id: str = Field(min_length=1, examples=["success@upi"])


class Boleto(RequestModel):
    """A boleto: the shopper's CPF or CNPJ."""

    social_security_number: str | None = Field(default=None, repr=False, examples=["56861752509"])


class Givex(RequestModel):
    """A Givex gift card."""

    number: str = Field(min_length=1, repr=False, examples=["6036280000000000000"])
    cvc: str = Field(min_length=1, repr=False, examples=["123"])


class CarrierBilling(RequestModel):
    """Charged to the customer's phone bill."""

    msisdn: str = Field(min_length=1, examples=["+15005550006"])
    client_uid: str | None = Field(default=None, examples=["sandbox"])


class NetworkToken(RequestModel):
    """A network token (a card's stand-in from the card network) and its cryptogram."""

    network_token: str = Field(min_length=1, repr=False, examples=["4242424242424242"])
    token_exp_month: str = Field(min_length=1, examples=["12"])
    token_exp_year: str = Field(min_length=1, examples=["2040"])
    token_cryptogram: str | None = Field(default=None, repr=False)
    card_holder_name: str | None = Field(default=None, examples=["Ada Lovelace"])


class NoFields(RequestModel):
    """Nothing to fill in: the customer does it all on the provider's page."""


# -- every kind -------------------------------------------------------------------------------

BARE: Final = "bare"  # sent as a string: "reward", {"voucher": "oxxo"}


@dataclass(frozen=True)
class MethodKind:
    """One family and type, with the variant its data sits under and the model of that data."""

    family: str
    type: str
    variant: str | None  # None: `{family: data}`; BARE: a string
    model: builtins.type[RequestModel] = NoFields
    label: str = ""

    @property
    def key(self) -> str:
        """Unique across families: the variant, else the type."""
        return self.variant if self.variant not in (None, BARE) else self.type

    @property
    def name(self) -> str:
        """`family/type`, as the sandbox's test values and errors name it."""
        return f"{self.family}/{self.type}"

    @property
    def title(self) -> str:
        return self.label or self.type.replace("_", " ")


def _kinds() -> tuple[MethodKind, ...]:
    k = MethodKind
    return (
        k("wallet", "apple_pay", "apple_pay", ApplePay, "Apple Pay"),
        k("wallet", "google_pay", "google_pay", GooglePay, "Google Pay"),
        k("wallet", "samsung_pay", "samsung_pay", SamsungPay, "Samsung Pay"),
        k("wallet", "paypal", "paypal_redirect", label="PayPal"),
        k("wallet", "ali_pay", "ali_pay_redirect", label="Alipay"),
        k("wallet", "we_chat_pay", "we_chat_pay_qr", label="WeChat Pay (QR code)"),
        k("wallet", "we_chat_pay", "we_chat_pay_redirect", label="WeChat Pay (redirect)"),
        k("pay_later", "klarna", "klarna_redirect", KlarnaRedirect, "Klarna (redirect)"),
        k("pay_later", "klarna", "klarna_sdk", KlarnaSdk, "Klarna (SDK token)"),
        k("pay_later", "affirm", "affirm_redirect", label="Affirm"),
        k(
            "pay_later",
            "afterpay_clearpay",
            "afterpay_clearpay_redirect",
            AfterpayClearpay,
            "Afterpay / Clearpay",
        ),
        k("bank_redirect", "ideal", "ideal", BankName, "iDEAL"),
        k("bank_redirect", "eps", "eps", Eps, "EPS"),
        k("bank_redirect", "sofort", "sofort", Sofort, "Sofort"),
        k("bank_redirect", "giropay", "giropay", BankCountry, "giropay"),
        k("bank_redirect", "bancontact_card", "bancontact_card", label="Bancontact"),
        k("bank_redirect", "przelewy24", "przelewy24", BankName, "Przelewy24"),
        k("bank_redirect", "trustly", "trustly", BankCountry, "Trustly"),
        k("bank_transfer", "ach", "ach_bank_transfer", Transfer, "ACH credit transfer"),
        k("bank_transfer", "sepa_bank_transfer", "sepa_bank_transfer", SepaTransfer, "SEPA"),
        k("bank_transfer", "bacs", "bacs_bank_transfer", label="Bacs"),
        k("bank_transfer", "multibanco", "multibanco_bank_transfer", label="Multibanco"),
        k("bank_transfer", "pix", "pix", label="Pix (QR code)"),
        k("bank_debit", "ach", "ach_bank_debit", AchDebit, "ACH debit"),
        k("bank_debit", "sepa", "sepa_bank_debit", SepaDebit, "SEPA direct debit"),
        k("bank_debit", "bacs", "bacs_bank_debit", BacsDebit, "Bacs direct debit"),
        k("bank_debit", "becs", "becs_bank_debit", BecsDebit, "BECS direct debit"),
        k("crypto", "crypto_currency", None, Crypto, "Crypto currency"),
        k("upi", "upi_collect", "upi_collect", UpiCollect, "UPI collect"),
        k("upi", "upi_intent", "upi_intent", label="UPI intent"),
        k("voucher", "boleto", "boleto", Boleto, "Boleto"),
        k("voucher", "oxxo", BARE, label="OXXO"),
        k("gift_card", "givex", "givex", Givex, "Givex"),
        k("gift_card", "pay_safe_card", "pay_safe_card", label="paysafecard"),
        k("reward", "classic", BARE, label="Classic reward"),
        k("reward", "evoucher", BARE, label="E-voucher reward"),
        k("open_banking", "open_banking_pis", "open_banking_pis", label="Open banking (PIS)"),
        k(
            "mobile_payment",
            "direct_carrier_billing",
            "direct_carrier_billing",
            CarrierBilling,
            "Carrier billing",
        ),
        k("real_time_payment", "fps", "fps", label="FPS (QR code)"),
        k("real_time_payment", "duit_now", "duit_now", label="DuitNow (QR code)"),
        k("real_time_payment", "prompt_pay", "prompt_pay", label="PromptPay (QR code)"),
        k("card_redirect", "knet", "knet", label="KNET"),
        k("card_redirect", "benefit", "benefit", label="Benefit"),
        k("network_token", "network_token", None, NetworkToken, "Network token"),
    )


KINDS: Final[tuple[MethodKind, ...]] = _kinds()
FAMILIES: Final[tuple[str, ...]] = tuple(dict.fromkeys(k.family for k in KINDS))
BY_KEY: Final[dict[str, MethodKind]] = {k.key: k for k in KINDS}


def kinds_of(family: str) -> list[MethodKind]:
    """The kinds of one family, in the order offered."""
    return [k for k in KINDS if k.family == family]


def method_data(kind: MethodKind, data: dict[str, Any]) -> Any:
    """`payment_method_data` for `kind` holding `data` (the model's fields as typed)."""
    if kind.variant == BARE:
        return kind.family if kind.family == "reward" else {kind.family: kind.type}
    if kind.variant is None:
        return {kind.family: data}
    return {kind.family: {kind.variant: data}}
