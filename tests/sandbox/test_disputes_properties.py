"""State-machine properties (hypothesis): dispute statuses only move along allowed edges, and
the refunds of a payment never exceed what it received, whatever the order of operations."""

from __future__ import annotations

import shutil
import tempfile
from pathlib import Path
from typing import Any

from fastapi.testclient import TestClient
from hypothesis import HealthCheck, settings
from hypothesis import strategies as st
from hypothesis.stateful import Bundle, RuleBasedStateMachine, invariant, rule

from tests.sandbox.conftest import API_KEY, make_sandbox, payment_body

# The reference's dispute lifecycle, written out independently of the sandbox's table.
DISPUTE_EDGES = {
    "dispute_opened": {
        "dispute_accepted",
        "dispute_challenged",
        "dispute_expired",
        "dispute_won",
        "dispute_lost",
    },
    "dispute_challenged": {"dispute_won", "dispute_lost"},
}
SETTINGS = settings(
    max_examples=12,
    stateful_step_count=12,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow],
)


class SandboxMachine(RuleBasedStateMachine):
    """A fresh sandbox per run, driven through its HTTP API in-process."""

    def __init__(self) -> None:
        super().__init__()
        self.dir = Path(tempfile.mkdtemp(prefix="payscope-prop-"))
        self.box = make_sandbox(self.dir)
        self.http = TestClient(self.box.app, headers={"api-key": API_KEY})
        self.http.__enter__()

    def teardown(self) -> None:
        self.http.portal.call(self.box.stop)  # type: ignore[union-attr]
        self.http.__exit__(None, None, None)
        shutil.rmtree(self.dir, ignore_errors=True)

    def pay(self, amount: int) -> str:
        response = self.http.post("/payments", json=payment_body(amount=amount))
        assert response.status_code == 200, response.text
        return str(response.json()["payment_id"])

    def advance(self, seconds: float) -> None:
        assert (
            self.http.post("/_sandbox/clock/advance", json={"seconds": seconds}).status_code == 200
        )


class DisputeMachine(SandboxMachine):
    payments = Bundle("payments")
    disputes = Bundle("disputes")

    def __init__(self) -> None:
        super().__init__()
        self.seen: dict[str, str] = {}

    @rule(target=payments, amount=st.integers(100, 5000))
    def make_payment(self, amount: int) -> str:
        return self.pay(amount)

    @rule(target=disputes, payment_id=payments, stage=st.sampled_from(["pre_dispute", "dispute"]))
    def network_opens(self, payment_id: str, stage: str) -> str:
        response = self.http.post(
            "/_sandbox/disputes", json={"payment_id": payment_id, "stage": stage}
        )
        charged_back = response.status_code == 400 and "charged back in full" in response.text
        if response.status_code == 409 or charged_back:  # one open, or nothing left to dispute
            return str(
                self.http.get("/disputes/list", params={"payment_id": payment_id}).json()["data"][
                    0
                ]["dispute_id"]
            )
        assert response.status_code == 200, response.text
        return str(response.json()["dispute_id"])

    @rule(dispute_id=disputes)
    def accept(self, dispute_id: str) -> None:
        self.http.post(f"/disputes/accept/{dispute_id}")

    @rule(dispute_id=disputes)
    def challenge(self, dispute_id: str) -> None:
        self.http.post(
            "/disputes/evidence", json={"dispute_id": dispute_id, "product_description": "ok"}
        )

    @rule(dispute_id=disputes, outcome=st.sampled_from(["won", "lost"]))
    def resolve(self, dispute_id: str, outcome: str) -> None:
        self.http.post(f"/_sandbox/disputes/{dispute_id}/resolve", json={"outcome": outcome})

    @rule(days=st.integers(1, 8))
    def time_passes(self, days: int) -> None:
        self.advance(days * 86400)

    @invariant()
    def statuses_move_along_allowed_edges(self) -> None:
        listed = self.http.get("/disputes/list", params={"limit": 100}).json()["data"]
        for dispute in listed:
            before = self.seen.get(dispute["dispute_id"])
            now = dispute["dispute_status"]
            if before is not None and before != now:
                assert now in DISPUTE_EDGES.get(before, set()), (before, now)
            self.seen[dispute["dispute_id"]] = now


class RefundMachine(SandboxMachine):
    payments = Bundle("payments")

    def __init__(self) -> None:
        super().__init__()
        self.received: dict[str, int] = {}

    @rule(target=payments, amount=st.integers(1, 3000))
    def make_payment(self, amount: int) -> str:
        payment_id = self.pay(amount)
        self.received[payment_id] = amount
        return payment_id

    @rule(payment_id=payments, amount=st.one_of(st.none(), st.integers(1, 3500)))
    def refund(self, payment_id: str, amount: int | None) -> None:
        body: dict[str, Any] = {"payment_id": payment_id}
        if amount is not None:
            body["amount"] = amount
        response = self.http.post("/refunds", json=body)
        assert response.status_code in (200, 400), response.text

    @rule(seconds=st.integers(1, 7200))
    def time_passes(self, seconds: int) -> None:
        self.advance(seconds)

    @invariant()
    def refunds_never_exceed_received(self) -> None:
        for payment_id, received in self.received.items():
            listed = self.http.post(
                "/refunds/list", json={"payment_id": payment_id, "limit": 100}
            ).json()["data"]
            held = sum(r["amount"] for r in listed if r["status"] != "failed")
            assert held <= received


TestDisputeMachine = DisputeMachine.TestCase
TestDisputeMachine.settings = SETTINGS
TestRefundMachine = RefundMachine.TestCase
TestRefundMachine.settings = SETTINGS
