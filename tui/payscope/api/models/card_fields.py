"""A card as a request carries it: the number (digits only, Luhn-checked), the expiry month
and year, the security code, and `CardData` holding them. Error texts never show a whole number
or a code, since they may end up in a log."""

from __future__ import annotations

from typing import Annotated, Any

from pydantic import BeforeValidator, Field, ValidationInfo
from pydantic_core import PydanticCustomError

from payscope.api.cards import luhn_ok
from payscope.api.models._base import RequestModel
from payscope.api.models.common import ascii_digits, other_digits_note

__all__ = ["CardCvc", "CardData", "CardNumber", "ExpiryMonth", "ExpiryYear"]


def _card_number(value: Any) -> Any:
    if not isinstance(value, str):
        raise PydanticCustomError(
            "card_number_type", 'card_number must be a string of digits, e.g. "4242424242424242"'
        )
    digits = value.replace(" ", "")  # people paste numbers grouped in fours
    if not digits:
        # Nothing typed (a remote profile's form starts empty): required, not "digits only".
        raise PydanticCustomError("missing", "card_number is required")
    if not ascii_digits(digits):
        raise PydanticCustomError(
            "card_number",
            "card_number may hold digits only (spaces are ignored){note}",
            {"note": other_digits_note(digits)},
        )
    if not 12 <= len(digits) <= 19:
        raise PydanticCustomError(
            "card_number",
            "card_number must have 12 to 19 digits (this one has {count})",
            {"count": len(digits)},
        )
    if not luhn_ok(digits):
        # only the last four: the error text may end up in a log
        raise PydanticCustomError(
            "card_number",
            "card_number ending {last4} fails the Luhn check: a digit is mistyped",
            {"last4": digits[-4:]},
        )
    return digits


def _digits_text(value: Any) -> str:
    """A str or int as stripped text; anything else as "" (bool is not a number here)."""
    if isinstance(value, bool) or not isinstance(value, str | int):
        return ""
    return str(value).strip()


def _exp_month(value: Any, info: ValidationInfo) -> Any:
    field = info.field_name or "card_exp_month"
    text = (
        str(value).strip() if isinstance(value, str | int) and not isinstance(value, bool) else ""
    )
    if ascii_digits(text) and 1 <= int(text) <= 12:
        return f"{int(text):02d}"
    raise PydanticCustomError(
        "card_exp_month",
        "{field} must be a month from 01 to 12 (got {value}{note})",
        {"field": field, "value": repr(value), "note": other_digits_note(text)},
    )


def _exp_year(value: Any, info: ValidationInfo) -> Any:
    field = info.field_name or "card_exp_year"
    text = (
        str(value).strip() if isinstance(value, str | int) and not isinstance(value, bool) else ""
    )
    if ascii_digits(text) and len(text) in (2, 4):
        return text
    raise PydanticCustomError(
        "card_exp_year",
        "{field} must be a year of 2 or 4 digits, such as 2030 or 30 (got {value}{note})",
        {"field": field, "value": repr(value), "note": other_digits_note(text)},
    )


def _cvc(value: Any) -> Any:
    text = _digits_text(value)
    if ascii_digits(text) and 3 <= len(text) <= 4:
        return text
    # never echo the code itself
    raise PydanticCustomError(
        "card_cvc", "card_cvc must be 3 or 4 digits{note}", {"note": other_digits_note(text)}
    )


CardNumber = Annotated[str, BeforeValidator(_card_number)]
ExpiryMonth = Annotated[str, BeforeValidator(_exp_month)]
ExpiryYear = Annotated[str, BeforeValidator(_exp_year)]
CardCvc = Annotated[str, BeforeValidator(_cvc)]


class CardData(RequestModel):
    """A card in a request. Card data is hidden from reprs and error texts."""

    card_number: CardNumber = Field(repr=False)
    card_exp_month: ExpiryMonth
    card_exp_year: ExpiryYear
    card_cvc: CardCvc | None = Field(default=None, repr=False)
    card_holder_name: str | None = None
    card_network: str | None = None
    nick_name: str | None = None

    @property
    def last4(self) -> str:
        """The last four digits, the only part that may be shown."""
        return self.card_number[-4:]
