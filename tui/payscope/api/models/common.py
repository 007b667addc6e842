"""Reusable field types and small objects shared by several resources.

The annotated types carry their own validation and messages, so every model that uses
`Amount` or `Currency` refuses bad input the same way, naming the field and the value.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from datetime import UTC, datetime
from enum import Enum
from typing import Annotated, Any, Generic, TypeVar

from pydantic import BeforeValidator, Field, ValidationInfo, model_validator
from pydantic_core import InitErrorDetails, PydanticCustomError

from payscope.api.models._base import RequestModel, ResponseModel, field_error
from payscope.api.models._iso import COUNTRY_CODES, CURRENCY_CODES, NON_PAYMENT_CURRENCY_CODES
from payscope.api.vocabulary import BAD_ID_CHARACTER, ID_MAX, ID_RE

__all__ = [
    "MAX_AMOUNT",
    "MAX_OFFSET",
    "Address",
    "Amount",
    "Billing",
    "BrowserInfo",
    "CountryCode",
    "Currency",
    "Email",
    "IdStr",
    "Limit",
    "ListResponse",
    "Metadata",
    "Offset",
    "PaymentIdStr",
    "Phone",
    "PhoneCountryCode",
    "PositiveAmount",
    "Timestamp",
    "ascii_digits",
    "choice",
    "created_range_errors",
    "enum_or_none",
    "max_chars",
    "one_or_many",
    "other_digits_note",
    "parse_timestamp",
]

T = TypeVar("T")
E = TypeVar("E", bound=Enum)


def _name(info: ValidationInfo, default: str) -> str:
    return info.field_name or default


def ascii_digits(text: str) -> bool:
    """True when `text` is one or more of the ASCII digits 0-9 and nothing else.

    `str.isdigit` alone is also true for other scripts' digits (Arabic-Indic "١٢", Devanagari,
    superscript "²"): `int` reads some of them and fails on others, and the service takes none.
    """
    return text.isascii() and text.isdigit()


def other_digits_note(text: str) -> str:
    """A note for an error message when `text` holds digits that are not ASCII 0-9, else ""."""
    if text.isascii() or not any(char.isdigit() for char in text):
        return ""
    return "; write it with the ASCII digits 0-9, not another script's digits"


# The largest amount accepted: the largest integer every JSON reader keeps exact (JavaScript's
# Number.MAX_SAFE_INTEGER). Larger values cannot be stored (64-bit) or read back reliably.
MAX_AMOUNT = 2**53 - 1
# Offsets are bound to a signed 64-bit integer (what the service and SQLite store).
MAX_OFFSET = 2**63 - 1


def _whole_amount(value: Any, info: ValidationInfo, *, minimum: int) -> int:
    field = _name(info, "amount")
    # bool is an int subclass: True would silently become 1 cent
    if isinstance(value, bool) or not isinstance(value, int):
        raise PydanticCustomError(
            "amount_type",
            "{field} must be a whole number in the currency's minor unit, "
            "e.g. 1050 for 10.50 USD (got {value})",
            {"field": field, "value": repr(value)},
        )
    if value < minimum:
        allowed = "0 or more" if minimum == 0 else f"{minimum} or more"
        raise PydanticCustomError(
            "amount_range",
            "{field} must be {allowed} in the currency's minor unit (got {value})",
            {"field": field, "allowed": allowed, "value": value},
        )
    if value > MAX_AMOUNT:
        raise PydanticCustomError(
            "amount_range",
            "{field} must be at most {maximum} in the currency's minor unit (got {value})",
            {"field": field, "maximum": MAX_AMOUNT, "value": value},
        )
    return value


def _amount(value: Any, info: ValidationInfo) -> int:
    return _whole_amount(value, info, minimum=0)


def _positive_amount(value: Any, info: ValidationInfo) -> int:
    return _whole_amount(value, info, minimum=1)


Amount = Annotated[int, Field(ge=0, le=MAX_AMOUNT), BeforeValidator(_amount)]
"""An amount in the currency's minor unit (cents for USD): an int >= 0, never a float."""

PositiveAmount = Annotated[int, Field(ge=1, le=MAX_AMOUNT), BeforeValidator(_positive_amount)]
"""Like `Amount`, but at least 1."""


def _currency(value: Any, info: ValidationInfo) -> str:
    field = _name(info, "currency")
    if not isinstance(value, str):
        raise PydanticCustomError(
            "currency_type",
            "{field} must be a three-letter ISO 4217 code such as USD (got {value})",
            {"field": field, "value": repr(value)},
        )
    code = value.strip().upper()
    if code in CURRENCY_CODES:
        return code
    if code in NON_PAYMENT_CURRENCY_CODES:
        raise PydanticCustomError(
            "currency",
            "{field}: '{value}' is an ISO 4217 fund, metal or test code, "
            "not a currency a payment can be made in",
            {"field": field, "value": value},
        )
    raise PydanticCustomError(
        "currency",
        "{field}: '{value}' is not an ISO 4217 currency code (use a code such as USD, EUR, JPY)",
        {"field": field, "value": value},
    )


Currency = Annotated[str, Field(pattern=r"^[A-Z]{3}$"), BeforeValidator(_currency)]
"""An ISO 4217 currency code; input in any case, stored upper-case."""


def _country(value: Any, info: ValidationInfo) -> str:
    field = _name(info, "country")
    if not isinstance(value, str):
        raise PydanticCustomError(
            "country_type",
            "{field} must be a two-letter ISO 3166-1 country code such as US (got {value})",
            {"field": field, "value": repr(value)},
        )
    code = value.strip().upper()
    if code not in COUNTRY_CODES:
        raise PydanticCustomError(
            "country",
            "{field}: '{value}' is not an ISO 3166-1 alpha-2 country code "
            "(use a code such as US, GB, DE)",
            {"field": field, "value": value},
        )
    return code


CountryCode = Annotated[str, Field(pattern=r"^[A-Z]{2}$"), BeforeValidator(_country)]
"""An ISO 3166-1 alpha-2 country code; input in any case, stored upper-case."""


def _id(value: Any, info: ValidationInfo) -> str:
    field = _name(info, "id")
    if not isinstance(value, str):
        raise PydanticCustomError(
            "id_type",
            "{field} must be a string of letters, digits, '_' and '-' (got {value})",
            {"field": field, "value": repr(value)},
        )
    if ID_RE.fullmatch(value):
        return value
    if not value:
        problem = "it is empty"
    elif len(value) > ID_MAX:
        problem = f"it is {len(value)} characters long"
    else:
        bad = BAD_ID_CHARACTER.search(value)
        problem = f"it contains {bad.group()!r}" if bad else "it is not allowed"
    raise PydanticCustomError(
        "id_format",
        "{field} must be 1 to 64 characters of letters, digits, '_' and '-': {problem}",
        {"field": field, "problem": problem},
    )


PaymentIdStr = Annotated[str, Field(pattern=f"^{ID_RE.pattern}$"), BeforeValidator(_id)]
"""A merchant-supplied id: 1 to 64 letters, digits, '_' or '-'."""

IdStr = PaymentIdStr
"""The same rule for the other merchant-supplied ids (refund_id, customer_id, ...)."""


def _note_of(value: Any) -> str:
    return other_digits_note(value) if isinstance(value, str) else ""


def _limit(value: Any, info: ValidationInfo) -> int:
    field = _name(info, "limit")
    if isinstance(value, str) and ascii_digits(value.strip()):
        value = int(value)  # query strings arrive as text
    if isinstance(value, bool) or not isinstance(value, int) or not 1 <= value <= 100:
        raise PydanticCustomError(
            "limit",
            "{field} must be a whole number from 1 to 100 (got {value}{note})",
            {"field": field, "value": repr(value), "note": _note_of(value)},
        )
    return value


def _offset(value: Any, info: ValidationInfo) -> int:
    field = _name(info, "offset")
    if isinstance(value, str) and ascii_digits(value.strip()):
        value = int(value)
    if isinstance(value, bool) or not isinstance(value, int) or not 0 <= value <= MAX_OFFSET:
        raise PydanticCustomError(
            "offset",
            "{field} must be a whole number, 0 or more and at most {maximum} (got {value}{note})",
            {"field": field, "maximum": MAX_OFFSET, "value": repr(value), "note": _note_of(value)},
        )
    return value


Limit = Annotated[int, Field(ge=1, le=100), BeforeValidator(_limit)]
"""A page size for list operations: 1 to 100."""

Offset = Annotated[int, Field(ge=0, le=MAX_OFFSET), BeforeValidator(_offset)]
"""How many records a list skips: 0 or more."""


def parse_timestamp(value: str) -> datetime:
    """Parse an ISO 8601 timestamp of the service ("2024-05-01T10:00:00.000Z").

    A timestamp without a zone is taken as UTC, which is what the service means by it.
    """
    parsed = datetime.fromisoformat(value.strip())
    return parsed if parsed.tzinfo else parsed.replace(tzinfo=UTC)


def _timestamp(value: Any, info: ValidationInfo) -> str:
    field = _name(info, "timestamp")
    if isinstance(value, datetime):
        return value.isoformat()
    if isinstance(value, str):
        try:
            parse_timestamp(value)
        except ValueError:
            pass
        else:
            return value.strip()
    raise PydanticCustomError(
        "timestamp",
        "{field} must be an ISO 8601 date-time such as 2024-05-01T10:00:00Z (got {value})",
        {"field": field, "value": repr(value)},
    )


Timestamp = Annotated[str, BeforeValidator(_timestamp)]
"""An ISO 8601 date-time in a request; a `datetime` is accepted and sent as text."""

_EMAIL_RE = re.compile(r"[^@\s]+@[^@\s]+\.[^@\s]+")


def _email(value: Any, info: ValidationInfo) -> str:
    field = _name(info, "email")
    if isinstance(value, str) and _EMAIL_RE.fullmatch(value.strip()) and len(value) <= 255:
        return value.strip()
    raise PydanticCustomError(
        "email",
        "{field} must be an e-mail address such as jane@example.com (got {value})",
        {"field": field, "value": repr(value)},
    )


Email = Annotated[str, BeforeValidator(_email)]
"""An e-mail address (a light check: one '@' and a dotted domain)."""

_PHONE_CC_RE = re.compile(r"\+?[0-9]{1,4}")


def _phone_country_code(value: Any, info: ValidationInfo) -> str:
    field = _name(info, "country_code")
    if isinstance(value, int) and not isinstance(value, bool):
        value = str(value)
    if isinstance(value, str) and _PHONE_CC_RE.fullmatch(value.strip()):
        return value.strip()
    raise PydanticCustomError(
        "phone_country_code",
        "{field} must be a plus sign and 1 to 4 digits, such as +1 or +44 (got {value})",
        {"field": field, "value": repr(value)},
    )


PhoneCountryCode = Annotated[str, BeforeValidator(_phone_country_code)]
"""A telephone country calling code such as "+1"."""

Metadata = dict[str, Any]
"""Free key-value pairs of merchant references (never secrets or card data)."""


def one_or_many(value: Any) -> Any:
    """Let a filter that takes a list also take one value: "succeeded" -> ["succeeded"]."""
    if value is None or isinstance(value, list | tuple | set | frozenset):
        return value
    return [value]


def enum_or_none(enum: type[E], value: Any) -> E | None:
    """`value` as a member of `enum`, or None when the service sent something newer."""
    try:
        return enum(value)
    except ValueError:
        return None


def choice(enum: type[E], what: str) -> Callable[[Any], Any]:
    """A before-validator that refuses a value outside `enum` naming the value and the choices.

    Use as `Annotated[CaptureMethod, BeforeValidator(choice(CaptureMethod, "capture method"))]`.
    """
    allowed = ", ".join(repr(member.value) for member in enum)

    def check(value: Any) -> Any:
        if isinstance(value, enum):
            return value
        try:
            return enum(value)
        except ValueError:
            raise PydanticCustomError(
                "enum",
                "{value} is not a {what}; use one of {allowed}",
                {"value": repr(value), "what": what, "allowed": allowed},
            ) from None

    return check


def max_chars(limit: int) -> Callable[[Any, ValidationInfo], Any]:
    """A before-validator refusing text longer than `limit`, naming the field and the length.

    Use as `Annotated[str, BeforeValidator(max_chars(255))]`.
    """

    def check(value: Any, info: ValidationInfo) -> Any:
        if isinstance(value, str) and len(value) > limit:
            raise PydanticCustomError(
                "string_too_long",
                "{field} may have at most {limit} characters (this one has {length})",
                {"field": _name(info, "value"), "limit": limit, "length": len(value)},
            )
        return value

    return check


def created_range_errors(
    start: str | None,
    end: str | None,
    *,
    start_name: str = "created_gte",
    end_name: str = "created_lte",
) -> list[InitErrorDetails]:
    """An error at `end_name` when a time window ends before it starts (for list filters)."""
    if start and end and parse_timestamp(end) < parse_timestamp(start):
        message = f"{end_name} ({end}) is before {start_name} ({start}): the window would be empty"
        return [field_error(end_name, "time_range", message, end)]
    return []


class Address(RequestModel):
    """A postal address; every field optional."""

    line1: str | None = None
    line2: str | None = None
    line3: str | None = None
    city: str | None = None
    state: str | None = None
    zip: str | None = None
    country: CountryCode | None = None
    first_name: str | None = None
    last_name: str | None = None


class Phone(RequestModel):
    """A telephone number without its country code, and the code apart."""

    number: str | None = None
    country_code: PhoneCountryCode | None = None


class Billing(RequestModel):
    """Billing details: address, phone and e-mail."""

    address: Address | None = None
    phone: Phone | None = None
    email: Email | None = None


class BrowserInfo(RequestModel):
    """The customer's browser, for risk checks and 3-D Secure."""

    ip_address: str | None = None
    user_agent: str | None = None
    accept_header: str | None = None
    language: str | None = None
    color_depth: int | None = None
    screen_height: int | None = None
    screen_width: int | None = None
    time_zone: int | None = None
    java_enabled: bool | None = None
    java_script_enabled: bool | None = None


class ListResponse(ResponseModel, Generic[T]):
    """The list envelope `{count?, total_count, data[], has_more?}`.

    A bare JSON array (some list routes of the real service answer one) is read as `data`.
    """

    count: int | None = None
    total_count: int | None = None
    data: list[T] = Field(default_factory=list)
    has_more: bool | None = None

    @model_validator(mode="before")
    @classmethod
    def _bare_array(cls, data: Any) -> Any:
        if isinstance(data, list):
            return {"count": len(data), "data": data}
        return data
