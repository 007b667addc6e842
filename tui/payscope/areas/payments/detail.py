"""One payment: summary, amounts, card, decline explained, attempts, refunds, disputes, events.

Its actions are the ones Payments declares (`ROW_ACTIONS`); webhooks about the payment, its
refunds or its disputes reload it (one read per burst), so a pending refund turns `succeeded`
here by itself.
"""

from __future__ import annotations

from datetime import UTC, datetime
from typing import TYPE_CHECKING, Any, ClassVar

from rich.console import Group, RenderableType
from rich.text import Text
from textual import work

from payscope.api.codes import explain
from payscope.api.errors import ClientError
from payscope.areas.payments.actions import ROW_ACTIONS, page_url
from payscope.views.columns import Column
from payscope.views.detail import (
    DetailScreen,
    empty,
    explained_code,
    flat_rows,
    grid,
    read_related,
    table,
)
from payscope.views.payment import charged_back, refundable
from payscope.views.related import RelatedRow
from payscope.views.timeline import TIMELINE_COLUMNS, Subject, gather, story_note, story_rows
from payscope.widgets.errors import describe_error
from payscope.widgets.format import (
    brand_label,
    format_amount,
    format_time,
    status_text,
    theme_colour,
)
from payscope.widgets.text import safe

if TYPE_CHECKING:
    from payscope.api.models.payments import Payment

OPEN_HINT = "Tab reaches the rows; Esc comes back."


def _status(row: RelatedRow, variables: Any) -> Text:
    data = row.record if isinstance(row.record, dict) else {}
    return status_text(data.get("status"), variables)


def _field(name: str, empty: str = "") -> Any:
    return lambda row, _c: safe(row.record.get(name), empty=empty)


# A payment's related records: what each row shows (Enter opens it; Tab reaches the rows).
REFUND_COLUMNS: tuple[Column[RelatedRow], ...] = (
    Column("id", "Refund", 24, lambda r, c: safe(r.record_id), flex=(12, 26)),
    Column("status", "Status", 10, lambda r, c: _status(r, c.variables)),
    Column("amount", "Amount", 12, _field("amount")),
    Column("reason", "Reason", 12, _field("reason"), 60, flex=(6, 60)),
    Column("created", "Created", 19, _field("created"), 76),
)
DISPUTE_COLUMNS: tuple[Column[RelatedRow], ...] = (
    Column("id", "Dispute", 24, lambda r, c: safe(r.record_id), flex=(12, 26)),
    Column("status", "Status", 16, lambda r, c: _status(r, c.variables)),
    Column("amount", "Amount", 12, _field("amount")),
    Column("stage", "Stage", 12, _field("stage"), 60),
)


class PaymentDetailScreen(DetailScreen["Payment"]):
    """The detail of one payment; Esc goes back to the table."""

    # The story is read whole (the detail scrolls), not in a window of 12 lines.
    DEFAULT_CSS = """
    PaymentDetailScreen #related-story { max-height: 200; }
    """

    noun = "Payment"
    scope = "payment"
    actions = ROW_ACTIONS
    raw_exclude = frozenset({"client_secret"})
    sections: ClassVar[tuple[tuple[str, str], ...]] = (
        ("summary", "Summary"),
        ("decline", "Decline"),
        ("amounts", "Amounts"),
        ("card", "Card and customer"),
        ("next", "Next action"),
        ("mandate", "Mandate"),
        ("attempts", "Attempts"),
        ("refunds", "Refunds"),
        ("disputes", "Disputes"),
        ("story", "Story"),
    )
    related: ClassVar[dict[str, tuple[Column[RelatedRow], ...]]] = {
        "refunds": REFUND_COLUMNS,
        "disputes": DISPUTE_COLUMNS,
        "story": TIMELINE_COLUMNS,
    }

    def __init__(self, payment_id: str) -> None:
        super().__init__(payment_id)
        self.payment_id = payment_id
        self._customer_emails: dict[str, str | None] = {}  # customer id -> their e-mail

    @property
    def payment(self) -> Payment | None:
        """The payment as last read (None until the first read)."""
        return self.record

    def on_mount(self) -> None:
        self.show_section("decline", False)
        # The base's on_mount runs after this one by itself (Textual calls each class's).

    async def fetch(self) -> Payment:
        payment: Payment = await self.runtime.api.payments.retrieve(self.payment_id)
        customer = payment.customer_id
        if not payment.buyer_email and customer and customer not in self._customer_emails:
            # No e-mail of its own: its customer's is shown, marked as such (read once).
            found = await read_related(self.runtime.api.customers.retrieve(customer))
            if found.record is not None:
                self._customer_emails[customer] = found.record.email
        return payment

    def _email(self, p: Payment) -> Text:
        if p.buyer_email or not p.customer_id:
            return safe(p.buyer_email)
        email = self._customer_emails.get(p.customer_id)
        if not email:
            return safe(None)
        return Text.assemble(safe(email), ("  the customer's", "dim"))

    def watched_ids(self, p: Payment) -> set[str]:
        refunds = {r.refund_id for r in p.refunds or []}
        disputes = {d.dispute_id for d in p.disputes or []}
        return {p.payment_id, *refunds, *disputes}

    def title_text(self, p: Payment) -> Text:
        variables = self.app.theme_variables
        return Text.assemble(
            ("Payment ", "bold"),
            safe(p.payment_id, "bold"),
            "  ",
            status_text(p.status, variables),
            ("  " + format_amount(p.amount, p.currency), theme_colour(variables, "amount")),
        )

    def render_record(self, p: Payment) -> None:
        variables = self.app.theme_variables
        summary = grid()
        summary.add_row("Status", status_text(p.status, variables))
        summary.add_row("Capture", safe(p.capture_method))
        summary.add_row("Authentication", safe(p.authentication_type))
        summary.add_row("Description", safe(p.description, multiline=True))
        summary.add_row("Created", format_time(p.created))
        summary.add_row("Modified", format_time(p.modified_at))
        summary.add_row("Captured", format_time(p.captured_at))
        if p.next_action is not None:
            hint = " (press 3 on a local sandbox)" if self.runtime.options.is_local else ""
            summary.add_row("Next action", Text.assemble(safe(p.next_action.type), hint))
        self.section("summary").update(summary)

        amounts = grid()
        amounts.add_row("Amount", format_amount(p.amount, p.currency))
        amounts.add_row("Received", format_amount(p.amount_received, p.currency))
        amounts.add_row("Capturable", format_amount(p.amount_capturable, p.currency))
        refunded = sum(r.amount for r in (p.refunds or []) if r.status == "succeeded")
        amounts.add_row("Refunded", format_amount(refunded, p.currency))
        # What lost disputes took back is the cardholder's already: not refundable again.
        if lost := charged_back(p):
            amounts.add_row("Charged back", format_amount(lost, p.currency))
            amounts.add_row("Refundable", format_amount(refundable(p), p.currency))
        self.section("amounts").update(amounts)

        card_grid = grid()
        card = p.payment_method_data.card if p.payment_method_data else None
        other = p.payment_method not in (None, "card") and card is None
        self.section("card").border_title = "Method and customer" if other else "Card and customer"
        if other:
            card_grid.add_row(
                "Method", safe(f"{p.payment_method} · {p.payment_method_type or '?'}")
            )
            for label, value in method_rows(p):
                card_grid.add_row(safe(label.capitalize()), safe(value))
        elif card is not None:
            card_grid.add_row(
                "Card",
                safe(
                    f"{brand_label(card.network)} •••• {card.last4 or '????'}"
                    f"  exp {card.expiry_month or '??'}/{card.expiry_year or '??'}"
                ),
            )
            # What the real service tells about the card beyond the spec's four fields.
            about = [card.card_type, card.card_issuer, card.card_issuing_country]
            if any(about):
                card_grid.add_row("Issued", safe(" · ".join(str(a) for a in about if a)))
        else:
            card_grid.add_row("Card", safe(p.payment_method, empty="none yet"))
        card_grid.add_row("Customer", safe(p.customer_id))
        # A hosted link page's buyer gives their e-mail and name in `billing`.
        card_grid.add_row("Email", self._email(p))
        if p.buyer_name:
            card_grid.add_row("Name", safe(p.buyer_name))
        self.section("card").update(card_grid)

        self.show_section("next", p.next_action is not None)
        if p.next_action is not None:
            self.section("next").update(self._next_action(p))
        has_mandate = bool(p.mandate_id or p.setup_future_usage or p.mandate_data)
        self.show_section("mandate", has_mandate)
        if has_mandate:
            self.section("mandate").update(self._mandate(p))

        declined = bool(p.unified_code or p.error_code)
        self.show_section("decline", declined)
        if declined:
            self.section("decline").update(self._decline(p))
        self.section("attempts").update(self._attempts(p))
        self._refunds(p)
        self._disputes(p)
        self._story(p)

    def _next_action(self, p: Payment) -> RenderableType:
        """What the customer must do: the page to open, the account to pay into, the voucher."""
        action = p.next_action
        assert action is not None
        rows = grid()
        rows.add_row("Type", safe(action.type))
        data = action.model_dump(exclude={"type"}, exclude_none=True)
        for label, value in flat_rows(data):
            if label.endswith("image data url"):
                continue  # an image, not text
            if label.endswith("timestamp") and value.isdigit():
                value = format_time(datetime.fromtimestamp(int(value) / 1000, UTC).isoformat())
            rows.add_row(safe(label.capitalize()), safe(value))
        keys = []
        if p.status in ("requires_action", "requires_customer_action"):  # the customer's turn
            if page_url(p):
                keys.append("o opens the customer's page")
            if self.runtime.options.is_local:
                keys.append("3 answers it as the customer (authorise, fail, abandon)")
        if not keys:
            return rows
        text = "; ".join(keys)
        return Group(rows, empty(text[:1].upper() + text[1:] + "."))

    def _mandate(self, p: Payment) -> RenderableType:
        """The mandate this payment set up or charged, and whether its method was kept."""
        rows = grid()
        rows.add_row("Mandate", safe(p.mandate_id, empty="none"))
        rows.add_row("Future usage", safe(p.setup_future_usage))
        if p.off_session is not None:
            rows.add_row("Off session", "yes" if p.off_session else "no")
        for label, value in flat_rows(p.mandate_data or {}):
            rows.add_row(safe(label.capitalize()), safe(value))
        if p.mandate_id and p.customer_id:
            return Group(rows, empty(f":cus {p.customer_id} lists its mandates."))
        return rows

    def _decline(self, p: Payment) -> RenderableType:
        details = explained_code(
            p.unified_code or p.error_code or "", p.unified_message, p.error_message
        )
        # The unified family the service files it under (UE_1000...UE_9000), and what the real
        # service adds: its standardised reason, the guidance for the customer, what to do.
        unified = p.error_details.unified_details if p.error_details else None
        if unified is not None and unified.category:
            title = explain(unified.category).title if unified.category.startswith("UE_") else ""
            details.add_row(
                "Category", Text.assemble(safe(unified.category), (f"  {title}", "dim"))
            )
        for label, value in (
            ("Standard reason", unified.standardised_code if unified else None),
            ("Guidance", unified.user_guidance_message if unified else None),
            ("Recommended", unified.recommended_action if unified else None),
        ):
            if value:
                details.add_row(label, safe(value.replace("_", " "), multiline=True))
        return details

    def _attempts(self, p: Payment) -> RenderableType:
        if not p.attempts:
            return empty("No confirmation attempt yet.")
        rows = table("Attempt", "Status", "Amount", "Code", "When")
        for a in p.attempts:
            rows.add_row(
                safe(a.attempt_id),
                status_text(a.status, self.app.theme_variables),
                format_amount(a.amount, p.currency),
                safe(a.unified_code or a.error_code, empty=""),
                format_time(a.created_at),
            )
        return rows

    def _refunds(self, p: Payment) -> None:
        rows = [
            RelatedRow(
                "refunds",
                r.refund_id,
                {
                    "status": r.status,
                    "amount": format_amount(r.amount, r.currency),
                    "reason": r.reason,
                    "created": format_time(r.created_time),
                },
            )
            for r in p.refunds or []
        ]
        note = empty("No refunds." if not rows else f"Enter opens a refund. {OPEN_HINT}")
        self.related_section("refunds").show(rows, note)

    def _disputes(self, p: Payment) -> None:
        rows = []
        for d in p.disputes or []:
            data = d.model_dump()
            record = {
                "status": data.get("dispute_status") or data.get("status"),
                "amount": format_amount(d.amount, d.currency),
                "stage": data.get("dispute_stage"),
            }
            rows.append(RelatedRow("disputes", d.dispute_id, record))
        note = empty("No disputes." if not rows else f"Enter opens a dispute. {OPEN_HINT}")
        self.related_section("disputes").show(rows, note)

    @work(exclusive=True, group="story", exit_on_error=False, description="Story")
    async def _story(self, p: Payment) -> None:
        """The payment's story, read again with each reload: its requests, statuses, webhooks
        and their deliveries, its refunds' and disputes' included (`payscope.views.timeline`)."""
        section = self.related_section("story")
        if not section.table.records:
            section.show([], empty("Reading the story…"))
        subjects = [
            Subject("payment", p.payment_id, "payments"),
            *(Subject("refund", r.refund_id, "refunds") for r in p.refunds or []),
            *(Subject("dispute", d.dispute_id, "disputes") for d in p.disputes or []),
        ]
        try:
            story = await gather(self.runtime, subjects)
        except ClientError as exc:
            title, message = describe_error(exc)
            section.show([], empty(f"The story could not be read. {title}: {message}"))
            return
        section.show(story_rows(story), story_note(story))


def method_rows(p: Payment) -> list[tuple[str, str]]:
    """A non-card method's details as the payment carries them (`{family: {...}}`, masked by
    the service): the wallet's card, the bank, the account's last digits..."""
    data = p.payment_method_data.model_dump(exclude_none=True) if p.payment_method_data else {}
    data.pop("billing", None)
    data.pop("card", None)
    inner = data.get(p.payment_method or "", data)
    return flat_rows(inner)[:10]
