"""Saved payment methods and mandates over real HTTP: the real service's routes and shapes,
a card saved by a payment, a confirm with `payment_token`, recurring payments on a mandate,
revoking, and the bad input each refuses with the spec's envelope (nothing half-made)."""

from __future__ import annotations

from typing import Any

import httpx

from tests.sandbox.conftest import BILLING, card, envelope, payment_body

ACCEPTANCE = {
    "acceptance_type": "online",
    "accepted_at": "2026-01-10T10:11:12Z",
    "online": {"ip_address": "127.0.0.1", "user_agent": "pytest"},
}


async def customer(http: httpx.AsyncClient, name: str = "Ada") -> str:
    made = await http.post("/customers", json={"name": name, "email": f"{name}@example.com"})
    assert made.status_code == 200, made.text
    return str(made.json()["customer_id"])


async def saved_methods(http: httpx.AsyncClient, customer_id: str) -> list[dict[str, Any]]:
    listed = await http.get(f"/customers/{customer_id}/payment_methods")
    assert listed.status_code == 200, listed.text
    body = listed.json()
    assert body["is_guest_customer"] is False
    items: list[dict[str, Any]] = body["customer_payment_methods"]
    return items


async def mandate_payment(
    http: httpx.AsyncClient, customer_id: str, number: str = "4242424242424242", **extra: Any
) -> dict[str, Any]:
    body = payment_body(
        number,
        customer_id=customer_id,
        setup_future_usage="off_session",
        customer_acceptance=ACCEPTANCE,
        mandate_data={"mandate_type": {"multi_use": {"amount": 5000, "currency": "USD"}}},
        **extra,
    )
    made = await http.post("/payments", json=body)
    assert made.status_code == 200, made.text
    payment: dict[str, Any] = made.json()
    return payment


def recurring(customer_id: str, mandate_id: str, **extra: Any) -> dict[str, Any]:
    return {
        "amount": 1200,
        "currency": "USD",
        "confirm": True,
        "customer_id": customer_id,
        "mandate_id": mandate_id,
        "off_session": True,
        **extra,
    }


async def test_save_list_retrieve_update_default_delete(live: httpx.AsyncClient) -> None:
    cus = await customer(live)
    saved = await live.post(
        "/payment_methods",
        json={
            "payment_method": "card",
            "payment_method_type": "credit",
            "card": {
                "card_number": "378282246310005",
                "card_exp_month": "10",
                "card_exp_year": "2040",
                "card_holder_name": "Ada L",
            },
            "customer_id": cus,
            "metadata": {"unit": "245"},
        },
    )
    assert saved.status_code == 200, saved.text
    method = saved.json()
    pm_id = method["payment_method_id"]
    assert pm_id.startswith("pm_") and method["customer_id"] == cus
    assert method["card"]["last4_digits"] == "0005"
    assert method["card"]["card_network"] == "AmericanExpress"
    assert method["card"]["saved_to_locker"] is True
    assert "378282246310005" not in saved.text
    assert (await live.get(f"/payment_methods/{pm_id}")).json() == method

    second = (
        await live.post(
            "/payment_methods",
            json={"payment_method": "card", "customer_id": cus, "card": card("5555555555554444")},
        )
    ).json()
    listed = await saved_methods(live, cus)
    assert [m["payment_method_id"] for m in listed] == [second["payment_method_id"], pm_id]
    assert {m["payment_method_id"]: m["default_payment_method_set"] for m in listed} == {
        pm_id: True,  # the first saved method is the default
        second["payment_method_id"]: False,
    }
    assert all(m["requires_cvv"] and m["payment_token"] for m in listed)

    made_default = await live.post(f"/{cus}/payment_methods/{second['payment_method_id']}/default")
    assert made_default.json() == {
        "default_payment_method_id": second["payment_method_id"],
        "customer_id": cus,
        "payment_method": "card",
        "payment_method_type": None,
    }
    now_default = [
        m["payment_method_id"]
        for m in await saved_methods(live, cus)
        if m["default_payment_method_set"]
    ]
    assert now_default == [second["payment_method_id"]]

    updated = await live.post(
        f"/payment_methods/{pm_id}/update",
        json={"card": {"card_exp_year": "2041", "nick_name": "work"}},
    )
    assert updated.json()["card"]["expiry_year"] == "2041"
    assert updated.json()["card"]["nick_name"] == "work"

    deleted = await live.delete(f"/payment_methods/{pm_id}")
    assert deleted.json() == {"payment_method_id": pm_id, "deleted": True}
    gone = await live.get(f"/payment_methods/{pm_id}")
    assert gone.status_code == 404 and envelope(gone)["code"] == "IR_05"
    assert [m["payment_method_id"] for m in await saved_methods(live, cus)] == [
        second["payment_method_id"]
    ]


async def test_payment_methods_bad_input(live: httpx.AsyncClient) -> None:
    cus = await customer(live)
    no_card = await live.post(
        "/payment_methods", json={"payment_method": "card", "customer_id": cus}
    )
    assert no_card.status_code == 400
    assert (
        envelope(no_card)["code"] == "IR_01" and "card is required" in envelope(no_card)["message"]
    )
    expired = await live.post(
        "/payment_methods",
        json={
            "payment_method": "card",
            "customer_id": cus,
            "card": {**card("4242424242424242"), "card_exp_year": "2020"},
        },
    )
    assert expired.status_code == 400 and envelope(expired)["code"] == "PE_03"
    stranger = await live.post(
        "/payment_methods",
        json={
            "payment_method": "card",
            "customer_id": "cus_nobody",
            "card": card("4242424242424242"),
        },
    )
    assert stranger.status_code == 404 and "cus_nobody" in envelope(stranger)["message"]
    assert await saved_methods(live, cus) == []  # nothing half-made
    unknown = await live.get("/customers/cus_nobody/payment_methods")
    assert unknown.status_code == 404
    other = await customer(live, "Bob")
    pm = (
        await live.post(
            "/payment_methods",
            json={"payment_method": "card", "customer_id": other, "card": card("4242424242424242")},
        )
    ).json()
    not_theirs = await live.post(f"/{cus}/payment_methods/{pm['payment_method_id']}/default")
    assert (
        not_theirs.status_code == 400
        and "was not saved for customer" in envelope(not_theirs)["message"]
    )
    for response in (
        await live.delete("/payment_methods/pm_nothing"),
        await live.post("/payment_methods/pm_nothing/update", json={}),
    ):
        assert response.status_code == 404 and envelope(response)["code"] == "IR_05"


async def test_a_payment_saves_its_card_and_a_token_pays_again(live: httpx.AsyncClient) -> None:
    cus = await customer(live)
    first = (
        await live.post(
            "/payments",
            json=payment_body(
                "378282246310005",
                customer_id=cus,
                setup_future_usage="on_session",
                customer_acceptance=ACCEPTANCE,
            ),
        )
    ).json()
    assert first["status"] == "succeeded"
    assert first["payment_method_id"].startswith("pm_") and first["mandate_id"] is None
    [method] = await saved_methods(live, cus)
    assert method["payment_method_id"] == first["payment_method_id"]
    assert method["card"]["last4_digits"] == "0005"

    draft = (
        await live.post(
            "/payments",
            json={"amount": 700, "currency": "USD", "confirm": False, "customer_id": cus},
        )
    ).json()
    paid = await live.post(
        f"/payments/{draft['payment_id']}/confirm",
        json={
            "payment_method": "card",
            "payment_token": method["payment_token"],
            "card_cvc": "1234",
        },
    )
    assert paid.status_code == 200, paid.text
    payment = paid.json()
    assert payment["status"] == "succeeded"
    assert payment["payment_method_id"] == method["payment_method_id"]
    assert payment["payment_method_data"]["card"]["last4"] == "0005"
    # paying again with the same card does not save it twice
    again = await live.post(
        "/payments",
        json=payment_body("378282246310005", customer_id=cus, setup_future_usage="on_session"),
    )
    assert again.json()["payment_method_id"] == method["payment_method_id"]
    assert len(await saved_methods(live, cus)) == 1


async def test_a_saved_decline_card_declines_and_tokens_are_checked(
    live: httpx.AsyncClient,
) -> None:
    cus, other = await customer(live), await customer(live, "Eve")
    pm = (
        await live.post(
            "/payment_methods",
            json={"payment_method": "card", "customer_id": cus, "card": card("4000000000000002")},
        )
    ).json()
    [method] = await saved_methods(live, cus)
    declined = (
        await live.post(
            "/payments",
            json={
                "amount": 700,
                "currency": "USD",
                "confirm": True,
                "customer_id": cus,
                "payment_token": method["payment_token"],
            },
        )
    ).json()
    assert (declined["status"], declined["unified_code"]) == ("failed", "UE_1007")
    assert declined["payment_method_id"] == pm["payment_method_id"]
    for body, words in (
        ({"customer_id": other, "payment_token": method["payment_token"]}, "another customer"),
        ({"customer_id": cus, "payment_token": "not-a-token"}, "no saved payment method"),
        (
            {
                "customer_id": cus,
                "payment_token": method["payment_token"],
                "payment_method": "card",
                "payment_method_data": {"card": card("4242424242424242")},
                "billing": BILLING,
            },
            "one way to pay per request",
        ),
    ):
        answer = await live.post(
            "/payments", json={"amount": 700, "currency": "USD", "confirm": True, **body}
        )
        assert answer.status_code == 400, answer.text
        assert words in envelope(answer)["message"]
        assert method["payment_token"] not in answer.text


async def test_mandate_set_up_then_recurring_payments(live: httpx.AsyncClient) -> None:
    cus = await customer(live)
    setup = await mandate_payment(live, cus)
    assert setup["status"] == "succeeded"
    mandate_id = setup["mandate_id"]
    assert mandate_id.startswith("man_")
    assert setup["mandate_data"]["customer_acceptance"] == ACCEPTANCE
    assert setup["mandate_data"]["mandate_type"] == {
        "multi_use": {"amount": 5000, "currency": "USD"}
    }
    mandate = (await live.get(f"/mandates/{mandate_id}")).json()
    assert mandate["status"] == "active"
    assert mandate["payment_method_id"] == setup["payment_method_id"]
    assert mandate["card"]["last4_digits"] == "4242"
    assert (await live.get(f"/customers/{cus}/mandates")).json() == [mandate]

    for _ in range(2):  # multi_use: any number of charges up to the limit each
        charged = await live.post("/payments", json=recurring(cus, mandate_id))
        assert charged.status_code == 200, charged.text
        payment = charged.json()
        assert payment["status"] == "succeeded"
        assert payment["mandate_id"] == mandate_id and payment["off_session"] is True
        assert payment["payment_method_data"]["card"]["last4"] == "4242"
        assert payment["mandate_data"]["customer_acceptance"] == ACCEPTANCE
    over = await live.post("/payments", json=recurring(cus, mandate_id, amount=5001))
    assert over.status_code == 400 and "mandate's limit of 5000 USD" in envelope(over)["message"]


async def test_single_use_mandate_is_used_up_and_revoked_is_refused(
    live: httpx.AsyncClient,
) -> None:
    cus = await customer(live)
    setup = (
        await live.post(
            "/payments",
            json=payment_body(
                customer_id=cus,
                setup_future_usage="off_session",
                mandate_data={
                    "customer_acceptance": ACCEPTANCE,
                    "mandate_type": {"single_use": {"amount": 7000, "currency": "USD"}},
                },
            ),
        )
    ).json()
    mandate_id = setup["mandate_id"]
    once = await live.post("/payments", json=recurring(cus, mandate_id))
    assert once.json()["status"] == "succeeded"
    # the real service revokes a single_use mandate once charged (no event for that)
    assert (await live.get(f"/mandates/{mandate_id}")).json()["status"] == "revoked"
    twice = await live.post("/payments", json=recurring(cus, mandate_id))
    assert twice.status_code == 400
    assert "revoked by its first charge" in envelope(twice)["message"]

    multi = await mandate_payment(live, cus)
    revoked = await live.post(f"/mandates/revoke/{multi['mandate_id']}")
    assert revoked.json() == {
        "mandate_id": multi["mandate_id"],
        "status": "revoked",
        "error_code": None,
        "error_message": None,
    }
    again = await live.post(f"/mandates/revoke/{multi['mandate_id']}")
    assert again.status_code == 400 and "already revoked" in envelope(again)["message"]
    before = (await live.post("/payments/list", json={"limit": 100})).json()["total_count"]
    refused = await live.post("/payments", json=recurring(cus, multi["mandate_id"]))
    assert refused.status_code == 400
    error = envelope(refused)
    assert error["code"] == "IR_04" and "is revoked" in error["message"]
    after = (await live.post("/payments/list", json={"limit": 100})).json()["total_count"]
    assert after == before  # no payment was made


async def test_recurring_charge_declines_by_the_saved_card_and_skips_3ds(
    live: httpx.AsyncClient,
) -> None:
    cus = await customer(live)
    challenge = await mandate_payment(live, cus, "4000003800000446")
    assert challenge["status"] == "requires_action" and challenge["mandate_id"] is None
    done = await live.post(f"/_sandbox/payments/{challenge['payment_id']}/3ds", json={})
    mandate_id = done.json()["mandate_id"]
    assert mandate_id and done.json()["status"] == "succeeded"
    charged = await live.post(
        "/payments", json=recurring(cus, mandate_id, authentication_type="three_ds")
    )
    assert charged.json()["status"] == "succeeded"  # off session: no challenge

    later_decline = await customer(live, "Dan")
    setup = await mandate_payment(live, later_decline, "4000000000000341")
    assert setup["status"] == "succeeded"
    # this card pays once, then every recurring charge on its mandate declines
    renewal = (
        await live.post("/payments", json=recurring(later_decline, setup["mandate_id"]))
    ).json()
    assert (renewal["status"], renewal["unified_code"]) == ("failed", "UE_1001")
    assert renewal["mandate_id"] == setup["mandate_id"]
    assert (await live.get(f"/mandates/{setup['mandate_id']}")).json()["status"] == "active"


async def test_mandate_bad_input(live: httpx.AsyncClient) -> None:
    cus, other = await customer(live), await customer(live, "Mallory")
    no_acceptance = await live.post(
        "/payments",
        json=payment_body(
            customer_id=cus,
            setup_future_usage="off_session",
            mandate_data={"mandate_type": {"single_use": {"amount": 7000, "currency": "USD"}}},
        ),
    )
    assert no_acceptance.status_code == 400
    assert envelope(no_acceptance)["code"] == "IR_01"
    assert "customer_acceptance" in envelope(no_acceptance)["message"]
    no_customer = await live.post(
        "/payments",
        json=payment_body(
            setup_future_usage="off_session",
            mandate_data={"customer_acceptance": ACCEPTANCE},
        ),
    )
    assert no_customer.status_code == 400 and "customer_id" in envelope(no_customer)["message"]
    bad_usage = await live.post("/payments", json=payment_body(setup_future_usage="sometimes"))
    assert bad_usage.status_code == 400 and "future usage" in envelope(bad_usage)["message"]
    setup = await mandate_payment(live, cus)
    theirs = await live.post("/payments", json=recurring(other, setup["mandate_id"]))
    assert theirs.status_code == 400 and "belongs to customer" in envelope(theirs)["message"]
    euros = await live.post("/payments", json=recurring(cus, setup["mandate_id"], currency="EUR"))
    assert euros.status_code == 400 and "currency" in envelope(euros)["message"]
    unknown = await live.post("/payments", json=recurring(cus, "man_nothing"))
    assert unknown.status_code == 404 and envelope(unknown)["code"] == "IR_05"
    on_session = await live.post(
        "/payments", json=recurring(cus, setup["mandate_id"], off_session=False)
    )
    assert on_session.status_code == 400
    assert "off_session should be true for mandates" in envelope(on_session)["message"]
    empty = await live.post("/payments", json=recurring(cus, ""))
    assert empty.status_code == 400 and "mandate_id" in envelope(empty)["message"]
    for response in (
        await live.get("/mandates/man_nothing"),
        await live.post("/mandates/revoke/man_nothing"),
        await live.get("/customers/cus_nobody/mandates"),
    ):
        assert response.status_code == 404 and envelope(response)["code"] == "IR_05"


async def test_deleting_the_method_or_customer_revokes_its_mandates(
    live: httpx.AsyncClient,
) -> None:
    cus = await customer(live)
    setup = await mandate_payment(live, cus)
    await live.delete(f"/payment_methods/{setup['payment_method_id']}")
    assert (await live.get(f"/mandates/{setup['mandate_id']}")).json()["status"] == "revoked"
    other = await customer(live, "Zed")
    second = await mandate_payment(live, other)
    deleted = await live.delete(f"/customers/{other}")
    assert deleted.json()["payment_methods_deleted"] is True
    assert (await live.get(f"/mandates/{second['mandate_id']}")).json()["status"] == "revoked"
    assert (await live.get(f"/payment_methods/{second['payment_method_id']}")).status_code == 404


async def events_of(http: httpx.AsyncClient, merchant_id: str, object_id: str) -> list[str]:
    listed = await http.post(f"/events/{merchant_id}", json={"object_id": object_id})
    assert listed.status_code == 200, listed.text
    return [e["event_type"] for e in reversed(listed.json()["events"])]


async def test_mandates_send_their_events(live: httpx.AsyncClient) -> None:
    cus = await customer(live)
    setup = await mandate_payment(live, cus)
    merchant = setup["merchant_id"]
    await live.post(f"/mandates/revoke/{setup['mandate_id']}")
    assert await events_of(live, merchant, setup["mandate_id"]) == [
        "mandate_active",
        "mandate_revoked",
    ]
    assert await events_of(live, merchant, setup["payment_id"]) == ["payment_succeeded"]


async def test_a_saved_wallet_pays_by_token_and_cannot_take_card_updates(
    live: httpx.AsyncClient,
) -> None:
    cus = await customer(live)
    wallet = {"google_pay": {"tokenization_data": {"token": "sandbox_decline"}}}
    saved = await live.post(
        "/payment_methods",
        json={"payment_method": "wallet", "customer_id": cus, "wallet": wallet},
    )
    assert saved.status_code == 200, saved.text
    method = saved.json()
    assert method["payment_method_data"]["wallet"]["google_pay"]["tokenization_data"][
        "token"
    ].endswith("line")  # masked to its last four characters
    [entry] = await saved_methods(live, cus)
    assert entry["requires_cvv"] is False
    declined = (
        await live.post(
            "/payments",
            json={
                "amount": 700,
                "currency": "USD",
                "confirm": True,
                "customer_id": cus,
                "payment_token": entry["payment_token"],
            },
        )
    ).json()
    assert (declined["status"], declined["unified_code"]) == ("failed", "UE_1007")
    assert declined["payment_method"] == "wallet"
    refused = await live.post(
        f"/payment_methods/{method['payment_method_id']}/update",
        json={"card": {"nick_name": "x"}},
    )
    assert refused.status_code == 400 and "is not a saved card" in envelope(refused)["message"]
    unknown = await live.post(
        "/payment_methods",
        json={"payment_method": "wallet", "customer_id": cus, "wallet": {"cheque_pay": {}}},
    )
    assert unknown.status_code == 400 and "google_pay" in envelope(unknown)["message"]
