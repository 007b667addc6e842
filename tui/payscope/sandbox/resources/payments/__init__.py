"""Payments: create, update, confirm, retrieve, list, capture, cancel, approve, reject, 3DS.

The state machine is the reference's (the spec wins where they differ):

    create (confirm false) -> requires_payment_method, or requires_confirmation with a card
    confirm -> succeeded | requires_capture (manual) | failed (decline)
             | requires_customer_action (3DS, shown as requires_action with next_action)
             | requires_merchant_action (manual review)
             | processing (processing card) -> a minute later: succeeded | requires_capture
             | partially_authorized_and_requires_capture (partial card, when the payment
               has enable_partial_authorization; else failed UE_1001)
    3DS authorize -> succeeded | requires_capture; fail -> failed UE_5001; abandon -> UE_5003
    approve -> succeeded (automatic) | requires_capture (manual); reject -> failed
    capture -> succeeded | partially_captured | partially_captured_and_capturable
    cancel -> cancelled;  7 days in requires_capture (or partially authorised) -> expired

The payment object is stored as JSON in `payments.data` (what lists splice in as is), with the
filtered fields in indexed columns. The raw card number is never stored: what the test card
will do is decided when the card arrives and kept in `card_rule`. `expires_at` is when the
payment's next timed step falls due: its authorisation expires, or a processing payment settles.
Every event carries the payment as saved by the same change (`save` before `emit_status`).

Dispute hook (for the disputes resource): a payment made with the dispute test card gets a row
in `dispute_schedule(payment_id, due_at, reason, opened_at)` when its money is captured;
`due_at` is sandbox time. A disputes job opens a dispute for each row with `opened_at IS NULL`
and `due_at <= now`, then sets `opened_at`. Retrieve also lists `disputes` from a `disputes`
table with `payment_id` and `data` (JSON) columns when one exists.

Layout: `routes.py` (HTTP), `engine.py` (state changes; what other resources use to write
payments), `outcomes.py` (what a confirmation's card or method decides, and attempts),
`paid_with.py` (the way to pay a body names), `store.py` (SQL and the payment's shape),
`jobs.py` (the clock job), `seed.py` (demo data).
"""

from __future__ import annotations

from payscope.sandbox.resource import Resource
from payscope.sandbox.resources.payments.jobs import JOB
from payscope.sandbox.resources.payments.routes import router
from payscope.sandbox.resources.payments.seed import seed_payments
from payscope.sandbox.resources.payments.store import SCHEMA

RESOURCE = Resource(
    name="payments",
    router=router,
    schema=SCHEMA,
    jobs=(JOB,),
    seed=seed_payments,
)
