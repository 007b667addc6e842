"""Payments: a server-paged table (100 a page), filters, live status from webhooks, actions.

The actions are declared once here (`ROW_ACTIONS`) for the list and the detail alike.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, Any, cast

from rich.text import Text
from textual import work

from tui.screens.payments_cache import PAGE_SIZE
from tui.theming import PAYMENT_STATUSES
from tui.views.actions import Action, statuses, with_known
from tui.views.columns import Column
from tui.views.listing import ResourceListView
from tui.views.text import safe
from tui.widgets.format import amount_text, format_time, rich_colour, status_text

if TYPE_CHECKING:
    from rich.console import RenderableType

    from tui.api.models.payments import Payment
    from tui.screens.payments_cache import CachedPayment
    from tui.views.actions import ActionHost
    from tui.views.detail import Related
    from tui.views.filters import Grammar

    # A row: a live payment, or the start-up cache's copy of what the table showed.
    Row = Payment | CachedPayment

AMOUNT_WIDTH = 15
# Widths fit whole ids (prefix + 20 characters), the longest common status and amounts up to
# 999,999.99. Spare width goes to the status column first, up to the longest status but one
# (`partially_captured_and_capturable` stays cut); narrower, it gives way so the amount stays.
COLUMNS: tuple[Column[Any], ...] = (
    Column("payment_id", "Payment", 24, lambda p, c: safe(p.payment_id)),
    Column("status", "Status", 18, lambda p, c: status_text(p.status, c.variables), flex=(12, 24)),
    Column(
        "amount",
        "Amount",
        AMOUNT_WIDTH,
        lambda p, c: amount_text(p.amount, p.currency, c.variables, width=AMOUNT_WIDTH),
    ),
    Column("created", "Created", 12, lambda p, c: safe(format_time(p.created, short=True)), 77),
    Column("customer", "Customer", 24, lambda p, c: safe(p.customer_id), 103),
)


def payment_grammar(*, real: bool = False) -> Grammar:
    """`status:failed currency:EUR amount:10-50 customer:cus_… from:… to:… pay_…`.

    `real`: the real service's list filters by customer and created time only, so status,
    currency and amount are matched in the view over the newest payments (the header says how
    many it looked at); a whole payment id is read by id (`tui.api.resources.payments`).
    """
    from tui.views.filters import (
        Grammar,
        amount_term,
        currency_term,
        id_word,
        server_term,
        status_term,
        time_terms,
    )

    return Grammar(
        [
            status_term(PAYMENT_STATUSES, "payment", None if real else "status"),
            currency_term(None if real else "currency"),
            amount_term(None if real else "amount_filter"),
            server_term(("customer", "cus"), "customer_id", "customer:cus_…"),
            *time_terms(),
            server_term(("id", "payment"), "payment_id", "id:pay_…"),
        ],
        bare=id_word({"pay_": "payment_id", "cus_": "customer_id"}, 20, own="pay_"),
        bare_example="pay_… or part of an id",
    )


# -- actions (the list and the detail share them) ------------------------------------------------


def _with_payment(
    make: Callable[[Any], Any], *, needs_refunds: bool = False
) -> Callable[[ActionHost, str | None, Any], None]:
    """Run an action whose form needs the whole payment (fetched when only the id is known)."""

    def run(host: ActionHost, payment_id: str | None, payment: Any) -> None:
        app = host.app

        async def go() -> None:
            current = payment
            if current is None or (needs_refunds and current.refunds is None):
                current = await app.runtime.api.payments.retrieve(str(payment_id))
            await app.push_screen(make(current), host.acted)

        app.run_worker(go(), group="payment-action", exit_on_error=False, description="Payment")

    return run


def _form(name: str) -> Callable[[Any], Any]:
    def make(payment: Any) -> Any:
        from tui.screens import payment_forms

        return getattr(payment_forms, name)(payment)

    return make


def _review(action: str) -> Callable[[ActionHost, str | None, Any], None]:
    def run(host: ActionHost, payment_id: str | None, payment: Any) -> None:
        from tui.screens.payment_forms import review_form

        host.app.push_screen(
            review_form(host.app.runtime.client, str(payment_id), action), host.acted
        )

    return run


def _three_ds(host: ActionHost, payment_id: str | None, payment: Any) -> None:
    from tui.screens.payment_forms import ThreeDSForm

    host.app.push_screen(ThreeDSForm(str(payment_id)), host.acted)


def _dispute_form(payment: Any) -> Any:
    from tui.screens.dispute_forms import OpenDisputeForm

    return OpenDisputeForm(payment)


def _disputable(payment: Any) -> bool:
    # The sandbox's network disputes money received, one open dispute at a time (a list row
    # does not say which disputes a payment has: the form's answer does).
    received = getattr(payment, "amount_received", None)
    current = getattr(payment, "disputes", None) or []
    busy = any(
        (d.status or d.dispute_status) in ("dispute_opened", "dispute_challenged", "challenged")
        for d in current
    )
    return (received is None or received > 0) and not busy


_UNCONFIRMED = statuses("requires_payment_method", "requires_confirmation")
_OPEN = _UNCONFIRMED | statuses(
    "requires_action", "requires_customer_action", "requires_merchant_action", "requires_capture"
)

ROW_ACTIONS: tuple[Action[Any], ...] = with_known(
    (
        Action(
            "confirm",
            "o",
            "Confirm",
            "Confirm (authorise) with a card",
            _with_payment(_form("ConfirmForm")),
            _UNCONFIRMED,
            palette="Confirm this payment",
        ),
        Action(
            "capture",
            "c",
            "Capture",
            "Capture all or part",
            _with_payment(_form("CaptureForm")),
            statuses("requires_capture", "partially_captured_and_capturable"),
            palette="Capture this payment",
        ),
        Action(
            "cancel",
            "x",
            "Cancel",
            "Cancel with a reason",
            _with_payment(_form("CancelForm")),
            _OPEN,
            palette="Cancel this payment",
        ),
        Action(
            "approve",
            "a",
            "Approve",
            "Approve (manual review)",
            _review("approve"),
            statuses("requires_merchant_action"),
            palette="Approve this payment",
        ),
        Action(
            "reject",
            "d",
            "Reject",
            "Reject (manual review)",
            _review("reject"),
            statuses("requires_merchant_action"),
            palette="Reject this payment",
        ),
        Action(
            "refund",
            "f",
            "Refund",
            "Refund all or part",
            _with_payment(_form("RefundForm"), needs_refunds=True),
            statuses("succeeded", "partially_captured", "partially_captured_and_capturable"),
            palette="Refund this payment",
        ),
        Action(
            "update",
            "e",
            "Update",
            "Change amount, description, email (unconfirmed)",
            _with_payment(_form("UpdateForm")),
            _UNCONFIRMED,
            palette="Update this payment",
        ),
        Action(
            "3ds",
            "3",
            "3DS",
            "Complete 3-D Secure as the cardholder (local sandbox)",
            _three_ds,
            statuses("requires_action", "requires_customer_action"),
            local_only=True,
            palette="Complete 3-D Secure",
        ),
        Action(
            "dispute",
            "D",
            "Open dispute",
            "Act as the card network: open a dispute on it (local sandbox)",
            _with_payment(_dispute_form),
            statuses("succeeded", "partially_captured", "partially_captured_and_capturable"),
            when=_disputable,
            local_only=True,
            palette="Open a dispute (sandbox network)",
        ),
    ),
    PAYMENT_STATUSES,
)


def goto_payment(help: str, palette: str) -> Action[Any]:
    """`g`: open the payment a record belongs to (a refund's, a dispute's)."""

    def run(host: ActionHost, _record_id: str | None, record: Any) -> None:
        payment_id = getattr(record, "payment_id", None)
        if payment_id:
            host.app.goto("payments", str(payment_id))

    return Action(
        "payment",
        "g",
        "Payment",
        help,
        run,
        when=lambda record: bool(getattr(record, "payment_id", None)),
        palette=palette,
    )


def payment_summary(
    payment_id: str | None, related: Related[Payment], variables: Mapping[str, str]
) -> RenderableType:
    """The payment a refund or a dispute belongs to, as its detail shows it (Enter opens it)."""
    from tui.views.detail import grid
    from tui.widgets.format import format_amount

    rows = grid()
    rows.add_row(
        "Payment", Text.assemble(safe(payment_id, "bold"), ("   Enter or g opens it", "dim"))
    )
    payment = related.record
    if payment is None:
        problem = related.problem or "It names no payment."
        rows.add_row("", safe(problem, "dim", multiline=True))
        return rows
    refunded = sum(r.amount for r in payment.refunds or [] if r.status == "succeeded")
    rows.add_row("Status", status_text(payment.status, variables))
    rows.add_row("Amount", format_amount(payment.amount, payment.currency))
    rows.add_row("Received", format_amount(payment.amount_received, payment.currency))
    rows.add_row("Refunded", format_amount(refunded, payment.currency))
    rows.add_row("Captured", format_time(payment.captured_at))
    rows.add_row("Customer", safe(payment.customer_id))
    return rows


def _new(host: ActionHost, _id: str | None, _record: Any) -> None:
    cast(PaymentsView, host).new_payment()


NEW_PAYMENT: Action[Any] = Action(
    "new", "n", "New", "Create a payment", _new, needs_record=False, palette="New payment"
)


class PaymentsView(ResourceListView["Row"]):
    """The Payments area."""

    title = "Payments"
    noun = "payments"
    scope = "payments"
    id_prefix = "pay_"
    columns = COLUMNS
    page_size = PAGE_SIZE
    empty_hint = "Press [b]n[/b] to create one."
    # In the list, the row actions stay out of the footer (the detail shows them): their keys
    # work, and ? and the palette list them.
    actions = (NEW_PAYMENT, *(a.hidden() for a in ROW_ACTIONS))

    def __init__(self, *, id: str) -> None:
        super().__init__(id=id)
        self.cached = False
        self.read_early = False  # the live page read once the client was up, before all was

    def key_of(self, record: Row) -> str:
        return record.payment_id

    def filter_grammar(self) -> Grammar:
        client = self.runtime.client  # None while connecting: the help reads the same
        return payment_grammar(real=client is not None and client.contract == "real")

    async def fetch_page(
        self, filters: dict[str, Any], offset: int, limit: int
    ) -> tuple[list[Row], int | None]:
        from tui.api.models.payments import PaymentListRequest

        request = PaymentListRequest(limit=limit, offset=offset, **filters)
        page = await self.runtime.api.payments.list(request)
        # The real service's `{size, data}` carries no total (its list pages by cursor): None,
        # and the header says what was read and that more may follow.
        return list(page.data), page.total_count

    async def fetch_one(self, record_id: str) -> Row:
        payment: Payment = await self.runtime.api.payments.retrieve(record_id)
        return payment

    def detail(self, record_id: str) -> Any:
        from tui.screens.payment_detail import PaymentDetailScreen

        return PaymentDetailScreen(record_id)

    # -- the start-up cache of the first page ---------------------------------------------------

    def on_mount(self) -> None:
        # The base's on_mount runs after this one by itself (Textual calls each class's).
        if self.runtime.ready.is_set():
            return
        self._show_cache()
        self._load_once_the_client_is_up()

    @work(group="early-page", exit_on_error=False, description="Loading")
    async def _load_once_the_client_is_up(self) -> None:
        """The live page as soon as the client is up: the listener comes up after it, and the
        cached page need not wait for that (`runtime_ready` then reads it no more)."""
        await self.runtime.client_ready.wait()
        if not self.loaded and not self.runtime.ready.is_set():
            self.read_early = True
            self.load()

    def runtime_ready(self) -> None:
        early, self.read_early = self.read_early, False
        if early and self.loaded:  # the live page came once the client was up: not read again
            self.follow_changes()
            return
        super().runtime_ready()  # and on every later call (Ctrl+R reloads)

    def _cache_path(self) -> Any:
        from tui.screens.payments_cache import cache_path

        return cache_path(self.runtime.options.data_dir, self.runtime.profile_name)

    def _show_cache(self) -> None:
        """Warm start: paint the page seen last time at once; the live page replaces it."""
        from tui.screens.payments_cache import load_page

        cached = load_page(self._cache_path())
        if not cached:
            return
        self.cached = True
        # The whole page at once (measuring the rows a screen does not show costs a few ms):
        # the live page, when it says the same, then changes no cell, and DataTable draws
        # nothing again (adding the rest after the first frame made it draw every row anew).
        self.table.show(cached)
        self.update_header()

    def page_loaded(self, records: list[Row]) -> None:
        self.cached = False
        self.set_class(False, "-cached")
        if self.page_offset == 0 and not self.filter:
            from tui.screens.payments_cache import save_page

            save_page(self._cache_path(), records)

    def loading_text(self) -> str:
        return f"{len(self.rows):,} shown last time" if self.cached else "loading…"

    def header_extra(self, header: Text) -> None:
        if self.cached:
            # Said loudly: these rows are from the last run until the service answers.
            warning = rich_colour(self.app.theme_variables.get("warning", "yellow"))
            header.append("  cached · refreshing…", style=f"bold {warning}")
        self.set_class(self.cached, "-cached")

    def record_for_action(self, record: Row | None) -> Row | None:
        # A cached row is only what the table shows: the form fetches the payment.
        return None if self.cached else record

    # -- a new payment ------------------------------------------------------------------------

    def new_payment(self) -> None:
        """Open the new-payment form; the payment created opens on its detail."""
        if self.starting(self.new_payment):
            return
        from tui.screens.payment_forms import NewPaymentScreen

        self.app.push_screen(NewPaymentScreen(), self._created)

    def _created(self, payment: Payment | None) -> None:
        if payment is None:
            return
        self.notify(f"{payment.payment_id}: {payment.status}", title="Payment created")
        if self.page_offset == 0 and not self.filter:
            # Back from the payment, the cursor is on the new row at the top.
            self.table.select_next = payment.payment_id
            self.load()
        # Straight to its story: the status, the next action it offers, its events arriving.
        self.open_record(payment.payment_id)
