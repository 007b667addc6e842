"""The browser SDK's own calls over real HTTP, with the publishable key where the real service
takes it: the payment-method list, session tokens and a customer's ephemeral key; and the
real service's older sign-in path."""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from payscope.sandbox import method_types
from tests.sandbox.conftest import API_KEY, envelope, make_sandbox
from tests.waits import REQUEST_TIMEOUT


@pytest.fixture
async def sdk(tmp_path: Path) -> AsyncIterator[tuple[httpx.AsyncClient, httpx.AsyncClient]]:
    """(server with the secret key, browser with the publishable key) on one sandbox."""
    box = make_sandbox(tmp_path / "sdk")
    url = await box.start()
    try:
        async with (
            httpx.AsyncClient(
                timeout=REQUEST_TIMEOUT, base_url=url, headers={"api-key": API_KEY}
            ) as server,
            httpx.AsyncClient(
                timeout=REQUEST_TIMEOUT,
                base_url=url,
                headers={"api-key": box.credentials.publishable_key},
            ) as browser,
        ):
            yield server, browser
    finally:
        await box.stop()


async def draft(server: httpx.AsyncClient, **fields: Any) -> dict[str, Any]:
    made = await server.post(
        "/payments", json={"amount": 1800, "currency": "EUR", "confirm": False, **fields}
    )
    assert made.status_code == 200, made.text
    payment: dict[str, Any] = made.json()
    return payment


async def test_payment_methods_list_for_a_payment(
    sdk: tuple[httpx.AsyncClient, httpx.AsyncClient],
) -> None:
    server, browser = sdk
    payment = await draft(server, return_url="https://shop.example/back")
    listed = await browser.get(
        "/account/payment_methods", params={"client_secret": payment["client_secret"]}
    )
    assert listed.status_code == 200, listed.text
    body = listed.json()
    assert body["currency"] == "EUR" and body["redirect_url"] == "https://shop.example/back"
    families = {m["payment_method"]: m["payment_method_types"] for m in body["payment_methods"]}
    assert set(families) == {"card", *method_types.FAMILIES}
    ideal = next(t for t in families["bank_redirect"] if t["payment_method_type"] == "ideal")
    assert ideal["payment_experience"][0]["payment_experience_type"] == "redirect_to_url"
    assert body["is_guest_customer"] is True
    without = await browser.get("/account/payment_methods")
    assert without.status_code == 400 and "client_secret" in envelope(without)["message"]
    wrong = await browser.get(
        "/account/payment_methods", params={"client_secret": f"{payment['payment_id']}_secret_x"}
    )
    assert wrong.status_code == 403
    by_server = await server.get("/account/payment_methods")
    assert by_server.status_code == 200 and by_server.json()["currency"] is None


async def test_session_tokens_with_the_publishable_key(
    sdk: tuple[httpx.AsyncClient, httpx.AsyncClient],
) -> None:
    server, browser = sdk
    payment = await draft(server)
    asked = {"payment_id": payment["payment_id"], "client_secret": payment["client_secret"]}
    every = await browser.post("/payments/session_tokens", json={**asked, "wallets": []})
    assert every.status_code == 200, every.text
    answer = every.json()
    assert (answer["payment_id"], answer["client_secret"]) == (
        payment["payment_id"],
        payment["client_secret"],
    )
    tokens = {t["wallet_name"]: t for t in answer["session_token"]}
    assert set(tokens) == {"google_pay", "apple_pay", "paypal", "klarna"}
    google = tokens["google_pay"]["transaction_info"]
    assert (google["currency_code"], google["total_price"]) == ("EUR", "18.00")
    some = await browser.post(
        "/payments/session_tokens", json={**asked, "wallets": ["google_pay", "apple_pay"]}
    )
    assert [t["wallet_name"] for t in some.json()["session_token"]] == ["google_pay", "apple_pay"]
    bad = await browser.post("/payments/session_tokens", json={**asked, "wallets": ["cheque"]})
    assert bad.status_code == 400 and "cheque" in envelope(bad)["message"]
    stranger = await browser.post(
        "/payments/session_tokens",
        json={"payment_id": payment["payment_id"], "client_secret": "nope", "wallets": []},
    )
    assert stranger.status_code == 403
    # still nothing else for the publishable key
    assert (await browser.post("/payments/list", json={})).status_code == 403
    assert (await browser.post(f"/payments/{payment['payment_id']}", json={})).status_code == 403


async def test_ephemeral_key_for_a_customer(
    sdk: tuple[httpx.AsyncClient, httpx.AsyncClient],
) -> None:
    server, browser = sdk
    cus = (await server.post("/customers", json={"name": "Ada"})).json()["customer_id"]
    key = await server.post("/ephemeral_keys", json={"customer_id": cus})
    assert key.status_code == 200, key.text
    body = key.json()
    assert body["customer_id"] == cus and body["secret"].startswith("epk_")
    assert body["expires"] - body["created_at"] == 3600
    missing_customer = await server.post("/ephemeral_keys", json={"customer_id": "cus_nobody"})
    assert missing_customer.status_code == 404
    assert (await server.post("/ephemeral_keys", json={})).status_code == 400
    assert (await browser.post("/ephemeral_keys", json={"customer_id": cus})).status_code == 403


async def test_the_older_sign_in_path_answers_as_the_current_one(
    sdk: tuple[httpx.AsyncClient, httpx.AsyncClient],
) -> None:
    server, _ = sdk
    invited = await server.post(
        "/user/user/invite_multiple",
        json=[{"email": "ada@example.com", "name": "Ada", "role_id": "merchant_admin"}],
    )
    assert invited.status_code == 200, invited.text
    accepted = await server.post(
        "/_sandbox/users/accept", json={"email": "ada@example.com", "password": "correct horse"}
    )
    assert accepted.status_code == 200, accepted.text
    creds = {"email": "ada@example.com", "password": "correct horse"}
    signed = await server.post("/user/v2/signin", json=creds)
    assert signed.status_code == 200 and signed.json()["token"]
    wrong = await server.post("/user/v2/signin", json={**creds, "password": "wrong"})
    assert wrong.status_code == 401 and envelope(wrong)["code"] == "UR_01"
