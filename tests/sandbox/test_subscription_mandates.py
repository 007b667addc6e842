"""Subscriptions' charges go through mandates, as the real service's do, over real HTTP: the
first charge sets up an off-session mandate (`setup_future_usage: off_session` with the
customer's acceptance), every renewal is a recurring payment on it (`mandate_id`,
`off_session: true`) that declines by the saved method's test value, and a revoked mandate
makes the renewal fail with the reason the payments API gives (the subscription goes
`unpaid`, the spec's status for a failed charge)."""

from __future__ import annotations

from typing import Any

import httpx

from tests.sandbox.conftest import Served

ACCEPTANCE = {
    "acceptance_type": "online",
    "online": {"ip_address": "127.0.0.1", "user_agent": "pytest"},
}


def card(number: str = "4242424242424242") -> dict[str, str]:
    return {
        "card_number": number,
        "card_exp_month": "12",
        "card_exp_year": "2040",
        "card_holder_name": "Ada Lovelace",
        "card_cvc": "123",
    }


async def ok(response: httpx.Response) -> dict[str, Any]:
    assert response.status_code == 200, response.text
    body: dict[str, Any] = response.json()
    return body


async def customer(http: httpx.AsyncClient) -> str:
    made = await ok(await http.post("/customers", json={"name": "Ada", "email": "a@example.com"}))
    return str(made["customer_id"])


async def subscribe(
    http: httpx.AsyncClient,
    customer_id: str,
    *,
    number: str = "4242424242424242",
    price: str = "price_team_weekly",
    acceptance: bool = True,
    **details: Any,
) -> dict[str, Any]:
    payment_details: dict[str, Any] = {"payment_method": "card", **details}
    if "payment_method_id" not in details:
        payment_details["payment_method_data"] = {"card": card(number)}
    if acceptance:
        payment_details["customer_acceptance"] = ACCEPTANCE
    body = {"customer_id": customer_id, "item_price_id": price, "payment_details": payment_details}
    return await ok(await http.post("/subscriptions", json=body))


async def renew(served: Served, sub: dict[str, Any]) -> dict[str, Any]:
    """Move the clock past the subscription's next charge; its state after."""
    http = served.http
    due = await ok(await http.get(f"/subscriptions/{sub['id']}"))
    from payscope.sandbox.clock import parse_iso

    seconds = parse_iso(str(due["next_billing_at"])) - served.sandbox.state.clock.now() + 60
    await ok(await http.post("/_sandbox/clock/advance", json={"seconds": seconds}))
    return await ok(await http.get(f"/subscriptions/{sub['id']}"))


async def payment_count(http: httpx.AsyncClient, customer_id: str) -> int:
    listed = await ok(await http.get("/payments/list", params={"customer_id": customer_id}))
    return int(listed["total_count"])


async def test_first_charge_sets_up_the_mandate_and_renewals_charge_it(served: Served) -> None:
    http = served.http
    cus = await customer(http)
    sub = await subscribe(http, cus)
    assert sub["status"] == "active"
    mandate_id = sub["mandate_id"]
    assert mandate_id and mandate_id.startswith("man_")
    first = await ok(await http.get(f"/payments/{sub['payment']['payment_id']}"))
    # A customer-initiated payment that saves the card and sets up the mandate.
    assert first["setup_future_usage"] == "off_session"
    assert first["mandate_id"] == mandate_id
    assert first["mandate_data"]["customer_acceptance"]["acceptance_type"] == "online"
    assert first["off_session"] is None
    assert sub["payment_method_id"] == first["payment_method_id"]
    mandate = await ok(await http.get(f"/mandates/{mandate_id}"))
    assert mandate["status"] == "active"
    assert mandate["payment_method_id"] == sub["payment_method_id"]
    assert mandate["card"]["last4_digits"] == "4242"
    listed = await ok(await http.get(f"/customers/{cus}/mandates"))
    assert [m["mandate_id"] for m in listed] == [mandate_id]
    saved = await ok(await http.get(f"/customers/{cus}/payment_methods"))
    assert [m["payment_method_id"] for m in saved["customer_payment_methods"]] == [
        sub["payment_method_id"]
    ]

    renewed = await renew(served, sub)
    assert renewed["status"] == "active"
    assert renewed["payment"]["payment_id"] != sub["payment"]["payment_id"]
    assert renewed["payment"]["mandate_id"] == mandate_id
    again = await ok(await http.get(f"/payments/{renewed['payment']['payment_id']}"))
    # A merchant-initiated recurring payment on the mandate: no method data was sent.
    assert again["status"] == "succeeded" and again["amount_received"] == 4900
    assert again["mandate_id"] == mandate_id and again["off_session"] is True
    assert again["setup_future_usage"] is None
    assert again["payment_method_id"] == sub["payment_method_id"]
    assert again["payment_method_data"]["card"]["last4"] == "4242"
    assert renewed["invoice"]["mandate_id"] == mandate_id
    assert renewed["invoice"]["payment_id"] == again["payment_id"]
    # The same mandate serves every renewal: no second mandate, no second saved card.
    assert len(await ok(await http.get(f"/customers/{cus}/mandates"))) == 1


async def test_a_renewal_declines_by_the_saved_methods_test_value(served: Served) -> None:
    http = served.http
    sub = await subscribe(http, await customer(http), number="4000000000000341")
    assert sub["status"] == "active" and sub["mandate_id"]
    renewed = await renew(served, sub)
    assert renewed["status"] == "unpaid" and renewed["next_billing_at"] is None
    failed = await ok(await http.get(f"/payments/{renewed['payment']['payment_id']}"))
    assert failed["status"] == "failed" and failed["unified_code"] == "UE_1001"
    assert failed["mandate_id"] == sub["mandate_id"] and failed["off_session"] is True
    assert renewed["invoice"]["status"] == "payment_failed"
    # A decline leaves the mandate as it was.
    assert (await ok(await http.get(f"/mandates/{sub['mandate_id']}")))["status"] == "active"


async def test_a_revoked_mandate_fails_the_renewal_with_its_reason(served: Served) -> None:
    http = served.http
    cus = await customer(http)
    sub = await subscribe(http, cus)
    revoked = await ok(await http.post(f"/mandates/revoke/{sub['mandate_id']}"))
    assert revoked["status"] == "revoked"
    before = await payment_count(http, cus)
    renewed = await renew(served, sub)
    assert renewed["status"] == "unpaid" and renewed["next_billing_at"] is None
    # No payment was made: the payments API refuses a charge on a revoked mandate.
    assert renewed["payment"] is None
    assert await payment_count(http, cus) == before
    invoice = renewed["invoice"]
    assert invoice["status"] == "payment_failed" and invoice["payment_id"] is None
    assert invoice["mandate_id"] == sub["mandate_id"]
    assert invoice["error_code"] == "IR_04"
    assert f"Mandate {sub['mandate_id']} is revoked" in invoice["error_message"]
    # The same request on the payments API gets the same answer.
    direct = await http.post(
        "/payments",
        json={
            "amount": 4900,
            "currency": "EUR",
            "confirm": True,
            "customer_id": cus,
            "mandate_id": sub["mandate_id"],
            "off_session": True,
        },
    )
    assert direct.status_code == 400
    assert direct.json()["error"]["message"] == invoice["error_message"]
    # Resuming charges again, on the same revoked mandate: it stays unpaid, for the same reason.
    resumed = await ok(await http.post(f"/subscriptions/{sub['id']}/resume", json={}))
    assert resumed["status"] == "unpaid"
    assert resumed["invoice"]["id"] != invoice["id"]
    assert resumed["invoice"]["error_message"] == invoice["error_message"]
    history = await ok(await http.get(f"/_sandbox/subscriptions/{sub['id']}/invoices"))
    assert [i["status"] for i in history["data"]] == [
        "payment_failed",
        "payment_failed",
        "invoice_paid",
    ]
    assert history["data"][0]["payment"] is None


async def test_a_deleted_saved_card_revokes_the_mandate_and_fails_the_renewal(
    served: Served,
) -> None:
    http = served.http
    sub = await subscribe(http, await customer(http))
    await ok(await http.delete(f"/payment_methods/{sub['payment_method_id']}"))
    assert (await ok(await http.get(f"/mandates/{sub['mandate_id']}")))["status"] == "revoked"
    renewed = await renew(served, sub)
    assert renewed["status"] == "unpaid"
    assert "is revoked" in renewed["invoice"]["error_message"]


async def test_a_saved_card_of_the_customer_gets_a_mandate_of_its_own(served: Served) -> None:
    http = served.http
    cus = await customer(http)
    saved = await ok(
        await http.post(
            "/payment_methods",
            json={
                "payment_method": "card",
                "payment_method_type": "credit",
                "customer_id": cus,
                "card": {
                    "card_number": "5555555555554444",
                    "card_exp_month": "11",
                    "card_exp_year": "2039",
                    "card_holder_name": "Ada L",
                },
            },
        )
    )
    pm = saved["payment_method_id"]
    sub = await subscribe(http, cus, payment_method_id=pm)
    assert sub["status"] == "active" and sub["payment_method_id"] == pm
    mandate = await ok(await http.get(f"/mandates/{sub['mandate_id']}"))
    assert mandate["payment_method_id"] == pm and mandate["card"]["last4_digits"] == "4444"
    renewed = await renew(served, sub)
    assert (
        renewed["status"] == "active" and renewed["payment"]["mandate_id"] == mandate["mandate_id"]
    )
    # Another customer's saved card is refused, nothing made.
    other = await customer(http)
    refused = await http.post(
        "/subscriptions",
        json={
            "customer_id": other,
            "item_price_id": "price_team_weekly",
            "payment_details": {"payment_method": "card", "payment_method_id": pm},
        },
    )
    assert refused.status_code == 400
    assert "was not saved for customer" in refused.json()["error"]["message"]


async def test_a_trial_sets_up_the_mandate_with_its_first_charge(served: Served) -> None:
    http = served.http
    sub = await subscribe(http, await customer(http), price="price_pro_monthly_trial")
    assert sub["status"] == "trial" and sub["mandate_id"] is None
    charged = await renew(served, sub)
    assert charged["status"] == "active" and charged["mandate_id"]
    first = await ok(await http.get(f"/payments/{charged['payment']['payment_id']}"))
    assert first["mandate_id"] == charged["mandate_id"]
    assert first["setup_future_usage"] == "off_session"


async def test_without_the_customers_acceptance_there_is_no_mandate(served: Served) -> None:
    http = served.http
    sub = await subscribe(http, await customer(http), acceptance=False)
    assert sub["status"] == "active" and sub["mandate_id"] is None
    # The card is saved all the same, and renewals still charge it off-session.
    assert sub["payment_method_id"]
    renewed = await renew(served, sub)
    assert renewed["status"] == "active" and renewed["payment"]["mandate_id"] is None
