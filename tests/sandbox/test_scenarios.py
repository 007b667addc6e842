"""Trigger scenarios (tui/payscope/api/scenarios.py) against a real sandbox over HTTP: each makes
what
it says, in the state it says, and the paid link is paid the way its checkout page pays."""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from payscope.api.scenarios import SCENARIOS
from payscope.api.trigger import Trigger
from payscope.sandbox.server import Sandbox
from tests.sandbox.conftest import api_client, make_sandbox


@pytest.fixture
async def served(tmp_path: Path) -> AsyncIterator[tuple[Sandbox, Trigger]]:
    box = make_sandbox(tmp_path / "sandbox")
    url = await box.start()
    client = api_client(box, url)
    try:
        yield box, Trigger(client, box.credentials.publishable_key)
    finally:
        await client.aclose()
        await box.stop()


# What each scenario's record is in right after it ran.
EXPECTED = {
    "one_step": ("payments", "succeeded"),
    "two_step": ("payments", "succeeded"),
    "manual_capture": ("payments", "requires_capture"),
    "three_ds": ("payments", "requires_action"),
    "manual_review": ("payments", "requires_merchant_action"),
    "refund_fails": ("refunds", None),
    "dispute": ("disputes", "dispute_opened"),
    "payout": ("payouts", None),
    "renewal": ("subscriptions", "active"),
    "renewal_fails": ("subscriptions", "unpaid"),
    "link_paid": ("links", None),
}


def test_every_scenario_has_a_unique_key_and_an_expectation() -> None:
    keys = [s.key for s in SCENARIOS]
    assert len(set(keys)) == len(keys) == len(EXPECTED)
    assert {s.name for s in SCENARIOS} == set(EXPECTED)


@pytest.mark.parametrize("name", sorted(EXPECTED))
async def test_a_scenario_makes_what_it_says(served: tuple[Sandbox, Trigger], name: str) -> None:
    _box, trigger = served
    scenario = next(s for s in SCENARIOS if s.name == name)
    made = await scenario.run(trigger)
    area, status = EXPECTED[name]
    assert made.area == area
    assert made.record_id in made.summary
    client = trigger.client
    if area == "payments":
        payment = await client.payments.retrieve(made.record_id)
        assert payment.status == status
    elif area == "refunds":
        refund = await client.refunds.retrieve(made.record_id)
        payment = await client.payments.retrieve(refund.payment_id)
        assert payment.status == "succeeded"
        assert refund.status in ("pending", "failed")
    elif area == "disputes":
        dispute = await client.disputes.retrieve(made.record_id)
        assert dispute.dispute_status == status
    elif area == "payouts":
        payout = await client.payouts.retrieve(made.record_id)
        assert payout.status not in ("requires_payout_method_data", "requires_confirmation")
    elif area == "subscriptions":
        sub = await client.subscriptions.retrieve(made.record_id)
        assert sub.status == status
        if name == "renewal":
            assert sub.invoice is not None and sub.invoice.status == "invoice_paid"
        else:
            assert sub.payment is not None and sub.payment.status == "failed"
    else:
        link = await client.payment_links.retrieve(made.record_id)
        assert link.payment_id is not None
        payment = await client.payments.retrieve(link.payment_id)
        assert payment.status == "succeeded"
