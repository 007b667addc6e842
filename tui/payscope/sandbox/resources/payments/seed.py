"""Demo payments for `seed(n)`: spread over the last 90 days across statuses, currencies,
card brands and customers (busier as the period goes on, quieter at weekends and at night,
unless `ctx.lifelike` is off: then evenly), each consistent with the state machine (an
authorisation older than 7 days is expired, a failure carries its decline fields, ...).
Written with `executemany` in chunks; `ctx.shared["payments"]` lists them for the refunds and
disputes seeders.
"""

from __future__ import annotations

import bisect
import math
from dataclasses import dataclass
from typing import Any

from payscope.sandbox import cards, ids
from payscope.sandbox.clock import iso
from payscope.sandbox.db import dumps
from payscope.sandbox.resource import SeedContext
from payscope.sandbox.resources.payments.outcomes import AUTHORISATION_LIFETIME
from payscope.sandbox.resources.payments.store import SHOWN, payment_object

DAYS = 90
CHUNK = 5000

STATUSES = (
    ("succeeded", 62),
    ("failed", 14),
    ("requires_capture", 5),
    ("cancelled", 4),
    ("requires_payment_method", 4),
    ("requires_customer_action", 3),
    ("requires_merchant_action", 2),
    ("partially_captured", 2),
    ("partially_captured_and_capturable", 1),
    ("expired", 2),
    ("processing", 1),
)
CURRENCIES = (("USD", 50), ("EUR", 25), ("GBP", 15), ("JPY", 5), ("INR", 5))
SUCCESS_CARDS = ("4242424242424242", "5555555555554444", "378282246310005", "6011111111111117")
DECLINES = (
    ("UE_1001", 30),
    ("UE_1007", 20),
    ("UE_1002", 10),
    ("UE_1004", 8),
    ("UE_2002", 8),
    ("UE_3001", 6),
    ("UE_5001", 6),
    ("UE_1006", 4),
    ("UE_2003", 4),
    ("UE_9000", 4),
)
DESCRIPTIONS = ("Order", "Subscription box", "Gift card", "Annual plan", "Concert tickets")
DISPUTE_SHARE = 0.02
# `ctx.lifelike`: the newest day is about GROWTH times as busy as the oldest; a weekend day
# has WEEKEND times a weekday's payments, a night hour NIGHT times the busiest hour's (UTC).
GROWTH = 4.0
WEEKEND = 0.6
NIGHT = 0.25
# `ctx.now` is the start of today, up to a day before the real start: seeded work falls due
# no sooner than this after it (a clock pass at start must not change seeded records).
QUIET_FOR = 2 * 86400


@dataclass(frozen=True)
class SeededPayment:
    """What later seeders need to know about a seeded payment."""

    payment_id: str
    status: str
    amount: int
    amount_received: int
    currency: str
    created: float
    customer_id: str | None


def _weighted(pairs: tuple[tuple[str, int], ...]) -> tuple[list[str], list[int]]:
    return [p[0] for p in pairs], [p[1] for p in pairs]


def seed_payments(ctx: SeedContext) -> None:
    """Write `ctx.n` payments and their attempts."""
    rng = ctx.rng
    customers: list[str] = ctx.shared.get("customers", [])
    status_names, status_weights = _weighted(STATUSES)
    currency_names, currency_weights = _weighted(CURRENCIES)
    statuses = rng.choices(status_names, status_weights, k=ctx.n)
    currencies = rng.choices(currency_names, currency_weights, k=ctx.n)
    seeded: list[SeededPayment] = []
    payments_rows: list[tuple[Any, ...]] = []
    attempt_rows: list[tuple[Any, ...]] = []
    dispute_rows: list[tuple[Any, ...]] = []
    # Oldest first, so rowid order follows creation time like live traffic.
    offsets = _offsets(ctx)
    for i in range(ctx.n):
        created = ctx.now - offsets[i] - 60
        status = statuses[i]
        if status == "requires_capture" and ctx.now - created > AUTHORISATION_LIFETIME:
            status = "expired"
        row, attempt, extra = _payment(ctx, status, currencies[i], created, customers)
        payments_rows.append(row)
        if attempt is not None:
            attempt_rows.append(attempt)
        if extra is not None:
            dispute_rows.append(extra)
        seeded.append(SeededPayment(row[0], status, row[3], row[11], row[4], created, row[5]))
        if len(payments_rows) >= CHUNK:
            _flush(ctx, payments_rows, attempt_rows, dispute_rows)
            ctx.progress(i + 1)
    _flush(ctx, payments_rows, attempt_rows, dispute_rows)
    ctx.shared["payments"] = seeded


def _offsets(ctx: SeedContext) -> list[float]:
    """Seconds before `ctx.now` of each payment, oldest first (one draw per payment either way,
    so the draws after them, and every id, are the same with or without `lifelike`)."""
    rng = ctx.rng
    if not ctx.lifelike:
        return sorted((rng.random() * DAYS * 86400 for _ in range(ctx.n)), reverse=True)
    # Each draw is placed through the cumulative weight of the period's hours (oldest first).
    start = ctx.now - DAYS * 86400
    cumulative: list[float] = []
    total = 0.0
    hours = DAYS * 24
    for k in range(hours):
        when = start + k * 3600
        day, hour = divmod(int(when // 3600), 24)
        weight = 1 + (GROWTH - 1) * (k + 0.5) / hours
        if (day + 3) % 7 >= 5:  # 1970-01-01 was a Thursday: 5 and 6 are Saturday and Sunday
            weight *= WEEKEND
        # Quiet at night, busiest mid-afternoon.
        weight *= NIGHT + (1 - NIGHT) * max(0.0, math.sin(math.pi * (hour - 6) / 17))
        total += weight
        cumulative.append(total)
    offsets = []
    for _ in range(ctx.n):
        target = rng.random() * total
        k = min(bisect.bisect_right(cumulative, target), hours - 1)
        before = cumulative[k - 1] if k else 0.0
        within = (target - before) / (cumulative[k] - before)
        offsets.append(DAYS * 86400 - (k + within) * 3600)
    return sorted(offsets, reverse=True)


def _flush(
    ctx: SeedContext,
    payments_rows: list[tuple[Any, ...]],
    attempt_rows: list[tuple[Any, ...]],
    dispute_rows: list[tuple[Any, ...]],
) -> None:
    conn = ctx.conn
    conn.executemany(
        "INSERT OR IGNORE INTO payments(payment_id, merchant_id, status, amount, currency, "
        "customer_id, payment_method, created, client_secret, card_rule, expires_at, data) "
        "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
        [(*r[:11], r[12]) for r in payments_rows],
    )
    conn.executemany(
        "INSERT OR IGNORE INTO payment_attempts(attempt_id, payment_id, seq, data) "
        "VALUES (?, ?, ?, ?)",
        attempt_rows,
    )
    conn.executemany(
        "INSERT OR IGNORE INTO dispute_schedule(payment_id, due_at, reason) VALUES (?, ?, ?)",
        dispute_rows,
    )
    payments_rows.clear()
    attempt_rows.clear()
    dispute_rows.clear()


def _hold_until(ctx: SeedContext, created: float) -> float:
    """When a seeded authorisation lapses: 7 days after it was made, but never within
    QUIET_FOR of the seed's day, so the first clock pass after start changes nothing."""
    return max(created + AUTHORISATION_LIFETIME, ctx.now + QUIET_FOR)


def _payment(
    ctx: SeedContext, status: str, currency: str, created: float, customers: list[str]
) -> tuple[tuple[Any, ...], tuple[Any, ...] | None, tuple[Any, ...] | None]:
    rng = ctx.rng
    payment_id = ids.new_id("pay", rng)
    amount = int(math.exp(rng.uniform(math.log(500), math.log(60000))))
    if currency == "JPY":
        amount = max(100, amount // 100 * 10)
    manual = status in ("requires_capture", "partially_captured", "expired") or (
        status == "partially_captured_and_capturable"
    )
    capture_method = (
        "manual_multiple"
        if status == "partially_captured_and_capturable"
        else ("manual" if manual else "automatic")
    )
    customer_id = rng.choice(customers) if customers and rng.random() < 0.7 else None
    disputed = status == "succeeded" and rng.random() < DISPUTE_SHARE
    decline_code: str | None = None
    if status == "failed":
        names, weights = _weighted(DECLINES)
        decline_code = rng.choices(names, weights)[0]
        number = cards.code_card(decline_code)
    elif disputed:
        number = "4000000000000259"
    else:
        number = rng.choice(SUCCESS_CARDS)
    brand = cards.brand_of(number)
    created_iso = iso(created)
    confirmed = status not in ("requires_payment_method",)
    received = 0
    capturable = 0
    captured_at = None
    expires_at = None
    if status == "succeeded":
        received = amount
        captured_at = iso(created + 2)
    elif status in ("requires_capture", "requires_merchant_action"):
        capturable = amount
        if status == "requires_capture":
            expires_at = _hold_until(ctx, created)
    elif status == "partially_captured":
        received = amount // 2
        captured_at = iso(created + 3600)
    elif status == "partially_captured_and_capturable":
        received = amount // 3
        capturable = amount - received
        captured_at = iso(created + 3600)
        expires_at = _hold_until(ctx, created)
    # Keyword order is the order the seed's random draws happen in: keep it, or every seeded
    # data set (and the snapshots built on one) changes.
    data = payment_object(
        payment_id,
        ctx.merchant_id,
        ctx.profile_id,
        created_iso,
        status=SHOWN.get(status, status),
        amount=amount,
        amount_received=received,
        amount_capturable=capturable,
        currency=currency,
        capture_method=capture_method,
        authentication_type="three_ds" if status == "requires_customer_action" else "no_three_ds",
        payment_method="card" if confirmed else None,
        payment_method_type="credit" if confirmed else None,
        payment_method_data=(
            {
                "card": {
                    "last4": number[-4:],
                    "brand": brand,
                    "exp_month": f"{rng.randint(1, 12):02d}",
                    "exp_year": str(rng.randint(2027, 2032)),
                    "card_holder_name": None,
                }
            }
            if confirmed
            else None
        ),
        customer_id=customer_id,
        description=f"{rng.choice(DESCRIPTIONS)} #{rng.randint(1000, 99999)}",
        metadata={"order_id": f"ord_{rng.randint(100000, 999999)}"},
        modified_at=captured_at or created_iso,
        captured_at=captured_at,
        client_secret=f"{payment_id}_secret_{ids.random_part(20, rng)}",
        cancellation_reason="requested_by_customer" if status == "cancelled" else None,
    )
    if decline_code is not None:
        data.update(cards.decline(decline_code).fields(brand))
    rule = {
        "outcome": cards.DISPUTE if disputed else cards.SUCCEEDED,
        "code": None,
        "brand": brand,
    }
    row = (
        payment_id,
        ctx.merchant_id,
        status,
        amount,
        currency,
        customer_id,
        data["payment_method"],
        created_iso,
        data["client_secret"],
        dumps(rule) if confirmed else None,
        expires_at,
        received,
        dumps(data),
    )
    attempt = None
    if confirmed:
        attempt_status = {
            "succeeded": "charged",
            "failed": "failure",
            "requires_capture": "authorized",
            "requires_customer_action": "authentication_pending",
            "requires_merchant_action": "pending",
            "cancelled": "voided",
            "expired": "authorized",
            "processing": "pending",
            "partially_captured": "partial_charged",
            "partially_captured_and_capturable": "partial_charged_and_chargeable",
        }.get(status, "charged")
        attempt_data = {
            "attempt_id": f"{payment_id}_1",
            "status": attempt_status,
            "amount": amount,
            "currency": currency,
            "payment_method": "card",
            "authentication_type": data["authentication_type"],
            "created_at": created_iso,
            "modified_at": created_iso,
            "error_code": data["error_code"],
            "error_message": data["error_message"],
            "unified_code": data["unified_code"],
            "unified_message": data["unified_message"],
        }
        attempt = (f"{payment_id}_1", payment_id, 1, dumps(attempt_data))
    dispute = (
        (payment_id, created + cards.DISPUTE_AFTER_HOURS * 3600, "fraudulent") if disputed else None
    )
    return row, attempt, dispute
