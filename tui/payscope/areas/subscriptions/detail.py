"""The Subscriptions area's detail: one record, its sections and its actions."""

from __future__ import annotations

import asyncio
from datetime import UTC, datetime, timedelta
from typing import TYPE_CHECKING, Any, ClassVar

from rich.console import Group, RenderableType
from rich.table import Table
from rich.text import Text

from payscope.api.errors import ClientError
from payscope.api.models.subscriptions import InvoiceListRequest, Subscription
from payscope.areas.subscriptions.actions import CLOCK, ROW_ACTIONS, _payment_id
from payscope.areas.subscriptions.remote import Renewal, renewals
from payscope.areas.subscriptions.spec import (
    CLOCK_MOVED,
    HISTORY_SHOWN,
    Catalogue,
    catalogue,
    price_cell,
    with_subscription,
)
from payscope.views.detail import DetailScreen, Related, empty, explained_code, grid, read_related
from payscope.views.json_view import json_view
from payscope.views.when import span_text
from payscope.widgets.errors import describe_error
from payscope.widgets.format import (
    brand_label,
    format_amount,
    format_time,
    status_text,
    theme_colour,
)
from payscope.widgets.text import safe, visible

if TYPE_CHECKING:
    from payscope.views.live import Change


# -- the detail ----------------------------------------------------------------------------------


def until_text(moment: Any, now: float) -> str:
    """ "in 5 d 5 h" or "2 d ago": how far an ISO time lies from the service's `now`."""
    try:
        when = datetime.fromisoformat(str(moment).replace("Z", "+00:00"))
    except ValueError:
        return ""
    when = when if when.tzinfo else when.replace(tzinfo=UTC)
    seconds = when.timestamp() - now
    span = span_text(timedelta(seconds=abs(seconds)))
    return f"in {span}" if seconds >= 0 else f"{span} ago"


def _when(value: Any) -> Text:
    return safe(format_time(value) if value else None, empty="-")


class SubscriptionDetailScreen(DetailScreen["Subscription"]):
    """One subscription: its plan and period, what it charged last and why that failed, its
    invoices, its customer."""

    noun = "Subscription"
    scope = "subscription"
    actions = (*ROW_ACTIONS, CLOCK)
    raw_exclude = frozenset({"client_secret"})
    enter_action = "payment"
    sections: ClassVar[tuple[tuple[str, str], ...]] = (
        ("summary", "Subscription"),
        ("decline", "Why the last charge failed"),
        ("mandate", "Mandate (its renewals are charged on it)"),
        ("payment", "Latest payment (g or Enter opens it)"),
        ("invoice", "Latest invoice"),
        ("renewals", "Renewal history"),
        ("customer", "Customer (c opens it)"),
    )

    def __init__(self, subscription_id: str) -> None:
        super().__init__(subscription_id)
        self.catalogue = Catalogue()
        self.payment: Related[Any] = Related()
        self.customer: Related[Any] = Related()
        self.mandate: Related[Any] = Related()
        self.renewals: list[Renewal] = []
        self.renewals_problem = ""
        self._read_at = 0.0

    def on_mount(self) -> None:
        # Textual calls DetailScreen.on_mount (the first read) after this one by itself.
        self.show_section("decline", False)
        self.show_section("mandate", False)

    def on_screen_resume(self) -> None:
        # Back on it (from a payment, the clock, :sandbox): if the service's clock moved since the
        # last read, a scheduled change may have taken effect, which no webhook reports.
        if self.record is not None and abs(self.runtime.now() - self._read_at) > CLOCK_MOVED:
            self.load(now=True)

    async def fetch(self) -> Subscription:
        api = self.runtime.api
        self._read_at = self.runtime.now()
        sub = await api.subscriptions.retrieve(self.record_id)
        self.catalogue = await catalogue(api)
        payment_id = _payment_id(sub)

        async def nothing() -> Any:
            return None

        payment, customer, mandate, _ = await asyncio.gather(
            read_related(api.payments.retrieve(payment_id) if payment_id else nothing()),
            read_related(api.customers.retrieve(sub.customer_id) if sub.customer_id else nothing()),
            read_related(api.mandates.retrieve(sub.mandate_id) if sub.mandate_id else nothing()),
            self._read_renewals(sub),
        )
        self.payment, self.customer, self.mandate = payment, customer, mandate
        return sub

    async def _read_renewals(self, sub: Subscription) -> None:
        self.renewals_problem = ""
        if not self.runtime.options.is_local:
            self.renewals = renewals(self.runtime, sub.id, HISTORY_SHOWN)
            return

        try:
            found = await self.runtime.api.sandbox.subscription_invoices(
                sub.id, InvoiceListRequest(limit=HISTORY_SHOWN)
            )
        except ClientError as exc:
            self.renewals, self.renewals_problem = [], ": ".join(describe_error(exc))
            return
        self.renewals = [
            Renewal(
                invoice_id=i.id,
                status=i.status,
                amount=i.amount,
                currency=i.currency,
                when=i.created,
                payment_id=i.paid_by or (i.payment.payment_id if i.payment else None),
                payment_status=i.payment.status if i.payment else None,
                code=(i.payment.unified_code or i.payment.error_code)
                if i.payment
                else i.error_code,
            )
            for i in found.data
        ]

    def watched_ids(self, sub: Subscription) -> set[str]:
        ids = {sub.id}
        if payment_id := _payment_id(sub):
            ids.add(payment_id)
        if sub.invoice is not None:
            ids.add(sub.invoice.id)
        if sub.mandate_id:
            ids.add(sub.mandate_id)  # revoked elsewhere: its status here follows
        return ids

    def on_change(self, change: Change) -> None:
        super().on_change(with_subscription(change))

    def raw(self, record: Any) -> RenderableType:
        return json_view(record.model_dump_json(exclude_none=True, exclude=set(self.raw_exclude)))

    def title_text(self, sub: Subscription) -> Text:
        variables = self.app.theme_variables
        title = Text.assemble(
            ("Subscription ", "bold"),
            safe(sub.id, "bold"),
            "  ",
            status_text(sub.status, variables),
        )
        price = self.catalogue.price(sub.item_price_id)
        if price is not None:
            title.append("  ")
            title.append(price_cell(sub, self.catalogue, variables))
        return title

    # -- sections -------------------------------------------------------------------------------

    def render_record(self, sub: Subscription) -> None:
        self.section("summary").update(self._summary(sub))
        decline = self._decline(sub)
        self.show_section("decline", decline is not None)
        if decline is not None:
            self.section("decline").update(decline)
        mandate = self._mandate(sub)
        self.show_section("mandate", mandate is not None)
        if mandate is not None:
            self.section("mandate").update(mandate)
        self.section("payment").update(self._payment(sub))
        self.section("invoice").update(self._invoice(sub))
        self.section("renewals").update(self._renewals(sub))
        self.section("customer").update(self._customer(sub))

    def _status_note(self, sub: Subscription) -> str:
        local = self.runtime.options.is_local
        notes = {
            "unpaid": "billing stopped: the last charge failed. u resumes (charging again).",
            "paused": "no charges while paused. u resumes.",
            "pending": "waits to be resumed (its plan changed while paused). u resumes.",
            "failed": "the first charge failed: nothing more happens. n starts a new one.",
            "cancelled": "ended: no further charges.",
            "trial": "free until the trial ends, then charged"
            + (" (t moves the clock there)" if local else ""),
        }
        return notes.get(str(sub.status), "")

    def _summary(self, sub: Subscription) -> RenderableType:
        variables = self.app.theme_variables
        now = self.runtime.now()
        rows = grid()
        status = status_text(sub.status, variables)
        note = self._status_note(sub)
        rows.add_row("Status", Text.assemble(status, ("  " + note, "dim") if note else ""))
        price = self.catalogue.price(sub.item_price_id)
        plan = Text.assemble(
            safe(price.plan_name if price else sub.plan_id, "bold"),
            ("  ", ""),
            safe(sub.plan_id, "dim"),
        )
        rows.add_row("Plan", plan)
        if price is not None:
            trial = f" · {price.trial_days}-day trial" if price.trial_days else ""
            rows.add_row(
                "Price",
                Text.assemble(
                    (price.charge, theme_colour(variables, "amount")),
                    trial,
                    ("  ", ""),
                    safe(sub.item_price_id, "dim"),
                ),
            )
        else:
            problem = f"  ({self.catalogue.problem})" if self.catalogue.problem else ""
            rows.add_row("Price", Text.assemble(safe(sub.item_price_id), (problem, "dim")))
        rows.add_row(*self._period(sub))
        if sub.next_billing_at:
            rows.add_row(
                "Next charge",
                Text.assemble(
                    format_time(sub.next_billing_at),
                    (f"  {until_text(sub.next_billing_at, now)}", "dim"),
                ),
            )
        else:
            rows.add_row("Next charge", Text("none scheduled", style="dim"))
        if sub.trial_end:
            rows.add_row("Trial ends", _when(sub.trial_end))
        change = sub.scheduled_change or {}
        if change.get("action"):
            rows.add_row(
                "Scheduled",
                Text.assemble(
                    (
                        f"{visible(change['action'])} at {format_time(change.get('at'))}",
                        theme_colour(variables, "warning"),
                    ),
                    (f"  {until_text(change.get('at'), now)}", "dim"),
                ),
            )
        rows.add_row("Pays with", self._method(sub))
        if sub.merchant_reference_id:
            rows.add_row("Reference", safe(sub.merchant_reference_id))
        if sub.coupon_code:
            rows.add_row("Coupon", safe(sub.coupon_code))
        rows.add_row("Created", _when(sub.created_at))
        if sub.paused_at:
            rows.add_row("Paused", _when(sub.paused_at))
        if sub.cancelled_at:
            rows.add_row("Cancelled", _when(sub.cancelled_at))
        return rows

    def _period(self, sub: Subscription) -> tuple[str, Text]:
        """(label, text): from the last paid invoice to the next charge; with no next charge,
        the last term that was paid."""
        paid = next((r for r in self.renewals if r.status == "invoice_paid"), None)
        start = paid.when if paid else None
        if sub.next_billing_at:
            if start:
                return "Current period", Text(
                    f"{format_time(start)} → {format_time(sub.next_billing_at)}"
                )
            return "Current period", Text(f"until {format_time(sub.next_billing_at)}")
        if start:
            return "Last paid term", Text(f"from {format_time(start)}")
        return "Current period", Text("none", style="dim")

    def _method(self, sub: Subscription) -> Text:
        payment = self.payment.record
        card = None
        if payment is not None and payment.payment_method_data is not None:
            card = payment.payment_method_data.card
        pm = sub.payment_method_id
        if card is not None:
            shown = f"{brand_label(card.network)} •••• {card.last4 or '????'}"
            shown += f"  exp {card.expiry_month or '??'}/{card.expiry_year or '??'}"
            return Text.assemble(safe(shown), ("  " if pm else "", ""), safe(pm or "", "dim"))
        if pm:
            return Text.assemble(safe(pm), ("  a saved card; its number shows once charged", "dim"))
        return Text("-", style="dim")

    def _decline(self, sub: Subscription) -> RenderableType | None:
        """The latest charge's failure, explained (None when it did not fail)."""
        brief = sub.payment
        payment = self.payment.record
        code = None
        message = acquirer = None
        if payment is not None:
            code = payment.unified_code or payment.error_code
            message = payment.unified_message
            acquirer = ": ".join(str(v) for v in (payment.error_code, payment.error_message) if v)
        elif brief is not None:
            code = brief.unified_code or brief.error_code
            message = brief.unified_message or brief.error_message
        invoice = sub.invoice
        if brief is None and invoice is not None and invoice.error_code:
            # No payment was made: the mandate could not be charged (revoked, say).
            what = "The charge was refused before any payment was made, so billing stopped."
            return Group(Text(what), explained_code(invoice.error_code, invoice.error_message))
        if not code or (brief is not None and brief.status not in ("failed", None)):
            return None
        what = {
            "unpaid": "A renewal (or a plan change) was declined, so billing stopped.",
            "failed": "The first charge was declined, so the subscription never started.",
        }.get(str(sub.status), "The latest charge was declined.")
        return Group(Text(what), explained_code(code, message, acquirer or None))

    def _mandate(self, sub: Subscription) -> RenderableType | None:
        """The off-session mandate the first charge set up: its status and what it charges
        (None, the section hidden, when it has none: seeded history, the real service)."""
        if not sub.mandate_id:
            if self.runtime.options.is_local and sub.status in ("created", "trial"):
                return empty("None yet: the first charge sets it up.")
            return None
        variables = self.app.theme_variables
        rows = grid()
        mandate = self.mandate.record
        rows.add_row("Mandate", safe(sub.mandate_id, "bold"))
        if mandate is None:
            if self.mandate.problem:
                rows.add_row("", safe(self.mandate.problem, "dim", multiline=True))
            return rows
        note = ""
        if mandate.status != "active":
            note = "  the next charge will fail: the customer must accept a new one"
        rows.add_row("Status", Text.assemble(status_text(mandate.status, variables), (note, "dim")))
        method = " ".join(
            str(v) for v in (mandate.payment_method, mandate.payment_method_type) if v
        )
        rows.add_row("Charges", safe(method or None, empty="-"))
        if mandate.payment_method_id:
            rows.add_row("Saved method", safe(mandate.payment_method_id))
        acceptance = (mandate.customer_acceptance or {}).get("acceptance_type")
        rows.add_row("Accepted", safe(acceptance, empty="-"))
        return rows

    def _payment(self, sub: Subscription) -> RenderableType:
        brief = sub.payment
        if brief is None:
            invoice = sub.invoice
            if invoice is not None and invoice.error_code:
                return empty("No payment: the last charge was refused (see why above).")
            return empty(
                "No payment recorded on it yet (seeded history keeps its invoice only; "
                "the next charge will show here)."
            )
        variables = self.app.theme_variables
        rows = grid()
        rows.add_row(
            "Payment",
            Text.assemble(safe(brief.payment_id, "bold"), ("   Enter or g opens it", "dim")),
        )
        payment = self.payment.record
        status = payment.status if payment is not None else brief.status
        rows.add_row("Status", status_text(status, variables))
        rows.add_row("Amount", format_amount(brief.amount, brief.currency))
        if payment is not None:
            rows.add_row("Received", format_amount(payment.amount_received, payment.currency))
            rows.add_row("Created", _when(payment.created))
        elif self.payment.problem:
            rows.add_row("", safe(self.payment.problem, "dim", multiline=True))
        return rows

    def _invoice(self, sub: Subscription) -> RenderableType:
        invoice = sub.invoice
        if invoice is None:
            note = "none yet: a trial is invoiced when it ends" if sub.status == "trial" else "none"
            return empty(f"No invoice ({note}).")
        variables = self.app.theme_variables
        rows = grid()
        rows.add_row("Invoice", safe(invoice.id, "bold"))
        rows.add_row("Status", status_text(invoice.status, variables))
        rows.add_row("Amount", format_amount(invoice.amount, invoice.currency))
        if invoice.created:
            rows.add_row("Date", _when(invoice.created))
        if invoice.paid_by:
            rows.add_row("Payment", safe(invoice.paid_by))
        if invoice.mandate_id:
            rows.add_row("Mandate", safe(invoice.mandate_id))
        return rows

    def _renewals(self, sub: Subscription) -> RenderableType:
        local = self.runtime.options.is_local
        notes: list[Text] = []
        if self.renewals_problem:
            notes.append(empty(f"The invoices could not be read: {self.renewals_problem}"))
        if not local:
            notes.append(
                empty(
                    "The service has no list of invoices: these come from the invoice_paid "
                    "webhooks this listener received (failed renewals send none)."
                )
            )
        if not self.renewals:
            hint = "  t moves the sandbox clock to the next renewal." if local else ""
            return Group(empty(f"No invoice yet.{hint}"), *notes)
        variables = self.app.theme_variables
        # The payment's id needs a wide screen (the latest payment's section has it).
        wide = self.size.width >= 100

        rows = Table(box=None, padding=(0, 2), header_style="bold")
        rows.add_column("Date (UTC)", no_wrap=True)
        rows.add_column("Invoice", no_wrap=True)
        rows.add_column("Amount", no_wrap=True, justify="right")
        rows.add_column("Charge", no_wrap=True)
        if wide:
            rows.add_column("Payment", no_wrap=True)
        for r in self.renewals:
            charge = status_text(r.payment_status, variables) if r.payment_status else Text("")
            if r.code:
                charge = Text.assemble(charge, " ", safe(r.code))
            elif not r.payment_status:
                charge = Text("-", style="dim")
            cells: list[RenderableType] = [
                format_time(r.when, seconds=False) if r.when else Text("-", style="dim"),
                status_text(r.status, variables),
                format_amount(r.amount, r.currency),
                charge,
            ]
            if wide:
                cells.append(safe(r.payment_id, empty=""))
            rows.add_row(*cells)
        if not notes and len(self.renewals) >= HISTORY_SHOWN:
            notes.append(empty(f"The newest {HISTORY_SHOWN} invoices."))
        return Group(rows, *notes)

    def _customer(self, sub: Subscription) -> RenderableType:
        rows = grid()
        rows.add_row(
            "Customer",
            Text.assemble(safe(sub.customer_id, "bold"), ("   c opens it", "dim")),
        )
        customer = self.customer.record
        if customer is not None:
            rows.add_row("Name", safe(customer.name))
            rows.add_row("Email", safe(customer.email))
        elif self.customer.problem:
            rows.add_row("", safe(self.customer.problem, "dim", multiline=True))
        return rows
