"""Every way to pay besides cards, over real HTTP: each family's flow and statuses, the
customer's page, settlement on the sandbox clock, test values, webhooks, and bad input."""

from __future__ import annotations

from typing import Any
from urllib.parse import urlsplit

import httpx
import pytest

from payscope.sandbox import method_types
from tests.sandbox.conftest import BILLING, envelope
from tests.waits import REQUEST_TIMEOUT

FLOW_STATUS = {
    method_types.SYNC: ("succeeded", None),
    method_types.REDIRECT: ("requires_action", "redirect_to_url"),
    method_types.QR: ("requires_action", "qr_code_information"),
    method_types.TRANSFER: ("requires_action", "display_bank_transfer_information"),
    method_types.VOUCHER: ("requires_action", "display_voucher_information"),
    method_types.DEBIT: ("processing", None),
    method_types.WAIT: ("requires_action", "wait_screen_information"),
}


def body_for(family: str, data: Any, **fields: Any) -> dict[str, Any]:
    """A one-step create paying with `{family: data}` ("reward" as the bare string)."""
    body: dict[str, Any] = {
        "amount": 2500,
        "currency": "EUR",
        "confirm": True,
        "payment_method": family,
        "payment_method_data": "reward" if family == "reward" else {family: data},
        "billing": BILLING,
        "return_url": "https://shop.example/done",
    }
    body.update(fields)
    return body


def example(family: str, type_: str) -> Any:
    return method_types.BY_TYPE[(family, type_)].example


async def pay(http: httpx.AsyncClient, family: str, data: Any, **fields: Any) -> dict[str, Any]:
    made = await http.post("/payments", json=body_for(family, data, **fields))
    assert made.status_code == 200, made.text
    payment: dict[str, Any] = made.json()
    return payment


async def advance(http: httpx.AsyncClient, seconds: float) -> None:
    moved = await http.post("/_sandbox/clock/advance", json={"seconds": seconds})
    assert moved.status_code == 200, moved.text


async def status_of(http: httpx.AsyncClient, payment_id: str) -> dict[str, Any]:
    got: dict[str, Any] = (await http.get(f"/payments/{payment_id}")).json()
    return got


async def events_of(http: httpx.AsyncClient, payment: dict[str, Any]) -> list[str]:
    listed = await http.post(
        f"/events/{payment['merchant_id']}", json={"object_id": payment["payment_id"]}
    )
    return [e["event_type"] for e in reversed(listed.json()["events"])]


async def test_every_type_answers_with_its_flow(live: httpx.AsyncClient) -> None:
    table = (await live.get("/_sandbox/test-methods")).json()["data"]
    assert len(table) == len(method_types.TYPES)
    families = {row["payment_method"] for row in table}
    assert families >= {
        "wallet",
        "bank_redirect",
        "bank_transfer",
        "bank_debit",
        "pay_later",
        "crypto",
        "upi",
        "voucher",
        "gift_card",
        "open_banking",
        "mobile_payment",
        "network_token",
        "reward",
    }
    for row in table:
        family, type_ = row["payment_method"], row["payment_method_type"]
        payment = await pay(
            live,
            family,
            row["payment_method_data"].get(family),
            payment_method_type=type_,
        )
        status, action = FLOW_STATUS[row["flow"]]
        label = f"{family}/{type_}"
        assert payment["status"] == status, label
        assert (payment["next_action"] or {}).get("type") == action, label
        assert (payment["payment_method"], payment["payment_method_type"]) == (family, type_)
        assert payment["payment_method_data"]["billing"] is None, label
        assert payment["connector_transaction_id"], label


@pytest.mark.parametrize(
    ("family", "type_", "result", "status", "code"),
    [
        ("bank_redirect", "ideal", "authorize", "succeeded", None),
        ("bank_redirect", "eps", "fail", "failed", "UE_1007"),
        ("pay_later", "klarna", "fail", "failed", "UE_2001"),
        ("pay_later", "affirm", "abandon", "failed", "UE_1017"),
        ("wallet", "paypal", "authorize", "succeeded", None),
        ("crypto", "crypto_currency", "authorize", "succeeded", None),
        ("reward", "classic", "authorize", "succeeded", None),
        ("open_banking", "open_banking_pis", "authorize", "succeeded", None),
    ],
)
async def test_the_customer_finishes_a_redirect_on_the_sandbox_page(
    live: httpx.AsyncClient, family: str, type_: str, result: str, status: str, code: str | None
) -> None:
    payment = await pay(live, family, example(family, type_), payment_method_type=type_)
    url = urlsplit(payment["next_action"]["redirect_to_url"])
    assert url.path == f"/_sandbox/payments/{payment['payment_id']}/redirect"
    async with httpx.AsyncClient(
        timeout=REQUEST_TIMEOUT, base_url=str(live.base_url)
    ) as browser:  # no api-key
        page = await browser.get(f"{url.path}?{url.query}")
        assert page.status_code == 200 and "<form" in page.text and "25.00 EUR" in page.text
        answer = await browser.post(
            f"{url.path}/answer",
            data={"client_secret": payment["client_secret"], "result": result},
        )
        assert answer.status_code == 200 and status in answer.text
        assert "https://shop.example/done?payment_id=" in answer.text
        again = await browser.get(f"{url.path}?{url.query}")
        assert again.status_code == 400 and "already over" in again.text
    done = await status_of(live, payment["payment_id"])
    assert (done["status"], done["unified_code"]) == (status, code)
    assert done["next_action"] is None
    final = "payment_succeeded" if status == "succeeded" else "payment_failed"
    assert await events_of(live, payment) == ["action_required", final]


async def test_a_page_link_needs_the_payments_own_secret(live: httpx.AsyncClient) -> None:
    payment = await pay(live, "bank_redirect", example("bank_redirect", "ideal"))
    path = f"/_sandbox/payments/{payment['payment_id']}/redirect"
    async with httpx.AsyncClient(timeout=REQUEST_TIMEOUT, base_url=str(live.base_url)) as browser:
        for secret in ("", "pay_x_secret_wrong"):
            page = await browser.get(path, params={"client_secret": secret})
            assert page.status_code == 403 and "not valid for this payment" in page.text
    card_challenge = await live.post(
        "/payments",
        json={
            "amount": 900,
            "currency": "USD",
            "confirm": True,
            "payment_method": "card",
            "payment_method_data": {
                "card": {
                    "card_number": "4000003800000446",
                    "card_exp_month": "12",
                    "card_exp_year": "2040",
                    "card_cvc": "123",
                }
            },
            "billing": BILLING,
        },
    )
    wrong = await live.post(f"/_sandbox/payments/{card_challenge.json()['payment_id']}/redirect")
    assert wrong.status_code == 400 and "/3ds" in envelope(wrong)["message"]


async def test_sofort_goes_processing_after_the_bank_then_settles(live: httpx.AsyncClient) -> None:
    payment = await pay(live, "bank_redirect", example("bank_redirect", "sofort"))
    done = await live.post(f"/_sandbox/payments/{payment['payment_id']}/redirect", json={})
    assert done.json()["status"] == "processing"
    await advance(live, method_types.DELAYED_REDIRECT_SECONDS + 1)
    assert (await status_of(live, payment["payment_id"]))["status"] == "succeeded"
    assert await events_of(live, payment) == [
        "action_required",
        "payment_processing",
        "payment_succeeded",
    ]


async def test_bank_transfer_shows_instructions_then_the_money_arrives(
    live: httpx.AsyncClient,
) -> None:
    payment = await pay(live, "bank_transfer", example("bank_transfer", "ach"), currency="USD")
    steps = payment["next_action"]["bank_transfer_steps_and_charges_details"]
    ach = steps["ach_credit_transfer"]
    assert set(ach) == {"account_number", "bank_name", "routing_number", "swift_code"}
    assert steps["receiver"] == {
        "amount_received": 0,
        "amount_charged": None,
        "amount_remaining": 2500,
    }
    await advance(live, method_types.SETTLE_AFTER[method_types.TRANSFER] - 60)
    assert (await status_of(live, payment["payment_id"]))["status"] == "requires_action"
    await advance(live, 120)
    arrived = await status_of(live, payment["payment_id"])
    assert (arrived["status"], arrived["amount_received"]) == ("succeeded", 2500)
    assert await events_of(live, payment) == ["action_required", "payment_succeeded"]
    sepa = await pay(live, "bank_transfer", example("bank_transfer", "sepa_bank_transfer"))
    instructions = sepa["next_action"]["bank_transfer_steps_and_charges_details"]
    assert set(instructions["sepa_bank_instructions"]) == {
        "account_holder_name",
        "bic",
        "country",
        "iban",
        "reference",
    }


@pytest.mark.parametrize(("family", "type_"), [("bank_transfer", "bacs"), ("voucher", "boleto")])
async def test_unpaid_instructions_lapse_with_the_expire_email(
    live: httpx.AsyncClient, family: str, type_: str
) -> None:
    payment = await pay(live, family, example(family, type_), email="ada+expire@example.com")
    await advance(live, method_types.SETTLE_AFTER[method_types.VOUCHER] + 60)
    assert (await status_of(live, payment["payment_id"]))["status"] == "requires_action"
    await advance(live, method_types.INSTRUCTIONS_LAPSE)
    lapsed = await status_of(live, payment["payment_id"])
    assert (lapsed["status"], lapsed["next_action"]) == ("expired", None)
    assert await events_of(live, payment) == ["action_required", "payment_expired"]


async def test_a_voucher_is_paid_on_the_clock_or_at_once_on_its_page(
    live: httpx.AsyncClient,
) -> None:
    boleto = await pay(live, "voucher", example("voucher", "boleto"), currency="BRL")
    details = boleto["next_action"]["voucher_details"]
    assert details["reference"] and details["download_url"].startswith("http")
    await advance(live, method_types.SETTLE_AFTER[method_types.VOUCHER] + 1)
    assert (await status_of(live, boleto["payment_id"]))["status"] == "succeeded"
    oxxo = await pay(live, "voucher", "oxxo", currency="MXN")
    assert oxxo["payment_method_type"] == "oxxo"
    paid = await live.post(
        f"/_sandbox/payments/{oxxo['payment_id']}/redirect", json={"result": "authorize"}
    )
    assert paid.json()["status"] == "succeeded"
    left = await pay(live, "voucher", "oxxo", currency="MXN")
    gave_up = await live.post(
        f"/_sandbox/payments/{left['payment_id']}/redirect", json={"result": "abandon"}
    )
    assert gave_up.json()["status"] == "expired"


@pytest.mark.parametrize(
    ("type_", "field", "value", "status", "code"),
    [
        ("ach", "account_number", "000123456789", "succeeded", None),
        ("ach", "account_number", "000111111116", "failed", "UE_1016"),
        ("ach", "account_number", "000222222227", "failed", "UE_1001"),
        ("sepa", "iban", "DE35370400440532013002", "failed", "UE_1016"),
        ("bacs", "account_number", "90012345", "failed", "UE_1001"),
        ("becs", "account_number", "000123456", "succeeded", None),
    ],
)
async def test_bank_debits_process_then_settle_by_the_account(
    live: httpx.AsyncClient, type_: str, field: str, value: str, status: str, code: str | None
) -> None:
    data = example("bank_debit", type_)
    variant = next(iter(data))
    sent = {variant: {**data[variant], field: value}}
    payment = await pay(live, "bank_debit", sent, currency="USD")
    assert payment["status"] == "processing"
    shown = payment["payment_method_data"]["bank_debit"][variant][field]
    assert shown.endswith(value[-4:]) and value not in str(payment)
    await advance(live, method_types.SETTLE_AFTER[method_types.DEBIT] + 1)
    settled = await status_of(live, payment["payment_id"])
    assert (settled["status"], settled["unified_code"]) == (status, code)
    final = "payment_succeeded" if status == "succeeded" else "payment_failed"
    assert await events_of(live, payment) == ["payment_processing", final]


@pytest.mark.parametrize(
    ("vpa", "status", "code"),
    [("success@upi", "succeeded", None), ("failure@upi", "failed", "UE_1017")],
)
async def test_upi_collect_waits_for_the_app(
    live: httpx.AsyncClient, vpa: str, status: str, code: str | None
) -> None:
    payment = await pay(live, "upi", {"upi_collect": {"vpa_id": vpa}}, currency="INR")
    action = payment["next_action"]
    assert action["display_to_timestamp"] > action["display_from_timestamp"]
    await advance(live, method_types.SETTLE_AFTER[method_types.WAIT] + 1)
    done = await status_of(live, payment["payment_id"])
    assert (done["status"], done["unified_code"]) == (status, code)


@pytest.mark.parametrize(
    ("family", "type_", "path", "value", "status", "code"),
    [
        (
            "wallet",
            "apple_pay",
            ("apple_pay", "payment_data"),
            "sandbox_decline",
            "failed",
            "UE_1007",
        ),
        (
            "wallet",
            "google_pay",
            ("google_pay", "tokenization_data", "token"),
            "sandbox_insufficient_funds",
            "failed",
            "UE_1001",
        ),
        (
            "wallet",
            "google_pay",
            ("google_pay", "tokenization_data", "token"),
            "anything",
            "succeeded",
            None,
        ),
        ("gift_card", "givex", ("givex", "number"), "6036280000000000001", "failed", "UE_1001"),
        ("gift_card", "givex", ("givex", "number"), "6036280000000000002", "failed", "UE_1014"),
        (
            "network_token",
            "network_token",
            ("network_token",),
            "4000000000000002",
            "failed",
            "UE_1007",
        ),
    ],
)
async def test_sync_methods_answer_by_test_value(
    live: httpx.AsyncClient,
    family: str,
    type_: str,
    path: tuple[str, ...],
    value: str,
    status: str,
    code: str | None,
) -> None:
    data = _deep_copy(example(family, type_))
    target = data
    for key in path[:-1]:
        target = target[key]
    target[path[-1]] = value
    payment = await pay(live, family, data, currency="USD")
    assert (payment["status"], payment["unified_code"]) == (status, code)
    assert value not in str(payment["payment_method_data"])  # tokens and numbers are masked


def _deep_copy(value: Any) -> Any:
    if isinstance(value, dict):
        return {k: _deep_copy(v) for k, v in value.items()}
    return value


async def test_manual_capture_for_redirects_but_not_for_async_methods(
    live: httpx.AsyncClient,
) -> None:
    klarna = await pay(
        live, "pay_later", example("pay_later", "klarna"), capture_method="manual", currency="USD"
    )
    held = await live.post(f"/_sandbox/payments/{klarna['payment_id']}/redirect", json={})
    assert held.json()["status"] == "requires_capture"
    captured = await live.post(f"/payments/{klarna['payment_id']}/capture", json={})
    assert captured.json()["status"] == "succeeded"
    refused = await live.post(
        "/payments",
        json=body_for(
            "bank_debit",
            example("bank_debit", "ach"),
            capture_method="manual",
            payment_id="pay_manual_ach",
        ),
    )
    assert refused.status_code == 400
    assert "nothing to capture later" in envelope(refused)["message"]
    assert (await live.get("/payments/pay_manual_ach")).status_code == 404


async def test_two_step_confirm_with_a_method_and_a_refund_after(live: httpx.AsyncClient) -> None:
    draft = (
        await live.post("/payments", json={"amount": 1000, "currency": "EUR", "confirm": False})
    ).json()
    confirmed = await live.post(
        f"/payments/{draft['payment_id']}/confirm",
        json={
            "payment_method": "bank_redirect",
            "payment_method_type": "giropay",
            "payment_method_data": {"bank_redirect": {"giropay": {"country": "DE"}}},
            "billing": BILLING,
        },
    )
    assert confirmed.json()["status"] == "requires_action"
    await live.post(f"/_sandbox/payments/{draft['payment_id']}/redirect", json={})
    refund = await live.post("/refunds", json={"payment_id": draft["payment_id"], "amount": 400})
    assert refund.status_code == 200, refund.text


async def test_a_debit_mandate_charges_again_off_session(live: httpx.AsyncClient) -> None:
    cus = (await live.post("/customers", json={"name": "Ada"})).json()["customer_id"]
    setup = await pay(
        live,
        "bank_debit",
        example("bank_debit", "ach"),
        currency="USD",
        customer_id=cus,
        setup_future_usage="off_session",
        customer_acceptance={"acceptance_type": "offline"},
        mandate_data={"mandate_type": {"multi_use": {"amount": 9000, "currency": "USD"}}},
    )
    # setting up the mandate: the customer verifies the account first, then it processes
    assert setup["status"] == "requires_action" and setup["mandate_id"] is None
    assert setup["next_action"]["type"] == "redirect_to_url"
    verified = await live.post(f"/_sandbox/payments/{setup['payment_id']}/redirect", json={})
    assert verified.json()["status"] == "processing"
    await advance(live, method_types.SETTLE_AFTER[method_types.DEBIT] + 1)
    settled = await status_of(live, setup["payment_id"])
    mandate_id = settled["mandate_id"]
    assert settled["status"] == "succeeded" and mandate_id
    mandate = (await live.get(f"/mandates/{mandate_id}")).json()
    assert (mandate["payment_method"], mandate["payment_method_type"]) == ("bank_debit", "ach")
    again = await live.post(
        "/payments",
        json={
            "amount": 3000,
            "currency": "USD",
            "confirm": True,
            "customer_id": cus,
            "mandate_id": mandate_id,
            "off_session": True,
        },
    )
    assert again.json()["status"] == "processing"  # off session: no verification again
    assert again.json()["payment_method"] == "bank_debit"
    await advance(live, method_types.SETTLE_AFTER[method_types.DEBIT] + 1)
    assert (await status_of(live, again.json()["payment_id"]))["status"] == "succeeded"
    assert await events_of(live, setup) == [
        "action_required",
        "payment_processing",
        "payment_succeeded",
    ]


@pytest.mark.parametrize(
    ("fields", "code", "words"),
    [
        ({"payment_method_data": {"cheque": {}}}, "IR_04", "one of the families"),
        (
            {"payment_method_data": {"bank_redirect": {"swift_wire": {}}}},
            "IR_04",
            "ideal",
        ),
        (
            {
                "payment_method": "pay_later",
                "payment_method_data": {"bank_redirect": {"ideal": {}}},
            },
            "IR_04",
            "holds bank_redirect data",
        ),
        (
            {
                "payment_method": "bank_redirect",
                "payment_method_type": "eps",
                "payment_method_data": {"bank_redirect": {"ideal": {}}},
            },
            "IR_04",
            "'ideal', the type of the data sent",
        ),
        (
            {
                "payment_method": "bank_debit",
                "payment_method_data": {"bank_debit": {"ach_bank_debit": {"routing_number": "1"}}},
            },
            "IR_01",
            "payment_method_data.bank_debit.ach_bank_debit.account_number",
        ),
        (
            {
                "payment_method": "wallet",
                "payment_method_data": {"wallet": {"paypal_redirect": {}}, "crypto": {}},
            },
            "IR_04",
            "one family per payment",
        ),
        (
            {
                "payment_method": "wallet",
                "payment_method_data": {
                    "card": {
                        "card_number": "4242424242424242",
                        "card_exp_month": "12",
                        "card_exp_year": "2040",
                    }
                },
            },
            "IR_04",
            "holds a card",
        ),
        (
            {"payment_method": "wallet", "payment_method_data": {"wallet": {"a": {}, "b": {}}}},
            "IR_04",
            "exactly one of",
        ),
        (
            {"payment_method": "wallet", "payment_method_data": {}},
            "IR_01",
            "holds no payment method",
        ),
    ],
)
async def test_bad_method_data_is_refused_and_nothing_is_made(
    live: httpx.AsyncClient, fields: dict[str, Any], code: str, words: str
) -> None:
    body = {
        "amount": 1000,
        "currency": "EUR",
        "confirm": True,
        "payment_method": "bank_redirect",
        "billing": BILLING,
        "payment_id": "pay_refused",
        **fields,
    }
    answer = await live.post("/payments", json=body)
    assert answer.status_code == 400, answer.text
    error = envelope(answer)
    assert error["code"] == code and words in error["message"], error
    assert (await live.get("/payments/pay_refused")).status_code == 404
    assert "4242424242424242" not in answer.text
