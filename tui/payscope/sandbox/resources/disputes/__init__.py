"""Disputes: opened by the card network only, answered by the merchant, decided by the network.

    (network) POST /_sandbox/disputes, or the dispute test card (4000000000000259) some
              sandbox-hours after its money was taken  ->  dispute_opened
    dispute_opened  -- POST /disputes/accept/{id}  -> dispute_accepted
                    -- POST /disputes/evidence     -> dispute_challenged
                    -- clock passes challenge_required_by -> dispute_expired
    dispute_opened | dispute_challenged -- POST /_sandbox/disputes/{id}/resolve -> won | lost

A lost dispute charges its amount back: a later dispute on the payment may take at most what
lost ones left (400 IR_04 beyond, and when nothing is left), and refunds may not take it again
(the refunds resource).

Every status change emits its event (`dispute_<status>`) through the outbox, in the same
transaction. Evidence is stored as submitted (flat) and returned grouped by category.

Beside the spec's fields, a dispute carries what the real service always sends: the sandbox
connector's own `connector_dispute_id` and `connector_status` (`CONNECTOR_STATUS`), and
`is_already_refunded`: true once a lost dispute plus the payment's refunds exceed what was
captured (the merchant paid the money back twice).

Layout: `routes.py` (HTTP), `engine.py` (state changes; what the refunds resource uses of
disputes), `store.py` (SQL), `jobs.py` (the clock jobs), `seed.py` (demo data).
"""

from __future__ import annotations

from payscope.sandbox.resource import Resource
from payscope.sandbox.resources.disputes.jobs import JOBS
from payscope.sandbox.resources.disputes.routes import router
from payscope.sandbox.resources.disputes.seed import seed_disputes
from payscope.sandbox.resources.disputes.store import SCHEMA

RESOURCE = Resource(
    name="disputes",
    router=router,
    schema=SCHEMA,
    jobs=JOBS,
    seed=seed_disputes,
)
