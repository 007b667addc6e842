"""Refunds: create (full or partial, `refund_id` idempotent), list, retrieve, update.

A refund settles at once: it is answered `succeeded` and emits `refund_succeeded`, as the real
service's own sandbox processor does. The asynchronous path is the test cards': a refund of a
payment made with the refund-pending card (4000000000007726), the refund-fails card
(4000000000005126) or the refund-review card (4000000000000168) is answered `pending` and
settles on the sandbox clock, `instant` refunds 10 seconds later, `scheduled` ones an hour later
(advance the clock to skip the wait): `succeeded`, `failed`, or `review`, where it stays until
`POST /_sandbox/refunds/{id}/review` decides it. Only decided refunds emit events
(`refund_succeeded`, `refund_failed`).

What may be refunded is the amount received less the refunds that did not fail and what lost
disputes charged back (the cardholder has that already); more is refused, 400 IR_04.

Layout: `routes.py` (HTTP), `engine.py` (state changes), `store.py` (SQL), `jobs.py` (the clock
job), `seed.py` (demo data).
"""

from __future__ import annotations

from payscope.sandbox.resource import Resource
from payscope.sandbox.resources.refunds.jobs import JOB
from payscope.sandbox.resources.refunds.routes import router
from payscope.sandbox.resources.refunds.seed import seed_refunds
from payscope.sandbox.resources.refunds.store import SCHEMA

RESOURCE = Resource(
    name="refunds",
    router=router,
    schema=SCHEMA,
    jobs=(JOB,),
    seed=seed_refunds,
)
