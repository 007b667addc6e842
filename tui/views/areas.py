"""The areas of the app: names, command-mode words, id prefixes, and the view that shows each.

Both the shell and generic widgets (the command prompt) read this registry; views are named by
import path and imported when first shown, so an area costs nothing until it is opened.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, NamedTuple

if TYPE_CHECKING:
    from tui.views.area import AreaView


# A NamedTuple: made at import, before the first frame (why: docs/architecture.md).
class Area(NamedTuple):
    """One area of the navigation rail and of command mode (`:payments`)."""

    key: str
    title: str
    id_prefix: str | None
    description: str
    view: str  # "module:Class" of its AreaView

    def build(self) -> AreaView:
        """A new view of this area (its module imported on first use)."""
        module, _, name = self.view.partition(":")
        cls = getattr(importlib.import_module(module), name)
        view: AreaView = cls(id=self.key)
        return view


AREAS: tuple[Area, ...] = (
    Area(
        "payments",
        "Payments",
        "pay_",
        "Payments: create, confirm, capture, refund",
        "tui.screens.payments:PaymentsView",
    ),
    Area(
        "customers",
        "Customers",
        "cus_",
        "Customers and their payments",
        "tui.screens.customers:CustomersView",
    ),
    Area(
        "refunds", "Refunds", "ref_", "Refunds and their status", "tui.screens.refunds:RefundsView"
    ),
    Area(
        "disputes",
        "Disputes",
        "dp_",
        "Disputes, evidence and outcomes",
        "tui.screens.disputes:DisputesView",
    ),
    Area(
        "subscriptions",
        "Subscriptions",
        "sub_",
        "Subscriptions, plans and invoices",
        "tui.screens.subscriptions:SubscriptionsView",
    ),
    Area(
        "payouts",
        "Payouts",
        "payout_",
        "Payouts and their methods",
        "tui.screens.payouts:PayoutsView",
    ),
    Area(
        "links",
        "Links",
        "plink_",
        "Payment links: make, share (QR), follow until paid",
        "tui.screens.links:LinksView",
    ),
    Area(
        "analytics",
        "Analytics",
        None,
        "Payment, refund and dispute metrics",
        "tui.screens.analytics:AnalyticsView",
    ),
    Area("users", "Users", None, "Team users and roles", "tui.screens.users:UsersView"),
    Area(
        "codes",
        "Codes",
        None,
        "Decline codes: meaning, retry advice, test cards",
        "tui.screens.codes:CodesView",
    ),
    Area(
        "events",
        "Events",
        "evt_",
        "Webhooks as they arrive, verified",
        "tui.screens.events:EventsView",
    ),
    Area(
        "requests",
        "Requests",
        None,
        "Every API call, copyable as curl",
        "tui.screens.requests:RequestsView",
    ),
    Area(
        "sandbox",
        "Sandbox",
        None,
        "The local sandbox: keys, clock, Trigger",
        "tui.screens.sandbox:SandboxView",
    ),
    Area(
        "settings",
        "Settings",
        None,
        "Profiles, keys, listener, theme",
        "tui.screens.settings:SettingsView",
    ),
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
