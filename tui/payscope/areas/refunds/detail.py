"""The Refunds area's detail: one record, its sections and its actions."""

from __future__ import annotations

import json
from datetime import UTC, datetime
from typing import TYPE_CHECKING, Any, ClassVar

from rich.console import Group, RenderableType
from rich.text import Text

from payscope.api.models.refunds import Refund
from payscope.areas.refunds.actions import ROW_ACTIONS
from payscope.views.detail import (
    DetailScreen,
    Related,
    empty,
    explained_code,
    grid,
    metadata_grid,
    read_related,
    table,
)
from payscope.views.payment import payment_summary
from payscope.widgets.format import format_amount, format_time, status_text, theme_colour
from payscope.widgets.text import safe

if TYPE_CHECKING:
    from payscope.api.models.refunds import Refund

# -- the detail ------------------------------------------------------------------------------------

HISTORY_SHOWN = 20


def moment(value: str | None) -> datetime | None:
    """An ISO 8601 time as a UTC datetime; None when there is none or it is not one."""
    if not value:
        return None
    try:
        when = datetime.fromisoformat(value.replace("Z", "+00:00"))
    except ValueError:
        return None
    return when if when.tzinfo else when.replace(tzinfo=UTC)


def sent_at(body: bytes) -> str | None:
    """The `timestamp` of a webhook's raw body (when the service sent it), if it has one."""
    try:
        payload = json.loads(body)
    except ValueError:
        return None
    stamp = payload.get("timestamp") if isinstance(payload, dict) else None
    return stamp if isinstance(stamp, str) else None


class RefundDetailScreen(DetailScreen["Refund"]):
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

    async def fetch(self) -> Refund:
        refund = await self.runtime.api.refunds.retrieve(self.record_id)
        # The refund shows even when its payment cannot be read; the section says why.
        read = self.runtime.api.payments.retrieve(refund.payment_id)
        self.payment = await read_related(read)
        return refund

    def watched_ids(self, r: Refund) -> set[str]:
        return {r.refund_id, r.payment_id}

    def title_text(self, r: Refund) -> Text:
        variables = self.app.theme_variables
        return Text.assemble(
            ("Refund ", "bold"),
            safe(r.refund_id, "bold"),
            "  ",
            status_text(r.status, variables),
            ("  " + format_amount(r.amount, r.currency), theme_colour(variables, "amount")),
        )

    def render_record(self, r: Refund) -> None:
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

    def _summary(self, r: Refund) -> RenderableType:
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

    def _payment(self, r: Refund) -> RenderableType:
        variables = self.app.theme_variables
        return payment_summary(r.payment_id, self.payment, variables)

    def _history(self, r: Refund) -> RenderableType:
        """The refund's changes in the order they happened, every row on the service's clock
        (the sandbox's, which its clock control moves): the creation, the webhooks (when the
        service sent them, their `timestamp`, not when the listener received them) and the
        last change."""
        rows = table("When (UTC)", "What", "Status", "Event")
        variables = self.app.theme_variables
        settled_later = bool(r.modified_time) and r.modified_time != r.created_time
        # A refund that settled later started `pending`: the creation row says what it was then
        # (one settled at once was created as it is).
        created_status = "pending" if settled_later and r.status != "pending" else r.status
        lines: list[tuple[datetime | None, int, tuple[RenderableType, ...]]] = [
            (moment(r.created_time), 0, ("created", status_text(created_status, variables), ""))
        ]
        listener = self.runtime.listener
        events = (
            list(reversed(listener.journal.recent(HISTORY_SHOWN, 0, None, r.refund_id)))
            if listener is not None
            else []
        )
        for e in events:
            detail = listener.journal.get(e.event_id) if listener is not None else None
            lines.append(
                (
                    moment(sent_at(detail.body)) if detail is not None else None,
                    1,
                    (
                        safe(e.event_type, empty="?"),
                        status_text(e.object_status, variables),
                        safe(e.event_id),
                    ),
                )
            )
        if settled_later:
            lines.append(
                (moment(r.modified_time), 2, ("modified", status_text(r.status, variables), ""))
            )
        # In time order; a row without a time keeps its place after the rows before it, and
        # rows of one moment keep their order (created, webhooks, modified).
        last = datetime.min.replace(tzinfo=UTC)
        keyed: list[tuple[datetime, int, int, datetime | None, tuple[RenderableType, ...]]] = []
        for when, rank, cells in lines:
            last = when or last
            keyed.append((last, rank, len(keyed), when, cells))
        for _last, _rank, _index, when, cells in sorted(keyed, key=lambda k: k[:3]):
            rows.add_row(format_time(when) if when is not None else "?", *cells)
        notes = []
        if events:
            notes.append("Webhook rows show when the service sent them.")
        elif listener is None:
            notes.append("The listener is not running: no webhooks to show.")
        elif r.status != "pending":
            notes.append("No webhook received for this refund by this listener.")
        return Group(rows, *(empty(n) for n in notes))

    def _metadata(self, r: Refund) -> RenderableType:
        return metadata_grid(r.metadata, "No metadata. e adds some.")
