"""Payments: a server-paged table (100 a page), filters, live status from webhooks, actions."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any, ClassVar

from rich.text import Text
from textual import on, work
from textual.app import ComposeResult, SystemCommand
from textual.binding import Binding, BindingType
from textual.widgets import DataTable, Static

from tui.screens.base import AreaView, area_width, flex_width
from tui.widgets.format import amount_text, format_time, rich_colour, status_text, theme_colour

PAGE_SIZE = 100
FILTER_HELP = (
    "status:failed  currency:EUR  amount:10-50  customer:cus_…  from:2024-05-01  to:2024-05-31  "
    "pay_…"
)

# Widths fit whole ids (prefix + 20 characters), the longest common status and amounts up to
# 999,999.99; each column also takes one cell of padding on both sides.
COLUMNS = (
    ("payment_id", "Payment", 24),
    ("status", "Status", 18),
    ("amount", "Amount", 15),
    ("created", "Created", 12),
    ("customer", "Customer", 24),
)
AMOUNT_WIDTH = 15
# Spare width goes to the status column first, up to the longest status but one
# (`partially_captured_and_capturable` stays cut), so wide terminals show statuses whole.
STATUS_MAX_WIDTH = 24
STATUS_MIN_WIDTH = 12
# The columns shown at a given table width, most important first: the amount is never dropped.
LAYOUTS = (
    (103, ("payment_id", "status", "amount", "created", "customer")),
    (77, ("payment_id", "status", "amount", "created")),
    (0, ("payment_id", "status", "amount")),
)


def columns_for(width: int) -> tuple[str, ...]:
    """The keys of the columns that fit a table `width` cells wide."""
    return next(keys for minimum, keys in LAYOUTS if width >= minimum)


def status_width(width: int, keys: tuple[str, ...]) -> int:
    """The status column's width for a table `width` cells wide showing the columns `keys`:
    wider with room to spare, narrower (down to STATUS_MIN_WIDTH) so the amount stays in view."""
    return flex_width(width, COLUMNS, keys, "status", (STATUS_MIN_WIDTH, STATUS_MAX_WIDTH))


def parse_filter(text: str) -> dict[str, Any]:
    """`status:failed currency:eur from:2024-05-01 pay_x` -> PaymentListRequest fields.

    Raises ValueError naming the word that is not understood.
    """
    fields: dict[str, Any] = {}
    amount: str | None = None
    for word in text.split():
        key, sep, value = word.partition(":")
        key = key.lower()
        if not sep:
            if word.startswith("pay_"):
                fields["payment_id"] = word
                continue
            if word.startswith("cus_"):
                fields["customer_id"] = word
                continue
            raise ValueError(f"`{word}` is not a filter. Use {FILTER_HELP}.")
        if not value:
            raise ValueError(f"`{word}` needs a value after the colon.")
        if key == "status":
            fields["status"] = value.split(",")
        elif key in ("currency", "cur"):
            fields["currency"] = [c.upper() for c in value.split(",")]
        elif key in ("customer", "cus"):
            fields["customer_id"] = value
        elif key in ("from", "since", "created_gte"):
            fields["created_gte"] = _day(value, start=True)
        elif key in ("to", "until", "created_lte"):
            fields["created_lte"] = _day(value, start=False)
        elif key in ("id", "payment"):
            fields["payment_id"] = value
        elif key in ("amount", "amt"):
            amount = value
        else:
            raise ValueError(f"Unknown filter `{key}`. Use {FILTER_HELP}.")
    if amount is not None:
        # Read once every word is in: `currency:JPY` may come after `amount:500`.
        fields["amount_filter"] = _amount_range(amount, fields.get("currency"))
    return fields


def _amount_range(value: str, currencies: list[str] | None) -> dict[str, int]:
    """`42.00` (exactly), `10-50`, `10-` (at least) or `-50` (at most) -> an amount filter in
    minor units: of the one currency filtered on, else of a two-decimal currency (USD, EUR)."""
    from tui.api.models.common import MAX_AMOUNT
    from tui.widgets.format import parse_amount

    currency = currencies[0] if currencies and len(currencies) == 1 else "USD"
    low, dash, high = value.partition("-")
    if not dash:
        high = low
    if not low and not high:
        raise ValueError("`amount:` needs an amount or a range, such as amount:42.00 or 10-50.")
    bounds: dict[str, int] = {}
    for name, text in (("start_amount", low), ("end_amount", high)):
        if text:
            try:
                bounds[name] = parse_amount(text, currency)
            except ValueError as exc:
                raise ValueError(f"`amount:{value}`: {exc}") from None
    if bounds.get("end_amount", MAX_AMOUNT) < bounds.get("start_amount", 0):
        raise ValueError(f"`amount:{value}`: the range goes from the smaller amount to the larger.")
    return bounds


def _day(value: str, *, start: bool) -> str:
    # A bare date means the whole day: from its first second to its last.
    if len(value) == 10:
        return f"{value}T00:00:00Z" if start else f"{value}T23:59:59Z"
    return value


def _plain(value: str) -> Text:
    # What the table makes of a plain string, without reading it as markup first.
    return Text(value, no_wrap=True, end="")


class PaymentTable(DataTable[Any]):
    """The payments of one page, keyed by payment id so webhooks update rows in place."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("enter", "open", "Open", id="payments.open", tooltip="Open the payment's detail"),
    ]

    def action_open(self) -> None:
        self.action_select_cursor()


class PaymentsView(AreaView):
    """The Payments area."""

    DEFAULT_CSS = """
    PaymentsView > #payments-header { height: 1; padding: 0 1; background: $surface; }
    PaymentsView > #payments-filter { display: none; border: round $accent; height: 3; }
    PaymentsView > #payments-filter.-shown { display: block; }
    PaymentsView > PaymentTable { height: 1fr; scrollbar-size-vertical: 1; }
    PaymentsView > #payments-empty { display: none; padding: 1 2; color: $text-muted; }
    PaymentsView.-empty > #payments-empty { display: block; }
    """

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("n", "new_payment", "New", id="payments.new", tooltip="Create a payment"),
        Binding("c", "capture", "Capture", id="payments.capture", tooltip="Capture it", show=False),
        Binding("f", "refund", "Refund", id="payments.refund", tooltip="Refund it", show=False),
        Binding("x", "cancel", "Cancel", id="payments.cancel", tooltip="Cancel it", show=False),
        Binding(
            "right_square_bracket",
            "next_page",
            "Page",
            id="payments.next-page",
            tooltip="Next 100 payments ([ goes back)",
            key_display="]",
        ),
        Binding(
            "left_square_bracket",
            "previous_page",
            "Prev page",
            id="payments.previous-page",
            tooltip="Previous 100 payments",
            key_display="[",
            show=False,
        ),
        Binding(
            "r", "reload", "Reload", id="payments.reload", tooltip="Reload this page", show=False
        ),
    ]

    def __init__(self, *, id: str) -> None:
        super().__init__(id=id)
        self.page_offset = 0
        self.total = 0
        self.filters: dict[str, Any] = {}
        self.filter_text = ""
        self.loaded = False
        self.rows: dict[str, Any] = {}
        self.cached = False
        self.load_error = ""  # the title of the last failed page load, until one succeeds
        self._unsubscribe: Any = None
        self.shown_columns: tuple[str, ...] = ()
        self._status_width = 0
        self._select_next: str | None = None  # a row to put the cursor on once it is loaded

    def compose(self) -> ComposeResult:
        yield Static("Payments  [dim]loading…[/dim]", id="payments-header")
        table = PaymentTable(cursor_type="row", zebra_stripes=True, id="payments-table")
        # The screen's size is known before layout: guess the columns now so the first frame
        # needs no second layout pass (on_resize corrects the guess if the rail is hidden).
        self._layout(area_width(self.app.size.width) - 1)
        self._add_columns(table)
        yield table
        yield Static(id="payments-empty")

    def _layout(self, width: int) -> bool:
        """Pick the columns and the status width for a table `width` cells wide; True if
        either changed."""
        keys = columns_for(width)
        layout = (keys, status_width(width, keys))
        if layout == (self.shown_columns, self._status_width):
            return False
        self.shown_columns, self._status_width = layout
        return True

    def _add_columns(self, table: DataTable[Any]) -> None:
        for key, label, width in COLUMNS:
            if key in self.shown_columns:
                shown = self._status_width if key == "status" else width
                table.add_column(Text(label), width=shown, key=key)

    def on_resize(self) -> None:
        table = self.query_one(PaymentTable)
        # The vertical scrollbar (one cell) is always there for a full page.
        if not self._layout(self.size.width - 1):
            return
        table.clear(columns=True)
        self._add_columns(table)
        for payment in self.rows.values():
            table.add_row(*self._cells(payment), key=payment.payment_id)

    def on_mount(self) -> None:
        self.watch(self.app, "theme", self._repaint, init=False)
        if not self.runtime.ready.is_set():
            self._show_cache()

    def _cache_path(self) -> Any:
        from tui.screens.payments_cache import cache_path

        return cache_path(self.app.options.data_dir, self.runtime.profile_name)  # type: ignore[attr-defined]

    def _show_cache(self) -> None:
        """Warm start: paint the page seen last time at once; the live page replaces it."""
        from tui.screens.payments_cache import load_page

        cached = load_page(self._cache_path())
        if not cached:
            return
        self.cached = True
        # The rows a screen can show first, the rest once that frame is out: the table measures
        # every row it holds before drawing.
        visible = max(self.app.size.height, 1)
        self._fill(cached[:visible])
        if len(cached) > visible:
            self.call_after_refresh(self._show_rest, cached)

    def _show_rest(self, cached: list[Any]) -> None:
        if self.cached:  # the live page may have arrived already
            self._fill(cached)

    def focus_main(self) -> None:
        self.focus_table(self.query_one(PaymentTable))

    def runtime_ready(self) -> None:
        listener = self.runtime.listener
        if listener is not None and self._unsubscribe is None:
            self._unsubscribe = listener.add_subscriber(self._on_delivery)
        self.load_page()

    def on_unmount(self) -> None:
        if self._unsubscribe is not None:
            self._unsubscribe()

    # -- data --------------------------------------------------------------------------------

    @work(exclusive=True, group="payments-page", exit_on_error=False, description="Payments")
    async def load_page(self) -> None:
        """Fetch one page from the service with the current filters."""
        from tui.api.models.payments import PaymentListRequest

        request = PaymentListRequest(limit=PAGE_SIZE, offset=self.page_offset, **self.filters)
        page = await self.runtime.client.payments.list(request)
        self.total = page.total_count
        self.loaded = True
        self.cached = False
        self.load_error = ""
        self._fill(page.data)
        if self.page_offset == 0 and not self.filters:
            from tui.screens.payments_cache import save_page

            save_page(self._cache_path(), page.data)

    def _fill(self, payments: list[Any]) -> None:
        """Show `payments`; rows already on screen (e.g. from the cache) are updated in place."""
        table = self.query_one(PaymentTable)
        ids = [p.payment_id for p in payments]
        if ids == list(self.rows):
            for payment in payments:
                self.rows[payment.payment_id] = payment
                self._update_row(table, payment)
        else:
            selected = self._select_next or self.selected_id()
            self._select_next = None
            table.clear()
            self.rows = {}
            for payment in payments:
                self.rows[payment.payment_id] = payment
                table.add_row(*self._cells(payment), key=payment.payment_id)
            if selected in self.rows:
                table.move_cursor(row=table.get_row_index(selected), animate=False)
        self._update_header()

    def _cells(self, payment: Any) -> list[Any]:
        """The row of `payment`, one cell per shown column."""
        variables = self.app.theme_variables
        # Text, not str: the table would parse every plain string as markup (emoji codes too).
        every = {
            "payment_id": _plain(payment.payment_id),
            "status": status_text(payment.status, variables),
            "amount": amount_text(payment.amount, payment.currency, variables, width=AMOUNT_WIDTH),
            "created": _plain(format_time(payment.created, short=True)),
            "customer": _plain(payment.customer_id)
            if payment.customer_id
            else Text("-", style=theme_colour(variables, "muted")),
        }
        return [every[key] for key in self.shown_columns]

    def _update_row(self, table: DataTable[Any], payment: Any) -> None:
        for key, cell in zip(self.shown_columns, self._cells(payment), strict=True):
            table.update_cell(payment.payment_id, key, cell)

    def _repaint(self) -> None:
        table = self.query_one(PaymentTable)
        for payment in self.rows.values():
            self._update_row(table, payment)

    def on_worker_state_changed(self, event: Any) -> None:
        """A failed page load says so in the header (the app tells the details once)."""
        from textual.worker import WorkerState

        if event.worker.group == "payments-page" and event.state == WorkerState.ERROR:
            from tui.widgets.errors import describe_error

            self.load_error = describe_error(event.worker.error)[0]
            self._update_header()

    def _update_header(self) -> None:
        shown = len(self.rows)
        if self.load_error and not self.rows:
            range_text = f"[dim]could not load ({self.load_error}) · Ctrl+R retries[/dim]"
        elif self.cached:
            range_text = f"{shown:,} shown last time"
        elif self.total == 0:
            where = "no payments match" if self.filters else "no payments yet"
            range_text = f"[dim]{where}[/dim]"
        else:
            first = self.page_offset + 1 if shown else 0
            last = self.page_offset + shown
            pages = (self.total + PAGE_SIZE - 1) // PAGE_SIZE
            page = self.page_offset // PAGE_SIZE + 1
            range_text = f"{first:,}-{last:,} of {self.total:,}  [dim]page {page}/{pages}[/dim]"
        header = Text.assemble(("Payments", "bold"), "  ")
        header.append_text(Text.from_markup(range_text, emoji=False))
        if self.cached:
            # Said loudly: these rows are from the last run until the service answers.
            warning = rich_colour(self.app.theme_variables.get("warning", "yellow"))
            header.append("  cached · refreshing…", style=f"bold {warning}")
        if self.filter_text:
            header.append("  filter ", style="bold")
            header.append(self.filter_text)
        self.query_one("#payments-header", Static).update(header)
        empty = self.query_one("#payments-empty", Static)
        empty_now = self.total == 0 and self.loaded and not self.cached
        self.show_empty(empty_now, self.query_one(PaymentTable))
        self.set_class(self.cached, "-cached")
        if self.filters:
            empty.update("Nothing matches this filter. Esc clears it.")
        else:
            empty.update("No payments yet. Press [b]n[/b] to create one.")

    def _on_delivery(self, delivery: Any) -> None:
        """A webhook arrived: if it is about a payment on this page, update its row in place."""
        if not delivery.accepted or not delivery.object_id:
            return
        payment = self.rows.get(delivery.object_id)
        if payment is None:
            if delivery.object_id.startswith("pay_") and self.page_offset == 0 and not self.filters:
                self.refresh_one(delivery.object_id, new=True)
            return
        self.refresh_one(delivery.object_id)

    @work(group="payments-row", exit_on_error=False, description="Payment update")
    async def refresh_one(self, payment_id: str, new: bool = False) -> None:
        """Re-read one payment and redraw its row (or add it on top of the first page)."""
        payment = await self.runtime.client.payments.retrieve(payment_id)
        table = self.query_one(PaymentTable)
        if payment_id in self.rows:
            self.rows[payment_id] = payment
            self._update_row(table, payment)
            return
        newest = max((p.created or "" for p in self.rows.values()), default="")
        if not new or (payment.created or "") < newest:
            return  # an older payment's event (e.g. a retried delivery): not on this page
        self.rows[payment_id] = payment
        self.total += 1
        table.add_row(*self._cells(payment), key=payment_id)
        # Newest first by the full ISO timestamp, through the id column: every layout shows it
        # (narrow ones drop Created), and the short "Nov 20 19:47" text does not sort by date.
        rows = self.rows
        table.sort("payment_id", key=lambda cell: rows[cell.plain].created or "", reverse=True)
        self._update_header()

    # -- filter and paging -------------------------------------------------------------------

    async def start_filter(self) -> None:
        """`/`: type filters; Enter applies them on the server."""
        from textual.widgets import Input

        boxes = self.query("#payments-filter").results(Input)
        box = next(boxes, None)
        if box is None:
            # Mounted on first use: one widget less to build before the first paint.
            box = Input(placeholder=FILTER_HELP, id="payments-filter")
            await self.mount(box, after="#payments-header")
        box.add_class("-shown")
        box.value = self.filter_text
        box.focus()

    # By name rather than `@on(Input.Submitted, ...)`: Input is imported when the box is first
    # shown, not before the first frame.
    def on_input_submitted(self, event: Any) -> None:
        if event.input.id == "payments-filter":
            self._apply_filter(event)

    def _apply_filter(self, event: Any) -> None:
        try:
            filters = parse_filter(event.value)
        except ValueError as exc:
            self.notify(str(exc), title="Filter not understood", severity="warning")
            return
        self.filters = filters
        self.filter_text = event.value.strip()
        self.page_offset = 0
        event.input.remove_class("-shown")
        self.focus_main()
        self.load_page()

    def back(self) -> None:
        box = next(iter(self.query("#payments-filter")), None)
        if box is not None and box.has_class("-shown"):
            box.remove_class("-shown")
            self.focus_main()
        elif self.filters:
            self.filters = {}
            self.filter_text = ""
            self.page_offset = 0
            self.load_page()

    def action_next_page(self) -> None:
        if self.page_offset + PAGE_SIZE < self.total:
            self.page_offset += PAGE_SIZE
            self.load_page()

    def action_previous_page(self) -> None:
        if self.page_offset > 0:
            self.page_offset = max(0, self.page_offset - PAGE_SIZE)
            self.load_page()

    def action_reload(self) -> None:
        self.load_page()

    # -- records and actions -----------------------------------------------------------------

    def selected_id(self) -> str | None:
        """The payment id under the cursor, if any."""
        table = self.query_one(PaymentTable)
        if table.row_count == 0:
            return None
        key = table.coordinate_to_cell_key(table.cursor_coordinate).row_key
        return str(key.value) if key.value is not None else None

    @on(DataTable.RowSelected, "#payments-table")
    def _open_selected(self, event: DataTable.RowSelected) -> None:
        if event.row_key.value is not None:
            self.open_record(str(event.row_key.value))

    def open_record(self, payment_id: str) -> None:
        """Open a payment's detail screen (`:pay <id>` lands here too)."""
        if self._starting():
            return
        from tui.screens.payment_detail import PaymentDetailScreen

        self.app.push_screen(PaymentDetailScreen(payment_id))

    def action_new_payment(self) -> None:
        if self._starting():
            return
        from tui.screens.payment_forms import NewPaymentScreen

        self.app.push_screen(NewPaymentScreen(), self._created)

    def _created(self, payment: Any) -> None:
        if payment is None:
            return
        self.notify(f"{payment.payment_id}: {payment.status}", title="Payment created")
        if self.page_offset == 0 and not self.filters:
            # Back from the payment, the cursor is on the new row at the top.
            self._select_next = payment.payment_id
            self.load_page()
        # Straight to its story: the status, the next action it offers, its events arriving.
        self.open_record(payment.payment_id)

    def _starting(self) -> bool:
        if self.runtime.ready.is_set():
            return False
        self.notify("Still connecting to the sandbox; try again in a moment.", severity="warning")
        return True

    def _act(self, action: str) -> None:
        payment_id = self.selected_id()
        if payment_id is None:
            self.notify("Select a payment first.", severity="warning")
            return
        if self._starting():
            return
        from tui.screens.payment_forms import open_action

        # A cached row is only what the table shows: the form fetches the whole payment.
        payment = None if self.cached else self.rows.get(payment_id)
        open_action(self.app, action, payment, payment_id, self._acted)

    def _acted(self, result: Any) -> None:
        if result is not None and getattr(result, "payment_id", None) in self.rows:
            self.refresh_one(result.payment_id)

    def action_capture(self) -> None:
        self._act("capture")

    def action_refund(self) -> None:
        self._act("refund")

    def action_cancel(self) -> None:
        self._act("cancel")

    def context_commands(self) -> Iterable[SystemCommand]:
        payment_id = self.selected_id()
        yield SystemCommand("New payment", "Create a payment", self.action_new_payment)
        if payment_id is None:
            return
        for action, title in (
            ("capture", "Capture this payment"),
            ("refund", "Refund this payment"),
            ("cancel", "Cancel this payment"),
            ("approve", "Approve this payment"),
            ("reject", "Reject this payment"),
            ("confirm", "Confirm this payment"),
        ):
            yield SystemCommand(
                title, payment_id, lambda action=action: self._act(action), discover=True
            )
        yield SystemCommand("Open this payment", payment_id, lambda: self.open_record(payment_id))
