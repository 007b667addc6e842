"""The messages of validation errors: a model's own text for a missing field reaches the user,
and a value sent in a card, account or credential field is never repeated back."""

from __future__ import annotations

from typing import Any

import httpx
import pytest
from pydantic import BaseModel, Field, ValidationError, create_model, model_validator

from payscope.api.models._base import field_error, raise_field_errors
from payscope.sandbox.errors import SENSITIVE_FIELDS, from_validation_error, invalid

SECRET = "4242424242424242"


def _errors_for(name: str, value: Any) -> ValidationError:
    """The real pydantic error for `value` in a field `name` that only takes "ok"."""
    model = create_model("Body", **{name: (str, Field(pattern="^ok$"))})  # type: ignore[call-overload]
    with pytest.raises(ValidationError) as caught:
        model.model_validate({name: value})
    return caught.value


@pytest.mark.parametrize("name", sorted(SENSITIVE_FIELDS))
def test_a_sensitive_value_is_never_echoed(name: str) -> None:
    error = from_validation_error(_errors_for(name, SECRET))
    assert error.code == "IR_04" and name in error.message
    assert SECRET not in error.message and "4242" not in error.message


def test_an_ordinary_value_is_still_echoed() -> None:
    """The rule hides only what must be hidden: a plain field still shows what was sent."""
    error = from_validation_error(_errors_for("nickname", "Bad Name"))
    assert "nickname" in error.message and "'Bad Name'" in error.message


def test_an_object_is_not_echoed_and_long_digit_runs_are_masked() -> None:
    class Outer(BaseModel):
        card: int
        reference: str = Field(max_length=3)

    with pytest.raises(ValidationError) as caught:
        Outer.model_validate({"card": {"card_number": SECRET}, "reference": "ok"})
    assert SECRET not in from_validation_error(caught.value).message
    with pytest.raises(ValidationError) as caught:
        Outer.model_validate({"card": 1, "reference": f"ref {SECRET}"})
    message = from_validation_error(caught.value).message
    assert SECRET not in message and "4242'" in message and "reference" in message


def test_invalid_helper_hides_sensitive_values() -> None:
    hidden = invalid("payout_method_data.card.card_number", SECRET, "a card number")
    assert SECRET not in hidden.message and "card_number" in hidden.message
    shown = invalid("priority", "urgent", "instant, fast, regular")
    assert "'urgent'" in shown.message


class _Method(BaseModel):
    card: dict[str, Any] | None = None
    wallet: dict[str, Any] | None = None

    @model_validator(mode="after")
    def _exactly_one(self) -> _Method:
        if self.card is None and self.wallet is None:
            raise_field_errors(
                type(self),
                [field_error("method", "missing", "method needs exactly one of card, wallet")],
            )
        return self


class _Payout(BaseModel):
    amount: int


def test_a_models_own_missing_message_is_kept() -> None:
    with pytest.raises(ValidationError) as caught:
        _Method.model_validate({})
    error = from_validation_error(caught.value)
    assert error.code == "IR_01"
    assert error.message == "method needs exactly one of card, wallet"


def test_a_custom_missing_message_without_the_field_name_gets_it() -> None:
    class Odd(BaseModel):
        @model_validator(mode="after")
        def _check(self) -> Odd:
            raise_field_errors(
                type(self), [field_error("token_type", "missing", "say which kind of token")]
            )
            return self

    with pytest.raises(ValidationError) as caught:
        Odd.model_validate({})
    error = from_validation_error(caught.value)
    assert error.code == "IR_01"
    assert error.message == "Missing required field: token_type. say which kind of token"


def test_pydantics_default_missing_text_becomes_the_sandbox_sentence() -> None:
    with pytest.raises(ValidationError) as caught:
        _Payout.model_validate({})
    error = from_validation_error(caught.value)
    assert error.code == "IR_01" and error.message == "Missing required field: amount."
    assert "Field required" not in error.message


# -- the same rules over the sandbox's own routes --------------------------------------------

PAYOUT_CARD = {"expiry_month": "10", "expiry_year": "2035", "card_holder_name": "Ada"}


async def test_payout_method_message_reaches_the_user(raw: httpx.AsyncClient) -> None:
    answer = await raw.post(
        "/payouts/create", json={"amount": 1, "currency": "USD", "payout_method_data": {}}
    )
    error = answer.json()["error"]
    assert answer.status_code == 400 and error["code"] == "IR_01"
    assert error["message"].startswith("payout_method_data needs exactly one of card")
    bare = await raw.post("/payouts/create", json={"currency": "USD"})
    assert bare.json()["error"]["message"] == "Missing required field: amount."


@pytest.mark.parametrize(
    ("path", "body", "secret"),
    [
        (
            "/payouts/create",
            {
                "amount": 1,
                "currency": "USD",
                "payout_method_data": {
                    "wallet": {"apple_pay_decrypt": {"dpan": 4242424242424242, **PAYOUT_CARD}}
                },
            },
            "4242424242424242",
        ),
        (
            "/payouts/create",
            {
                "amount": 1,
                "currency": "USD",
                "payout_method_data": {"bank_transfer": {"iban": 89370400440532013000, "bic": "X"}},
            },
            "89370400440532013000",
        ),
        (
            "/payouts/create",
            {
                "amount": 1,
                "currency": "USD",
                "payout_method_data": {
                    "passthrough": {
                        "psp_token": 5566778899001,
                        "psp_customer_id": "c",
                        "token_type": "card",
                    }
                },
            },
            "5566778899001",
        ),
        ("/user/signin", {"email": "a@example.com", "password": 31415926535}, "31415926535"),
        ("/user/signin", {"email": "a@example.com", "password": "pw", "totp": "98x765"}, "98x765"),
    ],
)
async def test_sandbox_never_echoes_sensitive_input(
    raw: httpx.AsyncClient, path: str, body: dict[str, Any], secret: str
) -> None:
    answer = await raw.post(path, json=body)
    assert answer.status_code == 400
    assert secret not in answer.text
    assert answer.json()["error"]["message"].startswith("Invalid value for")
