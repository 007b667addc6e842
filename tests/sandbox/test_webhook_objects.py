"""Every webhook carries its object as the API returns it right after the change.

One run sends every event type the sandbox can send (the set is read from the resource
modules, so a new event type fails here until it is covered). For each delivery received by a
real HTTP endpoint, the object is read back with GET at once and compared with
`content.object`: equal, field for field. Allowed differences: what GET adds around the object
(a payment's `attempts`, `refunds`, `disputes`), and a `client_secret` that a payout or
subscription webhook leaves out.
"""

from __future__ import annotations

import asyncio
from typing import Any

import httpx

from payscope.sandbox.resources.disputes.engine import EDGES as DISPUTE_EDGES
from payscope.sandbox.resources.disputes.engine import OPENED as DISPUTE_OPENED
from payscope.sandbox.resources.payments import engine as payments
from payscope.sandbox.resources.payouts import engine as payouts
from payscope.sandbox.server import Sandbox
from tests.sandbox.conftest import WEBHOOK_SECRET, Receiver, payment_body
from tests.waits import until

# content.type -> (id field of the object, the GET path for it)
READ_BACK = {
    "payment_details": ("payment_id", "/payments/{}"),
    "refund_details": ("refund_id", "/refunds/{}"),
    "dispute_details": ("dispute_id", "/disputes/{}"),
    "payout_details": ("payout_id", "/payouts/{}"),
    "subscription_details": ("id", "/subscriptions/{}"),
    "mandate_details": ("mandate_id", "/mandates/{}"),
}
# What GET adds around a payment (the webhook carries the payment itself).
AROUND = ("attempts", "refunds", "disputes")
PAYOUT_CARD = {
    "card": {
        "card_number": "4242424242424242",
        "expiry_month": "10",
        "expiry_year": "2035",
        "card_holder_name": "Ada Lovelace",
    }
}
SUB_CARD = {
    "card_number": "4242424242424242",
    "card_exp_month": "12",
    "card_exp_year": "2040",
    "card_holder_name": "Ada Lovelace",
    "card_cvc": "123",
}


def sent_by_the_sandbox() -> set[str]:
    """Every event type a resource module can emit."""
    dispute_events = {DISPUTE_OPENED} | {to for outs in DISPUTE_EDGES.values() for to in outs}
    return (
        set(payments.STATUS_EVENTS.values())
        | {"refund_succeeded", "refund_failed"}
        | dispute_events
        | set(payouts.EVENTS.values())
        | {"invoice_paid"}
    )


class Checker:
    """Reads each new delivery's object back and compares it."""

    def __init__(self, raw: httpx.AsyncClient, receiver: Receiver, sandbox: Sandbox) -> None:
        self.raw = raw
        self.receiver = receiver
        self.merchant_id = sandbox.credentials.merchant_id
        self.headers = {"X-Profile-Id": sandbox.credentials.profile_id}
        self.done = 0
        self.checked: dict[str, int] = {}

    async def settle(self, *expected: str) -> None:
        """Wait until `expected` event types arrived, then check every new delivery."""
        seen: set[str] = set()

        def arrived() -> bool:
            seen.update(e["event_type"] for e in self.receiver.events()[self.done :])
            return set(expected) <= seen

        await until(arrived, f"a delivery of {expected}", detail=lambda: f"got {sorted(seen)}")
        # Deliveries run concurrently: wait until every event written so far has arrived, so
        # each is compared before the next change of its object.
        for _ in range(500):
            listed = await self.raw.post(f"/events/{self.merchant_id}", json={"limit": 1})
            arrived = {e["event_id"] for e in self.receiver.events()}
            if len(arrived) >= listed.json()["total_count"]:
                break
            await asyncio.sleep(0.01)
        events = self.receiver.events()
        for event in events[self.done :]:
            await self.check(event)
        self.done = len(events)

    async def check(self, event: dict[str, Any]) -> None:
        content = event["content"]
        sent: dict[str, Any] = dict(content["object"])
        id_field, path = READ_BACK[content["type"]]
        response = await self.raw.get(path.format(sent[id_field]), headers=self.headers)
        assert response.status_code == 200, response.text
        got: dict[str, Any] = response.json()
        if content["type"] == "payment_details":
            got = {k: v for k, v in got.items() if k not in AROUND}
        if sent.get("client_secret") is None:
            sent.pop("client_secret", None)
            got.pop("client_secret", None)
        differ = sorted(k for k in sent.keys() | got.keys() if sent.get(k) != got.get(k))
        assert not differ, (
            f"{event['event_type']} for {sent[id_field]}: the webhook and GET differ in "
            + ", ".join(f"{k} (webhook {sent.get(k)!r}, GET {got.get(k)!r})" for k in differ)
        )
        self.checked[event["event_type"]] = self.checked.get(event["event_type"], 0) + 1


async def test_every_event_carries_the_object_as_get_returns_it(
    sandbox: Sandbox, raw: httpx.AsyncClient, receiver: Receiver
) -> None:
    sandbox.set_webhook(receiver.url, WEBHOOK_SECRET)
    check = Checker(raw, receiver, sandbox)

    async def pay(number: str = "4242424242424242", **fields: Any) -> dict[str, Any]:
        answer = await raw.post("/payments", json=payment_body(number, **fields))
        assert answer.status_code == 200, answer.text
        made: dict[str, Any] = answer.json()
        return made

    async def post(path: str, body: Any = None) -> dict[str, Any]:
        answer = await raw.post(path, json=body if body is not None else {})
        assert answer.status_code == 200, answer.text
        made: dict[str, Any] = answer.json()
        return made

    async def advance(seconds: float) -> None:
        await post("/_sandbox/clock/advance", {"seconds": seconds})

    # Payments: every status that has an event.
    paid = await pay()
    await pay("4000000000000002")
    challenged = await pay("4000003800000446")
    await check.settle("payment_succeeded", "payment_failed", "action_required")
    await post(f"/payments/{challenged['payment_id']}/cancel")
    held = await pay(capture_method="manual")
    multiple = await pay(capture_method="manual_multiple")
    await check.settle("payment_cancelled", "payment_authorized")
    await post(f"/payments/{multiple['payment_id']}/capture", {"amount_to_capture": 500})
    processing = await pay("4000000000000077")
    partial = await pay("4000000000000127", enable_partial_authorization=True)
    assert partial["status"] == "partially_authorized_and_requires_capture"
    await check.settle("payment_captured", "payment_processing")
    await advance(61)  # the processing payment settles: payment_succeeded from the clock job
    await check.settle("payment_succeeded")
    assert (await raw.get(f"/payments/{processing['payment_id']}")).json()["status"] == "succeeded"

    # Refunds: succeeded, failed.
    await post("/refunds", {"payment_id": paid["payment_id"], "amount": 100})
    refused = await pay("4000000000005126")
    await post("/refunds", {"payment_id": refused["payment_id"]})
    await advance(30)
    await check.settle("refund_succeeded", "refund_failed")

    # Disputes: opened, challenged, won, lost, accepted (expired comes with the long advance).
    opened = []
    for _ in range(4):
        payment = await pay()
        opened.append(await post("/_sandbox/disputes", {"payment_id": payment["payment_id"]}))
    await check.settle("dispute_opened")
    won, lost, accepted, _expiring = (d["dispute_id"] for d in opened)
    await post("/disputes/evidence", {"dispute_id": won, "customer_name": "Ada"})
    await check.settle("dispute_challenged")
    await post(f"/_sandbox/disputes/{won}/resolve", {"outcome": "won"})
    await post(f"/_sandbox/disputes/{lost}/resolve", {"outcome": "lost"})
    await post(f"/disputes/accept/{accepted}")
    await check.settle("dispute_won", "dispute_lost", "dispute_accepted")

    # Payouts: initiated, success, failed, cancelled, reversed, expired.
    made = await post(
        "/payouts/create",
        {
            "amount": 1000,
            "currency": "USD",
            "payout_type": "card",
            "payout_method_data": PAYOUT_CARD,
            "confirm": True,
            "auto_fulfill": True,
        },
    )
    closed = {**PAYOUT_CARD, "card": {**PAYOUT_CARD["card"], "card_number": "4000000000000002"}}
    await post(
        "/payouts/create",
        {
            "amount": 700,
            "currency": "USD",
            "payout_type": "card",
            "payout_method_data": closed,
            "confirm": True,
            "auto_fulfill": True,
        },
    )
    cancelled = await post(
        "/payouts/create",
        {
            "amount": 500,
            "currency": "USD",
            "payout_type": "card",
            "payout_method_data": PAYOUT_CARD,
        },
    )
    await post(f"/payouts/{cancelled['payout_id']}/cancel")
    await post("/payouts/create", {"amount": 300, "currency": "EUR", "payout_link": True})
    await check.settle("payout_initiated", "payout_cancelled")
    await advance(3601)  # settles both, expires the unused payout link
    await check.settle("payout_success", "payout_failed", "payout_expired")
    await post(f"/_sandbox/payouts/{made['payout_id']}/reverse")
    await check.settle("payout_reversed")

    # Subscriptions: invoice_paid (and mandate_active: the first charge sets up the mandate).
    customer = await post("/customers", {"name": "Ada", "email": "ada@example.com"})
    subscription = await raw.post(
        "/subscriptions",
        headers=check.headers,
        json={
            "customer_id": customer["customer_id"],
            "item_price_id": "price_basic_monthly",
            "payment_details": {
                "payment_method": "card",
                "payment_method_data": {"card": SUB_CARD},
                "customer_acceptance": {
                    "acceptance_type": "online",
                    "online": {"ip_address": "127.0.0.1", "user_agent": "pytest"},
                },
            },
        },
    )
    assert subscription.status_code == 200, subscription.text
    await check.settle("invoice_paid", "mandate_active")

    # A week on: authorisations expire (the manual and the partial one), so does the dispute
    # nobody answered.
    await advance(7 * 86400 + 60)
    await check.settle("payment_expired", "dispute_expired")
    for payment_id in (held["payment_id"], partial["payment_id"]):
        assert (await raw.get(f"/payments/{payment_id}")).json()["status"] == "expired"

    assert sent_by_the_sandbox() <= set(check.checked), sorted(
        sent_by_the_sandbox() - set(check.checked)
    )
    assert sum(check.checked.values()) == len(receiver.received)


async def test_the_expired_webhook_says_expired(
    sandbox: Sandbox, raw: httpx.AsyncClient, receiver: Receiver
) -> None:
    """The case found by using it: after a 7-day advance the webhook said requires_capture."""
    sandbox.set_webhook(receiver.url, WEBHOOK_SECRET)
    held = (await raw.post("/payments", json=payment_body(capture_method="manual"))).json()
    check = Checker(raw, receiver, sandbox)
    await check.settle("payment_authorized")
    await raw.post("/_sandbox/clock/advance", json={"seconds": 7 * 86400 + 1})
    await check.settle("payment_expired")
    expired = next(e for e in receiver.events() if e["event_type"] == "payment_expired")
    sent = expired["content"]["object"]
    assert sent["payment_id"] == held["payment_id"]
    assert (sent["status"], sent["amount_capturable"]) == ("expired", 0)
