"""Refunds: a server-paged table, filters, live status from webhooks, and a refund's detail.

The actions are declared once in `actions` (`ROW_ACTIONS`) for this list and the detail
(`detail`); the forms are in `forms`. A refund settles at once or, when it starts pending,
by itself later (pending -> succeeded or failed); only its settlement sends a webhook, which
redraws its row and reloads its detail.
"""

from __future__ import annotations

from typing import Any

from payscope.api.models.refunds import Refund, RefundListRequest
from payscope.areas.refunds import AREA
from payscope.areas.refunds.actions import NEW_REFUND, ROW_ACTIONS
from payscope.areas.refunds.detail import RefundDetailScreen
from payscope.areas.refunds.forms import NewRefundForm
from payscope.areas.refunds.spec import COLUMNS, PAGE_SIZE, refund_grammar
from payscope.views.filters import Grammar
from payscope.views.listing import ResourceListView, listed_total
from payscope.widgets.format import format_amount


class RefundsView(ResourceListView["Refund"]):
    """The Refunds area."""

    title = "Refunds"
    noun = "refunds"
    scope = "refunds"
    id_prefix = AREA.id_prefix or ""
    columns = COLUMNS
    page_size = PAGE_SIZE
    empty_hint = "Press [b]n[/b] to refund a payment."
    # The row actions stay out of the list's footer (the detail shows them); their keys work.
    actions = (NEW_REFUND, *(a.hidden() for a in ROW_ACTIONS))

    def key_of(self, record: Refund) -> str:
        return str(record.refund_id)

    def order(self, record: Refund) -> Any:
        return record.created_time or ""  # `created` here, `created_at` on the real service

    def filter_grammar(self) -> Grammar:
        return refund_grammar()

    async def fetch_page(
        self, filters: dict[str, Any], offset: int, limit: int
    ) -> tuple[list[Refund], int]:
        request = RefundListRequest(limit=limit, offset=offset, **filters)
        page = await self.runtime.api.refunds.list(request)
        total = listed_total(page.total_count, offset, len(page.data))
        return list(page.data), total

    async def fetch_one(self, record_id: str) -> Refund:
        return await self.runtime.api.refunds.retrieve(record_id)

    def detail(self, record_id: str) -> RefundDetailScreen:
        return RefundDetailScreen(record_id)

    def new_record(self) -> None:
        """Ask for a payment, an amount and a reason; the refund made opens on its detail."""
        if self.starting(self.new_record):
            return

        # Filtered on one payment: that is most likely the one to refund.
        payment_id = self.filter.server.get("payment_id")
        self.app.push_screen(NewRefundForm(payment_id), self._created)

    def _created(self, refund: Any) -> None:
        if refund is None:
            return
        self.notify(
            f"{refund.refund_id}: {format_amount(refund.amount, refund.currency)} {refund.status}",
            title="Refund created",
            markup=False,
        )
        # Back from the refund, the cursor is on its row (no webhook announces a new refund
        # until it settles: the page is read again).
        self.show_created(refund.refund_id)
