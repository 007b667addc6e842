"""Payment links: a server-paged table of links (active, expired, paid), filters, live rows, and
a link's detail with its QR code.

A link is shown `paid` once its payment went through (`PaymentLink.state`, from the
`payment_status` the local sandbox answers): a webhook about the link's payment therefore
redraws the link's row and reloads its detail. A link expires by the service's clock, which no
webhook reports: the list and the detail look at the clock every second and read a link again
once its expiry has passed (the local sandbox's clock may be advanced). Times left are judged
by the service's time (`Runtime.now`), never the wall clock.

The actions (`ROW_ACTIONS`) are shared by the list and the detail: open the link in the
browser (o), copy it (y), show its QR code alone (q), open its payment (g). They are declared
in `actions`, the detail is in `detail`, the form in `forms`.
"""

from __future__ import annotations

from dataclasses import replace
from typing import TYPE_CHECKING, Any

from payscope.api.models.links import PaymentLink
from payscope.areas.links import AREA
from payscope.areas.links.actions import NEW_LINK, ROW_ACTIONS
from payscope.areas.links.detail import LinkDetailScreen
from payscope.areas.links.forms import NewLinkForm
from payscope.areas.links.spec import (
    COLUMNS,
    EXPIRY_CHECK,
    PAGE_SIZE,
    expires_at,
    link_grammar,
    read_page,
    waiting,
)
from payscope.views.filters import Grammar
from payscope.views.listing import ResourceListView
from payscope.widgets.format import format_amount

if TYPE_CHECKING:
    from payscope.views.live import Change


class LinksView(ResourceListView["PaymentLink"]):
    """The Links area."""

    title = "Payment links"
    noun = "payment links"
    scope = "links"
    id_prefix = AREA.id_prefix or ""
    columns = COLUMNS
    page_size = PAGE_SIZE
    empty_hint = "Press [b]n[/b] to make one."
    # Open and copy show in the footer (they are what a link is for); the rest keep their keys.
    actions = (
        NEW_LINK,
        ROW_ACTIONS[0],
        ROW_ACTIONS[1],
        *(a.hidden() for a in ROW_ACTIONS[2:]),
    )

    def __init__(self, *, id: str) -> None:
        super().__init__(id=id)
        # Links read again because their expiry passed: once each (a service that still says
        # active is believed, not asked every second).
        self._asked: set[str] = set()
        self._minute = -1
        self._clock: Any = None  # the timer that looks at the service's clock

    def key_of(self, record: PaymentLink) -> str:
        return str(record.payment_link_id)

    def order(self, record: PaymentLink) -> Any:
        return getattr(record, "created_at", None) or ""

    def filter_grammar(self) -> Grammar:
        return link_grammar()

    async def fetch_page(
        self, filters: dict[str, Any], offset: int, limit: int
    ) -> tuple[list[PaymentLink], int]:
        return await read_page(self.runtime.api, filters, offset, limit)

    async def fetch_one(self, record_id: str) -> PaymentLink:
        return await self.runtime.api.payment_links.retrieve(record_id)

    def detail(self, record_id: str) -> LinkDetailScreen:
        return LinkDetailScreen(record_id)

    # -- live ----------------------------------------------------------------------------------

    def runtime_ready(self) -> None:
        super().runtime_ready()
        if self._clock is None:  # once, however often the runtime says it is ready
            self._clock = self.set_interval(EXPIRY_CHECK, self._check_clock)

    def on_change(self, change: Change) -> None:
        """A webhook about a shown link's payment is about the link too (paid, live)."""
        by_payment = {r.payment_id: key for key, r in self.rows.items() if r.payment_id}
        links = {by_payment[i] for i in change.ids if i in by_payment}
        if links:
            change = replace(change, related=change.related | links)
        super().on_change(change)

    def _check_clock(self) -> None:
        """Read again a shown link whose expiry has passed by the service's clock; redraw the
        times left when the minute changes."""
        if not self.loaded:
            return
        now = self.runtime.now()
        for key, link in list(self.rows.items()):
            due = expires_at(link)
            if waiting(link) and due is not None and due <= now and key not in self._asked:
                self._asked.add(key)
                self.refresh_one(key)
        minute = int(now // 60)
        if minute != self._minute:
            self._minute = minute
            self._repaint()

    # -- a new link ----------------------------------------------------------------------------

    def new_record(self) -> None:
        """Ask for the link's amount, expiry and look; the link made opens on its detail."""
        if self.starting(self.new_record):
            return

        self.app.push_screen(NewLinkForm(), self._created)

    def _created(self, link: Any) -> None:
        if link is None:
            return
        self.notify(
            f"{link.payment_link_id}: {format_amount(link.amount, link.currency)}",
            title="Payment link made",
            markup=False,
        )
        # No webhook announces a new link: the page is read again, the cursor on its row.
        self.show_created(link.payment_link_id)
