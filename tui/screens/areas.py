"""The areas of the app: their names, command-mode words, id prefixes and whether they exist yet."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Area:
    """One area of the navigation rail and of command mode (`:payments`)."""

    key: str
    title: str
    id_prefix: str | None
    built: bool
    description: str


AREAS: tuple[Area, ...] = (
    Area("payments", "Payments", "pay_", True, "Payments: create, confirm, capture, refund"),
    Area("customers", "Customers", "cus_", False, "Customers and their payments"),
    Area("refunds", "Refunds", "ref_", False, "Refunds and their status"),
    Area("disputes", "Disputes", "dp_", False, "Disputes, evidence and outcomes"),
    Area("subscriptions", "Subscriptions", "sub_", False, "Subscriptions, plans and invoices"),
    Area("payouts", "Payouts", "payout_", False, "Payouts and their methods"),
    Area("links", "Links", "plink_", False, "Payment links"),
    Area("analytics", "Analytics", None, False, "Payment, refund and dispute metrics"),
    Area("users", "Users", None, False, "Team users and roles"),
    Area("events", "Events", "evt_", True, "Webhooks as they arrive, verified"),
    Area("requests", "Requests", None, True, "Every API call, copyable as curl"),
    Area("settings", "Settings", None, True, "Profiles, keys, listener, theme"),
)

AREA_BY_KEY = {area.key: area for area in AREAS}

# Command-mode words that open a record by id, k9s style: `:pay pay_123`.
ID_COMMANDS: dict[str, str] = {
    "pay": "payments",
    "cus": "customers",
    "ref": "refunds",
    "dp": "disputes",
    "sub": "subscriptions",
    "payout": "payouts",
    "plink": "links",
    "evt": "events",
}


def area_for_id(object_id: str) -> Area | None:
    """The area whose records carry `object_id`'s prefix (`pay_...` -> Payments)."""
    # Longest prefix first: `payout_` must win over `pay`.
    for area in sorted(AREAS, key=lambda a: -len(a.id_prefix or "")):
        if area.id_prefix and object_id.startswith(area.id_prefix):
            return area
    return None
