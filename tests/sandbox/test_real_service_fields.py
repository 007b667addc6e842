"""Fields the real service always returns, where the spec is silent: present in every object the
TUI shows (answers, lists, webhooks, seeded data), with realistic values, and read by the
client's models. The required lists are the real OpenAPI document's (real-service-openapi-v1.json:
PaymentsResponse, CustomerResponse, DisputeResponse, PayoutCreateResponse,
EventListItemResponse)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import httpx

from payscope.api.models.customers import Customer
from payscope.api.models.disputes import Dispute
from payscope.api.models.events import EventListRequest
from payscope.api.models.payments import Payment
from payscope.api.models.payouts import Payout
from payscope.sandbox.server import Sandbox
from tests.sandbox.conftest import (
    WEBHOOK_SECRET,
    Receiver,
    api_client,
    card,
    make_sandbox,
    payment_body,
)
from tests.waits import until

REQUIRED = {
    "payment": {
        "payment_id", "merchant_id", "status", "amount", "net_amount", "amount_capturable",
        "processor_merchant_id", "currency", "payment_method", "attempt_count",
    },
    "customer": {"customer_id", "created_at"},
    "dispute": {
        "dispute_id", "payment_id", "attempt_id", "amount", "currency", "dispute_stage",
        "dispute_status", "connector", "connector_status", "connector_dispute_id", "created_at",
        "is_already_refunded",
    },
    "payout": {
        "payout_id", "merchant_id", "amount", "currency", "auto_fulfill", "customer_id",
        "client_secret", "return_url", "business_country", "entity_type", "recurring", "status",
        "profile_id",
    },
    "event": {
        "event_id", "merchant_id", "profile_id", "object_id", "event_type", "event_class",
        "initial_attempt_id", "created",
    },
}  # fmt: skip
PAYOUT_CARD = {
    "card": {
        "card_number": "4242424242424242",
        "expiry_month": "10",
        "expiry_year": "2035",
        "card_holder_name": "Ada Lovelace",
    }
}


def has_required(kind: str, obj: dict[str, Any]) -> None:
    missing = REQUIRED[kind] - obj.keys()
    assert not missing, f"{kind} {obj.get(f'{kind}_id')} lacks {sorted(missing)}"


async def test_payment_fields_through_its_life(
    sandbox: Sandbox, raw: httpx.AsyncClient, receiver: Receiver
) -> None:
    sandbox.set_webhook(receiver.url, WEBHOOK_SECRET)
    merchant = sandbox.credentials.merchant_id
    made = (await raw.post("/payments", json={"amount": 1200, "currency": "EUR"})).json()
    has_required("payment", made)
    assert (made["net_amount"], made["attempt_count"]) == (1200, 0)
    assert "connector" in made and made["connector"] is None  # no processor has seen it yet
    assert made["processor_merchant_id"] == merchant
    pid = made["payment_id"]
    updated = (
        await raw.post(
            f"/payments/{pid}",
            json={
                "amount": 1500,
                "payment_method": "card",
                "payment_method_data": {"card": card("4242424242424242")},
                "billing": {"address": {"country": "DE"}},
            },
        )
    ).json()
    assert (updated["amount"], updated["net_amount"], updated["attempt_count"]) == (1500, 1500, 0)
    confirmed = (await raw.post(f"/payments/{pid}/confirm", json={})).json()
    assert (confirmed["status"], confirmed["attempt_count"]) == ("succeeded", 1)
    assert confirmed["connector"] == "sandbox"  # the processor, as its refunds name it
    got = (await raw.get(f"/payments/{pid}")).json()
    assert got["attempt_count"] == len(got["attempts"]) == 1
    listed = (await raw.post("/payments/list", json={"payment_id": pid})).json()["data"][0]
    assert {k: listed[k] for k in REQUIRED["payment"]} == {k: got[k] for k in REQUIRED["payment"]}
    await until(lambda: receiver.received, "the delivery")
    sent = receiver.events()[0]["content"]["object"]
    assert (sent["net_amount"], sent["attempt_count"], sent["processor_merchant_id"]) == (
        1500,
        1,
        merchant,
    )
    assert sent["connector"] == "sandbox"
    model = Payment.model_validate(got)
    assert (model.net_amount, model.attempt_count, model.processor_merchant_id) == (
        1500,
        1,
        merchant,
    )
    assert model.connector == "sandbox"
    # one-step: a declined card is one attempt too
    failed = (await raw.post("/payments", json=payment_body("4000000000000002"))).json()
    assert (failed["status"], failed["attempt_count"], failed["net_amount"]) == ("failed", 1, 1500)
    assert failed["connector"] == "sandbox"


async def test_customer_created_at(raw: httpx.AsyncClient) -> None:
    made = (await raw.post("/customers", json={"name": "Ada"})).json()
    has_required("customer", made)
    assert made["created_at"] == made["created"]
    changed = (await raw.post(f"/customers/{made['customer_id']}", json={"phone": "1"})).json()
    assert changed["created_at"] == made["created_at"]
    listed = (await raw.get("/customers/list")).json()["data"][0]
    assert listed["created_at"] == made["created_at"]
    assert Customer.model_validate(listed).created_at == made["created_at"]


async def test_dispute_connector_fields(raw: httpx.AsyncClient) -> None:
    async def paid() -> str:
        return str((await raw.post("/payments", json=payment_body())).json()["payment_id"])

    first = await paid()
    opened = (await raw.post("/_sandbox/disputes", json={"payment_id": first})).json()
    has_required("dispute", opened)
    assert opened["connector_status"] == "needs_response"
    assert opened["connector_dispute_id"] == "sbx_" + opened["dispute_id"].removeprefix("dp_")
    assert opened["is_already_refunded"] is False
    dp = opened["dispute_id"]
    challenged = (
        await raw.post("/disputes/evidence", json={"dispute_id": dp, "customer_name": "Ada"})
    ).json()
    assert challenged["connector_status"] == "under_review"
    won = (await raw.post(f"/_sandbox/disputes/{dp}/resolve", json={"outcome": "won"})).json()
    assert (won["connector_status"], won["is_already_refunded"]) == ("won", False)
    assert won["connector_dispute_id"] == opened["connector_dispute_id"]

    # Refunded in part, then the dispute is lost: the money went back twice.
    second = await paid()
    warning = (
        await raw.post("/_sandbox/disputes", json={"payment_id": second, "stage": "pre_dispute"})
    ).json()
    assert warning["connector_status"] == "warning_needs_response"
    await raw.post("/refunds", json={"payment_id": second, "amount": 500})
    lost = (
        await raw.post(
            f"/_sandbox/disputes/{warning['dispute_id']}/resolve", json={"outcome": "lost"}
        )
    ).json()
    assert (lost["connector_status"], lost["is_already_refunded"]) == ("lost", True)
    got = (await raw.get(f"/disputes/{warning['dispute_id']}")).json()
    model = Dispute.model_validate(got)
    assert (model.connector_status, model.is_already_refunded) == ("lost", True)
    assert model.connector_dispute_id == lost["connector_dispute_id"]

    # Lost without any refund: nothing was paid back twice.
    third = await paid()
    plain = (await raw.post("/_sandbox/disputes", json={"payment_id": third})).json()
    lost_only = (
        await raw.post(
            f"/_sandbox/disputes/{plain['dispute_id']}/resolve", json={"outcome": "lost"}
        )
    ).json()
    assert lost_only["is_already_refunded"] is False
    # ... and a refund after it is refused (what was charged back is not refundable again:
    # issue 33.8), so it stays so.
    refused = await raw.post("/refunds", json={"payment_id": third, "amount": 1})
    assert refused.status_code == 400 and refused.json()["error"]["code"] == "IR_04"
    after = (await raw.get(f"/disputes/{plain['dispute_id']}")).json()
    assert (after["is_already_refunded"], after["dispute_status"]) == (False, "dispute_lost")


async def test_payout_entity_type_is_never_null(raw: httpx.AsyncClient) -> None:
    plain = (await raw.post("/payouts/create", json={"amount": 100, "currency": "USD"})).json()
    has_required("payout", plain)
    assert plain["entity_type"] == "Individual"
    company = (
        await raw.post(
            "/payouts/create", json={"amount": 100, "currency": "USD", "entity_type": "Company"}
        )
    ).json()
    assert company["entity_type"] == "Company"
    listed = (await raw.get("/payouts/list")).json()["data"]
    assert {p["entity_type"] for p in listed} == {"Individual", "Company"}
    assert Payout.model_validate(plain).entity_type == "Individual"


async def test_event_list_items(sandbox: Sandbox, raw: httpx.AsyncClient) -> None:
    await raw.post("/payments", json=payment_body())
    creds = sandbox.credentials
    listed = (await raw.post(f"/events/{creds.merchant_id}", json={})).json()["events"]
    assert listed
    for item in listed:
        has_required("event", item)
        assert item["profile_id"] == creds.profile_id
        assert item["initial_attempt_id"] == item["event_id"]
    async with api_client(sandbox) as client:
        page = await client.events.list(EventListRequest())
    assert page.events[0].profile_id == creds.profile_id
    assert page.events[0].initial_attempt_id == page.events[0].event_id


async def test_seeded_objects_carry_them_too(tmp_path: Path) -> None:
    box = make_sandbox(tmp_path / "seeded")
    try:
        box.seed(400)
        conn = box.state.db.conn

        def rows(table: str) -> list[dict[str, Any]]:
            return [json.loads(r[0]) for r in conn.execute(f"SELECT data FROM {table}")]

        payments = rows("payments")
        for payment in payments:
            has_required("payment", payment)
            assert payment["net_amount"] == payment["amount"]
            assert payment["processor_merchant_id"] == payment["merchant_id"]
            unconfirmed = payment["status"] in ("requires_payment_method", "requires_confirmation")
            assert payment["attempt_count"] == (0 if unconfirmed else 1), payment["status"]
            assert payment["connector"] == (None if unconfirmed else "sandbox"), payment["status"]
        attempts = dict(
            conn.execute("SELECT payment_id, COUNT(*) FROM payment_attempts GROUP BY payment_id")
        )
        assert all(attempts.get(p["payment_id"], 0) == p["attempt_count"] for p in payments)
        for customer in rows("customers"):
            has_required("customer", customer)
            assert customer["created_at"] == customer["created"]
        seeded_disputes = rows("disputes")
        assert seeded_disputes
        for dispute in seeded_disputes:
            has_required("dispute", dispute)
            assert dispute["connector_status"] and dispute["connector_dispute_id"]
            if dispute["dispute_status"] != "dispute_lost":
                assert dispute["is_already_refunded"] is False
        for payout in rows("payouts"):
            has_required("payout", payout)
            assert payout["entity_type"] in ("Individual", "Company")
    finally:
        await box.stop()
