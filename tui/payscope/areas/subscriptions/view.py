"""Subscriptions: the list (newest first, filters, live rows), a subscription's detail (plan,
current period, latest payment and invoice, renewal history, customer) and its actions.

The service has no route that lists subscriptions. On the local sandbox the list is the
sandbox's own `GET /_sandbox/subscriptions` (a stand-in for the real service's dashboard); on
a remote profile it shows the subscriptions payscope has seen (`remote`) and says so. The
actions are declared once in `actions` (`ROW_ACTIONS`) for this list and the detail (`detail`);
their forms are in `forms`. No webhook reports a pause, resume, cancel or plan change: the
forms announce what they changed (`payscope.views.live.announce`). A renewal sends `invoice_paid`
(its row and detail follow); a renewal that fails sends only its payment's `payment_failed`,
whose metadata names the subscription, and that is followed too.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from rich.text import Text

from payscope.api.models.subscriptions import Subscription
from payscope.areas.subscriptions import AREA
from payscope.areas.subscriptions.actions import CLOCK, NEW_SUBSCRIPTION, ROW_ACTIONS
from payscope.areas.subscriptions.detail import SubscriptionDetailScreen
from payscope.areas.subscriptions.forms import NewSubscriptionForm
from payscope.areas.subscriptions.remote import SOURCE_NOTE, page
from payscope.areas.subscriptions.spec import (
    CLOCK_MOVED,
    COLUMNS,
    PAGE_SIZE,
    REMOTE_RELOAD_DELAY,
    Catalogue,
    SubscriptionCells,
    catalogue,
    read_sandbox_page,
    subscription_grammar,
    with_subscription,
)
from payscope.views.columns import CellContext
from payscope.views.filters import Grammar
from payscope.views.listing import ResourceListView

if TYPE_CHECKING:
    from payscope.views.live import Change


class SubscriptionsView(ResourceListView["Subscription"]):
    """The Subscriptions area."""

    title = "Subscriptions"
    noun = "subscriptions"
    scope = "subscriptions"
    id_prefix = AREA.id_prefix or ""
    columns = COLUMNS
    page_size = PAGE_SIZE
    empty_hint = "Press [b]n[/b] to subscribe a customer to a plan."
    # The row actions stay out of the list's footer (the detail shows them); their keys work.
    actions = (NEW_SUBSCRIPTION, CLOCK, *(a.hidden() for a in ROW_ACTIONS))

    def __init__(self, *, id: str) -> None:
        super().__init__(id=id)
        self.catalogue: Catalogue | None = None
        self._reload_timer: Any = None
        self._loaded_at = 0.0

    def key_of(self, record: Subscription) -> str:
        return str(record.id)

    def order(self, record: Subscription) -> Any:
        return record.created_at or ""

    def cell_context(self) -> CellContext:
        return SubscriptionCells(
            self.app.theme_variables,
            self.runtime.display,
            self.runtime.now(),
            catalogue=self.catalogue,
        )

    def filter_grammar(self) -> Grammar:
        return subscription_grammar(self.catalogue)

    async def fetch_page(
        self, filters: dict[str, Any], offset: int, limit: int
    ) -> tuple[list[Subscription], int]:
        api = self.runtime.api
        if self.catalogue is None or self.catalogue.problem:
            self.catalogue = await catalogue(api)
        if not self.runtime.options.is_local:
            return await page(self.runtime, filters, offset, limit)
        return await read_sandbox_page(api, filters, offset, limit)

    async def fetch_one(self, record_id: str) -> Subscription:
        return await self.runtime.api.subscriptions.retrieve(record_id)

    def detail(self, record_id: str) -> SubscriptionDetailScreen:
        return SubscriptionDetailScreen(record_id)

    def page_loaded(self, records: list[Any]) -> None:
        self._loaded_at = self.runtime.now()

    def focus_main(self) -> None:
        super().focus_main()
        # The sandbox clock moved since (from :sandbox, say): scheduled pauses and cancellations
        # may have taken effect, which no webhook reports. Shown again, the page is read again.
        if self.loaded and abs(self.runtime.now() - self._loaded_at) > CLOCK_MOVED:
            self.load()

    def on_change(self, change: Change) -> None:
        change = with_subscription(change)
        if not self.runtime.options.is_local and self.loaded:
            # Remotely the list is every subscription seen, whatever its age: one seen for the
            # first time joins it in its place (the base adds only records newer than the page).
            # A burst of them (renewals falling due together) is one reload.
            unseen = [i for i in change.ids if i.startswith("sub_") and i not in self.rows]
            if unseen:
                if self._reload_timer is None:
                    self._reload_timer = self.set_timer(REMOTE_RELOAD_DELAY, self._reload_seen)
                return
        super().on_change(change)

    def _reload_seen(self) -> None:
        self._reload_timer = None
        self.load()

    def header_extra(self, header: Text) -> None:
        if self.is_mounted and not self.runtime.options.is_local:
            header.append(f"  {SOURCE_NOTE}", style="dim")

    def empty_text(self) -> str:
        if self.filter or self.runtime.options.is_local:
            return super().empty_text()
        return (
            "The service has no list of subscriptions, so this shows the ones payscope has "
            "seen: in invoice_paid webhooks and in its own requests. None yet.\n"
            "Press [b]n[/b] to subscribe a customer, or type [b]:sub sub_…[/b] to open any id."
        )

    def new_record(self) -> None:
        """Ask for a customer, a price and a card; the subscription made opens on its detail."""
        if self.starting(self.new_record):
            return
        customer_id = self.filter.server.get("customer_id")
        plan_id = self.filter.server.get("plan_id")

        async def go() -> None:

            found = await catalogue(self.runtime.api)
            await self.app.push_screen(
                NewSubscriptionForm(found, customer_id=customer_id, plan_id=plan_id),
                self._created,
            )

        self.run_worker(go(), group="subscription-new", exit_on_error=False, description="Form")

    def _created(self, sub: Any) -> None:
        if sub is None:
            return
        self.notify(f"{sub.id}: {sub.status}", title="Subscription created", markup=False)
        # Back from the subscription, the cursor is on its row.
        self.show_created(sub.id)
