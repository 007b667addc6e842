"""States of the real service that the spec leaves room for, reached with test cards and a
control: a payment `processing` for a while, a partial authorisation
(`partially_authorized_and_requires_capture`), a refund held for `review`, a payout found
`ineligible`. Each is listed in `/_sandbox/test-cards` with what it does."""

from __future__ import annotations

import asyncio
from typing import Any

import httpx
import pytest

from payscope.api import ApiClient
from payscope.api.errors import InvalidRequestError
from payscope.api.models.payments import Payment, PaymentStatus
from payscope.api.models.refunds import Refund, RefundStatus
from payscope.sandbox import cards
from payscope.sandbox.server import Sandbox
from tests.sandbox.conftest import WEBHOOK_SECRET, Receiver, payment_body
from tests.waits import until

PROCESSING = "4000000000000077"
PARTIAL = "4000000000000127"
REFUND_REVIEW = "4000000000000168"
PAYOUT_INELIGIBLE = "4000000000800005"


async def advance(raw: httpx.AsyncClient, seconds: float) -> None:
    answer = await raw.post("/_sandbox/clock/advance", json={"seconds": seconds})
    assert answer.status_code == 200, answer.text


async def delivered(receiver: Receiver, event_type: str) -> list[dict[str, Any]]:
    """The objects of the deliveries of `event_type`, once at least one arrived."""
    found: list[dict[str, Any]] = await until(
        lambda: [e for e in receiver.events() if e["event_type"] == event_type],
        f"a {event_type} delivered",
    )
    return [e["content"]["object"] for e in found]


async def test_the_cards_are_listed_with_what_they_do(raw: httpx.AsyncClient) -> None:
    table = {c["card_number"]: c for c in (await raw.get("/_sandbox/test-cards")).json()["data"]}
    for number, outcome, words in (
        (PROCESSING, cards.PROCESSING, "processing"),
        (PARTIAL, cards.PARTIAL, "partially_authorized_and_requires_capture"),
        (REFUND_REVIEW, cards.REFUND_REVIEW, "/_sandbox/refunds/{id}/review"),
        (PAYOUT_INELIGIBLE, cards.PAYOUT_INELIGIBLE, "ineligible"),
    ):
        assert table[number]["outcome"] == outcome
        assert words in table[number]["description"]
        assert cards.luhn_ok(number)


async def test_processing_then_succeeded_on_the_clock(
    sandbox: Sandbox, raw: httpx.AsyncClient, receiver: Receiver
) -> None:
    sandbox.set_webhook(receiver.url, WEBHOOK_SECRET)
    made = (await raw.post("/payments", json=payment_body(PROCESSING))).json()
    pid = made["payment_id"]
    assert (made["status"], made["amount_received"], made["attempt_count"]) == ("processing", 0, 1)
    assert Payment.model_validate(made).status_enum is PaymentStatus.PROCESSING
    assert (await delivered(receiver, "payment_processing"))[0]["status"] == "processing"
    # Neither cancel nor capture while the processor has it.
    for action in ("cancel", "capture"):
        refused = await raw.post(f"/payments/{pid}/{action}", json={})
        assert refused.status_code == 400, (action, refused.text)
    upcoming = (
        await raw.get("/_sandbox/clock/upcoming", params={"seconds": cards.PROCESSING_SECONDS})
    ).json()
    assert [(i["kind"], i["object_id"]) for i in upcoming["items"]] == [("payment_settles", pid)]
    await advance(raw, cards.PROCESSING_SECONDS - 1)
    assert (await raw.get(f"/payments/{pid}")).json()["status"] == "processing"
    await advance(raw, 1)
    done = (await raw.get(f"/payments/{pid}")).json()
    assert (done["status"], done["amount_received"]) == ("succeeded", 1500)
    assert [a["status"] for a in done["attempts"]] == ["charged"]
    assert (await delivered(receiver, "payment_succeeded"))[0]["status"] == "succeeded"

    # With manual capture it ends authorised, to be captured as usual.
    manual = (
        await raw.post("/payments", json=payment_body(PROCESSING, capture_method="manual"))
    ).json()
    await advance(raw, cards.PROCESSING_SECONDS)
    held = (await raw.get(f"/payments/{manual['payment_id']}")).json()
    assert (held["status"], held["amount_capturable"]) == ("requires_capture", 1500)
    captured = await raw.post(f"/payments/{manual['payment_id']}/capture", json={})
    assert captured.json()["status"] == "succeeded"


async def test_partial_authorisation(
    sandbox: Sandbox, raw: httpx.AsyncClient, receiver: Receiver
) -> None:
    sandbox.set_webhook(receiver.url, WEBHOOK_SECRET)
    # Without enable_partial_authorization the issuer's smaller approval is a decline.
    declined = (await raw.post("/payments", json=payment_body(PARTIAL))).json()
    assert (declined["status"], declined["unified_code"]) == ("failed", "UE_1001")

    body = payment_body(PARTIAL, amount=1001, enable_partial_authorization=True)
    made = (await raw.post("/payments", json=body)).json()
    pid = made["payment_id"]
    assert made["status"] == "partially_authorized_and_requires_capture"
    assert (made["amount"], made["amount_capturable"], made["amount_received"]) == (1001, 500, 0)
    assert made["enable_partial_authorization"] is True
    assert (
        Payment.model_validate(made).status_enum
        is PaymentStatus.PARTIALLY_AUTHORIZED_AND_REQUIRES_CAPTURE
    )
    sent = await delivered(receiver, "payment_authorized")
    assert sent[0]["status"] == "partially_authorized_and_requires_capture"
    attempts = (await raw.get(f"/payments/{pid}")).json()["attempts"]
    assert [a["status"] for a in attempts] == ["partially_authorized"]
    # Capture: up to what was approved; taking it all leaves the payment partially captured.
    over = await raw.post(f"/payments/{pid}/capture", json={"amount_to_capture": 501})
    assert over.status_code == 400 and "amount_capturable" in over.text
    captured = (await raw.post(f"/payments/{pid}/capture", json={})).json()
    assert (captured["status"], captured["amount_received"], captured["amount_capturable"]) == (
        "partially_captured",
        500,
        0,
    )
    refund = (await raw.post("/refunds", json={"payment_id": pid})).json()
    assert refund["amount"] == 500

    # Or let it go: cancel, or leave it to expire like any authorisation.
    again = (await raw.post("/payments", json=body)).json()
    cancelled = (await raw.post(f"/payments/{again['payment_id']}/cancel", json={})).json()
    assert cancelled["status"] == "cancelled"
    left = (await raw.post("/payments", json=body)).json()
    await advance(raw, 7 * 86400 + 1)
    expired = (await raw.get(f"/payments/{left['payment_id']}")).json()
    assert (expired["status"], expired["amount_capturable"]) == ("expired", 0)

    # Allowed by an update before confirmation too (the two-step flow).
    two_step = (
        await raw.post(
            "/payments",
            json=payment_body(PARTIAL, confirm=False, capture_method="manual"),
        )
    ).json()
    await raw.post(
        f"/payments/{two_step['payment_id']}", json={"enable_partial_authorization": True}
    )
    confirmed = (await raw.post(f"/payments/{two_step['payment_id']}/confirm", json={})).json()
    assert confirmed["status"] == "partially_authorized_and_requires_capture"


async def test_refund_held_for_review(
    sandbox: Sandbox, raw: httpx.AsyncClient, receiver: Receiver
) -> None:
    sandbox.set_webhook(receiver.url, WEBHOOK_SECRET)
    paid = (await raw.post("/payments", json=payment_body(REFUND_REVIEW))).json()
    assert paid["status"] == "succeeded"
    pid = paid["payment_id"]
    first = (await raw.post("/refunds", json={"payment_id": pid, "amount": 500})).json()
    second = (await raw.post("/refunds", json={"payment_id": pid, "amount": 400})).json()
    early = await raw.post(f"/_sandbox/refunds/{first['refund_id']}/review", json={})
    assert early.status_code == 400  # no outcome given
    await advance(raw, 11)
    held = (await raw.get(f"/refunds/{first['refund_id']}")).json()
    assert held["status"] == "review"
    assert Refund.model_validate(held).status_enum is RefundStatus.REVIEW
    # Held money still counts: only 600 of 1500 is left to refund.
    over = await raw.post("/refunds", json={"payment_id": pid, "amount": 601})
    assert over.status_code == 400
    # No event while in review.
    await asyncio.sleep(0.05)
    assert not [e for e in receiver.events() if e["event_type"].startswith("refund_")]

    decided = await raw.post(
        f"/_sandbox/refunds/{first['refund_id']}/review", json={"outcome": "succeeded"}
    )
    assert decided.status_code == 200 and decided.json()["status"] == "succeeded"
    assert (await delivered(receiver, "refund_succeeded"))[0]["status"] == "succeeded"
    refused = (
        await raw.post(
            f"/_sandbox/refunds/{second['refund_id']}/review", json={"outcome": "failed"}
        )
    ).json()
    assert (refused["status"], refused["error_code"]) == ("failed", "refund_failed")
    assert (await delivered(receiver, "refund_failed"))[0]["status"] == "failed"
    twice = await raw.post(
        f"/_sandbox/refunds/{second['refund_id']}/review", json={"outcome": "succeeded"}
    )
    assert twice.status_code == 400 and "review" in twice.json()["error"]["message"]
    wrong = await raw.post(
        f"/_sandbox/refunds/{first['refund_id']}/review", json={"outcome": "maybe"}
    )
    assert wrong.status_code == 400 and wrong.json()["error"]["code"] == "IR_04"
    assert (
        await raw.post("/_sandbox/refunds/ref_nope/review", json={"outcome": "failed"})
    ).status_code == 404


async def test_review_through_the_client(client: ApiClient, raw: httpx.AsyncClient) -> None:
    paid = (await raw.post("/payments", json=payment_body(REFUND_REVIEW))).json()
    refund = (await raw.post("/refunds", json={"payment_id": paid["payment_id"]})).json()
    await advance(raw, 11)
    decided = await client.sandbox.review_refund(refund["refund_id"], "succeeded")
    assert decided.status_enum is RefundStatus.SUCCEEDED
    with pytest.raises(InvalidRequestError):
        await client.sandbox.review_refund(refund["refund_id"], "failed")


async def test_payout_to_the_ineligible_card(raw: httpx.AsyncClient) -> None:
    made = (
        await raw.post(
            "/payouts/create",
            json={
                "amount": 1000,
                "currency": "USD",
                "payout_type": "card",
                "confirm": True,
                "payout_method_data": {
                    "card": {
                        "card_number": PAYOUT_INELIGIBLE,
                        "expiry_month": "10",
                        "expiry_year": "2035",
                        "card_holder_name": "Ada Lovelace",
                    }
                },
            },
        )
    ).json()
    assert (made["status"], made["error_code"]) == ("ineligible", "account_ineligible")
    assert made["payout_method_data"]["card"]["last4"] == "0005"  # the real card shape
