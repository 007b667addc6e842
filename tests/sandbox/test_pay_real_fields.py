"""The real service's behaviour where the spec is silent, over real HTTP: any card takes a
security code of 3 or 4 digits, an expired card is refused before any attempt, and a payment
always carries `connector_transaction_id`, `browser_info` and `payment_method_data.billing`."""

from __future__ import annotations

from typing import Any

import httpx
import pytest

from payscope.api.codes import explain
from tests.sandbox.conftest import BILLING, envelope, payment_body

EXPIRED = {"card_exp_month": "01", "card_exp_year": "2020"}


def expired_body(**fields: Any) -> dict[str, Any]:
    body = payment_body("4242424242424242", **fields)
    body["payment_method_data"]["card"].update(EXPIRED)
    return body


async def test_amex_with_a_3_digit_code_succeeds_and_can_be_captured(
    live: httpx.AsyncClient,
) -> None:
    body = payment_body("378282246310005", capture_method="manual")
    body["payment_method_data"]["card"]["card_cvc"] = "123"
    made = (await live.post("/payments", json=body)).json()
    assert (made["status"], made["unified_code"]) == ("requires_capture", None)
    captured = await live.post(f"/payments/{made['payment_id']}/capture", json={})
    assert captured.json()["status"] == "succeeded"


@pytest.mark.parametrize("confirm", [True, False])
async def test_an_expired_card_is_refused_on_create_before_any_attempt(
    live: httpx.AsyncClient, confirm: bool
) -> None:
    answer = await live.post("/payments", json=expired_body(confirm=confirm, payment_id="p_exp"))
    assert answer.status_code == 400
    error = envelope(answer)
    assert (error["type"], error["code"]) == ("invalid_request", "PE_03")
    # The TUI's catalogue files the code under the type the sandbox answers with.
    assert explain(error["code"]).family == error["type"]
    # A year already over, in the real service's words (it checks the year first).
    assert error["message"] == "Invalid Expiry Year"
    assert (await live.get("/payments/p_exp")).status_code == 404  # nothing was created


async def test_a_card_expired_earlier_this_year_is_said_with_its_month(
    live: httpx.AsyncClient,
) -> None:
    from datetime import datetime

    now = (await live.get("/_sandbox/clock")).json()["now"]
    today = datetime.fromisoformat(str(now).replace("Z", "+00:00"))
    if today.month == 1:  # no earlier month this year: move the clock to February
        days = 32 - today.day
        await live.post("/_sandbox/clock/advance", json={"seconds": days * 86400})
        today = datetime.fromisoformat(
            str((await live.get("/_sandbox/clock")).json()["now"]).replace("Z", "+00:00")
        )
    body = payment_body("4242424242424242", payment_id="p_exp_month")
    body["payment_method_data"]["card"].update(
        {"card_exp_month": f"{today.month - 1:02d}", "card_exp_year": str(today.year)}
    )
    answer = await live.post("/payments", json=body)
    error = envelope(answer)
    assert (answer.status_code, error["code"]) == (400, "PE_03")
    assert error["message"].startswith("Card Expired")
    assert "4242" in error["message"] and f"{today.month - 1:02d}/{today.year}" in error["message"]
    assert "4242424242424242" not in error["message"]
    assert (await live.get("/payments/p_exp_month")).status_code == 404


@pytest.mark.parametrize(
    ("field", "value", "said"),
    [
        ("card_cvc", "12345", "Invalid card_cvc length"),
        ("card_cvc", "12", "Invalid card_cvc length"),
        ("card_cvc", "", "Invalid card_cvc length"),
        ("card_exp_month", "13", "Invalid Expiry Month"),
        ("card_exp_month", "00", "Invalid Expiry Month"),
    ],
)
async def test_card_fields_out_of_range_are_said_in_the_real_services_words(
    live: httpx.AsyncClient, field: str, value: str, said: str
) -> None:
    body = payment_body("4242424242424242")
    body["payment_method_data"]["card"][field] = value
    answer = await live.post("/payments", json=body)
    assert answer.status_code == 400
    assert envelope(answer)["message"] == said


async def test_card_fields_that_are_not_numbers_keep_the_detailed_words(
    live: httpx.AsyncClient,
) -> None:
    body = payment_body("4242424242424242")
    body["payment_method_data"]["card"]["card_exp_month"] = "June"
    message = envelope(await live.post("/payments", json=body))["message"]
    assert "card_exp_month" in message and "01 to 12" in message
    body["payment_method_data"]["card"].update(card_exp_month="10", card_cvc="12a")
    message = envelope(await live.post("/payments", json=body))["message"]
    assert message.startswith("card_cvc must be 3 or 4 digits")


async def test_an_expired_card_is_refused_on_update_and_confirm(live: httpx.AsyncClient) -> None:
    made = (
        await live.post("/payments", json={"amount": 900, "currency": "USD", "confirm": False})
    ).json()
    pid = made["payment_id"]
    card = {**payment_body()["payment_method_data"]["card"], **EXPIRED}
    method = {"payment_method": "card", "payment_method_data": {"card": card}, "billing": BILLING}
    for path in (f"/payments/{pid}", f"/payments/{pid}/confirm"):
        answer = await live.post(path, json=method)
        assert answer.status_code == 400, path
        assert envelope(answer)["code"] == "PE_03"
    after = (await live.get(f"/payments/{pid}")).json()
    assert (after["status"], after["attempts"], after["payment_method_data"]) == (
        "requires_payment_method",
        [],
        None,
    )


async def test_connector_transaction_id_is_null_until_an_attempt_then_set(
    live: httpx.AsyncClient,
) -> None:
    made = (
        await live.post("/payments", json={"amount": 900, "currency": "USD", "confirm": False})
    ).json()
    assert "connector_transaction_id" in made and made["connector_transaction_id"] is None
    confirmed = (
        await live.post(
            f"/payments/{made['payment_id']}/confirm",
            json={k: v for k, v in payment_body().items() if k not in ("amount", "currency")},
        )
    ).json()
    reference = confirmed["connector_transaction_id"]
    assert isinstance(reference, str) and reference.startswith("txn_") and len(reference) == 24
    got = (await live.get(f"/payments/{made['payment_id']}")).json()
    assert got["connector_transaction_id"] == reference
    assert got["attempts"][0]["connector_transaction_id"] == reference
    declined = (await live.post("/payments", json=payment_body("4000000000000002"))).json()
    assert declined["status"] == "failed" and declined["connector_transaction_id"]


async def test_payment_method_billing_is_taken_and_returned(live: httpx.AsyncClient) -> None:
    method_billing = {"address": {"country": "NL", "city": "Delft"}, "email": "a@example.com"}
    body = payment_body()
    del body["billing"]
    body["payment_method_data"]["billing"] = method_billing
    made = await live.post("/payments", json=body)
    assert made.status_code == 200, made.text
    payment = made.json()
    assert payment["status"] == "succeeded"
    assert payment["payment_method_data"]["billing"] == method_billing
    assert payment["billing"] is None  # the payment's own billing was not sent
    plain = (await live.post("/payments", json=payment_body())).json()
    assert plain["payment_method_data"]["billing"] is None and plain["billing"] == BILLING
    # update and confirm take it too
    draft = (
        await live.post("/payments", json={"amount": 900, "currency": "USD", "confirm": False})
    ).json()
    card = payment_body()["payment_method_data"]["card"]
    pmd = {"card": card, "billing": method_billing}
    updated = await live.post(
        f"/payments/{draft['payment_id']}",
        json={"payment_method": "card", "payment_method_data": pmd},
    )
    assert updated.json()["payment_method_data"]["billing"] == method_billing
    confirmed = await live.post(
        f"/payments/{draft['payment_id']}/confirm",
        json={"payment_method": "card", "payment_method_data": pmd},
    )
    assert confirmed.json()["status"] == "succeeded"
    assert confirmed.json()["payment_method_data"]["billing"] == method_billing


async def test_no_billing_anywhere_is_still_refused(live: httpx.AsyncClient) -> None:
    body = payment_body()
    del body["billing"]
    answer = await live.post("/payments", json=body)
    assert answer.status_code == 400
    error = envelope(answer)
    assert error["code"] == "IR_01" and "payment_method_data.billing" in error["message"]


async def test_update_and_confirm_use_the_billing_the_payment_has(
    live: httpx.AsyncClient,
) -> None:
    """The real service's way (its own Postman suite: create with billing, confirm with a card
    alone); the 400 stays when neither the payment nor the request has billing."""
    method = {k: v for k, v in payment_body().items() if k.startswith("payment_method")}
    for path in ("{}", "{}/confirm"):
        made = await live.post(
            "/payments",
            json={"amount": 900, "currency": "USD", "confirm": False, "billing": BILLING},
        )
        pid = made.json()["payment_id"]
        answer = await live.post("/payments/" + path.format(pid), json=method)
        assert answer.status_code == 200, (path, answer.text)
        assert answer.json()["billing"] == BILLING  # kept, and used
        bare = (
            await live.post("/payments", json={"amount": 900, "currency": "USD", "confirm": False})
        ).json()
        refused = await live.post("/payments/" + path.format(bare["payment_id"]), json=method)
        assert refused.status_code == 400, path
        error = envelope(refused)
        assert error["code"] == "IR_01" and "this payment has no billing" in error["message"]
        # nothing was taken from the refused request
        after = (await live.get(f"/payments/{bare['payment_id']}")).json()
        assert (after["status"], after["payment_method_data"]) == (
            "requires_payment_method",
            None,
        )
    confirmed = (await live.get(f"/payments/{pid}")).json()
    assert confirmed["status"] == "succeeded"


async def test_browser_info_is_echoed(live: httpx.AsyncClient) -> None:
    info = {"user_agent": "Mozilla/5.0", "language": "nl-NL", "color_depth": 24}
    payment = (await live.post("/payments", json=payment_body(browser_info=info))).json()
    assert payment["browser_info"] == info
    plain = (await live.post("/payments", json=payment_body())).json()
    assert "browser_info" in plain and plain["browser_info"] is None
