"""Payment links in the real service's shapes (real-service-differences.md): a link is made by
`POST /payments` with `payment_link: true`, answered with `payment_link {link, secure_link,
payment_link_id}`; the link record has no payment; lists of links are bare arrays. A scripted
service on a loopback port answers with those shapes."""

from __future__ import annotations

from typing import Any

from payscope.api.models.links import PaymentLinkCreateRequest, PaymentLinkListResponse
from tests.api.conftest import ClientFactory, Recorded, Reply, ScriptedApp

LINK_ID = "plink_4eF9kS2mQ8wZ1xV7cB3n"
PAYMENT_ANSWER: dict[str, Any] = {
    "payment_id": "pay_Lk7Rt2Yp9Qw3Zx5Cv8Bn",
    "merchant_id": "merchant_1714564800",
    "status": "requires_payment_method",
    "amount": 4200,
    "currency": "EUR",
    "description": "Workshop seat",
    "created": "2024-05-01T12:00:00.000Z",
    "expires_on": "2024-05-01T13:00:00.000Z",
    "client_secret": "pay_Lk7Rt2Yp9Qw3Zx5Cv8Bn_secret_x",
    "payment_link": {
        "link": f"https://sandbox.example/payment_link/merchant_1714564800/{LINK_ID}",
        "secure_link": None,
        "payment_link_id": LINK_ID,
    },
}
# RetrievePaymentLinkResponse: no payment id, no payment status.
RETRIEVED: dict[str, Any] = {
    "payment_link_id": LINK_ID,
    "merchant_id": "merchant_1714564800",
    "link_to_pay": PAYMENT_ANSWER["payment_link"]["link"],
    "amount": 4200,
    "currency": "EUR",
    "created_at": "2024-05-01T12:00:00.000Z",
    "expiry": "2024-05-01T13:00:00.000Z",
    "description": "Workshop seat",
    "status": "active",
    "secure_link": None,
}


def _request() -> PaymentLinkCreateRequest:
    return PaymentLinkCreateRequest.model_validate(
        {
            "amount": 4200,
            "currency": "EUR",
            "description": "Workshop seat",
            "expiry": "2024-05-01T13:00:00Z",
            "link_type": "one_time",
            "return_url": "https://shop.example/thanks",
            "payment_link_config": {"seller_name": "Demo Shop", "sdk_layout": "accordion"},
        }
    )


def test_the_payment_body_has_only_what_a_payment_takes() -> None:
    body = _request().payment_body(session_expiry=3600)
    assert body == {
        "amount": 4200,
        "currency": "EUR",
        "description": "Workshop seat",
        "return_url": "https://shop.example/thanks",
        "payment_link_config": {"seller_name": "Demo Shop", "sdk_layout": "accordion"},
        "payment_link": True,
        "session_expiry": 3600,
    }


async def test_create_through_a_payment_reads_the_link_back(
    app: tuple[ScriptedApp, str], make_client: ClientFactory
) -> None:
    scripted, url = app
    scripted.script("POST", "/payments", Reply(200, PAYMENT_ANSWER))
    scripted.script("GET", f"/payment_link/{LINK_ID}", Reply(200, RETRIEVED))
    client = make_client(url, profile_id="pro_real0000000000000001")

    link = await client.payment_links.create_with_payment(_request(), session_expiry=3600)

    sent: Recorded = scripted.seen("POST", "/payments")[0]
    assert sent.json["payment_link"] is True and sent.json["session_expiry"] == 3600
    assert sent.json["profile_id"] == "pro_real0000000000000001"
    assert "expiry" not in sent.json and "link_type" not in sent.json
    assert not scripted.seen("POST", "/payment_link")
    # The record as the service reads it, with the payment its answer named.
    assert link.payment_link_id == LINK_ID and link.expiry == RETRIEVED["expiry"]
    assert link.link_to_pay == PAYMENT_ANSWER["payment_link"]["link"]
    assert (link.payment_id, link.payment_status) == (
        PAYMENT_ANSWER["payment_id"],
        "requires_payment_method",
    )
    assert link.state == "active"


async def test_a_link_not_readable_yet_is_what_the_payment_said(
    app: tuple[ScriptedApp, str], make_client: ClientFactory
) -> None:
    scripted, url = app
    scripted.script("POST", "/payments", Reply(200, PAYMENT_ANSWER))
    scripted.script(
        "GET",
        f"/payment_link/{LINK_ID}",
        Reply(404, {"error": {"type": "invalid_request", "code": "HE_02", "message": "no"}}),
    )
    client = make_client(url, profile_id="pro_real0000000000000001", max_attempts=1)
    link = await client.payment_links.create_with_payment(_request())
    assert (link.payment_link_id, link.amount, link.currency) == (LINK_ID, 4200, "EUR")
    assert link.expiry == PAYMENT_ANSWER["expires_on"] and link.state == "active"


async def test_a_bare_array_of_links_is_a_list(
    app: tuple[ScriptedApp, str], make_client: ClientFactory
) -> None:
    scripted, url = app
    expired = {**RETRIEVED, "payment_link_id": "plink_Old0000000000000000", "status": "expired"}
    scripted.script("POST", "/payment_link/list", Reply(200, [RETRIEVED, expired]))
    client = make_client(url)
    page = await client.payment_links.list()
    assert isinstance(page, PaymentLinkListResponse) and page.total_count is None
    assert [(x.payment_link_id, x.state) for x in page.data] == [
        (LINK_ID, "active"),
        ("plink_Old0000000000000000", "expired"),
    ]
