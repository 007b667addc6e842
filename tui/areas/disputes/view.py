"""Disputes: a server-paged table whose answer deadline stands out, filters, live rows, a
dispute's detail with its payment and its evidence by category, and the actions of its life.

The actions are declared once here (`DISPUTE_ACTIONS`) for the list and the detail alike; the
forms are in `dispute_forms`. A deadline is judged by the service's time (`Runtime.now`: the
sandbox's clock on local profiles, which can be advanced), never by the wall clock.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING, Any, ClassVar

from rich.console import RenderableType
from rich.text import Text

from tui.areas.disputes import forms as dispute_forms
from tui.areas.disputes.spec import (
    CATEGORY_TITLES,
    CHALLENGED,
    COLUMNS,
    DISPUTE_STATUSES,
    FILE_FIELDS,
    OPENED,
    PAGE_SIZE,
    category_title,
    deadline_long,
    dispute_grammar,
    due_at,
    field_label,
    normal,
    status_cell,
    urgency,
    urgent_style,
)
from tui.views.actions import Action, statuses, with_known
from tui.views.detail import DetailScreen, Related, empty, grid, read_related
from tui.views.filters import (
    Grammar,
)
from tui.views.listing import ResourceListView, listed_total
from tui.views.payment import goto_payment, payment_summary
from tui.views.when import span_text
from tui.widgets.format import format_amount, format_time, theme_colour
from tui.widgets.text import safe

if TYPE_CHECKING:
    from tui.views.actions import ActionHost


# -- actions (the list and the detail share them) ------------------------------------------------


# A screen maker `make(app, dispute)` (a coroutine: it may read more), and an action's `run`.
Make = Callable[[Any, Any], Awaitable[Any]]
Run = Callable[["ActionHost", str | None, Any], None]


def _with_dispute(make: Make) -> Run:
    """Run an action whose screen `make(app, dispute)` builds (a coroutine: it may read more)."""

    def run(host: ActionHost, dispute_id: str | None, dispute: Any) -> None:
        app = host.app

        async def go() -> None:
            current = dispute
            if current is None:
                current = normal(await app.runtime.api.disputes.retrieve(str(dispute_id)))
            await app.push_screen(await make(app, current), host.acted)

        app.run_worker(go(), group="dispute-action", exit_on_error=False, description="Dispute")

    return run


def _form(name: str, *args: Any) -> Make:
    async def make(app: Any, dispute: Any) -> Any:

        return await getattr(dispute_forms, name)(app, dispute, *args)

    return make


_ANSWERABLE = statuses(OPENED)
_UNDECIDED = statuses(OPENED, CHALLENGED)

DISPUTE_ACTIONS: tuple[Action[Any], ...] = with_known(
    (
        goto_payment("Open the disputed payment", "Open the disputed payment"),
        Action(
            "accept",
            "a",
            "Accept",
            "Accept (concede): the cardholder keeps the amount",
            _with_dispute(_form("accept_form")),
            _ANSWERABLE,
            palette="Accept this dispute",
        ),
        Action(
            "challenge",
            "c",
            "Challenge",
            "Challenge with evidence, by category",
            _with_dispute(_form("evidence_form", False)),
            _ANSWERABLE,
            palette="Challenge with evidence",
        ),
        Action(
            "evidence",
            "e",
            "Evidence",
            "Replace the evidence sent (until the network decides)",
            _with_dispute(_form("evidence_form", True)),
            statuses(CHALLENGED),
            palette="Replace the evidence",
        ),
        Action(
            "won",
            "w",
            "Resolve won",
            "Act as the card network: decide for the merchant (local sandbox)",
            _with_dispute(_form("resolve_form", "won")),
            _UNDECIDED,
            local_only=True,
            palette="Resolve as won (sandbox network)",
        ),
        Action(
            "lost",
            "l",
            "Resolve lost",
            "Act as the card network: decide for the cardholder (local sandbox)",
            _with_dispute(_form("resolve_form", "lost")),
            _UNDECIDED,
            local_only=True,
            palette="Resolve as lost (sandbox network)",
        ),
    ),
    DISPUTE_STATUSES,
)


class DisputesView(ResourceListView[Any]):
    """The Disputes area."""

    title = "Disputes"
    noun = "disputes"
    scope = "disputes"
    id_prefix = "dp_"
    columns = COLUMNS
    page_size = PAGE_SIZE
    # In the list, the row actions stay out of the footer (the detail shows them): their keys
    # work, and ? and the palette list them.
    actions = tuple(a.hidden() for a in DISPUTE_ACTIONS)

    def on_mount(self) -> None:
        # The base's on_mount runs after this one by itself (Textual calls each class's).
        # "in 2d 4h" moves on with the service's clock (advanced on a local sandbox, too).
        self.set_interval(60, self._repaint)

    def key_of(self, record: Any) -> str:
        return str(record.dispute_id)

    def order(self, record: Any) -> Any:
        return record.created or record.created_at or ""

    def filter_grammar(self) -> Grammar:
        return dispute_grammar()

    async def fetch_page(
        self, filters: dict[str, Any], offset: int, limit: int
    ) -> tuple[list[Any], int]:
        from tui.api.models.disputes import DisputeListRequest

        request = DisputeListRequest(limit=limit, offset=offset, **filters)
        page = await self.runtime.api.disputes.list(request)
        # The real service's bare-array lists carry no total: count what came.
        total = listed_total(page.total_count, offset, len(page.data))
        return [normal(d) for d in page.data], total

    async def fetch_one(self, record_id: str) -> Any:
        return normal(await self.runtime.api.disputes.retrieve(record_id))

    def detail(self, record_id: str) -> Any:
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


# -- the detail ------------------------------------------------------------------------------------


class DisputeDetailScreen(DetailScreen[Any]):
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

    async def fetch(self) -> Any:
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
        from tui.api.errors import NotFoundError

        try:
            return await self.runtime.api.disputes.evidence(self.record_id)
        except NotFoundError:
            return None  # nothing submitted yet (a service may say so with a 404)

    def watched_ids(self, d: Any) -> set[str]:
        return {d.dispute_id, *([d.payment_id] if d.payment_id else [])}

    def title_text(self, d: Any) -> Text:
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

    def render_record(self, d: Any) -> None:
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

    def _payment(self, d: Any) -> RenderableType:
        variables = self.app.theme_variables
        return payment_summary(d.payment_id, self.payment, variables)

    def _evidence(self, d: Any) -> RenderableType:
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
