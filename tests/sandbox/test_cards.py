"""Every documented test card does what the table says; every unified code is reachable."""

from __future__ import annotations

import httpx
import pytest

from payscope.api.codes import ALL_UNIFIED_CODES, explain
from payscope.sandbox import cards
from payscope.sandbox.cards import TEST_CARDS, TestCard
from tests.sandbox.conftest import payment_body

DECLINE_FIELDS = ("error_code", "error_message", "unified_code", "unified_message")


@pytest.mark.parametrize("test_card", TEST_CARDS, ids=lambda c: f"{c.number}-{c.outcome}")
async def test_card_behaves_as_documented(raw: httpx.AsyncClient, test_card: TestCard) -> None:
    response = await raw.post("/payments", json=payment_body(test_card.number))
    assert response.status_code == 200, response.text
    payment = response.json()
    expected = {
        cards.SUCCEEDED: "succeeded",
        cards.DISPUTE: "succeeded",
        cards.REFUND_FAILS: "succeeded",
        cards.CHALLENGE: "requires_action",
        cards.REVIEW: "requires_merchant_action",
        cards.DECLINED: "failed",
        cards.NEEDS_3DS: "failed",
        cards.PROCESSING: "processing",
        cards.PARTIAL: "failed",  # no enable_partial_authorization: declined UE_1001
        cards.REFUND_REVIEW: "succeeded",
        cards.REFUND_PENDING: "succeeded",
        cards.PAYOUT_INELIGIBLE: "succeeded",
    }[test_card.outcome]
    assert payment["status"] == expected
    if expected == "failed":
        want = "UE_1001" if test_card.outcome == cards.PARTIAL else test_card.unified_code
        assert payment["unified_code"] == want
        assert all(payment[f] for f in DECLINE_FIELDS)
        details = payment["error_details"]
        assert details["unified_details"]["message"] == payment["unified_message"]
        # the real service's unified family (its UnifiedCode enum), not a word of ours
        assert details["unified_details"]["category"] == cards.category_of(want)
        assert details["issuer_details"]["network_details"]["name"] == test_card.brand
        assert details["connector_details"]["code"] == payment["error_code"]
    else:
        assert all(payment[f] is None for f in DECLINE_FIELDS)


def test_every_unified_code_of_the_catalogue_has_a_card() -> None:
    reachable = {c.unified_code for c in TEST_CARDS if c.unified_code}
    assert set(ALL_UNIFIED_CODES) <= reachable
    assert len(ALL_UNIFIED_CODES) == 56


@pytest.mark.parametrize("code", ALL_UNIFIED_CODES)
def test_unified_messages_agree_with_the_catalogue_family(code: str) -> None:
    # The sandbox's message and the client's catalogue describe the same code.
    assert cards.UNIFIED[code][0]
    assert explain(code).code == code


def test_a_declines_category_is_its_real_unified_family() -> None:
    """`error_details.unified_details.category` takes the real UnifiedCode values only
    (UE_1000, UE_2000, UE_3000, UE_4000, UE_9000): each code's own family, and the spec's 3-D
    Secure codes (UE_5xxx, no family of their own there) go with UE_2000 ("not eligible,
    blocked or 3DS required")."""
    expected = {"UE_1": "UE_1000", "UE_2": "UE_2000", "UE_3": "UE_3000", "UE_4": "UE_4000",
                "UE_5": "UE_2000", "UE_9": "UE_9000"}  # fmt: skip
    for code in cards.UNIFIED:
        assert cards.category_of(code) == expected[code[:4]], code
        assert cards.decline(code).fields("Visa")["error_details"]["unified_details"] == {
            "category": expected[code[:4]],
            "message": cards.UNIFIED[code][0],
        }
    assert set(map(cards.category_of, cards.UNIFIED)) == set(cards.CATEGORIES)


async def test_uE_2002_card_succeeds_with_three_ds(raw: httpx.AsyncClient) -> None:
    number = cards.code_card("UE_2002")
    payment = (
        await raw.post("/payments", json=payment_body(number, authentication_type="three_ds"))
    ).json()
    assert payment["status"] == "requires_action"
    done = await raw.post(f"/_sandbox/payments/{payment['payment_id']}/3ds", json={})
    assert done.json()["status"] == "succeeded"


@pytest.mark.parametrize(
    ("number", "cvc"),
    [
        ("378282246310005", "123"),  # American Express with 3 digits, as the real service
        ("378282246310005", "1234"),
        ("4242424242424242", "1234"),
        ("4242424242424242", "123"),
    ],
)
async def test_any_card_takes_a_security_code_of_3_or_4_digits(
    raw: httpx.AsyncClient, number: str, cvc: str
) -> None:
    body = payment_body(number)
    body["payment_method_data"]["card"]["card_cvc"] = cvc
    payment = (await raw.post("/payments", json=body)).json()
    assert (payment["status"], payment["unified_code"]) == ("succeeded", None)


def test_a_wrong_length_security_code_still_has_its_card() -> None:
    # The model refuses other lengths (400); the unified code stays reachable by its card.
    assert cards.BY_NUMBER[cards.code_card("UE_4002")].unified_code == "UE_4002"
    assert cards.outcome_for("4242424242424242", "12", "12", "2040", (2026, 1)) == (
        cards.DECLINED,
        "UE_4002",
    )


async def test_unknown_luhn_valid_card_succeeds_and_bad_luhn_is_refused(
    raw: httpx.AsyncClient,
) -> None:
    ok = await raw.post("/payments", json=payment_body(cards.with_check_digit("424242000011112")))
    assert ok.json()["status"] == "succeeded"
    bad = await raw.post("/payments", json=payment_body("4242424242424241"))
    assert bad.status_code == 400 and bad.json()["error"]["code"] == "IR_04"
    assert "4241" in bad.json()["error"]["message"]


async def test_table_endpoint_lists_every_card(raw: httpx.AsyncClient) -> None:
    table = (await raw.get("/_sandbox/test-cards")).json()["data"]
    assert [row["card_number"] for row in table] == [c.number for c in TEST_CARDS]
    assert all(cards.luhn_ok(row["card_number"]) for row in table)


async def test_dispute_card_schedules_a_dispute(raw: httpx.AsyncClient, sandbox: object) -> None:
    from payscope.sandbox.server import Sandbox

    assert isinstance(sandbox, Sandbox)
    payment = (await raw.post("/payments", json=payment_body("4000000000000259"))).json()
    row = sandbox.state.db.conn.execute(
        "SELECT due_at, opened_at FROM dispute_schedule WHERE payment_id = ?",
        (payment["payment_id"],),
    ).fetchone()
    assert row is not None and row[1] is None
    assert row[0] > sandbox.state.clock.now() + (cards.DISPUTE_AFTER_HOURS - 1) * 3600


@pytest.mark.parametrize(
    ("number", "issuer_code", "wording"),
    [
        ("4000000000009987", "41", "Pick up card (lost)"),
        ("4000000000009979", "43", "Pick up card (stolen)"),
    ],
)
async def test_the_lost_and_the_stolen_card_each_get_their_own_issuer_answer(
    raw: httpx.AsyncClient, number: str, issuer_code: str, wording: str
) -> None:
    payment = (await raw.post("/payments", json=payment_body(number))).json()
    assert payment["unified_code"] == "UE_1006"
    assert (payment["error_code"], payment["error_message"]) == (issuer_code, wording)
    issuer = payment["error_details"]["issuer_details"]
    assert (issuer["code"], issuer["message"]) == (issuer_code, wording)
