"""Every resource of the sandbox, in registration order (one line each).

Order matters for seeding: a seeder sees what the ones before it wrote in `ctx.shared`.
"""

from __future__ import annotations

from payscope.sandbox.resource import Resource
from payscope.sandbox.resources import (
    analytics,
    api_keys,
    controls,
    customers,
    disputes,
    events,
    payment_links,
    payment_methods,
    payments,
    payouts,
    profiles,
    refunds,
    subscriptions,
    three_ds,
    users,
)

RESOURCES: list[Resource] = [
    controls.RESOURCE,
    customers.RESOURCE,
    payments.RESOURCE,
    payment_methods.RESOURCE,
    three_ds.RESOURCE,
    refunds.RESOURCE,
    api_keys.RESOURCE,
    profiles.RESOURCE,
    events.RESOURCE,
    disputes.RESOURCE,
    subscriptions.RESOURCE,
    payouts.RESOURCE,
    payment_links.RESOURCE,
    users.RESOURCE,
    analytics.RESOURCE,
]
