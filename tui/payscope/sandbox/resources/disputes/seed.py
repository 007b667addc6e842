"""Demo disputes for `seed(n)`: every stage and status, on about 2% of the seeded payments
whose money was taken, and the dispute-card payments the payments seeder scheduled."""

from __future__ import annotations

from typing import Any, Final

from payscope.api.models.disputes import NETWORK_REASONS
from payscope.sandbox import ids
from payscope.sandbox.clock import iso
from payscope.sandbox.db import dumps
from payscope.sandbox.resource import SeedContext
from payscope.sandbox.resources.disputes.engine import (
    CHALLENGE_WINDOW,
    CHALLENGED,
    OPEN_STATUSES,
    OPENED,
    record,
)
from payscope.sandbox.resources.disputes.store import already_refunded

# (status, stage, weight): open ones late in the window, settled ones earlier.
SEED_MIX: Final = (
    (OPENED, "pre_dispute", 2),
    (OPENED, "dispute", 3),
    (CHALLENGED, "dispute", 3),
    (CHALLENGED, "pre_arbitration", 1),
    ("dispute_won", "dispute", 2),
    ("dispute_lost", "dispute", 2),
    ("dispute_lost", "pre_arbitration", 1),
    ("dispute_accepted", "dispute", 1),
    ("dispute_expired", "dispute", 1),
)


def seed_disputes(ctx: SeedContext) -> None:
    """Disputes in every stage and status on about 2% of the seeded succeeded payments.

    The dispute-card payments the payments seeder scheduled are opened here (and marked so the
    clock job does not open them again).
    """
    rng = ctx.rng
    conn = ctx.conn
    scheduled = {
        str(r[0])
        for r in conn.execute("SELECT payment_id FROM dispute_schedule WHERE opened_at IS NULL")
    }
    chosen = [
        p
        for p in ctx.shared.get("payments", [])
        if p.amount_received > 0 and (p.payment_id in scheduled or rng.random() < 0.02)
    ]
    if not chosen:
        return
    mix = [(s, st) for s, st, w in SEED_MIX for _ in range(w)]
    rows: list[tuple[Any, ...]] = []
    for i, p in enumerate(chosen):
        status, stage = mix[i % len(mix)] if i < len(mix) else rng.choice(mix)
        opened = min(ctx.now - 3600, p.created + rng.uniform(6 * 3600, 20 * 86400))
        if status in OPEN_STATUSES:
            opened = max(opened, ctx.now - CHALLENGE_WINDOW + 2 * 86400)  # not due at start
        reason = rng.choice(list(NETWORK_REASONS))
        dispute_id = ids.new_id("dp", rng)
        amount = p.amount_received if rng.random() < 0.8 else max(1, p.amount_received // 2)
        data = record(
            dispute_id,
            p.payment_id,
            amount,
            p.currency,
            reason,
            stage,
            status,
            iso(opened),
            iso(opened + CHALLENGE_WINDOW),
            ctx.profile_id,
            ctx.merchant_id,
        )
        evidence = None
        if status in (CHALLENGED, "dispute_won", "dispute_lost"):
            submitted = min(ctx.now - 60, opened + rng.uniform(3600, 3 * 86400))
            data["evidence_submitted_at"] = iso(submitted)
            evidence = dumps(
                {
                    "product_description": "Demo order shipped as described",
                    "shipping_carrier": rng.choice(("UPS", "DHL", "FedEx")),
                    "shipping_tracking_number": f"1Z{rng.randint(10**9, 10**10 - 1)}",
                }
            )
        if status != OPENED:
            data["modified_at"] = iso(min(ctx.now - 1, opened + 4 * 86400))
        data["is_already_refunded"] = already_refunded(conn, data)
        expires = opened + CHALLENGE_WINDOW if status == OPENED else None
        rows.append(
            (
                dispute_id,
                p.payment_id,
                status,
                stage,
                p.currency,
                amount,
                iso(opened),
                ctx.profile_id,
                expires,
                evidence,
                dumps(data),
            )
        )
    conn.executemany(
        "INSERT OR IGNORE INTO disputes(dispute_id, payment_id, status, stage, currency, amount, "
        "created, profile_id, expires_at, evidence, data) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
        rows,
    )
    conn.execute("UPDATE dispute_schedule SET opened_at = ? WHERE opened_at IS NULL", (ctx.now,))
