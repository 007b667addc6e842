"""The shared field types, the ISO tables and the base classes of `payscope.api.models`."""

from __future__ import annotations

import json
from datetime import UTC, datetime
from typing import Any, ClassVar

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from pydantic import BaseModel, ValidationError

from payscope.api.models._base import RequestModel, ResponseModel
from payscope.api.models._iso import (
    COUNTRY_CODES,
    CURRENCY_CODES,
    country_name,
    currency_name,
    format_minor_units,
    is_country,
    is_currency,
    minor_units,
)
from payscope.api.models.common import (
    Address,
    Amount,
    Billing,
    BrowserInfo,
    CountryCode,
    Currency,
    Email,
    Limit,
    ListResponse,
    Offset,
    PaymentIdStr,
    PhoneCountryCode,
    PositiveAmount,
    Timestamp,
    ascii_digits,
    other_digits_note,
    parse_timestamp,
)
from payscope.api.models.errors import ErrorEnvelope

hypothesis_settings = settings(
    max_examples=200, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)


class Fields(BaseModel):
    """A probe model carrying one of each shared type."""

    amount: Amount | None = None
    positive: PositiveAmount | None = None
    currency: Currency | None = None
    country: CountryCode | None = None
    payment_id: PaymentIdStr | None = None
    limit: Limit | None = None
    offset: Offset | None = None
    when: Timestamp | None = None
    email: Email | None = None
    calling_code: PhoneCountryCode | None = None


def only_error(**values: Any) -> dict[str, Any]:
    with pytest.raises(ValidationError) as caught:
        Fields(**values)
    errors = caught.value.errors()
    assert len(errors) == 1, errors
    return dict(errors[0])


# --- ISO tables ---------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("currency", "exponent"),
    [
        ("USD", 2),
        ("eur", 2),
        ("JPY", 0),
        ("KRW", 0),
        ("KWD", 3),
        ("BHD", 3),
        ("JOD", 3),
        ("OMR", 3),
        ("TND", 3),
        ("LYD", 3),
        ("IQD", 3),
        ("CLF", 4),
    ],
)
def test_minor_units_per_iso_4217(currency: str, exponent: int) -> None:
    assert minor_units(currency) == exponent


def test_minor_units_of_an_unknown_code_names_it() -> None:
    with pytest.raises(ValueError, match="'USX' is not an ISO 4217 currency code"):
        minor_units("USX")


def test_iso_tables_are_complete_enough() -> None:
    assert len(COUNTRY_CODES) == 249
    assert {"US", "GB", "DE", "FR", "JP", "BR", "IN", "AQ"} <= COUNTRY_CODES
    assert "XK" not in COUNTRY_CODES  # Kosovo has no ISO 3166-1 code
    assert len(CURRENCY_CODES) > 150
    assert {"XAU", "XXX", "XTS"}.isdisjoint(CURRENCY_CODES)
    assert is_currency("gbp") and not is_currency("GBX")
    assert is_country("fr") and not is_country("UK")
    assert currency_name("USD") == "US Dollar" and currency_name("???") == "???"
    assert country_name("de") == "Germany" and country_name("QQ") == "QQ"


@pytest.mark.parametrize(
    ("amount", "currency", "text"),
    [
        (1050, "usd", "10.50 USD"),
        (1050, "JPY", "1050 JPY"),
        (5, "KWD", "0.005 KWD"),
        (-7, "EUR", "-0.07 EUR"),
    ],
)
def test_format_minor_units(amount: int, currency: str, text: str) -> None:
    assert format_minor_units(amount, currency) == text


# --- amounts ------------------------------------------------------------------------------------


@pytest.mark.parametrize("value", [0, 1, 1050, 10**12])
def test_amount_accepts_whole_minor_units(value: int) -> None:
    assert Fields(amount=value).amount == value


@pytest.mark.parametrize("value", [10.5, 10.0, "1050", True, b"10", [1]])
def test_amount_refuses_anything_but_an_int(value: Any) -> None:
    error = only_error(amount=value)
    assert error["loc"] == ("amount",)
    assert error["type"] == "amount_type"
    assert "whole number in the currency's minor unit, e.g. 1050 for 10.50 USD" in error["msg"]


def test_amount_refuses_negative_and_positive_amount_refuses_zero() -> None:
    assert only_error(amount=-1)["msg"].startswith("amount must be 0 or more")
    assert only_error(positive=0)["msg"].startswith("positive must be 1 or more")
    assert Fields(positive=1).positive == 1


@hypothesis_settings
@given(st.floats(allow_nan=True, allow_infinity=True))
def test_amounts_never_accept_floats(value: float) -> None:
    with pytest.raises(ValidationError):
        Fields(amount=value)


@hypothesis_settings
@given(st.integers(min_value=0, max_value=10**15))
def test_any_non_negative_int_is_an_amount(value: int) -> None:
    assert Fields(amount=value).amount == value


# --- currency, country --------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("given_value", "stored"), [("usd", "USD"), (" Eur ", "EUR"), ("JPY", "JPY")]
)
def test_currency_is_upper_cased(given_value: str, stored: str) -> None:
    assert Fields(currency=given_value).currency == stored


@pytest.mark.parametrize(
    ("value", "fragment"),
    [
        ("USX", "'USX' is not an ISO 4217 currency code"),
        ("US", "'US' is not an ISO 4217 currency code"),
        ("XAU", "fund, metal or test code"),
        (840, "must be a three-letter ISO 4217 code"),
    ],
)
def test_currency_refusals_name_the_value(value: Any, fragment: str) -> None:
    error = only_error(currency=value)
    assert error["loc"] == ("currency",)
    assert fragment in error["msg"]


@pytest.mark.parametrize("value", ["us", "GB", "de"])
def test_country_accepts_alpha_2(value: str) -> None:
    assert Fields(country=value).country == value.upper()


@pytest.mark.parametrize("value", ["UK", "USA", "", 1])
def test_country_refuses_non_codes(value: Any) -> None:
    error = only_error(country=value)
    assert error["loc"] == ("country",)
    assert "ISO 3166-1" in error["msg"]


# --- ids, limits, timestamps, e-mail, calling codes -------------------------------------------


@pytest.mark.parametrize("value", ["a", "pay_123", "order-2024_05", "x" * 64, "ABC-def_09"])
def test_payment_id_accepts_letters_digits_underscore_dash(value: str) -> None:
    assert Fields(payment_id=value).payment_id == value


@pytest.mark.parametrize(
    ("value", "problem"),
    [
        ("", "it is empty"),
        ("x" * 65, "it is 65 characters long"),
        ("order 1", "it contains ' '"),
        ("order#1", "it contains '#'"),
        ("pay_1\n", "it contains '\\n'"),
        ("café", "it contains 'é'"),
    ],
)
def test_payment_id_refusals_say_what_is_wrong(value: str, problem: str) -> None:
    error = only_error(payment_id=value)
    assert error["loc"] == ("payment_id",)
    assert "1 to 64 characters of letters, digits, '_' and '-'" in error["msg"]
    assert problem in error["msg"]


@hypothesis_settings
@given(st.from_regex(r"[A-Za-z0-9_-]{1,64}", fullmatch=True))
def test_any_valid_payment_id_round_trips(value: str) -> None:
    dumped = Fields(payment_id=value).model_dump(mode="json", exclude_none=True)
    assert dumped == {"payment_id": value}
    assert Fields.model_validate_json(json.dumps(dumped)).payment_id == value


@hypothesis_settings
@given(
    st.text(min_size=1, max_size=80).filter(
        lambda s: not all(c.isascii() and (c.isalnum() or c in "_-") for c in s) or len(s) > 64
    )
)
def test_any_invalid_payment_id_is_refused(value: str) -> None:
    with pytest.raises(ValidationError):
        Fields(payment_id=value)


@pytest.mark.parametrize(("value", "stored"), [(1, 1), (100, 100), ("25", 25)])
def test_limit_accepts_1_to_100(value: Any, stored: int) -> None:
    assert Fields(limit=value).limit == stored


@pytest.mark.parametrize("value", [0, 101, -5, "ten", 2.5, True])
def test_limit_refuses_outside_1_to_100(value: Any) -> None:
    error = only_error(limit=value)
    assert error["loc"] == ("limit",)
    assert "from 1 to 100" in error["msg"]


@pytest.mark.parametrize(("value", "ok"), [(0, True), (30, True), (-1, False), ("x", False)])
def test_offset(value: Any, ok: bool) -> None:
    if ok:
        assert Fields(offset=value).offset == value
    else:
        assert "0 or more" in only_error(offset=value)["msg"]


@pytest.mark.parametrize(
    "value",
    ["2024-05-01T10:00:00Z", "2024-05-01T10:00:00.123Z", "2024-05-01T10:00:00+02:00", "2024-05-01"],
)
def test_timestamp_accepts_iso_8601(value: str) -> None:
    assert Fields(when=value).when == value


def test_timestamp_accepts_a_datetime_and_sends_text() -> None:
    moment = datetime(2024, 5, 1, 10, 0, tzinfo=UTC)
    assert Fields(when=moment).when == "2024-05-01T10:00:00+00:00"


@pytest.mark.parametrize("value", ["yesterday", "2024-13-01T00:00:00Z", 1714557600])
def test_timestamp_refuses_other_text(value: Any) -> None:
    assert "ISO 8601" in only_error(when=value)["msg"]


def test_parse_timestamp_reads_z_and_naive_as_utc() -> None:
    assert parse_timestamp("2024-05-01T10:00:00.000Z") == datetime(2024, 5, 1, 10, tzinfo=UTC)
    assert parse_timestamp("2024-05-01T10:00:00").tzinfo is UTC


@pytest.mark.parametrize(
    ("value", "ok"), [("jane@example.com", True), ("jane@", False), ("a b@c.d", False)]
)
def test_email(value: str, ok: bool) -> None:
    if ok:
        assert Fields(email=value).email == value
    else:
        assert "e-mail address" in only_error(email=value)["msg"]


@pytest.mark.parametrize(
    ("value", "ok"),
    [("+1", True), ("+44", True), ("49", True), (1, True), ("+12345", False), ("plus one", False)],
)
def test_phone_country_code(value: Any, ok: bool) -> None:
    if ok:
        assert Fields(calling_code=value).calling_code == str(value)
    else:
        assert "plus sign and 1 to 4 digits" in only_error(calling_code=value)["msg"]


# --- small objects ------------------------------------------------------------------------------


def test_billing_validates_nested_country_with_its_path() -> None:
    with pytest.raises(ValidationError) as caught:
        Billing.model_validate({"address": {"country": "XX"}, "phone": {"number": "5550100"}})
    assert caught.value.errors()[0]["loc"] == ("address", "country")
    billing = Billing.model_validate(
        {
            "address": {"line1": "1 Main St", "country": "us"},
            "phone": {"number": "5550100", "country_code": "+1"},
            "email": "a@b.co",
        }
    )
    assert billing.to_body() == {
        "address": {"line1": "1 Main St", "country": "US"},
        "phone": {"number": "5550100", "country_code": "+1"},
        "email": "a@b.co",
    }


def test_browser_info_types() -> None:
    info = BrowserInfo(ip_address="127.0.0.1", color_depth=24, java_enabled=False)
    assert info.to_body() == {"ip_address": "127.0.0.1", "color_depth": 24, "java_enabled": False}
    with pytest.raises(ValidationError) as caught:
        BrowserInfo.model_validate({"screen_width": "wide"})
    assert caught.value.errors()[0]["loc"] == ("screen_width",)


def test_address_all_optional() -> None:
    assert Address().to_body() == {}


# --- base classes -------------------------------------------------------------------------------


class Thing(ResponseModel):
    thing_id: str


class ThingList(ListResponse[Thing]):
    pass


class Order(RequestModel):
    wrong_names: ClassVar = {"items": "order_details"}
    order_details: list[str] | None = None


def test_response_keeps_unknown_fields_and_round_trips() -> None:
    raw = {"thing_id": "t_1", "new_field": {"nested": [1, 2]}, "flag": None}
    thing = Thing.model_validate(raw)
    assert thing.model_extra == {"new_field": {"nested": [1, 2]}, "flag": None}
    assert thing.model_dump() == raw
    assert Thing.model_validate_json(thing.model_dump_json()) == thing


def test_list_envelope_and_bare_array() -> None:
    page = ThingList.model_validate(
        {"count": 1, "total_count": 7, "data": [{"thing_id": "a"}], "has_more": True}
    )
    assert (page.count, page.total_count, page.has_more) == (1, 7, True)
    assert page.data[0].thing_id == "a"
    bare = ThingList.model_validate([{"thing_id": "a"}, {"thing_id": "b"}])
    assert bare.count == 2 and [t.thing_id for t in bare.data] == ["a", "b"]


def test_request_keeps_extra_fields_in_the_body() -> None:
    order = Order.model_validate({"order_details": ["x"], "shipping_cost": 5})
    assert order.to_body() == {"order_details": ["x"], "shipping_cost": 5}


def test_request_refuses_a_known_wrong_name_at_that_name() -> None:
    with pytest.raises(ValidationError) as caught:
        Order.model_validate({"items": ["x"]})
    error = caught.value.errors()[0]
    assert error["loc"] == ("items",)
    assert error["type"] == "wrong_field_name"
    assert "send it as 'order_details'" in error["msg"]


def test_request_error_text_hides_the_raw_input() -> None:
    with pytest.raises(ValidationError) as caught:
        Order.model_validate({"order_details": "secret-looking-value"})
    assert "secret-looking-value" not in str(caught.value)


def test_error_envelope() -> None:
    raw = {
        "error": {
            "type": "invalid_request",
            "code": "IR_05",
            "message": "Payment not found",
            "reason": "x",
        }
    }
    envelope = ErrorEnvelope.model_validate(raw)
    assert (envelope.error.type, envelope.error.code) == ("invalid_request", "IR_05")
    assert envelope.model_dump() == raw
    with pytest.raises(ValidationError):
        ErrorEnvelope.model_validate({"error": {"type": "x"}})


# Arabic-Indic, Devanagari, superscript and fullwidth digits
@pytest.mark.parametrize("text", ["١٢", "१२", "²", "\uff11\uff12"])
def test_other_scripts_digits_are_not_ascii_digits(text: str) -> None:
    assert text.isdigit()  # what let them through before
    assert not ascii_digits(text)
    assert "ASCII digits 0-9" in other_digits_note(text)


def test_ascii_digits_and_plain_text_get_no_note() -> None:
    assert ascii_digits("0123456789")
    assert not ascii_digits("")
    assert other_digits_note("12") == ""
    assert other_digits_note("abc") == ""


@pytest.mark.parametrize("field", ["limit", "offset"])
@pytest.mark.parametrize("text", ["١٢", "²"])
def test_limit_and_offset_text_must_use_ascii_digits(field: str, text: str) -> None:
    # Before: "١٢" was read as 12 and "²" raised int()'s own ValueError text.
    error = only_error(**{field: text})
    assert error["loc"] == (field,)
    assert error["msg"].startswith(f"{field} must be a whole number")
    assert "ASCII digits 0-9" in error["msg"]
