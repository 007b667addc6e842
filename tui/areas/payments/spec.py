"""The Payments area's spec: its columns, filter grammar, statuses and the actions its list and
detail share (declared once; each opens its form from `forms` when run)."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from tui.api.vocabulary import PAYMENT_STATUSES
from tui.views.actions import Action, statuses, with_known
from tui.views.columns import Column
from tui.views.payment import REFUNDABLE
from tui.widgets.format import amount_text, format_time, status_text
from tui.widgets.text import safe

if TYPE_CHECKING:
    from tui.api.models.payments import Payment
    from tui.payments_cache import CachedPayment
    from tui.views.actions import ActionHost
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
        word_or,
    )

    status = status_term(PAYMENT_STATUSES, "payment", None if real else "status")
    currency = currency_term(None if real else "currency")
    return Grammar(
        [
            status,
            currency,
            amount_term(None if real else "amount_filter"),
            server_term(("customer", "cus"), "customer_id", "customer:cus_…"),
            *time_terms(),
            server_term(("id", "payment"), "payment_id", "id:pay_…"),
        ],
        # `failed` as the Status column reads, `usd` as the amounts do.
        bare=word_or(
            id_word({"pay_": "payment_id", "cus_": "customer_id"}, 20, own="pay_"),
            statuses=PAYMENT_STATUSES,
            status=status,
            currency=currency,
        ),
        bare_example="failed · usd · pay_… or part of an id",
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
        from tui.areas.payments import forms as payment_forms

        return getattr(payment_forms, name)(payment)

    return make


def _review(action: str) -> Callable[[ActionHost, str | None, Any], None]:
    def run(host: ActionHost, payment_id: str | None, payment: Any) -> None:
        from tui.areas.payments.forms import review_form

        host.app.push_screen(
            review_form(host.app.runtime.client, str(payment_id), action), host.acted
        )

    return run


def _three_ds(host: ActionHost, payment_id: str | None, payment: Any) -> None:
    from tui.areas.payments.forms import ThreeDSForm

    host.app.push_screen(ThreeDSForm(str(payment_id)), host.acted)


def _dispute_form(payment: Any) -> Any:
    from tui.areas.payments.forms import OpenDisputeForm

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
            REFUNDABLE,
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
