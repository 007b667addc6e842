"""Payouts: create, update, confirm, fulfill, cancel, retrieve, list (GET and POST).

The reference's flow, on the sandbox clock:

    create -> requires_payout_method_data (no method yet) | requires_confirmation
    confirm (needs payout_type and a method) -> requires_fulfillment
                                             -> initiated at once with auto_fulfill
                                             -> ineligible for an ineligible test account
    fulfill -> initiated -> (settles after the priority's delay) -> success | failed
    cancel from any non-terminal state -> cancelled
    a payout link left without method data past session_expiry -> expired
    success -> reversed (POST /_sandbox/payouts/{id}/reverse, the bank sends it back)

Request validation is the shared `PayoutCreateRequest`/`PayoutUpdateRequest` (same rules as the
client); the engine adds what needs state (payout_type before confirmation, the customer,
saved methods). Account numbers are masked before anything is stored, so no response, event
or database row holds one; a card is answered in the real service's shape (`card {last4,
card_isin, card_network, card_exp_month, card_exp_year, card_holder_name, ...}`), a bank
account as the spec's `bank_transfer`. Answers carry the real schema's fields only (the
spec's `description` too): what a request sent that the real answer has no field for
(`source_bank_data`, `browser_info`, `session_expiry`, `payout_token`) is not echoed. Test
accounts are in `TEST_ACCOUNTS` (also at `GET /_sandbox/payout-test-accounts`).
Layout: `routes.py` (HTTP), `engine.py` (state changes, masking, test accounts), `store.py`
(SQL), `jobs.py` (the clock job), `seed.py` (demo data).
"""

from __future__ import annotations

from payscope.sandbox.resource import Resource
from payscope.sandbox.resources.payouts.jobs import JOB
from payscope.sandbox.resources.payouts.routes import router
from payscope.sandbox.resources.payouts.seed import seed_payouts
from payscope.sandbox.resources.payouts.store import SCHEMA

RESOURCE = Resource(
    name="payouts",
    router=router,
    schema=SCHEMA,
    jobs=(JOB,),
    seed=seed_payouts,
)
