"""Disputes: a server-paged table whose answer deadline stands out, filters, live rows, a
dispute's detail with its payment and its evidence by category, and the actions of its life.

The actions are declared once in `actions` (`DISPUTE_ACTIONS`) for this list and the detail
(`detail`); the forms are in `forms`. A deadline is judged by the service's time (`Runtime.now`: the
sandbox's clock on local profiles, which can be advanced), never by the wall clock.
"""

from __future__ import annotations

from typing import Any

from payscope.api.models.disputes import Dispute, DisputeListRequest
from payscope.areas.disputes import AREA
from payscope.areas.disputes.actions import DISPUTE_ACTIONS
from payscope.areas.disputes.detail import DisputeDetailScreen
from payscope.areas.disputes.spec import (
    COLUMNS,
    PAGE_SIZE,
    dispute_grammar,
    normal,
)
from payscope.views.filters import Grammar
from payscope.views.listing import ResourceListView, listed_total


class DisputesView(ResourceListView["Dispute"]):
    """The Disputes area."""

    title = "Disputes"
    noun = "disputes"
    scope = "disputes"
    id_prefix = AREA.id_prefix or ""
    columns = COLUMNS
    page_size = PAGE_SIZE
    # In the list, the row actions stay out of the footer (the detail shows them): their keys
    # work, and ? and the palette list them.
    actions = tuple(a.hidden() for a in DISPUTE_ACTIONS)

    def on_mount(self) -> None:
        # The base's on_mount runs after this one by itself (Textual calls each class's).
        # "in 2d 4h" moves on with the service's clock (advanced on a local sandbox, too).
        self.set_interval(60, self._repaint)

    def key_of(self, record: Dispute) -> str:
        return str(record.dispute_id)

    def order(self, record: Dispute) -> Any:
        return record.created or record.created_at or ""

    def filter_grammar(self) -> Grammar:
        return dispute_grammar()

    async def fetch_page(
        self, filters: dict[str, Any], offset: int, limit: int
    ) -> tuple[list[Dispute], int]:
        request = DisputeListRequest(limit=limit, offset=offset, **filters)
        page = await self.runtime.api.disputes.list(request)
        # The real service's bare-array lists carry no total: count what came.
        total = listed_total(page.total_count, offset, len(page.data))
        return [normal(d) for d in page.data], total

    async def fetch_one(self, record_id: str) -> Dispute:
        return normal(await self.runtime.api.disputes.retrieve(record_id))

    def detail(self, record_id: str) -> DisputeDetailScreen:
        return DisputeDetailScreen(record_id)

    def empty_text(self) -> str:
        if self.filter:
            return super().empty_text()
        if self.runtime.options.is_local:
            return (
                "No disputes yet. The card network opens them: on this local sandbox, open one "
                "from a succeeded payment's detail with [b]D[/b]."
            )
        return "No disputes yet. The card network opens them; they appear here as it does."
