"""What the areas whose records belong to a payment share: `g` to open it, and its summary.

Refunds, disputes and payment links each name a payment; their lists and details offer the same
`g` action and their details the same summary of that payment (Enter opens it).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from rich.text import Text

from tui.api.vocabulary import PAYMENT_STATUSES
from tui.views.actions import Action, status_of, statuses
from tui.widgets.format import format_amount, format_time, status_text
from tui.widgets.text import safe

if TYPE_CHECKING:
    from rich.console import RenderableType

    from tui.api.models.payments import Payment
    from tui.views.actions import ActionHost
    from tui.views.detail import Related


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
        writes=False,
    )


def payment_summary(
    payment_id: str | None, related: Related[Payment], variables: Mapping[str, str]
) -> RenderableType:
    """The payment a refund or a dispute belongs to, as its detail shows it (Enter opens it)."""
    # Imported here: the Payments list (the first frame) takes REFUNDABLE from this module and
    # needs none of the detail's pieces before a detail opens.
    from tui.views.detail import grid

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


# The payment states that allow a refund: the payment's Refund action and the refund forms.
REFUNDABLE = statuses("succeeded", "partially_captured", "partially_captured_and_capturable")


def refund_allowed(payment: Any) -> bool:
    """Whether a payment in its status may be refunded (a status newer than payscope: yes)."""
    status = status_of(payment)
    return status is None or status not in PAYMENT_STATUSES or status in REFUNDABLE
