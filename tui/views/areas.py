"""The areas of the app: names, command-mode words, id prefixes, and the view that shows each.

Both the shell and generic widgets (the command prompt) read this registry; views are named by
import path and imported when first shown, so an area costs nothing until it is opened.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any, NamedTuple

if TYPE_CHECKING:
    from textual.screen import Screen

    from tui.views.area import AreaView


# A NamedTuple: made at import, before the first frame (why: docs/architecture.md).
class Area(NamedTuple):
    """One area of the navigation rail and of command mode (`:payments`)."""

    key: str
    title: str
    id_prefix: str | None
    description: str
    view: str  # "module:Class" of its AreaView
    detail: str | None = None  # "module:Class" of its records' DetailScreen (built with an id)

    def build(self) -> AreaView:
        """A new view of this area (its module imported on first use)."""
        module, _, name = self.view.partition(":")
        cls = getattr(importlib.import_module(module), name)
        view: AreaView = cls(id=self.key)
        return view

    def detail_screen(self, record_id: str) -> Screen[Any]:
        """The detail of one of this area's records, to push over another area's screen (a
        customer's payment: Esc comes back to the customer). Its module imported on first use."""
        assert self.detail is not None, f"{self.key} has no detail screen"
        module, _, name = self.detail.partition(":")
        screen: Screen[Any] = getattr(importlib.import_module(module), name)(record_id)
        return screen


AREAS: tuple[Area, ...] = (
    Area(
        "payments",
        "Payments",
        "pay_",
        "Payments: create, confirm, capture, refund",
        "tui.areas.payments.view:PaymentsView",
        "tui.areas.payments.detail:PaymentDetailScreen",
    ),
    Area(
        "customers",
        "Customers",
        "cus_",
        "Customers and their payments",
        "tui.areas.customers.view:CustomersView",
        "tui.areas.customers.detail:CustomerDetailScreen",
    ),
    Area(
        "refunds",
        "Refunds",
        "ref_",
        "Refunds and their status",
        "tui.areas.refunds.view:RefundsView",
        "tui.areas.refunds.detail:RefundDetailScreen",
    ),
    Area(
        "disputes",
        "Disputes",
        "dp_",
        "Disputes, evidence and outcomes",
        "tui.areas.disputes.view:DisputesView",
        "tui.areas.disputes.detail:DisputeDetailScreen",
    ),
    Area(
        "subscriptions",
        "Subscriptions",
        "sub_",
        "Subscriptions, plans and invoices",
        "tui.areas.subscriptions.view:SubscriptionsView",
        "tui.areas.subscriptions.detail:SubscriptionDetailScreen",
    ),
    Area(
        "payouts",
        "Payouts",
        "payout_",
        "Payouts and their methods",
        "tui.areas.payouts.view:PayoutsView",
        "tui.areas.payouts.detail:PayoutDetailScreen",
    ),
    Area(
        "links",
        "Links",
        "plink_",
        "Payment links: make, share (QR), follow until paid",
        "tui.areas.links.view:LinksView",
        "tui.areas.links.detail:LinkDetailScreen",
    ),
    Area(
        "analytics",
        "Analytics",
        None,
        "Payment, refund and dispute metrics",
        "tui.areas.analytics.view:AnalyticsView",
    ),
    Area("users", "Users", None, "Team users and roles", "tui.areas.users.view:UsersView"),
    Area(
        "codes",
        "Codes",
        None,
        "Decline codes: meaning, retry advice, test cards",
        "tui.areas.codes.view:CodesView",
    ),
    Area(
        "events",
        "Events",
        "evt_",
        "Webhooks as they arrive, verified",
        "tui.areas.events.view:EventsView",
        "tui.areas.events.detail:EventDetailScreen",
    ),
    Area(
        "requests",
        "Requests",
        None,
        "Every API call, copyable as curl",
        "tui.areas.requests.view:RequestsView",
        "tui.areas.requests.view:RequestDetailScreen",
    ),
    Area(
        "sandbox",
        "Sandbox",
        None,
        "The local sandbox: keys, clock, Trigger",
        "tui.areas.sandbox.view:SandboxView",
    ),
    Area(
        "settings",
        "Settings",
        None,
        "Profiles, keys, listener, theme",
        "tui.areas.settings.view:SettingsView",
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
