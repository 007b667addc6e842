"""The 3-D Secure challenge page: a browser (no API key) opens `next_action.redirect_to_url`,
presses a button, sees the outcome and is sent back to `return_url`; the page is authorised by
the payment's `client_secret` only."""

from __future__ import annotations

import re
from collections.abc import AsyncIterator
from typing import Any
from urllib.parse import parse_qs, urlsplit

import httpx
import pytest

from payscope.sandbox.server import Sandbox
from tests.sandbox.conftest import API_KEY, payment_body
from tests.waits import REQUEST_TIMEOUT

CHALLENGE_CARD = "4000003800000446"


@pytest.fixture
async def browser(sandbox: Sandbox) -> AsyncIterator[httpx.AsyncClient]:
    """A customer's browser: in-process, and with no API key."""
    async with httpx.AsyncClient(
        transport=httpx.ASGITransport(app=sandbox.app), base_url="http://sandbox.test"
    ) as http:
        yield http


async def challenged(raw: httpx.AsyncClient, **fields: Any) -> dict[str, Any]:
    """A payment waiting for its 3-D Secure challenge."""
    made = await raw.post("/payments", json=payment_body(CHALLENGE_CARD, **fields))
    payment: dict[str, Any] = made.json()
    assert payment["status"] == "requires_action", made.text
    return payment


def form_of(page: str) -> tuple[str, dict[str, str], list[str]]:
    """The page's form as a browser reads it: action, hidden fields, button values."""
    action = re.search(r'<form method="post" action="([^"]+)"', page)
    assert action is not None
    hidden = dict(re.findall(r'<input type="hidden" name="([^"]+)" value="([^"]*)"', page))
    buttons = re.findall(r'<button type="submit" name="result" value="([^"]+)"', page)
    return action.group(1), hidden, buttons


async def test_redirect_url_carries_the_client_secret(raw: httpx.AsyncClient) -> None:
    payment = await challenged(raw)
    url = urlsplit(payment["next_action"]["redirect_to_url"])
    assert url.path == f"/_sandbox/payments/{payment['payment_id']}/3ds"
    assert parse_qs(url.query) == {"client_secret": [payment["client_secret"]]}


async def test_browser_authorizes_and_returns_to_the_shop(
    raw: httpx.AsyncClient, browser: httpx.AsyncClient
) -> None:
    payment = await challenged(raw, return_url="https://shop.example/done?order=7")
    page = await browser.get(payment["next_action"]["redirect_to_url"])
    assert page.status_code == 200 and "text/html" in page.headers["content-type"]
    assert "<script" not in page.text and "https://" not in page.text.split("<main>")[0]
    assert "15.00 USD" in page.text and API_KEY not in page.text
    action, hidden, buttons = form_of(page.text)
    assert buttons == ["authorize", "fail", "abandon"]
    assert hidden == {"client_secret": payment["client_secret"]}
    done = await browser.post(action, data={**hidden, "result": "authorize"})
    assert done.status_code == 200 and "succeeded" in done.text
    refresh = re.search(r'http-equiv="refresh" content="\d+;url=([^"]+)"', done.text)
    assert refresh is not None
    back = urlsplit(refresh.group(1).replace("&amp;", "&"))
    assert (back.netloc, back.path) == ("shop.example", "/done")
    assert parse_qs(back.query) == {
        "order": ["7"],
        "payment_id": [payment["payment_id"]],
        "status": ["succeeded"],
    }
    stored = (await raw.get(f"/payments/{payment['payment_id']}")).json()
    assert stored["status"] == "succeeded"
    assert stored["attempts"][-1]["status"] == "charged"


@pytest.mark.parametrize(("result", "code"), [("fail", "UE_5001"), ("abandon", "UE_5003")])
async def test_browser_fails_or_abandons(
    raw: httpx.AsyncClient, browser: httpx.AsyncClient, result: str, code: str
) -> None:
    payment = await challenged(raw)
    action, hidden, _ = form_of((await browser.get(payment["next_action"]["redirect_to_url"])).text)
    done = await browser.post(action, data={**hidden, "result": result})
    assert done.status_code == 200 and "Not authenticated" in done.text
    assert "http-equiv" not in done.text  # no return_url: nowhere to go
    stored = (await raw.get(f"/payments/{payment['payment_id']}")).json()
    assert (stored["status"], stored["unified_code"]) == ("failed", code)


async def test_wrong_or_missing_client_secret_is_403(
    raw: httpx.AsyncClient, browser: httpx.AsyncClient
) -> None:
    payment = await challenged(raw)
    page_url = f"/_sandbox/payments/{payment['payment_id']}/3ds"
    for params in ({"client_secret": payment["client_secret"] + "x"}, {}):
        page = await browser.get(page_url, params=params)
        assert page.status_code == 403 and "not valid for this payment" in page.text
    other = await challenged(raw)
    answer = await browser.post(
        f"{page_url}/challenge", data={"client_secret": other["client_secret"]}
    )
    assert answer.status_code == 403 and payment["client_secret"] not in answer.text
    stored = (await raw.get(f"/payments/{payment['payment_id']}")).json()
    assert stored["status"] == "requires_action"


async def test_unknown_payment_is_404(browser: httpx.AsyncClient) -> None:
    page = await browser.get("/_sandbox/payments/pay_nope/3ds", params={"client_secret": "s"})
    assert page.status_code == 404 and "pay_nope" in page.text
    answer = await browser.post("/_sandbox/payments/pay_nope/3ds/challenge", data={})
    assert answer.status_code == 404


async def test_completed_challenge_is_a_clear_400(
    raw: httpx.AsyncClient, browser: httpx.AsyncClient
) -> None:
    payment = await challenged(raw)
    url = payment["next_action"]["redirect_to_url"]
    action, hidden, _ = form_of((await browser.get(url)).text)
    assert (await browser.post(action, data=hidden)).status_code == 200
    again = await browser.post(action, data={**hidden, "result": "fail"})
    assert again.status_code == 400 and "already over" in again.text and "succeeded" in again.text
    reopened = await browser.get(url)
    assert reopened.status_code == 400 and "already over" in reopened.text
    stored = (await raw.get(f"/payments/{payment['payment_id']}")).json()
    assert stored["status"] == "succeeded"


async def test_bad_result_is_400_and_changes_nothing(
    raw: httpx.AsyncClient, browser: httpx.AsyncClient
) -> None:
    payment = await challenged(raw)
    action, hidden, _ = form_of((await browser.get(payment["next_action"]["redirect_to_url"])).text)
    bad = await browser.post(action, data={**hidden, "result": "maybe"})
    assert bad.status_code == 400 and "authorize" in bad.text
    assert (await raw.get(f"/payments/{payment['payment_id']}")).json()["status"] == (
        "requires_action"
    )


async def test_secret_key_post_still_completes(raw: httpx.AsyncClient) -> None:
    payment = await challenged(raw)
    done = await raw.post(f"/_sandbox/payments/{payment['payment_id']}/3ds", json={})
    assert done.status_code == 200 and done.json()["status"] == "succeeded"


async def test_challenge_over_real_http(sandbox: Sandbox) -> None:
    url = await sandbox.start()
    async with httpx.AsyncClient(
        timeout=REQUEST_TIMEOUT, base_url=url, headers={"api-key": API_KEY}
    ) as api:
        payment = (
            await api.post("/payments", json=payment_body(CHALLENGE_CARD, capture_method="manual"))
        ).json()
    redirect = payment["next_action"]["redirect_to_url"]
    assert redirect.startswith(url)
    async with httpx.AsyncClient(timeout=REQUEST_TIMEOUT) as browser:
        page = await browser.get(redirect)
        assert page.status_code == 200
        action, hidden, _ = form_of(page.text)
        done = await browser.post(url + action, data={**hidden, "result": "authorize"})
        assert done.status_code == 200 and "requires_capture" in done.text
        wrong = await browser.post(url + action, data={"client_secret": "nope"})
        assert wrong.status_code == 403
        missing = await browser.get(f"{url}/_sandbox/payments/pay_missing/3ds")
        assert missing.status_code == 404
        again = await browser.post(url + action, data=hidden)
        assert again.status_code == 400 and "requires_capture" in again.text
