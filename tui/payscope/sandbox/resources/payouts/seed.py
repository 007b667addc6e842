"""Demo payouts for `seed(n)`: every status and payout type, methods masked as the API
stores them, initiated ones settling on the sandbox clock."""

from __future__ import annotations

from typing import Any, Final

from payscope.sandbox import ids
from payscope.sandbox.clock import iso
from payscope.sandbox.db import dumps
from payscope.sandbox.resource import SeedContext
from payscope.sandbox.resources.payouts.engine import (
    FAILS,
    SETTLE_SECONDS,
    account_rule,
    shown_method,
)

_SEED_METHODS: Final[tuple[tuple[str, dict[str, Any]], ...]] = (
    (
        "card",
        {
            "card": {
                "card_number": "4242424242424242",
                "expiry_month": "10",
                "expiry_year": "2030",
                "card_holder_name": "Ada Lovelace",
            }
        },
    ),
    (
        "bank",
        {
            "bank_transfer": {
                "bank_account_number": "000123456789",
                "bank_routing_number": "110000000",
                "bank_name": "Demo Bank",
            }
        },
    ),
    ("bank", {"bank_transfer": {"iban": "DE89370400440532013000", "bic": "COBADEFFXXX"}}),
    ("bank", {"bank_transfer": {"bank_account_number": "55779911", "bank_sort_code": "200000"}}),
    (
        "wallet",
        {
            "wallet": {
                "paypal": {
                    "email": "payee@example.com",
                    "telephone_number": "5551234567",
                    "paypal_id": "PAYPAL123",
                }
            }
        },
    ),
    ("wallet", {"wallet": {"venmo": {"telephone_number": "5559876543"}}}),
    ("bank_redirect", {"bank_redirect": {"interac": {"email": "payee@example.ca"}}}),
    (
        "bank",
        {
            "bank_transfer": {
                "bank_account_number": "000123450002",
                "bank_routing_number": "110000000",
            }
        },
    ),
)
_SEED_STATUSES: Final = (
    ("success", 10),
    ("failed", 2),
    ("initiated", 2),
    ("requires_fulfillment", 2),
    ("requires_confirmation", 2),
    ("requires_payout_method_data", 1),
    ("cancelled", 1),
    ("reversed", 1),
)


def seed_payouts(ctx: SeedContext) -> None:
    """Payouts of every method and most statuses, one per 25 payments (at least 12)."""
    rng = ctx.rng
    customers: list[str] = ctx.shared.get("customers", [])
    names = [s for s, w in _SEED_STATUSES for _ in range(w)]
    rows: list[tuple[Any, ...]] = []
    for i in range(max(12, ctx.n // 25)):
        payout_id = ids.new_id("payout", rng)
        created = ctx.now - rng.uniform(600, 60 * 86400)
        payout_type, method = _SEED_METHODS[i % len(_SEED_METHODS)]
        rule = account_rule(method)
        status = (
            "failed"
            if rule == FAILS
            else names[i % len(names)]
            if i < len(names)
            else rng.choice(names)
        )
        if status == "failed" and rule != FAILS:
            status = "success"
        has_method = status != "requires_payout_method_data"
        customer_id = rng.choice(customers) if customers else None
        data: dict[str, Any] = {
            "payout_id": payout_id,
            "merchant_id": ctx.merchant_id,
            "merchant_order_reference_id": f"po_ref_{rng.randint(10000, 99999)}",
            "amount": rng.randrange(1000, 250000, 50),
            "currency": rng.choice(("USD", "USD", "EUR", "GBP")),
            "payout_type": payout_type if has_method else None,
            "payout_method_data": shown_method(method) if has_method else None,
            "billing": None,
            "auto_fulfill": rng.random() < 0.5,
            "customer_id": customer_id,
            "customer": {
                "id": customer_id,
                "name": None,
                "email": None,
                "phone": None,
                "phone_country_code": None,
            }
            if customer_id
            else None,
            "client_secret": f"{payout_id}_secret_{ids.random_part(20, rng)}",
            "return_url": None,
            "business_country": None,
            "description": rng.choice(("Seller settlement", "Refund to wallet", "Affiliate fee")),
            "entity_type": rng.choice(("Individual", "Company")),
            "recurring": False,
            "metadata": None,
            "status": status,
            "error_message": "The recipient's bank refused the payout: the account is closed."
            if status == "failed"
            else None,
            "error_code": "account_closed" if status == "failed" else None,
            "profile_id": ctx.profile_id,
            "created": iso(created),
            "connector": "sandbox",
            "connector_transaction_id": None,
            "priority": rng.choice(("instant", "fast", "regular")),
            "attempts": None,
            "payout_link": None,
            "unified_code": None,
            "unified_message": None,
            "payout_method_id": None,
        }
        if status == "initiated":
            data["priority"] = "cross_border"  # settles two days on: not due at start
        due_at = ctx.now + SETTLE_SECONDS["cross_border"] if status == "initiated" else None
        rows.append(
            (
                payout_id,
                status,
                data["amount"],
                data["currency"],
                customer_id,
                data["payout_type"],
                data["entity_type"],
                data["created"],
                due_at,
                rule,
                dumps(data),
            )
        )
    ctx.conn.executemany(
        "INSERT OR IGNORE INTO payouts(payout_id, status, amount, currency, customer_id, "
        "payout_type, entity_type, created, due_at, rule, data) "
        "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
        rows,
    )
