"""Saved payment methods and mandates: the real service's shapes (its OpenAPI v1).

A method is saved with `POST /payment_methods`, or by a payment made with `setup_future_usage`
and a `customer_id`. A customer's saved methods are listed with a `payment_token` each, which a
later confirm sends instead of `payment_method_data`. A payment with `setup_future_usage:
off_session` and the customer's acceptance also creates a mandate: later payments send its
`mandate_id` with `off_session: true` and no method data at all.
"""

from __future__ import annotations

from typing import Any

from pydantic import Field, model_validator

from payscope.api.models._base import RequestModel, ResponseModel, field_error, raise_field_errors
from payscope.api.models.card_fields import CardData, CardNumber, ExpiryMonth, ExpiryYear
from payscope.api.models.common import Address, Metadata

__all__ = [
    "CardDetailUpdate",
    "CustomerPaymentMethod",
    "CustomerPaymentMethods",
    "Mandate",
    "PaymentMethodCreateRequest",
    "PaymentMethodRecord",
    "PaymentMethodUpdateRequest",
    "SavedCard",
    "SavedCardDetails",
]


class SavedCardDetails(RequestModel):
    """`card` of `POST /payment_methods`: a card without its security code requirement."""

    card_number: CardNumber = Field(repr=False)
    card_exp_month: ExpiryMonth
    card_exp_year: ExpiryYear
    card_holder_name: str | None = None
    nick_name: str | None = None
    card_network: str | None = None

    def as_card(self) -> CardData:
        """The same card as a payment's `CardData` (validated the same way)."""
        return CardData.model_validate(self.model_dump(exclude_none=True))


class PaymentMethodCreateRequest(RequestModel):
    """POST /payment_methods: save a method for a customer (a card, or another family's data)."""

    payment_method: str = Field(min_length=1)
    payment_method_type: str | None = None
    payment_method_issuer: str | None = None
    card: SavedCardDetails | None = None
    customer_id: str | None = Field(default=None, min_length=1, max_length=64)
    metadata: Metadata | None = None
    card_network: str | None = None
    bank_transfer: dict[str, Any] | None = None
    wallet: dict[str, Any] | None = None
    billing: Address | None = None

    @model_validator(mode="after")
    def _card_for_cards(self) -> PaymentMethodCreateRequest:
        if self.payment_method == "card" and self.card is None:
            raise_field_errors(
                type(self),
                [
                    field_error(
                        "card",
                        "missing",
                        "card is required when payment_method is 'card': send card_number, "
                        "card_exp_month, card_exp_year and card_holder_name",
                    )
                ],
            )
        return self


class CardDetailUpdate(RequestModel):
    """What may change on a saved card: its expiry, holder and nickname."""

    card_exp_month: ExpiryMonth | None = None
    card_exp_year: ExpiryYear | None = None
    card_holder_name: str | None = None
    nick_name: str | None = None


class PaymentMethodUpdateRequest(RequestModel):
    """POST /payment_methods/{id}/update."""

    card: CardDetailUpdate | None = None
    wallet: dict[str, Any] | None = None
    client_secret: str | None = Field(default=None, repr=False)


class SavedCard(ResponseModel):
    """`card` of a saved method (the real `CardDetailFromLocker`): never the full number."""

    last4_digits: str | None = None
    expiry_month: str | None = None
    expiry_year: str | None = None
    card_holder_name: str | None = None
    card_network: str | None = None
    nick_name: str | None = None
    saved_to_locker: bool | None = None


class PaymentMethodRecord(ResponseModel):
    """A saved payment method (`PaymentMethodResponse`)."""

    payment_method_id: str
    payment_method: str
    merchant_id: str | None = None
    customer_id: str | None = None
    payment_method_type: str | None = None
    card: SavedCard | None = None
    recurring_enabled: bool | None = None
    metadata: Metadata | None = None
    created: str | None = None
    last_used_at: str | None = None


class CustomerPaymentMethod(PaymentMethodRecord):
    """One entry of a customer's saved methods, with the token a confirm sends."""

    payment_token: str | None = None
    requires_cvv: bool | None = None
    default_payment_method_set: bool | None = None


class CustomerPaymentMethods(ResponseModel):
    """`GET /customers/{id}/payment_methods`."""

    customer_payment_methods: list[CustomerPaymentMethod]
    is_guest_customer: bool | None = None


class Mandate(ResponseModel):
    """A mandate (`MandateResponse`): `active` until revoked."""

    mandate_id: str
    status: str
    payment_method_id: str | None = None
    payment_method: str | None = None
    payment_method_type: str | None = None
    customer_acceptance: dict[str, Any] | None = None
