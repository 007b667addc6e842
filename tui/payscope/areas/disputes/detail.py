"""The Disputes area's detail: one record, its sections and its actions."""

from __future__ import annotations

import asyncio
from typing import Any, ClassVar

from rich.console import RenderableType
from rich.text import Text

from payscope.api.errors import NotFoundError
from payscope.api.models.disputes import Dispute
from payscope.areas.disputes.actions import DISPUTE_ACTIONS
from payscope.areas.disputes.spec import (
    CATEGORY_TITLES,
    FILE_FIELDS,
    OPENED,
    category_title,
    deadline_long,
    due_at,
    field_label,
    normal,
    status_cell,
    urgency,
    urgent_style,
)
from payscope.views.detail import DetailScreen, Related, empty, grid, read_related
from payscope.views.payment import payment_summary
from payscope.views.when import span_text
from payscope.widgets.format import format_amount, format_time, theme_colour
from payscope.widgets.text import safe

# -- the detail ------------------------------------------------------------------------------------


class DisputeDetailScreen(DetailScreen["Dispute"]):
    """One dispute: what it is, when the answer is due, its payment, the evidence sent."""

    noun = "Dispute"
    scope = "dispute"
    actions = DISPUTE_ACTIONS
    enter_action = "payment"
    sections: ClassVar[tuple[tuple[str, str], ...]] = (
        ("summary", "Dispute"),
        ("evidence", "Evidence"),
        ("payment", "Payment"),
    )

    def __init__(self, dispute_id: str) -> None:
        super().__init__(dispute_id)
        self.payment: Related[Any] = Related()
        self.evidence: Any = None

    @property
    def dispute(self) -> Any:
        """The dispute as last read (None until the first read)."""
        return self.record

    async def fetch(self) -> Dispute:
        dispute = normal(await self.runtime.api.disputes.retrieve(self.record_id))
        self.payment, self.evidence = await asyncio.gather(
            self._read_payment(dispute.payment_id), self._read_evidence()
        )
        return dispute

    async def _read_payment(self, payment_id: str | None) -> Related[Any]:
        if not payment_id:
            return Related(problem="The dispute names no payment.")
        # The dispute shows even when its payment cannot be read; the section says why.
        return await read_related(self.runtime.api.payments.retrieve(payment_id))

    async def _read_evidence(self) -> Any:
        try:
            return await self.runtime.api.disputes.evidence(self.record_id)
        except NotFoundError:
            return None  # nothing submitted yet (a service may say so with a 404)

    def watched_ids(self, d: Dispute) -> set[str]:
        return {d.dispute_id, *([d.payment_id] if d.payment_id else [])}

    def title_text(self, d: Dispute) -> Text:
        variables = self.app.theme_variables
        title = Text.assemble(
            ("Dispute ", "bold"),
            safe(d.dispute_id, "bold"),
            "  ",
            status_cell(d.status, variables),
            ("  " + format_amount(d.amount, d.currency), theme_colour(variables, "amount")),
        )
        now = self.runtime.now()
        level = urgency(d, now)
        due = due_at(d)
        if level is not None and due is not None:
            note = "overdue" if level == "overdue" else f"{span_text(due - now)} left"
            title.append(f"  {note}", style=urgent_style(level, variables) or "dim")
        return title

    def render_record(self, d: Dispute) -> None:
        variables = self.app.theme_variables
        summary = grid()
        summary.add_row(
            "Status", Text.assemble(status_cell(d.status, variables), "  ", safe(d.status, "dim"))
        )
        summary.add_row("Stage", safe(d.dispute_stage))
        summary.add_row("Amount", format_amount(d.amount, d.currency))
        reason = safe(d.reason)
        if d.connector_reason and d.connector_reason != d.reason:
            reason.append("  network: ", style="dim")
            reason.append_text(safe(d.connector_reason))
        if d.connector_reason_code:
            reason.append("  code ", style="dim")
            reason.append_text(safe(d.connector_reason_code))
        summary.add_row("Reason", reason)
        summary.add_row("Answer by", deadline_long(d, self.runtime.now(), variables))
        opened = d.created or d.created_at
        summary.add_row("Opened", format_time(opened))
        modified = getattr(d, "modified_at", None)
        if modified and modified != opened:
            summary.add_row("Modified", format_time(modified))
        self.section("summary").update(summary)
        self.section("payment").update(self._payment(d))
        self.section("evidence").update(self._evidence(d))

    def _payment(self, d: Dispute) -> RenderableType:
        variables = self.app.theme_variables
        return payment_summary(d.payment_id, self.payment, variables)

    def _evidence(self, d: Dispute) -> RenderableType:
        submitted = self.evidence
        if submitted is None or not submitted.evidence:
            hint = ""
            if d.status == OPENED:
                hint = " Press c to challenge with evidence, or a to accept."
            return empty(f"No evidence submitted yet.{hint}")
        accent = theme_colour(self.app.theme_variables, "accent")
        # One grid for every category, so the values line up; a heading row above each.
        rows = grid()
        rows.add_row("Submitted", format_time(submitted.evidence_submitted_at))
        known = [c for c in CATEGORY_TITLES if c in submitted.evidence]
        others = [c for c in submitted.evidence if c not in CATEGORY_TITLES]
        for category in [*known, *others]:
            rows.add_row("", "")
            rows.add_row(safe(category_title(category), f"bold {accent}"), "")
            for name, value in submitted.evidence[category].items():
                shown = safe(value if isinstance(value, str) else str(value), multiline=True)
                if name in FILE_FIELDS:
                    shown.append("  (file)", style="dim")
                rows.add_row(safe(field_label(name)), shown)
        return rows
