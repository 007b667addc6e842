"""Refunds: a server-paged table, filters, live status from webhooks, and a refund's detail.

The actions are declared once here (`ROW_ACTIONS`) for the list and the detail alike; the
forms are in `refund_forms`. A refund settles by itself (pending -> succeeded or failed) and
only its settlement sends a webhook, which redraws its row and reloads its detail.
"""

from __future__ import annotations

from datetime import UTC, datetime
from typing import TYPE_CHECKING, Any, ClassVar

from rich.console import Group, RenderableType
from rich.text import Text

from tui.areas.refunds.forms import NewRefundForm, RefundUpdateForm
from tui.areas.refunds.spec import COLUMNS, PAGE_SIZE, REFUND_STATUSES, refund_grammar
from tui.views.actions import Action, with_known
from tui.views.detail import (
    DetailScreen,
    Related,
    empty,
    explained_code,
    grid,
    metadata_grid,
    read_related,
    table,
)
from tui.views.filters import (
    Grammar,
)
from tui.views.listing import ResourceListView, listed_total, new_record_action
from tui.views.payment import goto_payment, payment_summary
from tui.widgets.format import format_amount, format_time, status_text, theme_colour
from tui.widgets.text import safe

if TYPE_CHECKING:
    from tui.views.actions import ActionHost


# -- actions (the list and the detail share them) ------------------------------------------------


def _update(host: ActionHost, _refund_id: str | None, refund: Any) -> None:
    from tui.views.live import announce

    def done(result: Any) -> None:
        # No webhook reports an update: announced, so the list row and the detail follow.
        if result is not None:
            announce(host.app, result.refund_id, "refund_updated", result.status)
        host.acted(result)

    host.app.push_screen(RefundUpdateForm(refund), done)


# The service changes a refund's reason and metadata in every status.
ROW_ACTIONS: tuple[Action[Any], ...] = with_known(
    (
        goto_payment("Open the payment it refunds", "Open the refunded payment"),
        Action(
            "update",
            "e",
            "Update",
            "Change the reason or the metadata",
            _update,
            palette="Update this refund",
        ),
    ),
    REFUND_STATUSES,
)


NEW_REFUND: Action[Any] = new_record_action("New refund", "Refund a payment", "New refund")


class RefundsView(ResourceListView[Any]):
    """The Refunds area."""

    title = "Refunds"
    noun = "refunds"
    scope = "refunds"
    id_prefix = "ref_"
    columns = COLUMNS
    page_size = PAGE_SIZE
    empty_hint = "Press [b]n[/b] to refund a payment."
    # The row actions stay out of the list's footer (the detail shows them); their keys work.
    actions = (NEW_REFUND, *(a.hidden() for a in ROW_ACTIONS))

    def key_of(self, record: Any) -> str:
        return str(record.refund_id)

    def order(self, record: Any) -> Any:
        return record.created_time or ""  # `created` here, `created_at` on the real service

    def filter_grammar(self) -> Grammar:
        return refund_grammar()

    async def fetch_page(
        self, filters: dict[str, Any], offset: int, limit: int
    ) -> tuple[list[Any], int]:
        from tui.api.models.refunds import RefundListRequest

        request = RefundListRequest(limit=limit, offset=offset, **filters)
        page = await self.runtime.api.refunds.list(request)
        total = listed_total(page.total_count, offset, len(page.data))
        return list(page.data), total

    async def fetch_one(self, record_id: str) -> Any:
        return await self.runtime.api.refunds.retrieve(record_id)

    def detail(self, record_id: str) -> Any:
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


# -- the detail ------------------------------------------------------------------------------------

HISTORY_SHOWN = 20


class RefundDetailScreen(DetailScreen[Any]):
    """One refund: what, why, its failure explained, its payment, its status history."""

    noun = "Refund"
    scope = "refund"
    actions = ROW_ACTIONS
    enter_action = "payment"
    sections: ClassVar[tuple[tuple[str, str], ...]] = (
        ("summary", "Summary"),
        ("failure", "Failure"),
        ("payment", "Payment (Enter or g opens it)"),
        ("history", "Status history"),
        ("metadata", "Metadata"),
    )

    def __init__(self, refund_id: str) -> None:
        super().__init__(refund_id)
        self.payment: Related[Any] = Related()

    def on_mount(self) -> None:
        # Textual calls DetailScreen.on_mount (the first read) after this one by itself.
        self.show_section("failure", False)

    async def fetch(self) -> Any:
        refund = await self.runtime.api.refunds.retrieve(self.record_id)
        # The refund shows even when its payment cannot be read; the section says why.
        read = self.runtime.api.payments.retrieve(refund.payment_id)
        self.payment = await read_related(read)
        return refund

    def watched_ids(self, r: Any) -> set[str]:
        return {r.refund_id, r.payment_id}

    def title_text(self, r: Any) -> Text:
        variables = self.app.theme_variables
        return Text.assemble(
            ("Refund ", "bold"),
            safe(r.refund_id, "bold"),
            "  ",
            status_text(r.status, variables),
            ("  " + format_amount(r.amount, r.currency), theme_colour(variables, "amount")),
        )

    def render_record(self, r: Any) -> None:
        self.section("summary").update(self._summary(r))
        code = r.unified_code or r.error_code
        self.show_section("failure", bool(code))
        if code:
            acquirer = ": ".join(str(v) for v in (r.error_code, r.error_message) if v)
            self.section("failure").update(
                explained_code(code, r.unified_message, acquirer, subject="refund")
            )
        self.section("payment").update(self._payment(r))
        self.section("history").update(self._history(r))
        self.section("metadata").update(self._metadata(r))

    def _summary(self, r: Any) -> RenderableType:
        summary = grid()
        summary.add_row("Status", status_text(r.status, self.app.theme_variables))
        summary.add_row("Amount", format_amount(r.amount, r.currency))
        summary.add_row("Currency", safe(r.currency))
        summary.add_row("Type", safe(r.refund_type))
        summary.add_row("Reason", safe(r.reason, multiline=True, empty="none given"))
        summary.add_row("Created", format_time(r.created_time))
        summary.add_row("Modified", format_time(r.modified_time))
        if r.status == "pending":
            summary.add_row(
                "Next", Text("settles by itself; a refund_succeeded or refund_failed webhook says")
            )
        return summary

    def _payment(self, r: Any) -> RenderableType:
        variables = self.app.theme_variables
        return payment_summary(r.payment_id, self.payment, variables)

    def _history(self, r: Any) -> RenderableType:
        rows = table("When (UTC)", "What", "Status", "Event")
        variables = self.app.theme_variables
        settled_later = bool(r.modified_time) and r.modified_time != r.created_time
        # What the record says now goes on its last line: the creation, or the last change.
        rows.add_row(
            format_time(r.created_time),
            "created",
            Text("") if settled_later else status_text(r.status, variables),
            "",
        )
        listener = self.runtime.listener
        events = (
            list(reversed(listener.journal.recent(HISTORY_SHOWN, 0, None, r.refund_id)))
            if listener is not None
            else []
        )
        # Receive times are the wall clock's: hidden where the display must not move (tests).
        stable = self.runtime.options.stable_display
        for e in events:
            received = datetime.fromtimestamp(e.first_seen, UTC)
            rows.add_row(
                "····-··-·· ··:··:··" if stable else format_time(received),
                safe(e.event_type, empty="?"),
                status_text(e.object_status, variables),
                safe(e.event_id),
            )
        if settled_later:
            rows.add_row(format_time(r.modified_time), "modified", status_text(r.status, variables))
        notes = []
        if events:
            notes.append("Webhook rows show when the listener received them.")
        elif listener is None:
            notes.append("The listener is not running: no webhooks to show.")
        elif r.status != "pending":
            notes.append("No webhook received for this refund by this listener.")
        return Group(rows, *(empty(n) for n in notes))

    def _metadata(self, r: Any) -> RenderableType:
        return metadata_grid(r.metadata, "No metadata. e adds some.")
