"""What the areas whose records belong to a payment share: `g` to open it, and its summary.

Refunds, disputes and payment links each name a payment; their lists and details offer the same
`g` action and their details the same summary of that payment (Enter opens it).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from rich.text import Text

from payscope.api.vocabulary import PAYMENT_STATUSES
from payscope.views.actions import Action, status_of, statuses
from payscope.widgets.format import format_amount, format_time, status_text
from payscope.widgets.text import safe

if TYPE_CHECKING:
    from rich.console import RenderableType

    from payscope.api.models.payments import Payment
    from payscope.views.actions import ActionHost
    from payscope.views.detail import Related


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
    from payscope.views.detail import grid

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
    if lost := charged_back(payment):
        rows.add_row("Charged back", format_amount(lost, payment.currency))
    rows.add_row("Captured", format_time(payment.captured_at))
    rows.add_row("Customer", safe(payment.customer_id))
    return rows


# The payment states that allow a refund: the payment's Refund action and the refund forms.
REFUNDABLE = statuses("succeeded", "partially_captured", "partially_captured_and_capturable")


def refund_allowed(payment: Any) -> bool:
    """Whether a payment in its status may be refunded (a status newer than payscope: yes)."""
    status = status_of(payment)
    return status is None or status not in PAYMENT_STATUSES or status in REFUNDABLE


# A dispute's statuses (as the service names them, and as the spec's list items do) in which the
# card network took the disputed amount back from the merchant: a chargeback.
LOST_DISPUTE = frozenset({"dispute_lost", "lost"})


def dispute_lost(dispute: Any) -> bool:
    """Whether the network decided a dispute against the merchant (its amount charged back)."""
    status = getattr(dispute, "dispute_status", None) or getattr(dispute, "status", None)
    return status in LOST_DISPUTE


def charged_back(payment: Any) -> int:
    """What lost disputes took back of a payment (0 when its disputes are not known)."""
    disputes = getattr(payment, "disputes", None) or []
    return sum(int(d.amount or 0) for d in disputes if dispute_lost(d))


def refundable(payment: Any) -> int:
    """What is left to refund of a payment: received, less the refunds that did not fail and
    what lost disputes charged back (the service refuses a refund of more)."""
    refunds = getattr(payment, "refunds", None) or []
    held = sum(int(r.amount) for r in refunds if r.status != "failed")
    received = int(getattr(payment, "amount_received", None) or 0)
    return max(received - held - charged_back(payment), 0)


def disputable(payment: Any) -> int:
    """What a new dispute may be for: received, less what lost disputes charged back."""
    received = getattr(payment, "amount_received", None)
    if received is None:
        received = getattr(payment, "amount", None) or 0
    return max(int(received) - charged_back(payment), 0)
