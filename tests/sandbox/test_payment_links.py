"""Payment links: create, retrieve, list, expiry on the clock, and the hosted checkout page paid
over real HTTP the way its script does (publishable key + client_secret)."""

from __future__ import annotations

import json
import re
from typing import Any

import httpx

from payscope.api.models.links import PaymentLinkCreateRequest
from payscope.sandbox.clock import iso, parse_iso
from payscope.sandbox.server import Sandbox
from tests.sandbox.conftest import API_KEY, api_client, card
from tests.waits import REQUEST_TIMEOUT


def page_data(html: str) -> dict[str, Any]:
    """The JSON the page's script reads (what a browser would run with)."""
    found = re.search(r'<script id="link" type="application/json">(.*?)</script>', html, re.S)
    assert found is not None
    data: dict[str, Any] = json.loads(found.group(1))
    return data


async def test_pay_a_link_in_the_hosted_page_over_http(sandbox: Sandbox) -> None:
    url = await sandbox.start()
    async with httpx.AsyncClient(
        timeout=REQUEST_TIMEOUT, base_url=url, headers={"api-key": API_KEY}
    ) as api:
        link = (
            await api.post(
                "/payment_link",
                json={
                    "amount": 4200,
                    "currency": "EUR",
                    "description": "Workshop seat",
                    "payment_link_config": {"seller_name": "Payscope Demo Shop"},
                },
            )
        ).json()
        assert link["status"] == "active" and link["payment_link_id"].startswith("plink_")
        assert link["link_to_pay"] == f"{url}/pay/{link['payment_link_id']}"
    async with httpx.AsyncClient(
        timeout=REQUEST_TIMEOUT
    ) as browser:  # no API key: a customer's browser
        page = await browser.get(link["link_to_pay"])
        assert page.status_code == 200 and "text/html" in page.headers["content-type"]
        assert API_KEY not in page.text
        data = page_data(page.text)
        assert data["payment_id"] == link["payment_id"] and data["amount"] == 4200
        assert data["seller_name"] == "Payscope Demo Shop"
        assert data["publishable_key"].startswith("pk_snd_")
        confirm = await browser.post(
            f"{url}/payments/{data['payment_id']}/confirm",
            headers={"api-key": data["publishable_key"]},
            json={
                "client_secret": data["client_secret"],
                "payment_method": "card",
                "payment_method_type": "credit",
                "payment_method_data": {
                    "card": {
                        "card_number": "4242424242424242",
                        "card_exp_month": "12",
                        "card_exp_year": "2040",
                        "card_cvc": "123",
                    }
                },
                "billing": {},
            },
        )
        assert confirm.status_code == 200, confirm.text
        assert confirm.json()["status"] == "succeeded"
        # the publishable key cannot read the link itself
        refused = await browser.get(
            f"{url}/payment_link/{link['payment_link_id']}",
            headers={"api-key": data["publishable_key"]},
        )
        assert refused.status_code == 403
        again = await browser.get(link["link_to_pay"])
        assert page_data(again.text)["status"] == "succeeded"
        # links handed out before the page moved still work
        old = await browser.get(f"{url}/_sandbox/assets/pay/{link['payment_link_id']}")
        assert old.status_code == 308
        assert old.headers["location"] == f"/pay/{link['payment_link_id']}"
        followed = await browser.get(old.url, follow_redirects=True)
        assert followed.status_code == 200 and followed.url == link["link_to_pay"]
        assert page_data(followed.text)["payment_id"] == link["payment_id"]


async def test_link_expires_on_the_sandbox_clock(raw: httpx.AsyncClient, sandbox: Sandbox) -> None:
    now = sandbox.state.clock.now()
    expiry = iso(now + 3600)
    link = (
        await raw.post("/payment_link", json={"amount": 500, "currency": "USD", "expiry": expiry})
    ).json()
    assert link["expiry"].startswith(expiry[:19]) and link["status"] == "active"
    link_id = link["payment_link_id"]
    await raw.post("/_sandbox/clock/advance", json={"seconds": 3599})
    assert (await raw.get(f"/payment_link/{link_id}")).json()["status"] == "active"
    await raw.post("/_sandbox/clock/advance", json={"seconds": 2})
    assert (await raw.get(f"/payment_link/{link_id}")).json()["status"] == "expired"
    page = await raw.get(link["link_to_pay"].replace("http://sandbox.test", ""))
    assert page.status_code == 410 and "expired" in page.text


async def test_create_validation_list_and_retrieve(raw: httpx.AsyncClient) -> None:
    made = [
        (await raw.post("/payment_link", json={"amount": a, "currency": "USD"})).json()
        for a in (100, 200, 300)
    ]
    assert all(m["status"] == "active" for m in made)
    listed = (await raw.post("/payment_link/list", json={"limit": 2})).json()
    assert listed["total_count"] == 3 and [d["amount"] for d in listed["data"]] == [300, 200]
    one = (await raw.get(f"/payment_link/{made[0]['payment_link_id']}")).json()
    assert one["amount"] == 100 and one["payment_id"] == made[0]["payment_id"]
    payment = (await raw.get(f"/payments/{one['payment_id']}")).json()
    assert payment["status"] == "requires_payment_method" and payment["amount"] == 100
    missing = await raw.get("/payment_link/plink_missing")
    assert missing.status_code == 404 and missing.json()["error"]["code"] == "IR_05"
    cases = [
        ({"currency": "USD"}, 400, "amount"),
        ({"amount": 100, "currency": "usd$"}, 400, "currency"),
        ({"amount": 100, "currency": "USD", "expiry": "2001-01-01T00:00:00Z"}, 400, "expiry"),
        ({"amount": 100, "currency": "USD", "customer_id": "cus_nope"}, 404, "cus_nope"),
        ({"amount": 100, "currency": "USD", "send_email": True}, 400, "email"),
    ]
    for body, status, word in cases:
        response = await raw.post("/payment_link", json=body)
        assert response.status_code == status, (body, response.text)
        assert word in response.json()["error"]["message"]


async def test_a_link_says_its_payment_status_and_paid_survives_expiry(sandbox: Sandbox) -> None:
    """`payment_status` follows the link's payment on create, retrieve and list (over HTTP),
    through a payment on the hosted page and past the link's expiry."""
    url = await sandbox.start()
    async with httpx.AsyncClient(
        timeout=REQUEST_TIMEOUT, base_url=url, headers={"api-key": API_KEY}
    ) as api:
        made = (await api.post("/payment_link", json={"amount": 1200, "currency": "USD"})).json()
        link_id = made["payment_link_id"]
        assert made["payment_status"] == "requires_payment_method"
        waiting = (await api.post("/payment_link", json={"amount": 300, "currency": "USD"})).json()
        async with httpx.AsyncClient(timeout=REQUEST_TIMEOUT) as browser:
            data = page_data((await browser.get(made["link_to_pay"])).text)
            paid = await browser.post(
                f"{url}/payments/{data['payment_id']}/confirm",
                headers={"api-key": data["publishable_key"]},
                json={
                    "client_secret": data["client_secret"],
                    "payment_method": "card",
                    "payment_method_type": "credit",
                    "payment_method_data": {"card": card("4242424242424242")},
                    "billing": {},
                },
            )
            assert paid.json()["status"] == "succeeded", paid.text
        got = (await api.get(f"/payment_link/{link_id}")).json()
        assert (got["status"], got["payment_status"]) == ("active", "succeeded")
        listed = (await api.post("/payment_link/list", json={"limit": 10})).json()["data"]
        by_id = {d["payment_link_id"]: d["payment_status"] for d in listed}
        assert by_id == {
            link_id: "succeeded",
            waiting["payment_link_id"]: "requires_payment_method",
        }
        await api.post("/_sandbox/clock/advance", json={"seconds": 16 * 60})
        got = (await api.get(f"/payment_link/{link_id}")).json()
        assert (got["status"], got["payment_status"]) == ("expired", "succeeded")


async def test_seeded_links_are_active_expired_and_paid(sandbox: Sandbox) -> None:
    """A fresh start (the app seeds 300 payments) has links in every state."""
    from payscope.app.launch import DEFAULT_SEED

    url = await sandbox.start()
    sandbox.seed(DEFAULT_SEED)
    async with httpx.AsyncClient(
        timeout=REQUEST_TIMEOUT, base_url=url, headers={"api-key": API_KEY}
    ) as api:
        listed = (await api.post("/payment_link/list", json={"limit": 100})).json()["data"]
        pairs = {(d["status"], d["payment_status"]) for d in listed}
        assert ("active", "requires_payment_method") in pairs
        assert ("expired", "requires_payment_method") in pairs
        assert ("expired", "succeeded") in pairs  # paid on the page, then past its expiry
        assert any((d["payment_link_config"] or {}).get("seller_name") for d in listed)


# The real service's PaymentLinkResponse (real-service-openapi-v1.json): required link and
# payment_link_id, secure_link nullable.
PAYMENT_LINK_RESPONSE = {"link", "secure_link", "payment_link_id"}


async def test_payments_with_payment_link_true_make_a_link(sandbox: Sandbox) -> None:
    """The real service's way, end to end over HTTP: `client.payment_links.create_with_payment`
    (the TUI's remote path) against the local sandbox, then the raw answers."""
    url = await sandbox.start()
    client = api_client(sandbox, url)
    try:
        request = PaymentLinkCreateRequest.model_validate(
            {
                "amount": 4200,
                "currency": "EUR",
                "description": "Workshop seat",
                "return_url": "https://shop.example/thanks",
                "payment_link_config": {"seller_name": "Demo Shop"},
            }
        )
        link = await client.payment_links.create_with_payment(request, session_expiry=3600)
        assert link.payment_link_id.startswith("plink_") and link.state == "active"
        assert link.link_to_pay == f"{url}/pay/{link.payment_link_id}"
        assert (link.amount, link.currency, link.description) == (4200, "EUR", "Workshop seat")
        assert link.payment_status == "requires_payment_method" and link.payment_id
        assert link.payment_link_config == {"seller_name": "Demo Shop"}
        now = sandbox.state.clock.now()
        assert abs(parse_iso(str(link.expiry)) - (now + 3600)) < 5
        # The payment answers as the real service's does, and keeps saying so on GET.
        payment = await client.payments.retrieve(str(link.payment_id))
        assert payment.payment_link is not None
        assert payment.payment_link.payment_link_id == link.payment_link_id
        assert payment.payment_link.link == link.link_to_pay
        assert payment.expires_on == link.expiry
        assert payment.return_url == "https://shop.example/thanks"
    finally:
        await client.aclose()

    async with httpx.AsyncClient(
        timeout=REQUEST_TIMEOUT, base_url=url, headers={"api-key": API_KEY}
    ) as api:
        answer = await api.post(
            "/payments", json={"amount": 900, "currency": "USD", "payment_link": True}
        )
        assert answer.status_code == 200, answer.text
        made = answer.json()
        assert set(made["payment_link"]) == PAYMENT_LINK_RESPONSE
        assert made["payment_link"]["secure_link"] is None
        link_id = made["payment_link"]["payment_link_id"]
        # Listed and retrieved like the links POST /payment_link makes.
        listed = (await api.post("/payment_link/list", json={"limit": 10})).json()["data"]
        assert [d["payment_link_id"] for d in listed] == [link_id, link.payment_link_id]
        got = (await api.get(f"/payment_link/{link_id}")).json()
        assert (got["amount"], got["currency"], got["payment_id"], got["status"]) == (
            900,
            "USD",
            made["payment_id"],
            "active",
        )
        page = await api.get(made["payment_link"]["link"])
        assert page.status_code == 200 and "900" in page.text
        # The default life is 15 minutes, as for session_expiry on the real service.
        await api.post("/_sandbox/clock/advance", json={"seconds": 15 * 60 + 1})
        assert (await api.get(f"/payment_link/{link_id}")).json()["status"] == "expired"
        # Without the flag no link is made; an out-of-range session_expiry is refused.
        plain = (await api.post("/payments", json={"amount": 900, "currency": "USD"})).json()
        assert plain.get("payment_link") is None
        total = (await api.post("/payment_link/list", json={})).json()["total_count"]
        assert total == 2
        short = await api.post(
            "/payments",
            json={"amount": 900, "currency": "USD", "payment_link": True, "session_expiry": 5},
        )
        assert short.status_code == 400 and "session_expiry" in short.text
