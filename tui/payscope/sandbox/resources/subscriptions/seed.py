"""Subscriptions' demo seed: several states for about one customer in five."""

from __future__ import annotations

from typing import Any, Final

from payscope.sandbox import cards, ids
from payscope.sandbox.clock import iso
from payscope.sandbox.db import dumps
from payscope.sandbox.resource import SeedContext
from payscope.sandbox.resources.subscriptions.engine import PRICES, add_interval

_SEED_STATES: Final = ("active", "active", "active", "trial", "paused", "cancelled", "unpaid")


def seed_subscriptions(ctx: SeedContext) -> None:
    """Subscriptions in several states for about one customer in five (at least 7).

    Seeded history carries its latest invoice but no payment object: `seed(n)` writes exactly
    n payments.
    """
    rng = ctx.rng
    customers: list[str] = ctx.shared.get("customers", [])
    if not customers:
        return
    rows: list[tuple[Any, ...]] = []
    invoices: list[tuple[Any, ...]] = []
    paid_prices = [p for p in PRICES if not PRICES[p][1]["trial_period"]]
    for i in range(max(7, len(customers) // 5)):
        status = _SEED_STATES[i % len(_SEED_STATES)]
        customer_id = customers[i % len(customers)]
        price_id = "price_pro_monthly_trial" if status == "trial" else rng.choice(paid_prices)
        plan_id, price = PRICES[price_id]
        sub_id = ids.new_id("sub", rng)
        step = (str(price["interval"]), int(price["interval_count"]))
        # The current term began up to 5 days ago, so the next charge is at least 2 days after
        # the seed's day starts: seeded history never falls due (and sends nothing) at start.
        term_start = ctx.now - rng.uniform(3600, 5 * 86400)
        created = term_start
        for _ in range(rng.randint(0, 3)):
            created = add_interval(created, step[0], -step[1])
        if status == "trial":
            created = ctx.now - rng.uniform(3600, 10 * 86400)
        billing: float | None = add_interval(term_start, *step)
        if status == "trial":
            billing = created + int(price["trial_period"]) * 86400
        if status not in ("active", "trial"):
            billing = None
        invoice = None
        if status != "trial":
            invoice = {
                "id": ids.new_id("inv", rng),
                "subscription_id": sub_id,
                "amount": price["amount"],
                "currency": price["currency"],
                "status": "payment_failed" if status == "unpaid" else "invoice_paid",
                "payment_id": None,
                "created": iso(term_start),
            }
            invoices.append((invoice["id"], sub_id, invoice["created"], dumps(invoice)))
        data = {
            "id": sub_id,
            "status": status,
            "profile_id": ctx.profile_id,
            "merchant_id": ctx.merchant_id,
            "customer_id": customer_id,
            "plan_id": plan_id,
            "item_price_id": price_id,
            "merchant_reference_id": f"order_{rng.randint(10000, 99999)}",
            "coupon_code": None,
            "client_secret": None,
            "payment_method_id": None,
            "mandate_id": None,
            "payment": None,
            "invoice": invoice,
            "next_billing_at": iso(billing) if billing is not None else None,
            "trial_end": iso(billing) if status == "trial" and billing else None,
            "scheduled_change": None,
            "billing": None,
            "shipping": None,
            "created_at": iso(created),
            "modified_at": iso(term_start),
        }
        rule: dict[str, Any] = {
            "outcome": cards.SUCCEEDED,
            "code": None,
            "brand": "Visa",
            "card": {
                "last4": "4242",
                "brand": "Visa",
                "exp_month": "12",
                "exp_year": "2031",
                "card_holder_name": None,
            },
            "fails_renewals": False,
            "payment_method_id": ids.new_id("pm", rng),
        }
        data["payment_method_id"] = rule["payment_method_id"]
        rows.append(
            (
                sub_id,
                ctx.profile_id,
                customer_id,
                status,
                iso(created),
                billing,
                dumps(rule),
                dumps(data),
            )
        )
    ctx.conn.executemany(
        "INSERT OR IGNORE INTO subscriptions(id, profile_id, customer_id, status, created, "
        "billing_at, card_rule, data) VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
        rows,
    )
    ctx.conn.executemany(
        "INSERT OR IGNORE INTO subscription_invoices(id, subscription_id, created, data) "
        "VALUES (?, ?, ?, ?)",
        invoices,
    )
