"""Disputes: a server-paged table whose answer deadline stands out, filters, live rows, a
dispute's detail with its payment and its evidence by category, and the actions of its life.

The actions are declared once here (`DISPUTE_ACTIONS`) for the list and the detail alike; the
forms are in `dispute_forms`. A deadline is judged by the service's time (`Runtime.now`: the
sandbox's clock on local profiles, which can be advanced), never by the wall clock.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from datetime import UTC, datetime
from typing import TYPE_CHECKING, Any, ClassVar

from rich.console import RenderableType
from rich.text import Text

from tui.areas.payments.view import goto_payment, payment_summary
from tui.views.actions import Action, statuses, with_known
from tui.views.columns import CellContext, Column
from tui.views.detail import DetailScreen, Related, empty, grid, read_related
from tui.views.filters import (
    Filter,
    Grammar,
    Term,
    amount_term,
    currency_term,
    id_word,
    server_term,
    status_term,
    time_terms,
)
from tui.views.listing import ResourceListView
from tui.views.text import safe, visible
from tui.widgets.format import amount_text, format_amount, format_time, status_text, theme_colour

if TYPE_CHECKING:
    from tui.views.actions import ActionHost

PAGE_SIZE = 100  # the most GET /disputes/list returns at once
# Every dispute status and stage (tui.api.models.disputes), without importing the models.
DISPUTE_STATUSES = (
    "dispute_opened",
    "dispute_challenged",
    "dispute_accepted",
    "dispute_expired",
    "dispute_cancelled",
    "dispute_won",
    "dispute_lost",
)
DISPUTE_STAGES = ("pre_dispute", "dispute", "pre_arbitration", "arbitration", "dispute_reversal")
OPENED = "dispute_opened"
CHALLENGED = "dispute_challenged"
# A deadline this close (seconds) is shown in the warning colour; a passed one in the error's.
SOON = 3 * 86400
# The amount column fits amounts up to 9,999.99 (wider ones end in "…"; the detail has them).
AMOUNT_WIDTH = 12

# The evidence categories in the order the form and the detail show them.
CATEGORY_TITLES = {
    "customer_information": "Customer",
    "product_information": "Product",
    "shipping_information": "Shipping",
    "refund_policy_information": "Refund policy",
    "cancellation_policy_information": "Cancellation policy",
    "uncategorized_information": "Uncategorized",
}
# Evidence fields that take the id of a file uploaded to the service, not text.
FILE_FIELDS = frozenset(
    {
        "customer_signature",
        "customer_communication",
        "receipt",
        "service_documentation",
        "invoice_showing_distinct_transactions",
        "recurring_transaction_agreement",
        "shipping_documentation",
        "refund_policy",
        "cancellation_policy",
        "uncategorized_file",
    }
)
_WORDS = {"ip": "IP"}


def field_label(name: str) -> str:
    """An evidence field as people read it: `customer_purchase_ip` -> Customer purchase IP."""
    words = [_WORDS.get(w, w) for w in name.split("_")]
    return " ".join(words)[:1].upper() + " ".join(words)[1:]


def category_title(category: str) -> str:
    """An evidence category's heading (one the service adds later reads from its name)."""
    return CATEGORY_TITLES.get(category) or field_label(category.removesuffix("_information"))


# -- status and deadline -------------------------------------------------------------------------


def normal(dispute: Any) -> Any:
    """The dispute with `status` in the service's long spelling (`won` -> `dispute_won`),
    taken from `dispute_status` when the record has only that: the actions decide by it."""
    from tui.api.models.disputes import canonical_dispute_status

    raw = dispute.status or dispute.dispute_status
    if not raw:
        return dispute
    status = canonical_dispute_status(raw)
    return dispute if status == dispute.status else dispute.model_copy(update={"status": status})


def short_status(status: str | None) -> str:
    """`dispute_won` -> `won`: the area says "dispute" already."""
    return (status or "").removeprefix("dispute_")


def status_cell(status: str | None, variables: Any) -> Text:
    """A dispute status in its theme colour, in its short form."""
    if not status:
        return Text("-")
    coloured = status_text(status, variables)
    return Text(
        visible(short_status(status)), style=coloured.style, no_wrap=True, overflow="ellipsis"
    )


def due_at(dispute: Any) -> float | None:
    """`challenge_required_by` in seconds since the epoch (None when absent or unreadable)."""
    text = getattr(dispute, "challenge_required_by", None)
    if not text:
        return None
    try:
        moment = datetime.fromisoformat(str(text).replace("Z", "+00:00"))
    except ValueError:
        return None
    return (moment if moment.tzinfo else moment.replace(tzinfo=UTC)).timestamp()


def urgency(dispute: Any, now: float) -> str | None:
    """How pressing the answer is: "overdue", "soon" (within 3 days), "open", or None when no
    answer is due (answered, decided, or no deadline known)."""
    due = due_at(dispute)
    if due is None or dispute.status != OPENED:
        return None
    left = due - now
    if left <= 0:
        return "overdue"
    return "soon" if left <= SOON else "open"


def span(seconds: float) -> str:
    """A duration in its two largest units: 6d 23h, 5h 30m, 12m."""
    total = int(abs(seconds))
    days, rest = divmod(total, 86400)
    hours, rest = divmod(rest, 3600)
    minutes = rest // 60
    if days:
        return f"{days}d {hours}h" if hours else f"{days}d"
    if hours:
        return f"{hours}h {minutes}m" if minutes else f"{hours}h"
    return f"{max(minutes, 1)}m"


def _urgent_style(level: str | None, variables: Any) -> str:
    if level == "overdue":
        return f"bold {theme_colour(variables, 'error')}"
    if level == "soon":
        return f"bold {theme_colour(variables, 'warning')}"
    return ""


def deadline_cell(dispute: Any, now: float, variables: Any) -> Text:
    """The list's deadline: time left (warning within 3 days), `overdue`, or the muted date
    once no answer is due."""
    due = due_at(dispute)
    if due is None:
        return Text("-", style="dim")
    level = urgency(dispute, now)
    if level is None:
        day = format_time(datetime.fromtimestamp(due, UTC), short=True).rsplit(" ", 1)[0]
        return Text(day, style=theme_colour(variables, "muted"), no_wrap=True)
    if level == "overdue":
        late = int((now - due) // 86400)
        text = f"overdue {late}d" if 0 < late < 10 else "overdue"
    else:
        text = f"in {span(due - now)}"
    return Text(text, style=_urgent_style(level, variables), no_wrap=True, overflow="ellipsis")


def deadline_long(dispute: Any, now: float, variables: Any) -> Text:
    """The detail's deadline: the moment, then how long is left, how late, or why none is."""
    due = due_at(dispute)
    if due is None:
        return Text("not given by the service", style="dim")
    moment = format_time(datetime.fromtimestamp(due, UTC)) + " UTC"
    level = urgency(dispute, now)
    if level is None:
        return Text.assemble(moment, (f"  no answer due ({short_status(dispute.status)})", "dim"))
    if level == "overdue":
        note = f"  overdue by {span(now - due)}"
    else:
        note = f"  {span(due - now)} left to accept or challenge"
    return Text.assemble(
        (moment, _urgent_style(level, variables)), (note, _urgent_style(level, variables))
    )


# -- the list --------------------------------------------------------------------------------------


def _now(context: CellContext) -> float:
    if context.now is not None:
        return context.now
    import time

    return time.time()


# Ids are shown whole (prefix + 20 characters). Dispute, status and deadline always stay; then
# come the amount (80 columns), the payment, the stage, the reason and when it was opened.
COLUMNS: tuple[Column[Any], ...] = (
    Column("dispute_id", "Dispute", 23, lambda d, c: safe(d.dispute_id)),
    Column("status", "Status", 10, lambda d, c: status_cell(d.status, c.variables), flex=(10, 16)),
    Column("deadline", "Deadline", 10, lambda d, c: deadline_cell(d, _now(c), c.variables)),
    Column(
        "amount",
        "Amount",
        AMOUNT_WIDTH,
        lambda d, c: amount_text(d.amount, d.currency, c.variables, width=AMOUNT_WIDTH),
        63,
        flex=(AMOUNT_WIDTH, 15),
    ),
    Column("payment_id", "Payment", 24, lambda d, c: safe(d.payment_id), 89),
    Column("stage", "Stage", 15, lambda d, c: safe(d.dispute_stage, empty=""), 106),
    Column("reason", "Reason", 20, lambda d, c: safe(d.reason, empty=""), 128),
    Column(
        "created",
        "Opened",
        12,
        lambda d, c: safe(format_time(d.created or d.created_at, short=True)),
        142,
    ),
)


def _stage(value: str, result: Filter) -> None:
    stage = value.strip().lower().replace("-", "_")
    if stage not in DISPUTE_STAGES:
        close = [s for s in DISPUTE_STAGES if stage in s]
        hint = f" Did you mean {', '.join(close[:3])}?" if close else ""
        raise ValueError(
            f"`{value}` is not a dispute stage.{hint} Stages: {', '.join(DISPUTE_STAGES)}."
        )
    result.server["dispute_stage"] = stage


def dispute_grammar() -> Grammar:
    """`status:won stage:pre_arbitration payment:pay_… from:… to:… amount:10-50 currency:EUR`,
    and a bare `pay_…` (whole: the service filters) or `dp_…`/part of an id (matched here)."""
    from tui.api.models.disputes import canonical_dispute_status

    return Grammar(
        [
            # The service filters on one status; `won` is read as `dispute_won`.
            status_term(
                DISPUTE_STATUSES, "dispute", many=False, normalise=canonical_dispute_status
            ),
            Term(("stage",), "stage:pre_arbitration", _stage),
            server_term(("payment", "pay"), "payment_id", "payment:pay_…"),
            *time_terms(),
            # The list route filters on neither: matched over the newest disputes.
            amount_term(None),
            currency_term(None),
        ],
        # Whole payment ids go to the service; a dispute id or any part of an id (a payment's
        # too) is matched in the ids of the newest disputes.
        bare=id_word({"pay_": "payment_id"}, 20, own="pay_"),
        bare_example="pay_…, dp_… or part of an id",
    )


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
        from tui.areas.disputes import forms as dispute_forms

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
        total = page.total_count if page.total_count is not None else offset + len(page.data)
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
            note = "overdue" if level == "overdue" else f"{span(due - now)} left"
            title.append(f"  {note}", style=_urgent_style(level, variables) or "dim")
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
