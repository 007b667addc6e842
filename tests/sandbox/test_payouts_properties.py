"""State-machine property (hypothesis): payout statuses only move along the reference's edges,
whatever the order of create, update, confirm, fulfill, cancel, reverse and time passing."""

from __future__ import annotations

from typing import Any

from hypothesis import strategies as st
from hypothesis.stateful import Bundle, invariant, rule

from tests.sandbox.test_disputes_properties import SETTINGS, SandboxMachine

# The reference's flow, written out independently of the sandbox's table.
PAYOUT_EDGES = {
    "requires_payout_method_data": {"requires_confirmation", "cancelled", "expired"},
    "requires_confirmation": {"requires_fulfillment", "initiated", "ineligible", "cancelled"},
    "requires_fulfillment": {"initiated", "cancelled"},
    "initiated": {"success", "failed", "cancelled"},
    "success": {"reversed"},
}
METHODS = [
    (
        "card",
        {
            "card": {
                "card_number": "4242424242424242",
                "expiry_month": "10",
                "expiry_year": "2035",
                "card_holder_name": "A",
            }
        },
    ),
    (
        "bank",
        {
            "bank_transfer": {
                "bank_account_number": "000123450002",
                "bank_routing_number": "110000000",
            }
        },
    ),
    ("bank", {"bank_transfer": {"iban": "DE89370400440532010005", "bic": "COBADEFFXXX"}}),
]


class PayoutMachine(SandboxMachine):
    payouts = Bundle("payouts")

    def __init__(self) -> None:
        super().__init__()
        self.seen: dict[str, str] = {}

    @rule(
        target=payouts,
        method=st.one_of(st.none(), st.sampled_from(METHODS)),
        typed=st.booleans(),
        auto=st.booleans(),
        confirm=st.booleans(),
    )
    def create(self, method: Any, typed: bool, auto: bool, confirm: bool) -> str:
        body: dict[str, Any] = {
            "amount": 500,
            "currency": "USD",
            "auto_fulfill": auto,
            "priority": "instant",
            "payout_link": method is None,
        }
        if method is not None:
            body["payout_method_data"] = method[1]
            if typed:
                body["payout_type"] = method[0]
        body["confirm"] = confirm and method is not None and typed
        response = self.http.post("/payouts/create", json=body)
        assert response.status_code == 200, response.text
        return str(response.json()["payout_id"])

    @rule(payout_id=payouts, method=st.sampled_from(METHODS))
    def update(self, payout_id: str, method: Any) -> None:
        self.http.put(
            f"/payouts/{payout_id}",
            json={"payout_type": method[0], "payout_method_data": method[1]},
        )

    @rule(payout_id=payouts, action=st.sampled_from(["confirm", "fulfill", "cancel"]))
    def act(self, payout_id: str, action: str) -> None:
        response = self.http.post(f"/payouts/{payout_id}/{action}")
        assert response.status_code in (200, 400), response.text

    @rule(payout_id=payouts)
    def bank_returns_it(self, payout_id: str) -> None:
        self.http.post(f"/_sandbox/payouts/{payout_id}/reverse")

    @rule(seconds=st.sampled_from([5, 11, 600, 3600]))
    def time_passes(self, seconds: int) -> None:
        self.advance(seconds)

    @invariant()
    def statuses_move_along_allowed_edges(self) -> None:
        listed = self.http.post("/payouts/list", json={"limit": 100}).json()["data"]
        for payout in listed:
            before = self.seen.get(payout["payout_id"])
            now = payout["status"]
            if before is not None and before != now:
                # a confirm with auto_fulfill passes requires_fulfillment in one call
                hops = PAYOUT_EDGES.get(before, set())
                two = {b for a in hops for b in PAYOUT_EDGES.get(a, set())}
                assert now in hops or (now in two and before == "requires_confirmation"), (
                    before,
                    now,
                )
            self.seen[payout["payout_id"]] = now


TestPayoutMachine = PayoutMachine.TestCase
TestPayoutMachine.settings = SETTINGS
