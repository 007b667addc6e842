"""One payment: summary, amounts, card, decline explained, attempts, refunds, disputes, events."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any, ClassVar

from rich.console import Group, RenderableType
from rich.json import JSON
from rich.table import Table
from rich.text import Text
from textual import work
from textual.app import ComposeResult, SystemCommand
from textual.binding import Binding, BindingType
from textual.containers import VerticalScroll
from textual.screen import Screen
from textual.widgets import Footer, Static
from textual.worker import Worker

from tui.widgets.format import (
    brand_label,
    format_amount,
    format_time,
    status_text,
    theme_colour,
)

ACTION_BINDINGS: list[BindingType] = [
    Binding("o", "act('confirm')", "Confirm", id="payment.confirm", tooltip="Confirm (authorise)"),
    Binding("c", "act('capture')", "Capture", id="payment.capture", tooltip="Capture all or part"),
    Binding("x", "act('cancel')", "Cancel", id="payment.cancel", tooltip="Cancel with a reason"),
    Binding("a", "act('approve')", "Approve", id="payment.approve", tooltip="Approve (review)"),
    Binding("d", "act('reject')", "Reject", id="payment.reject", tooltip="Reject (review)"),
    Binding("f", "act('refund')", "Refund", id="payment.refund", tooltip="Refund all or part"),
    Binding("e", "act('update')", "Update", id="payment.update", tooltip="Update (unconfirmed)"),
    Binding(
        "3", "act('3ds')", "3DS", id="payment.3ds", tooltip="Complete 3-D Secure (local sandbox)"
    ),
]


_UNCONFIRMED = ("requires_payment_method", "requires_confirmation")
_OPEN = (
    *_UNCONFIRMED,
    "requires_action",
    "requires_customer_action",
    "requires_merchant_action",
    "requires_capture",
)
# The statuses each action applies to; the footer only offers what the payment can do now.
ACTION_STATUSES: dict[str, tuple[str, ...]] = {
    "confirm": _UNCONFIRMED,
    "capture": ("requires_capture", "partially_captured_and_capturable"),
    "cancel": _OPEN,
    "approve": ("requires_merchant_action",),
    "reject": ("requires_merchant_action",),
    "refund": ("succeeded", "partially_captured", "partially_captured_and_capturable"),
    "update": _UNCONFIRMED,
    "3ds": ("requires_action", "requires_customer_action"),
}


# Final statuses no action applies to (refunds of succeeded payments are in the table above).
TERMINAL_WITHOUT_ACTIONS = frozenset({"failed", "cancelled", "expired"})


_KNOWN_STATUSES = TERMINAL_WITHOUT_ACTIONS.union(*ACTION_STATUSES.values())


def action_applies(action: str, status: str | None) -> bool:
    """True when `action` makes sense for a payment in `status` (unknown statuses: allowed)."""
    allowed = ACTION_STATUSES.get(action)
    if allowed is None or status is None or status not in _KNOWN_STATUSES:
        return True
    return status in allowed


def _grid() -> Table:
    grid = Table.grid(padding=(0, 2))
    grid.add_column(style="bold", min_width=14, no_wrap=True)
    grid.add_column()
    return grid


def _table(*columns: str) -> Table:
    """A borderless table with these column headings (attempts, refunds, disputes, events)."""
    table = Table(box=None, padding=(0, 2), header_style="bold")
    for name in columns:
        table.add_column(name, no_wrap=True)
    return table


class PaymentDetailScreen(Screen[None]):
    """The detail of one payment; Esc goes back to the table."""

    DEFAULT_CSS = """
    PaymentDetailScreen { background: $background; }
    PaymentDetailScreen > #detail-title {
        height: 1; padding: 0 1; background: $surface; text-style: bold;
    }
    PaymentDetailScreen > VerticalScroll { padding: 0 1; }
    PaymentDetailScreen .section {
        border: round $foreground 25%; border-title-color: $accent; border-title-style: bold;
        padding: 0 1; height: auto;
    }
    PaymentDetailScreen #raw { display: none; }
    PaymentDetailScreen.-raw #raw { display: block; }
    PaymentDetailScreen.-raw .section { display: none; }
    """

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape", "back", "Back", id="payment.back", tooltip="Back to the list"),
        Binding("v", "toggle_raw", "Raw JSON", id="payment.raw", tooltip="Show the raw JSON"),
        Binding("r", "reload", "Reload", id="payment.reload", tooltip="Read it again"),
        *ACTION_BINDINGS,
    ]

    def __init__(self, payment_id: str) -> None:
        super().__init__()
        self.payment_id = payment_id
        self.payment: Any = None
        self._unsubscribe: Any = None
        self._loading = False
        self._stale = False

    def compose(self) -> ComposeResult:
        yield Static(f"Payment {self.payment_id}  [dim]loading…[/dim]", id="detail-title")
        with VerticalScroll(id="detail-body"):
            for key, title in (
                ("summary", "Summary"),
                ("decline", "Decline"),
                ("amounts", "Amounts"),
                ("card", "Card and customer"),
                ("attempts", "Attempts"),
                ("refunds", "Refunds"),
                ("disputes", "Disputes"),
                ("events", "Events"),
            ):
                section = Static(classes="section", id=f"section-{key}")
                section.border_title = title
                yield section
            yield Static(id="raw")
        yield Footer(show_command_palette=False)  # Ctrl+P is already an app binding

    def on_mount(self) -> None:
        self.query_one("#section-decline").display = False
        self.load()
        listener = self.app.runtime.listener  # type: ignore[attr-defined]
        if listener is not None:
            self._unsubscribe = listener.add_subscriber(self._on_delivery)
        self.query_one(VerticalScroll).focus()

    def on_unmount(self) -> None:
        if self._unsubscribe is not None:
            self._unsubscribe()

    def _on_delivery(self, delivery: Any) -> None:
        if delivery.accepted and delivery.object_id == self.payment_id:
            self.load()

    def load(self) -> None:
        """Read the payment again (with attempts, refunds, disputes) and its journaled events.

        An action's answer and the webhooks it causes arrive within milliseconds of each other:
        while a read is in flight, further calls only mark it stale, and one more read follows,
        so the request log shows one or two reads per change rather than one per trigger.
        """
        if self._loading:
            self._stale = True
            return
        self._loading = True
        self._load()

    @work(group="payment-detail", exit_on_error=False, description="Payment")
    async def _load(self) -> None:
        from tui.api.errors import NotFoundError

        client = self.app.runtime.client  # type: ignore[attr-defined]
        try:
            while True:
                self._stale = False
                try:
                    payment = await client.payments.retrieve(self.payment_id)
                except NotFoundError:
                    self.query_one("#detail-title", Static).update(
                        f"Payment {self.payment_id}  [b]not found[/b]"
                    )
                    self.query_one("#section-summary", Static).update(
                        "No payment has this id on this profile. Check the id (it starts with "
                        "pay_) or the profile in the status bar; Esc goes back."
                    )
                    return
                self.payment = payment
                self._render_payment(payment)
                self.refresh_bindings()
                if not self._stale:
                    return
        finally:
            self._loading = False

    def _render_payment(self, p: Any) -> None:
        variables = self.app.theme_variables
        title = Text.assemble(
            ("Payment ", "bold"),
            (p.payment_id, "bold"),
            "  ",
            status_text(p.status, variables),
            ("  " + format_amount(p.amount, p.currency), theme_colour(variables, "amount")),
        )
        self.query_one("#detail-title", Static).update(title)

        summary = _grid()
        summary.add_row("Status", status_text(p.status, variables))
        summary.add_row("Capture", p.capture_method or "-")
        summary.add_row("Authentication", p.authentication_type or "-")
        summary.add_row("Description", p.description or "-")
        summary.add_row("Created", format_time(p.created))
        summary.add_row("Modified", format_time(p.modified_at))
        summary.add_row("Captured", format_time(p.captured_at))
        if p.next_action is not None:
            summary.add_row("Next action", f"{p.next_action.type} (press 3 on a local sandbox)")
        self.query_one("#section-summary", Static).update(summary)

        amounts = _grid()
        amounts.add_row("Amount", format_amount(p.amount, p.currency))
        amounts.add_row("Received", format_amount(p.amount_received, p.currency))
        amounts.add_row("Capturable", format_amount(p.amount_capturable, p.currency))
        refunded = sum(r.amount for r in (p.refunds or []) if r.status == "succeeded")
        amounts.add_row("Refunded", format_amount(refunded, p.currency))
        self.query_one("#section-amounts", Static).update(amounts)

        card_grid = _grid()
        card = p.payment_method_data.card if p.payment_method_data else None
        if card is not None:
            card_grid.add_row(
                "Card",
                f"{brand_label(card.brand)} •••• {card.last4 or '????'}"
                f"  exp {card.exp_month or '??'}/{card.exp_year or '??'}",
            )
        else:
            card_grid.add_row("Card", p.payment_method or "none yet")
        card_grid.add_row("Customer", p.customer_id or "-")
        card_grid.add_row("Email", p.email or "-")
        self.query_one("#section-card", Static).update(card_grid)

        decline = self.query_one("#section-decline", Static)
        decline.display = bool(p.unified_code or p.error_code)
        if decline.display:
            decline.update(self._decline(p))

        self.query_one("#section-attempts", Static).update(self._attempts(p))
        self.query_one("#section-refunds", Static).update(self._refunds(p))
        self.query_one("#section-disputes", Static).update(self._disputes(p))
        self.query_one("#section-events", Static).update(self._events())
        self.query_one("#raw", Static).update(
            JSON(p.model_dump_json(exclude_none=True, exclude={"client_secret"}))
        )

    def _decline(self, p: Any) -> RenderableType:
        from tui.api.codes import explain

        grid = _grid()
        code = p.unified_code or p.error_code
        info = explain(code)
        grid.add_row("Code", Text(f"{code}  {info.title}", style="bold"))
        grid.add_row("Meaning", info.meaning)
        grid.add_row("Retry", ("yes — " if info.retryable else "no — ") + info.advice)
        if p.unified_message:
            grid.add_row("Message", p.unified_message)
        if p.error_message:
            grid.add_row("Acquirer", Text(p.error_message, style="dim"))
        return grid

    def _attempts(self, p: Any) -> RenderableType:
        if not p.attempts:
            return Text("No confirmation attempt yet.", style="dim")
        table = _table("Attempt", "Status", "Amount", "Code", "When")
        for a in p.attempts:
            table.add_row(
                a.attempt_id,
                status_text(a.status, self.app.theme_variables),
                format_amount(a.amount, p.currency),
                a.unified_code or a.error_code or "",
                format_time(a.created_at),
            )
        return table

    def _refunds(self, p: Any) -> RenderableType:
        if not p.refunds:
            return Text("No refunds.", style="dim")
        table = _table("Refund", "Status", "Amount", "Reason", "Created")
        for r in p.refunds:
            table.add_row(
                r.refund_id,
                status_text(r.status, self.app.theme_variables),
                format_amount(r.amount, r.currency),
                r.reason or "",
                format_time(r.created),
            )
        return table

    def _disputes(self, p: Any) -> RenderableType:
        if not p.disputes:
            return Text("No disputes.", style="dim")
        table = _table("Dispute", "Status", "Amount", "Stage")
        for d in p.disputes:
            data = d.model_dump()
            table.add_row(
                d.dispute_id,
                status_text(
                    data.get("dispute_status") or data.get("status"), self.app.theme_variables
                ),
                format_amount(d.amount, d.currency),
                data.get("dispute_stage") or "",
            )
        return table

    def _events(self) -> RenderableType:
        listener = self.app.runtime.listener  # type: ignore[attr-defined]
        if listener is None:
            return Text("The listener is not running.", style="dim")
        records = listener.journal.recent(20, 0, None, self.payment_id)
        if not records:
            return Text("No webhook received for this payment yet.", style="dim")
        table = _table("Received", "Event", "Status", "Event id")
        from datetime import UTC, datetime

        # Receive times are the wall clock's: hidden where the display must not move (tests).
        stable = self.app.runtime.options.stable_display  # type: ignore[attr-defined]
        for e in records:
            table.add_row(
                "··:··:··"
                if stable
                else datetime.fromtimestamp(e.first_seen, UTC).strftime("%H:%M:%S"),
                e.event_type or "?",
                status_text(e.object_status, self.app.theme_variables),
                e.event_id,
            )
        return Group(table, Text(":events shows headers, body and replay.", style="dim"))

    def on_worker_state_changed(self, event: Worker.StateChanged) -> None:
        self.app.on_worker_state_changed(event)  # type: ignore[attr-defined]

    def action_back(self) -> None:
        self.app.pop_screen()

    def action_toggle_raw(self) -> None:
        self.toggle_class("-raw")

    def action_reload(self) -> None:
        self.load()

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if action == "act" and parameters and self.payment is not None:
            name = str(parameters[0])
            if name == "3ds" and self.app.runtime.sandbox is None:  # type: ignore[attr-defined]
                return False
            return action_applies(name, self.payment.status)
        return super().check_action(action, parameters)

    def action_act(self, action: str) -> None:
        from tui.screens.payment_forms import open_action

        open_action(self.app, action, self.payment, self.payment_id, self._acted)

    def _acted(self, result: Any) -> None:
        if result is not None:
            self.load()

    def context_commands(self) -> Iterable[SystemCommand]:
        """Palette: the actions of this payment."""
        for action, title in (
            ("refund", "Refund this payment"),
            ("capture", "Capture this payment"),
            ("cancel", "Cancel this payment"),
            ("approve", "Approve this payment"),
            ("reject", "Reject this payment"),
            ("confirm", "Confirm this payment"),
            ("update", "Update this payment"),
        ):
            if self.payment is not None and not action_applies(action, self.payment.status):
                continue
            yield SystemCommand(title, self.payment_id, lambda a=action: self.action_act(a))
        yield SystemCommand("Toggle raw JSON", self.payment_id, self.action_toggle_raw)
