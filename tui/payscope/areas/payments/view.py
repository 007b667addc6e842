"""Payments: a server-paged table (100 a page), filters, live status from webhooks, actions.

The actions are declared once in `spec` (`ROW_ACTIONS`) for the list and the detail alike.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from rich.text import Text
from textual import work

from payscope.areas.payments import AREA
from payscope.areas.payments.actions import ROW_ACTIONS
from payscope.areas.payments.cache import PAGE_SIZE, cache_path, load_page, save_page
from payscope.areas.payments.spec import COLUMNS, payment_grammar
from payscope.views.actions import Action
from payscope.views.listing import ResourceListView, new_record_action
from payscope.widgets.format import rich_colour

if TYPE_CHECKING:
    from collections.abc import Awaitable
    from pathlib import Path

    from payscope.api.models.payments import Payment
    from payscope.areas.payments.cache import CachedPayment
    from payscope.areas.payments.detail import PaymentDetailScreen
    from payscope.views.filters import Grammar

    # A row: a live payment, or the start-up cache's copy of what the table showed.
    Row = Payment | CachedPayment


NEW_PAYMENT: Action[Any] = new_record_action("New", "Create a payment", "New payment")


class PaymentsView(ResourceListView["Row"]):
    """The Payments area."""

    title = "Payments"
    noun = "payments"
    scope = "payments"
    id_prefix = AREA.id_prefix or ""
    columns = COLUMNS
    page_size = PAGE_SIZE
    empty_hint = "Press [b]n[/b] to create one."
    # In the list, the row actions stay out of the footer (the detail shows them): their keys
    # work, and ? and the palette list them.
    actions = (NEW_PAYMENT, *(a.hidden() for a in ROW_ACTIONS))

    def __init__(self, *, id: str) -> None:
        super().__init__(id=id)
        self.cached = False
        self.read_early = False  # the live page read once the client was up, before all was

    def key_of(self, record: Row) -> str:
        return record.payment_id

    def filter_grammar(self) -> Grammar:
        client = self.runtime.client  # None while connecting: the help reads the same
        return payment_grammar(real=client is not None and client.contract == "real")

    async def fetch_page(
        self, filters: dict[str, Any], offset: int, limit: int
    ) -> tuple[list[Row], int | None]:
        from payscope.api.models.payments import PaymentListRequest

        request = PaymentListRequest(limit=limit, offset=offset, **filters)
        page = await self.runtime.api.payments.list(request)
        # The real service's `{size, data}` carries no total (its list pages by cursor): None,
        # and the header says what was read and that more may follow.
        return list(page.data), page.total_count

    async def fetch_one(self, record_id: str) -> Row:
        payment: Payment = await self.runtime.api.payments.retrieve(record_id)
        return payment

    def detail(self, record_id: str) -> PaymentDetailScreen:
        from payscope.areas.payments.detail import PaymentDetailScreen

        return PaymentDetailScreen(record_id)

    # -- the start-up cache of the first page ---------------------------------------------------

    def on_mount(self) -> None:
        # The base's on_mount runs after this one by itself (Textual calls each class's).
        if self.runtime.ready.is_set():
            return
        self._show_cache()
        self._load_once_the_client_is_up()

    @work(group="early-page", exit_on_error=False, description="Loading")
    async def _load_once_the_client_is_up(self) -> None:
        """The live page as soon as the client is up: the listener comes up after it, and the
        cached page need not wait for that (`runtime_ready` then reads it no more)."""
        await self.runtime.client_ready.wait()
        if not self.loaded and not self.runtime.ready.is_set():
            self.read_early = True
            self.load()

    def runtime_ready(self) -> None:
        early, self.read_early = self.read_early, False
        if early and self.loaded:  # the live page came once the client was up: not read again
            self.follow_changes()
            return
        super().runtime_ready()  # and on every later call (Ctrl+R reloads)

    def _cache_path(self) -> Path:
        return cache_path(self.runtime.options.data_dir, self.runtime.profile_name)

    def _show_cache(self) -> None:
        """Warm start: paint the page seen last time at once; the live page replaces it."""
        cached = load_page(self._cache_path())
        if not cached:
            return
        self.cached = True
        # The whole page at once (measuring the rows a screen does not show costs a few ms):
        # the live page, when it says the same, then changes no cell, and DataTable draws
        # nothing again (adding the rest after the first frame made it draw every row anew).
        # Said by the header alone, never by a CSS class: a class that changes restyles the
        # view and its table, and a restyled DataTable draws all its rows again (its caches are
        # cleared), a cost the live page's first frame would pay.
        self.table.show(cached)
        self.update_header()

    def page_loaded(self, records: list[Row]) -> None:
        self.cached = False
        if self.page_offset == 0 and not self.filter:
            save_page(self._cache_path(), records)

    def loading_text(self) -> str:
        return f"{len(self.rows):,} shown last time" if self.cached else "loading…"

    def header_extra(self, header: Text) -> None:
        if self.cached:
            # Said loudly: these rows are from the last run until the service answers.
            warning = rich_colour(self.app.theme_variables.get("warning", "yellow"))
            header.append("  cached · refreshing…", style=f"bold {warning}")

    def record_for_action(self, record: Row | None) -> Row | None:
        # A cached row is only what the table shows: the form fetches the payment.
        return None if self.cached else record

    # -- a new payment ------------------------------------------------------------------------

    def new_record(self) -> Awaitable[object] | None:
        """Open the new-payment form; the payment created opens on its detail."""
        if self.starting(self.new_record):
            return None
        from payscope.areas.payments.forms import NewPaymentScreen

        return self.app.push_screen(NewPaymentScreen(), self._created)

    def _created(self, payment: Payment | None) -> None:
        if payment is None:
            return
        self.notify(f"{payment.payment_id}: {payment.status}", title="Payment created")
        # Back from the payment, the cursor is on the new row at the top (when the page shows
        # it). Straight to its story: the status, the next action it offers, its events arriving.
        self.show_created(payment.payment_id, reload=self.page_offset == 0 and not self.filter)
