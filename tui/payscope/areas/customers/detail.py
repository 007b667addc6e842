"""The Customers area's detail: one record, its sections and its actions."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any, ClassVar, cast

from rich.console import RenderableType
from rich.text import Text
from textual import events, on
from textual.app import ComposeResult
from textual.containers import Vertical
from textual.widgets import Static

from payscope.api.errors import ClientError
from payscope.api.models.customers import Customer
from payscope.api.models.disputes import DisputeListRequest
from payscope.api.models.payments import PaymentListRequest
from payscope.api.models.refunds import RefundListRequest
from payscope.areas.customers.actions import ROW_ACTIONS, Deleted
from payscope.areas.customers.methods import (
    Saved,
    delete_method_form,
    load_saved,
    mandates_view,
    methods_view,
    revoke_mandate_form,
    set_default_form,
)
from payscope.areas.customers.spec import (
    CHARGED,
    COUNT_CONCURRENCY,
    PAYMENTS_SHOWN,
    phone_of,
)
from payscope.views.actions import Action, status_of
from payscope.views.areas import registry
from payscope.views.columns import CellContext, Column
from payscope.views.detail import DetailScreen, empty, grid
from payscope.views.json_view import WrappedText
from payscope.views.listing import ResourceListView
from payscope.views.table import ResourceTable
from payscope.widgets.errors import describe_error
from payscope.widgets.format import amount_text, format_time, status_text
from payscope.widgets.text import safe

# -- the detail ------------------------------------------------------------------------------------


@dataclass(frozen=True)
class CustomerPayment:
    """One of a customer's payments, with how many refunds and disputes it has (None: unknown)."""

    payment: Any
    refunds: int | None
    disputes: int | None

    @property
    def payment_id(self) -> str:
        return str(self.payment.payment_id)


@dataclass
class Payments:
    """A customer's newest payments as last read, or why they could not be."""

    rows: list[CustomerPayment]
    total: int = 0
    error: str = ""
    more: bool = False  # no total came, and the page was full: there may be more


def _count(value: int | None) -> Text:
    if value is None:
        return Text("?", style="dim")
    return Text(str(value), style="bold" if value else "dim")


AMOUNT_WIDTH = 14
PAYMENT_COLUMNS: tuple[Column[CustomerPayment], ...] = (
    Column("payment_id", "Payment", 24, lambda r, c: safe(r.payment_id)),
    Column(
        "status",
        "Status",
        18,
        lambda r, c: status_text(r.payment.status, c.variables),
        flex=(10, 24),
    ),
    Column(
        "amount",
        "Amount",
        AMOUNT_WIDTH,
        lambda r, c: amount_text(
            r.payment.amount, r.payment.currency, c.variables, width=AMOUNT_WIDTH
        ),
    ),
    Column(
        "created",
        "Created",
        12,
        lambda r, c: safe(format_time(r.payment.created, short=True)),
        92,
    ),
    Column("refunds", "Refunds", 7, lambda r, c: _count(r.refunds)),
    Column("disputes", "Disputes", 8, lambda r, c: _count(r.disputes)),
)


class PaymentsSection(Vertical):
    """The customer's payments: a table (Enter opens one) under a line that says what it holds."""

    DEFAULT_CSS = """
    PaymentsSection > ResourceTable { height: auto; max-height: 22; }
    PaymentsSection > ResourceTable.-none { display: none; }
    """

    def __init__(self, context: Callable[[], CellContext]) -> None:
        super().__init__(classes="section", id="section-payments")
        self.border_title = "Payments"
        self._cells = context

    def compose(self) -> ComposeResult:
        yield Static(empty("loading…"), id="payments-summary")
        yield ResourceTable(
            PAYMENT_COLUMNS, lambda r: r.payment_id, self._cells, id="payments-table"
        )

    @property
    def table(self) -> ResourceTable[CustomerPayment]:
        table: ResourceTable[CustomerPayment] = self.query_one(ResourceTable)
        return table

    def on_mount(self) -> None:
        # The signal comes once the theme's variables are in place (a watch on `theme` would
        # repaint with the old ones).
        self.app.theme_changed_signal.subscribe(self, lambda _theme: self._repaint())

    def on_resize(self) -> None:
        self.table.fit_to(self.size.width)

    def _repaint(self) -> None:
        # Statuses and amounts take the theme's colours.
        for row in list(self.table.records.values()):
            self.table.update(row)

    def show(self, payments: Payments, summary: RenderableType) -> None:
        self.query_one("#payments-summary", Static).update(summary)
        self.table.show(payments.rows)
        self.table.set_class(not payments.rows, "-none")


class CustomerDetailScreen(DetailScreen["Customer"]):
    """One customer: its fields and its payments (with their refunds and disputes)."""

    noun = "Customer"
    scope = "customer"
    sections: ClassVar[tuple[tuple[str, str], ...]] = (
        ("customer", "Customer"),
        ("methods", "Saved payment methods"),
        ("mandates", "Mandates"),
    )
    actions = (
        *ROW_ACTIONS,
        Action(
            "default-method",
            "s",
            "Set default",
            "Make one of the saved methods the customer's default",
            lambda host, _id, _c: cast(CustomerDetailScreen, host).change_saved("default"),
            palette="Set this customer's default payment method",
        ),
        Action(
            "delete-method",
            "x",
            "Delete method",
            "Delete one of the customer's saved payment methods",
            lambda host, _id, _c: cast(CustomerDetailScreen, host).change_saved("delete"),
            palette="Delete a saved payment method",
        ),
        Action(
            "revoke-mandate",
            "R",
            "Revoke mandate",
            "Revoke one of the customer's active mandates",
            lambda host, _id, _c: cast(CustomerDetailScreen, host).change_saved("revoke"),
            palette="Revoke a mandate",
        ),
        Action(
            "open-payment",
            "p",
            "Open payment",
            "Open the selected payment (the newest if none is selected)",
            lambda host, _id, _c: cast(CustomerDetailScreen, host).open_payment(),
            palette="Open this customer's payment",
            writes=False,
        ).hidden(),  # Enter on the table says it in the footer; the button shows it too
        Action(
            "all-payments",
            "P",
            "All payments",
            "Show every payment of this customer in Payments",
            lambda host, _id, _c: cast(CustomerDetailScreen, host).all_payments(),
            palette="All payments of this customer",
            writes=False,
        ),
    )

    def __init__(self, customer_id: str) -> None:
        super().__init__(customer_id)
        self.customer_id = customer_id
        self.payments = Payments([])
        self.saved = Saved()
        self._focused_once = False

    @property
    def customer(self) -> Any:
        """The customer as last read (None until the first read)."""
        return self.record

    @on(events.Mount)
    async def _mount_payments(self) -> None:
        # Before the base's on_mount (load, live, focus), which Textual calls after this.
        await self.query_one("#detail-body").mount(
            PaymentsSection(self._cell_context), before="#raw"
        )

    def _cell_context(self) -> CellContext:
        return CellContext(self.app.theme_variables, self.runtime.display)

    @property
    def section_payments(self) -> PaymentsSection:
        return self.query_one(PaymentsSection)

    # -- reading -------------------------------------------------------------------------------

    async def fetch(self) -> Customer:
        client = self.runtime.api
        customer, payments, saved = await asyncio.gather(
            client.customers.retrieve(self.customer_id),
            self._payments(),
            load_saved(client, self.customer_id),
        )
        self.payments = payments
        self.saved = saved
        return customer

    # -- saved methods and mandates ------------------------------------------------------------

    def allowed(self) -> list[Action[Any]]:
        # Each change is offered only when something it applies to is there.
        applies = {
            "default-method": bool(self.saved.not_default()),
            "delete-method": bool(self.saved.deletable()),
            "revoke-mandate": bool(self.saved.revocable()),
        }
        return [a for a in super().allowed() if applies.get(a.name, True)]

    def change_saved(self, what: str) -> None:
        """Open the form that sets the default method, deletes one, or revokes a mandate."""
        api = self.runtime.api
        if what == "default":
            form = set_default_form(api, self.customer_id, self.saved)
            done = "Default method set"
        elif what == "delete":
            form = delete_method_form(api, self.saved)
            done = "Saved method deleted"
        else:
            form = revoke_mandate_form(api, self.saved)
            done = "Mandate revoked"

        def closed(result: Any) -> None:
            if result is not None:
                self.notify(str(form.value("choice")), title=done, markup=False)
                self.load(now=True)  # no webhook tells of it

        self.app.push_screen(form, closed)

    async def _payments(self) -> Payments:
        client = self.runtime.api
        try:
            page = await client.payments.list(
                PaymentListRequest(customer_id=self.customer_id, limit=PAYMENTS_SHOWN)
            )
        except ClientError as exc:
            title, message = describe_error(exc)
            return Payments([], error=f"{title}: {message}")
        limit = asyncio.Semaphore(COUNT_CONCURRENCY)

        async def one(payment: Any) -> CustomerPayment:
            async with limit:
                refunds, disputes = await counts(payment, self._count_refunds, self._count_disputes)
            return CustomerPayment(payment, refunds, disputes)

        rows = list(await asyncio.gather(*(one(p) for p in page.data)))
        if page.total_count is not None:
            return Payments(rows, page.total_count)
        # The real service says no total: a full page may have more behind it.
        return Payments(rows, len(rows), more=len(rows) >= PAYMENTS_SHOWN)

    async def _count_refunds(self, payment_id: str) -> int | None:
        refunds = self.runtime.api.refunds
        return await _total(lambda: refunds.list(RefundListRequest(payment_id=payment_id, limit=1)))

    async def _count_disputes(self, payment_id: str) -> int | None:
        disputes = self.runtime.api.disputes
        return await _total(
            lambda: disputes.list(DisputeListRequest(payment_id=payment_id, limit=1))
        )

    def watched_ids(self, customer: Customer) -> set[str]:
        # A new payment names the customer; a refund or a dispute names its payment.
        ids = {customer.customer_id}
        for row in self.payments.rows:
            ids.add(row.payment_id)
            for attr, key in (("refunds", "refund_id"), ("disputes", "dispute_id")):
                ids.update(getattr(r, key) for r in getattr(row.payment, attr, None) or [])
        return ids

    # -- rendering -----------------------------------------------------------------------------

    def title_text(self, c: Customer) -> Text:
        title = Text.assemble(("Customer ", "bold"), safe(c.customer_id, "bold"))
        if c.name:
            title.append("  ")
            title.append_text(safe(c.name))
        if c.email:
            title.append("  ")
            title.append_text(safe(c.email, "dim"))
        return title

    def render_record(self, c: Customer) -> None:
        fields = grid()
        fields.add_row("Name", safe(c.name))
        fields.add_row("Email", safe(c.email))
        fields.add_row("Phone", safe(phone_of(c)))
        fields.add_row("Description", safe(c.description, multiline=True))
        fields.add_row("Address", address_text(c.address))
        # JSON values wrap at their punctuation, not inside a word.
        metadata = metadata_text(c.metadata)
        fields.add_row("Metadata", WrappedText(metadata) if c.metadata else metadata)
        # Times as the service sent them when they are not ISO 8601: literally, too.
        fields.add_row("Created", safe(format_time(c.created_time)))
        fields.add_row("Modified", safe(format_time(getattr(c, "modified_at", None))))
        self.section("customer").update(fields)
        self.section("methods").update(methods_view(self.saved))
        self.section("mandates").update(mandates_view(self.saved, self.app.theme_variables))
        self.section_payments.show(self.payments, self.payments_summary())
        if self.payments.rows and not self._focused_once:
            # Up and down pick a payment, Enter opens it; the fields above stay in view.
            self._focused_once = True
            if self.focused is None or self.focused.id == "detail-body":
                self.section_payments.table.focus(scroll_visible=False)

    def payments_summary(self) -> Text:
        p = self.payments
        if p.error:
            return Text.assemble(("Could not load the payments: ", "bold"), safe(p.error))
        if not p.rows:
            return Text.assemble(
                ("No payments yet. ", "dim"),
                ("Payments made with customer_id ", "dim"),
                safe(self.customer_id, "dim"),
                (" show here.", "dim"),
            )
        shown = len(p.rows)
        if p.more:
            count = f"The newest {shown} payments (the service gives no total; P lists them all)"
        elif p.total <= shown:
            count = f"{shown} payment{'s' * (shown != 1)}"
        else:
            count = f"The newest {shown} of {p.total:,} payments"
        return Text.assemble(
            (count, "bold"),
            ("  ·  Enter or p opens one  ·  P lists them all in Payments", "dim"),
        )

    def show_missing(self) -> None:
        super().show_missing()
        self.section_payments.display = False

    # -- acting --------------------------------------------------------------------------------

    def acted(self, result: Any) -> None:
        """A deleted customer closes its detail; an edit is announced, and reloads it."""
        if isinstance(result, Deleted):
            self.action_back()

    def selected_payment(self) -> str | None:
        """The payment under the cursor, else the newest."""
        table = self.section_payments.table
        return table.selected_id() or next(iter(table.records), None)

    def open_payment(self, payment_id: str | None = None) -> None:
        """Open a payment of this customer on top of this screen (Esc comes back here)."""
        chosen = payment_id or self.selected_payment()
        if chosen is None:
            self.notify("This customer has no payments yet.", severity="information")
            return
        self.app.push_screen(registry().by_key["payments"].detail_screen(chosen))

    @on(ResourceTable.Open, "#payments-table")
    def _open(self, event: ResourceTable.Open) -> None:
        event.stop()
        self.open_payment(event.record_id)

    def all_payments(self) -> None:
        """Payments, filtered to this customer (every one, not only the newest shown here)."""
        app = self.app
        app.goto("payments")
        main = app.get_screen_main()
        view = main.current_view() if main is not None else None
        if isinstance(view, ResourceListView):
            view.show_filtered(f"customer:{self.customer_id}")


Counter = Callable[[str], Awaitable["int | None"]]


async def counts(
    payment: Any, count_refunds: Counter, count_disputes: Counter
) -> tuple[int | None, int | None]:
    """How many refunds and disputes a payment has: its own lists when the list route gave
    them, else counted (asked only of payments that took money: no other can have any)."""
    charged = (payment.amount_received or 0) > 0 or status_of(payment) in CHARGED
    found: list[int | None] = []
    for own, count in (
        (getattr(payment, "refunds", None), count_refunds),
        (getattr(payment, "disputes", None), count_disputes),
    ):
        if own is not None:
            found.append(len(own))
        else:
            found.append(await count(payment.payment_id) if charged else 0)
    return found[0], found[1]


async def _total(read: Callable[[], Awaitable[Any]]) -> int | None:
    """A list's total (None when it could not be read: shown as "?", the rest still shows)."""
    try:
        answer = await read()
    except (ClientError, ValueError):  # ValueError: an id the request model refuses
        return None
    return answer.total_count if answer.total_count is not None else len(answer.data)


def address_text(address: Any) -> Text:
    """A postal address on the lines people write it on."""
    if address is None:
        return empty("none")
    a = address if isinstance(address, dict) else address.model_dump()
    name = " ".join(str(a[k]) for k in ("first_name", "last_name") if a.get(k))
    place = " ".join(str(a[k]) for k in ("state", "zip") if a.get(k))
    city = ", ".join(str(v) for v in (a.get("city"), place) if v)
    lines = [name, a.get("line1"), a.get("line2"), a.get("line3"), city, a.get("country")]
    shown = [str(line) for line in lines if line]
    if not shown:
        return empty("none")
    return safe("\n".join(shown), multiline=True)


def metadata_text(metadata: Any) -> Text:
    """Metadata as `key: value` lines (a value that is not text, as JSON)."""
    if not metadata:
        return empty("none")
    lines = []
    for key, value in metadata.items():
        shown = value if isinstance(value, str) else json.dumps(value, ensure_ascii=False)
        lines.append(f"{key}: {shown}")
    return safe("\n".join(lines), multiline=True)
