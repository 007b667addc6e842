"""Disputes end to end: opened by the network (control and test card), listed, accepted,
challenged with evidence, resolved, expired on the clock, with their events."""

from __future__ import annotations

from typing import Any

import httpx
import pytest

from payscope.api import ApiClient
from payscope.api.errors import InvalidRequestError, NotFoundError
from payscope.api.models.disputes import DisputeEvidenceSubmit, DisputeListRequest
from payscope.api.models.payments import PaymentCreateRequest
from payscope.sandbox.server import Sandbox
from tests.sandbox.conftest import payment_body


async def paid(client: ApiClient, number: str = "4242424242424242", amount: int = 1500) -> str:
    body = PaymentCreateRequest.model_validate(payment_body(number, amount=amount))
    return (await client.payments.create(body)).payment_id


async def network_opens(raw: httpx.AsyncClient, payment_id: str, **extra: Any) -> dict[str, Any]:
    response = await raw.post("/_sandbox/disputes", json={"payment_id": payment_id, **extra})
    assert response.status_code == 200, response.text
    data: dict[str, Any] = response.json()
    return data


def events_of(sandbox: Sandbox, object_id: str) -> list[str]:
    rows = sandbox.state.db.conn.execute(
        "SELECT event_type FROM events WHERE object_id = ? ORDER BY rowid", (object_id,)
    )
    return [str(r[0]) for r in rows]


async def test_open_challenge_and_win(
    client: ApiClient, raw: httpx.AsyncClient, sandbox: Sandbox
) -> None:
    payment_id = await paid(client)
    opened = await network_opens(
        raw, payment_id, reason="product_not_received", stage="pre_dispute"
    )
    assert opened["dispute_status"] == "dispute_opened"
    assert (opened["amount"], opened["currency"], opened["dispute_stage"]) == (
        1500,
        "USD",
        "pre_dispute",
    )
    dispute = await client.disputes.retrieve(opened["dispute_id"])
    assert dispute.payment_id == payment_id and dispute.challenge_required_by is not None

    submitted = DisputeEvidenceSubmit(
        dispute_id=dispute.dispute_id,
        customer_name="Ada Lovelace",
        product_description="A box of punch cards",
        shipping_tracking_number="1Z999",
    )
    challenged = await client.disputes.submit_evidence(submitted)
    assert challenged.dispute_status == "dispute_challenged"
    evidence = await client.disputes.evidence(dispute.dispute_id)
    assert evidence.evidence == {
        "customer_information": {"customer_name": "Ada Lovelace"},
        "product_information": {"product_description": "A box of punch cards"},
        "shipping_information": {"shipping_tracking_number": "1Z999"},
    }
    assert evidence.evidence_submitted_at is not None

    won = await raw.post(
        f"/_sandbox/disputes/{dispute.dispute_id}/resolve", json={"outcome": "won"}
    )
    assert won.json()["dispute_status"] == "dispute_won"
    assert events_of(sandbox, dispute.dispute_id) == [
        "dispute_opened",
        "dispute_challenged",
        "dispute_won",
    ]
    # the payment lists its dispute
    payment = (await raw.get(f"/payments/{payment_id}")).json()
    assert [d["dispute_id"] for d in payment["disputes"]] == [dispute.dispute_id]


async def test_accept_and_guards(client: ApiClient, raw: httpx.AsyncClient) -> None:
    payment_id = await paid(client)
    dispute_id = (await network_opens(raw, payment_id, amount=700))["dispute_id"]
    # a second open dispute on the same payment conflicts
    second = await raw.post("/_sandbox/disputes", json={"payment_id": payment_id})
    assert second.status_code == 409 and dispute_id in second.json()["error"]["message"]
    accepted = await client.disputes.accept(dispute_id)
    assert accepted.dispute_status == "dispute_accepted" and accepted.amount == 700
    with pytest.raises(InvalidRequestError) as info:
        await client.disputes.submit_evidence(
            DisputeEvidenceSubmit(dispute_id=dispute_id, product_description="late")
        )
    assert "dispute_accepted" in info.value.message and "dispute_opened" in info.value.message
    resolve = await raw.post(f"/_sandbox/disputes/{dispute_id}/resolve", json={"outcome": "won"})
    assert resolve.status_code == 400


@pytest.mark.parametrize(
    ("body", "status", "code", "word"),
    [
        ({}, 400, "IR_01", "payment_id"),
        ({"payment_id": "pay_nope"}, 404, "IR_05", "pay_nope"),
        ({"payment_id": "PAID", "reason": "bored"}, 400, "IR_04", "fraudulent"),
        ({"payment_id": "PAID", "stage": "arbitration"}, 400, "IR_04", "pre_arbitration"),
        # Not a string at all (a list, an object): refused as a value, never a 500.
        ({"payment_id": "PAID", "reason": [1]}, 400, "IR_04", "Invalid value for reason"),
        ({"payment_id": "PAID", "stage": {"a": 1}}, 400, "IR_04", "Invalid value for stage"),
        ({"payment_id": "PAID", "amount": 999999}, 400, "IR_04", "amount"),
        ({"payment_id": "FAILED"}, 400, "IR_04", "failed"),
    ],
)
async def test_network_control_validation(
    client: ApiClient,
    raw: httpx.AsyncClient,
    body: dict[str, Any],
    status: int,
    code: str,
    word: str,
) -> None:
    ids = {"PAID": await paid(client), "FAILED": await paid(client, "4000000000000002")}
    sent = {k: ids.get(v, v) if isinstance(v, str) else v for k, v in body.items()}
    response = await raw.post("/_sandbox/disputes", json=sent)
    assert response.status_code == status
    error = response.json()["error"]
    assert error["code"] == code and word in error["message"]


async def test_unknown_ids_and_evidence_fields(client: ApiClient, raw: httpx.AsyncClient) -> None:
    with pytest.raises(NotFoundError):
        await client.disputes.retrieve("dp_missing")
    with pytest.raises(NotFoundError):
        await client.disputes.evidence("dp_missing")
    missing = await raw.post("/disputes/accept/dp_missing")
    assert missing.status_code == 404 and missing.json()["error"]["code"] == "IR_05"
    dispute_id = (await network_opens(raw, await paid(client)))["dispute_id"]
    unknown = await raw.post(
        "/disputes/evidence", json={"dispute_id": dispute_id, "favourite_colour": "blue"}
    )
    assert unknown.status_code == 400 and "favourite_colour" in unknown.json()["error"]["message"]
    empty = await raw.post("/disputes/evidence", json={"dispute_id": dispute_id})
    assert empty.status_code == 400 and empty.json()["error"]["code"] == "IR_01"
    none_yet = await client.disputes.evidence(dispute_id)
    assert none_yet.evidence == {} and none_yet.evidence_submitted_at is None


async def test_list_filters_get_and_post(client: ApiClient, raw: httpx.AsyncClient) -> None:
    first = await paid(client)
    made = [
        await network_opens(raw, first, stage="dispute"),
        await network_opens(raw, await paid(client), stage="pre_arbitration"),
        await network_opens(raw, await paid(client), stage="dispute"),
    ]
    await client.disputes.accept(made[1]["dispute_id"])
    page = await client.disputes.list(DisputeListRequest(limit=2))
    assert page.total_count == 3 and len(page.data) == 2
    assert page.data[0].dispute_id == made[2]["dispute_id"]  # newest first
    accepted = await client.disputes.list(DisputeListRequest(status="accepted"))  # type: ignore[arg-type]
    assert [d.dispute_id for d in accepted.data] == [made[1]["dispute_id"]]
    by_payment = await raw.get("/disputes/list", params={"payment_id": first})
    assert [d["payment_id"] for d in by_payment.json()["data"]] == [first]
    posted = await raw.post("/disputes/list", json={"limit": 1, "status": "dispute_opened"})
    assert posted.json()["count"] == 1 and posted.json()["total_count"] == 2
    too_many = await raw.get("/disputes/list", params={"limit": 101})
    assert too_many.status_code == 400 and "limit" in too_many.json()["error"]["message"]


async def test_unanswered_dispute_expires_on_the_clock(
    client: ApiClient, raw: httpx.AsyncClient, sandbox: Sandbox
) -> None:
    dispute_id = (await network_opens(raw, await paid(client)))["dispute_id"]
    await raw.post("/_sandbox/clock/advance", json={"seconds": 6 * 86400})
    assert (await client.disputes.retrieve(dispute_id)).dispute_status == "dispute_opened"
    await raw.post("/_sandbox/clock/advance", json={"seconds": 86400 + 5})
    assert (await client.disputes.retrieve(dispute_id)).dispute_status == "dispute_expired"
    assert events_of(sandbox, dispute_id) == ["dispute_opened", "dispute_expired"]


async def test_dispute_card_draws_a_dispute_hours_later(
    client: ApiClient, raw: httpx.AsyncClient
) -> None:
    payment_id = await paid(client, "4000000000000259")
    await raw.post("/_sandbox/clock/advance", json={"seconds": 3600})
    assert (await raw.get("/disputes/list", params={"payment_id": payment_id})).json()["count"] == 0
    await raw.post("/_sandbox/clock/advance", json={"seconds": 6 * 3600})
    found = (await raw.get("/disputes/list", params={"payment_id": payment_id})).json()["data"]
    assert len(found) == 1 and found[0]["reason"] == "fraudulent"
    assert found[0]["dispute_status"] == "dispute_opened" and found[0]["amount"] == 1500


async def test_a_lost_dispute_is_not_refunded_or_disputed_again(
    client: ApiClient, raw: httpx.AsyncClient
) -> None:
    """Issue 33.8: after a lost dispute the payment took a full refund and a second dispute
    for its whole amount. What the chargeback took is neither refunded nor disputed again:
    a refund beyond received minus refunds minus lost disputes gets the error envelope."""
    payment_id = await paid(client, amount=1500)
    lost = await network_opens(raw, payment_id, amount=1000)
    resolved = await raw.post(
        f"/_sandbox/disputes/{lost['dispute_id']}/resolve", json={"outcome": "lost"}
    )
    assert resolved.json()["dispute_status"] == "dispute_lost"

    # A full refund takes what is left (500), not the 1500 received.
    whole = await raw.post("/refunds", json={"payment_id": payment_id, "amount": 1500})
    assert whole.status_code == 400
    error = whole.json()["error"]
    assert (error["type"], error["code"]) == ("invalid_request", "IR_04")
    assert "at most 500" in error["message"] and "1000 charged back" in error["message"]
    left = await raw.post("/refunds", json={"payment_id": payment_id})
    assert left.status_code == 200 and left.json()["amount"] == 500
    again = await raw.post("/refunds", json={"payment_id": payment_id, "amount": 1})
    assert again.status_code == 400
    error = again.json()["error"]
    assert error["code"] == "IR_04" and "nothing left to refund" in error["message"]

    # A second dispute is for at most what the first did not take.
    too_much = await raw.post("/_sandbox/disputes", json={"payment_id": payment_id, "amount": 1500})
    assert too_much.status_code == 400
    error = too_much.json()["error"]
    assert error["code"] == "IR_04" and "1 to 500" in error["message"]
    second = await network_opens(raw, payment_id)
    assert second["amount"] == 500
    await raw.post(f"/_sandbox/disputes/{second['dispute_id']}/resolve", json={"outcome": "lost"})
    none_left = await raw.post("/_sandbox/disputes", json={"payment_id": payment_id})
    assert none_left.status_code == 400
    assert "charged back in full" in none_left.json()["error"]["message"]
