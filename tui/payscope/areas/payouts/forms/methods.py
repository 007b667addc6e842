"""The payout methods a payout form offers, from the request models (`payscope.api.models.payouts`):
a card, a bank account of each scheme the models name (ACH, BACS, SEPA, Trustly, Pix, Pix key,
Pix QR, Open Banking), each wallet and bank redirect, and another PSP's token; the models say
which fields each needs and check them. Their labels and placeholders are here too.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from pydantic import BaseModel

from payscope.api.models.payout_methods import BANK_TRANSFER_VARIANTS, PayoutMethodData
from payscope.views.model_fields import model_of


@dataclass(frozen=True)
class Variant:
    """One kind of payout method: where it goes in `payout_method_data` and its model."""

    key: str  # "card", "ach", "paypal"... (the prefix of its fields)
    method: str  # "card", "bank_transfer", "wallet", "bank_redirect", "passthrough"
    path: tuple[str, ...]  # ("bank_transfer",), ("wallet", "paypal")
    model: type[BaseModel]

    @property
    def label(self) -> str:
        return KIND_LABELS.get(self.key, self.key.replace("_", " ").capitalize())

    @property
    def about(self) -> str:
        """The model's own description (its docstring's first line)."""
        return (self.model.__doc__ or "").strip().splitlines()[0] if self.model.__doc__ else ""


METHOD_LABELS: Mapping[str, str] = {
    "card": "Card",
    "bank_transfer": "Bank account",
    "wallet": "Wallet",
    "bank_redirect": "Bank redirect",
    "passthrough": "Passthrough (another PSP's token)",
}
KIND_PICKER_LABELS: Mapping[str, str] = {
    "bank_transfer": "Scheme",
    "wallet": "Wallet",
    "bank_redirect": "Bank redirect",
}
KIND_LABELS: Mapping[str, str] = {
    "ach": "ACH (US)",
    "bacs": "BACS (UK)",
    "sepa": "SEPA (EU)",
    "trustly": "Trustly",
    "pix": "Pix (Brazil)",
    "pix_key": "Pix key",
    "pix_emv": "Pix QR code (EMV)",
    "open_banking": "Open Banking",
    "apple_pay_decrypt": "Apple Pay (decrypted)",
    "google_pay_decrypt": "Google Pay (decrypted)",
    "paypal": "PayPal",
    "venmo": "Venmo",
    "interac": "Interac e-Transfer",
    "open_banking_uk": "Open Banking UK",
}
PLACEHOLDERS: Mapping[str, str] = {
    "card_number": "4242 4242 4242 4242",
    "expiry_month": "10",
    "expiry_year": "2030",
    "card_holder_name": "e.g. Ada Lovelace",
    "dpan": "4242 4242 4242 4242",
    "application_primary_account_number": "4242 4242 4242 4242",
    "bank_account_number": "e.g. 000123456789",
    "bank_routing_number": "e.g. 110000000",
    "bank_sort_code": "e.g. 200000",
    "iban": "e.g. DE89370400440532013000",
    "bic": "e.g. COBADEFFXXX",
    "bank_country_code": "e.g. US",
    "country_code": "e.g. SE",
    "email": "e.g. payee@example.com",
    "telephone_number": "e.g. 5551234567",
}
# The card a new payout on the local sandbox starts with (a public test card that pays out).
PAYOUT_TEST_CARD: Mapping[str, str] = {
    "card_number": "4242424242424242",
    "expiry_month": "10",
    "expiry_year": "2030",
    "card_holder_name": "Ada Lovelace",
}


def _variants() -> dict[str, Variant]:
    """Every method kind the request models name, by key, in the models' order."""
    found: dict[str, Variant] = {}
    for method, info in PayoutMethodData.model_fields.items():
        model = model_of(info.annotation)
        if model is None:  # bank_transfer: a union told apart by its fields
            for key, variant in BANK_TRANSFER_VARIANTS.items():
                found[key] = Variant(key, method, (method,), variant)
            continue
        kinds = {k: model_of(i.annotation) for k, i in model.model_fields.items()}
        if kinds and all(m is not None for m in kinds.values()):  # "exactly one of" its keys
            for key, kind in kinds.items():
                assert kind is not None
                found[key] = Variant(key, method, (method, key), kind)
        else:
            found[method] = Variant(method, method, (method,), model)
    return found


VARIANTS: Mapping[str, Variant] = _variants()
METHODS: tuple[str, ...] = tuple(dict.fromkeys(v.method for v in VARIANTS.values()))


def kinds_of(method: str) -> list[Variant]:
    """The kinds of `method` the models name, in their order."""
    return [v for v in VARIANTS.values() if v.method == method]


def nest(path: Sequence[str], value: Any) -> dict[str, Any]:
    """`value` under the keys of `path`: ("wallet", "paypal") -> {"wallet": {"paypal": value}}."""
    for key in reversed(path):
        value = {key: value}
    return dict(value)
