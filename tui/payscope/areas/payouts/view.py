"""Payouts: a server-paged table, filters, live rows from payout webhooks, and a payout's detail
with its flow as steps (created -> method data -> confirmed -> fulfilled -> sent -> paid out).

The actions are declared once in `actions` (`ROW_ACTIONS`) for this list and the detail
(`detail`), each offered only in the statuses that allow it; the forms are in `forms`.
Method data is read in both shapes: the spec's (`bank_transfer`, a masked `card_number`) and the
real service's (`bank`, `card {last4, ...}`, wallets without their kind's key); account and card
numbers are shown masked whatever the service sent.
"""

from __future__ import annotations

from typing import Any

from payscope.api.models.payouts import Payout
from payscope.areas.payouts import AREA
from payscope.areas.payouts.actions import NEW_PAYOUT, ROW_ACTIONS
from payscope.areas.payouts.detail import PayoutDetailScreen
from payscope.areas.payouts.forms.payout import NewPayoutForm
from payscope.areas.payouts.spec import (
    COLUMNS,
    PAGE_SIZE,
    REMOTE_PAGE_SIZE,
    payout_grammar,
    read_page,
)
from payscope.views.filters import Grammar
from payscope.views.listing import ResourceListView
from payscope.widgets.format import format_amount


class PayoutsView(ResourceListView["Payout"]):
    """The Payouts area."""

    title = "Payouts"
    noun = "payouts"
    scope = "payouts"
    id_prefix = AREA.id_prefix or ""
    columns = COLUMNS
    page_size = PAGE_SIZE
    empty_hint = "Press [b]n[/b] to pay money out."
    # The row actions stay out of the list's footer (the detail shows them); their keys work.
    actions = (NEW_PAYOUT, *(a.hidden() for a in ROW_ACTIONS))

    def on_mount(self) -> None:
        # The base's on_mount runs after this one by itself (Textual calls each class's).
        if not self.runtime.options.is_local:
            # Per view, not per class (page_size is the base's class-level default).
            setattr(self, "page_size", REMOTE_PAGE_SIZE)  # noqa: B010

    def key_of(self, record: Payout) -> str:
        return str(record.payout_id)

    def filter_grammar(self) -> Grammar:
        return payout_grammar()

    async def fetch_page(
        self, filters: dict[str, Any], offset: int, limit: int
    ) -> tuple[list[Payout], int]:
        return await read_page(self.runtime.api, filters, offset, limit)

    async def fetch_one(self, record_id: str) -> Payout:
        return await self.runtime.api.payouts.retrieve(record_id)

    def detail(self, record_id: str) -> PayoutDetailScreen:
        return PayoutDetailScreen(record_id)

    def new_record(self) -> None:
        """The new-payout form; the payout made opens on its detail."""
        if self.starting(self.new_record):
            return

        self.app.push_screen(NewPayoutForm(), self._created)

    def _created(self, payout: Any) -> None:
        if payout is None:
            return
        self.notify(
            f"{payout.payout_id}: {format_amount(payout.amount, payout.currency)} {payout.status}",
            title="Payout created",
            markup=False,
        )
        # Back from the payout, the cursor is on its row at the top (when the page shows it).
        self.show_created(payout.payout_id, reload=self.page_offset == 0 and not self.filter)
