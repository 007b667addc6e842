"""Demo refunds for `seed(n)`: settled ones, full or partial, on about 12% of the seeded
payments whose money was taken."""

from __future__ import annotations

from typing import Any

from payscope.sandbox import ids
from payscope.sandbox.clock import iso
from payscope.sandbox.db import dumps
from payscope.sandbox.resource import SeedContext

REFUND_SHARE = 0.12
REASONS = ("requested_by_customer", "duplicate", "product_not_received", "damaged_item")


def seed_refunds(ctx: SeedContext) -> None:
    """Settled refunds (full or partial) on about 12% of the seeded captured payments."""
    rng = ctx.rng
    rows: list[tuple[Any, ...]] = []
    for p in ctx.shared.get("payments", []):
        if p.amount_received <= 0 or rng.random() >= REFUND_SHARE:
            continue
        refund_id = ids.new_id("ref", rng)
        amount = p.amount_received if rng.random() < 0.6 else max(1, p.amount_received // 2)
        created = iso(min(ctx.now - 1, p.created + rng.uniform(3600, 10 * 86400)))
        data = {
            "refund_id": refund_id,
            "payment_id": p.payment_id,
            "merchant_id": ctx.merchant_id,
            "amount": amount,
            "currency": p.currency,
            "status": "succeeded",
            "reason": rng.choice(REASONS),
            "refund_type": "instant",
            "metadata": None,
            "created": created,
            "modified_at": created,
            "error_code": None,
            "error_message": None,
            "unified_code": None,
            "unified_message": None,
            "profile_id": ctx.profile_id,
            "connector": "sandbox",
        }
        rows.append((refund_id, p.payment_id, p.currency, amount, created, dumps(data)))
    ctx.conn.executemany(
        "INSERT OR IGNORE INTO refunds(refund_id, payment_id, status, currency, amount, created,"
        " data) VALUES (?, ?, 'succeeded', ?, ?, ?, ?)",
        rows,
    )
