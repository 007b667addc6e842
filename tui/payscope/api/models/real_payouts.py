"""A payout's method as the real service names it: the `bank` it takes in place of the spec's
`bank_transfer` (`real_service_body`), and the `payout_method_type` and card fields it answers
with."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Final

from payscope.api.models._base import field_error, raise_field_errors
from payscope.api.models.payout_methods import PayoutMethodData, bank_variant

__all__ = [
    "REAL_BANK_FIELDS",
    "REAL_CARD_FIELDS",
    "real_payout_method_type",
    "real_service_body",
]


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
    kind = str(account.get("payout_method_type") or bank_variant(account) or "")
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
        kind = inner.get("payout_method_type") or bank_variant(inner)
        if kind is None and "iban" in inner:
            kind = "sepa"
        return _REAL_METHOD_TYPES.get(str(kind)) if kind else None
    if key in ("wallet", "bank_redirect"):
        nested = [name for name, value in inner.items() if isinstance(value, Mapping)]
        return _REAL_METHOD_TYPES.get(nested[0]) if len(nested) == 1 else None
    return None
