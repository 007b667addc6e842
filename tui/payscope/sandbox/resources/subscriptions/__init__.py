"""Subscriptions: plans (and the real service's name for them, items), create-and-confirm,
create then confirm, estimate, retrieve, update plan, pause, resume, cancel.

Every call needs `X-Profile-Id` (this sandbox's business profile). Charges are real sandbox
payments (they show in the payments list and analytics) made off-session with the stored card:

    create   -> active (first term charged: `payment` + `invoice` invoice_paid)
             -> trial (a price with a trial period: charged when the trial ends)
             -> failed (the first charge was declined)
    create (POST /subscriptions/create) -> created, no card yet; confirm (with the card) then
             goes on as create-and-confirm does; confirming twice is a 409
    renewal on the clock at next_billing_at -> active with a new invoice and payment,
             or unpaid when the charge fails (billing stops until resumed)
    update   active/unpaid -> charged on the new price now: active, or unpaid when it fails;
             trial -> stays trial on the new price; paused -> pending (activated on resume)
    pause    active/trial -> paused (immediately, end_of_term or specific_date)
    resume   paused/pending/unpaid -> active (immediately or on a specific_date)
    cancel   -> cancelled (immediately, end_of_term or specific_date)

Charges go through mandates, as the real service's do. The first charge is customer-initiated
with `setup_future_usage: off_session` and the `payment_details.customer_acceptance`: once
authorised it saves the card (or uses the saved `payment_method_id`) and sets up an `active`
mandate (`mandate_active`), named on the subscription as `mandate_id`. Every later charge
(renewal, plan change, resume) is a recurring payment on it (`mandate_id`, `off_session: true`,
no method data), declining by the saved method's test value. A mandate that can no longer be
charged (revoked, its method deleted) makes no payment: the invoice is `payment_failed` with
the payments API's `error_code` and `error_message`, and the subscription goes `unpaid` (the
spec's status for a failed charge). Without the customer's acceptance there is no mandate, and
later charges take the stored card off-session (so does seeded history).

`client_secret` lives 15 minutes on the sandbox clock, then reads null. The card
4000000000000341 pays the first term and fails every later charge (renewals, plan changes).

The real service's routes where the spec is silent follow its OpenAPI document's shapes:
`GET /subscriptions/items?item_type=plan` is a bare array of `{item_id, name, description,
price_id[]}` (the sandbox has no add-ons: `addon` lists none), and `GET /subscriptions/estimate`
answers `{amount, currency, plan_id, item_price_id, coupon_code, customer_id, line_items[]}`.
A path whose segment after `/subscriptions/` is no subscription id (`/subscriptions/foo`,
`/subscriptions/foo/pause`) is not a route (404 IR_02, whatever the method).

Layout: `routes.py` (HTTP), `engine.py` (state changes), `store.py` (SQL), `jobs.py` (the
clock job), `seed.py` (demo data).
"""

from __future__ import annotations

from payscope.sandbox.resource import Resource
from payscope.sandbox.resources.subscriptions.jobs import JOB
from payscope.sandbox.resources.subscriptions.routes import router
from payscope.sandbox.resources.subscriptions.seed import seed_subscriptions
from payscope.sandbox.resources.subscriptions.store import SCHEMA

RESOURCE = Resource(
    name="subscriptions",
    router=router,
    schema=SCHEMA,
    jobs=(JOB,),
    seed=seed_subscriptions,
)
