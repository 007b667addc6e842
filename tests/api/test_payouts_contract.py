"""Payout bank accounts by contract: the spec's `payout_method_data.bank_transfer` to a service
following the spec, the real service's `bank` (ACH, BACS, SEPA, Pix) to the real one; and the
payout model reading the real service's PayoutCreateResponse (card and bank) without loss.

The service is a scripted one on a real loopback port, standing in for the remote host; each
request body is read as it arrived there."""

from __future__ import annotations

from typing import Any

import pytest
from pydantic import ValidationError

from payscope.api.models.payouts import (
    Payout,
    PayoutCreateRequest,
    PayoutListResponse,
    PayoutStatus,
    PayoutUpdateRequest,
)
from tests.api.conftest import ClientFactory, Reply, ScriptedApp, envelope
from tests.real_shapes import example, required

ACCOUNTS: dict[str, tuple[dict[str, Any], dict[str, Any]]] = {
    # variant: (what the form sends under bank_transfer, what the real service's bank holds)
    "ach": (
        {"bank_account_number": "000123456", "bank_routing_number": "110000000",
         "bank_name": "Chase", "bank_country_code": "US", "account_holder_name": "Ada"},
        {"bank_account_number": "000123456", "bank_routing_number": "110000000",
         "bank_name": "Chase", "bank_country_code": "US"},
    ),
    "bacs": (
        {"bank_account_number": "55779911", "bank_sort_code": "200000", "bank_city": "London"},
        {"bank_account_number": "55779911", "bank_sort_code": "200000", "bank_city": "London"},
    ),
    "sepa": (
        {"iban": "DE89370400440532013000", "bic": "COBADEFFXXX", "account_holder_name": "Ada"},
        {"iban": "DE89370400440532013000", "bic": "COBADEFFXXX"},
    ),
    "pix": (
        {"bank_account_number": "000123456", "pix_key": "000123456", "emv": "00020126",
         "tax_id": "12345678911", "ispb": "60701190"},
        {"bank_account_number": "000123456", "pix_key": "000123456", "tax_id": "12345678911"},
    ),
}  # fmt: skip
# The answer the stub gives to every payout call: the real document's payout, as a bank one.
REAL_PAYOUT = example("PayoutCreateResponse", choose={"PayoutMethodDataResponse": 1})
PROBE = "/payments/pay_payscope_contract_probe"


def _create(account: dict[str, Any]) -> PayoutCreateRequest:
    return PayoutCreateRequest.model_validate(
        {
            "amount": 1000,
            "currency": "USD",
            "payout_type": "bank",
            "payout_method_data": {"bank_transfer": account},
        }
    )


def _scripted(scripted: ScriptedApp) -> None:
    for method, path in (
        ("POST", "/payouts/create"),
        ("PUT", "/payouts/payout_1"),
        ("POST", "/payouts/payout_1"),
    ):
        scripted.script(method, path, Reply(200, REAL_PAYOUT))


@pytest.mark.parametrize("variant", sorted(ACCOUNTS))
async def test_the_real_contract_sends_bank_in_the_real_shape(
    app: tuple[ScriptedApp, str], make_client: ClientFactory, variant: str
) -> None:
    scripted, url = app
    _scripted(scripted)
    sent, expected = ACCOUNTS[variant]
    client = make_client(url, contract="real")
    await client.payouts.create(_create(sent))
    (request,) = scripted.seen("POST", "/payouts/create")
    assert request.json["payout_method_data"] == {"bank": expected}
    assert request.json["payout_type"] == "bank" and request.json["amount"] == 1000

    # an update is a POST on the real service (its document has no PUT), with `bank` too
    update = PayoutUpdateRequest.model_validate({"payout_method_data": {"bank_transfer": sent}})
    await client.payouts.update("payout_1", update)
    assert not scripted.seen("PUT", "/payouts/payout_1")
    (changed,) = scripted.seen("POST", "/payouts/payout_1")
    assert changed.json["payout_method_data"] == {"bank": expected}
    assert not scripted.seen("GET", PROBE)  # a set contract is never probed


async def test_the_spec_contract_keeps_bank_transfer(
    app: tuple[ScriptedApp, str], make_client: ClientFactory
) -> None:
    scripted, url = app
    _scripted(scripted)
    sent = ACCOUNTS["ach"][0]
    client = make_client(url, contract="spec")
    await client.payouts.create(_create(sent))
    (request,) = scripted.seen("POST", "/payouts/create")
    assert request.json["payout_method_data"] == {"bank_transfer": sent}
    await client.payouts.update(
        "payout_1",
        PayoutUpdateRequest.model_validate({"payout_method_data": {"bank_transfer": sent}}),
    )
    (changed,) = scripted.seen("PUT", "/payouts/payout_1")
    assert changed.json["payout_method_data"] == {"bank_transfer": sent}


@pytest.mark.parametrize(
    ("probe_answer", "key"),
    [
        (envelope(404, "HE_02", "Payment does not exist"), "bank"),
        (envelope(404, "IR_05", "Payment 'pay_payscope_contract_probe' does not exist"), None),
    ],
)
async def test_an_auto_client_asks_once_before_sending_a_bank_account(
    app: tuple[ScriptedApp, str],
    make_client: ClientFactory,
    probe_answer: Reply,
    key: str | None,
) -> None:
    scripted, url = app
    _scripted(scripted)
    scripted.script("GET", PROBE, probe_answer)
    client = make_client(url, contract="auto")
    for _ in range(2):
        await client.payouts.create(_create(ACCOUNTS["sepa"][0]))
    assert len(scripted.seen("GET", PROBE)) == 1
    expected = {"bank": ACCOUNTS["sepa"][1]} if key else {"bank_transfer": ACCOUNTS["sepa"][0]}
    for request in scripted.seen("POST", "/payouts/create"):
        assert request.json["payout_method_data"] == expected


async def test_cards_and_wallets_go_as_they_are_and_ask_nothing(
    app: tuple[ScriptedApp, str], make_client: ClientFactory
) -> None:
    scripted, url = app
    _scripted(scripted)
    card = {
        "card_number": "4111111111111111",
        "expiry_month": "03",
        "expiry_year": "2030",
        "card_holder_name": "Ada Lovelace",
    }
    client = make_client(url, contract="auto")
    await client.payouts.create(
        PayoutCreateRequest.model_validate(
            {"amount": 500, "currency": "EUR", "payout_method_data": {"card": card}}
        )
    )
    (request,) = scripted.seen("POST", "/payouts/create")
    assert request.json["payout_method_data"] == {"card": card}
    assert not scripted.seen("GET", PROBE)


@pytest.mark.parametrize(
    "account",
    [
        {"iban": "DE89370400440532013000", "account_holder_name": "Ada"},  # Open Banking
        {"pix_key": "000123456"},  # a Pix key alone
        {"iban": "SE4550000000058398257466", "country_code": "SE", "account_number": "1",
         "bank_number": "2"},  # Trustly
    ],
)  # fmt: skip
async def test_an_account_the_real_service_has_no_bank_for_is_refused_before_sending(
    app: tuple[ScriptedApp, str], make_client: ClientFactory, account: dict[str, Any]
) -> None:
    scripted, url = app
    client = make_client(url, contract="real")
    with pytest.raises(ValidationError) as raised:
        await client.payouts.create(_create(account))
    assert "ACH, BACS, SEPA or Pix" in str(raised.value)
    assert raised.value.errors()[0]["loc"] == ("payout_method_data", "bank_transfer")
    assert not scripted.requests


@pytest.mark.parametrize("variant", [0, 1], ids=["card", "bank"])
async def test_the_real_payout_is_read_without_loss(
    app: tuple[ScriptedApp, str], make_client: ClientFactory, variant: int
) -> None:
    scripted, url = app
    real = example("PayoutCreateResponse", choose={"PayoutMethodDataResponse": variant})
    scripted.script("GET", "/payouts/payout_1", Reply(200, real))
    payout = await make_client(url, contract="real").payouts.retrieve("payout_1")
    kept = payout.model_dump(mode="json")
    assert required("PayoutCreateResponse") <= set(kept)
    assert kept == real  # every field, known or not, as sent
    assert payout.status_enum is PayoutStatus(real["status"])
    method = "card" if variant == 0 else "bank"
    assert set(payout.payout_method_data or {}) == {method}
    if method == "card":
        assert {"last4", "card_network", "card_exp_month"} <= set(
            real["payout_method_data"]["card"]
        )


def test_the_real_payout_list_reads_size_and_total_count() -> None:
    real = example("PayoutListResponse", size=2, total_count=40)
    real["data"] = [REAL_PAYOUT, {**REAL_PAYOUT, "payout_id": "payout_2", "status": "ineligible"}]
    listed = PayoutListResponse.model_validate(real)
    assert listed.count == 2 and listed.total_count == 40
    assert [p.payout_id for p in listed.data] == [REAL_PAYOUT["payout_id"], "payout_2"]
    assert listed.data[1].status_enum is PayoutStatus.INELIGIBLE
    assert isinstance(listed.data[0], Payout)
