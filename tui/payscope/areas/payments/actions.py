"""The Payments area's actions, declared once for its list and its detail.

Each opens its form from `forms`, imported when the action first runs: the Payments list is the
first frame, and its forms (card fields, pickers) are not needed for it.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from payscope.api.vocabulary import PAYMENT_STATUSES
from payscope.views.actions import Action, statuses, with_known
from payscope.views.payment import REFUNDABLE, disputable, refundable

if TYPE_CHECKING:
    from textual.screen import Screen

    from payscope.api.models.payments import Payment
    from payscope.areas.payments.cache import CachedPayment
    from payscope.areas.payments.forms import (
        CancelForm,
        CaptureForm,
        ConfirmForm,
        OpenDisputeForm,
        RefundForm,
        ThreeDSForm,
        UpdateForm,
    )
    from payscope.views.actions import ActionHost

    # A row: a live payment, or the start-up cache's copy of what the table showed.
    Row = Payment | CachedPayment


# -- actions (the list and the detail share them) ------------------------------------------------


def _with_payment(
    make: Callable[[Payment], Screen[Any]], *, needs_refunds: bool = False
) -> Callable[[ActionHost, str | None, Any], None]:
    """Run an action whose form needs the whole payment (fetched when only the id is known)."""

    def run(host: ActionHost, payment_id: str | None, payment: Any) -> None:
        app = host.app

        async def go() -> None:
            current = payment
            if current is None or (needs_refunds and current.refunds is None):
                current = await app.runtime.api.payments.retrieve(str(payment_id))
            await app.push_screen(make(current), host.acted)

        host.run_worker(go(), group="payment-action", exit_on_error=False, description="Payment")

    return run


# The forms, each named (its module is imported when its action first runs: see the docstring).


def _confirm_form(payment: Payment) -> ConfirmForm:
    from payscope.areas.payments.forms import ConfirmForm

    return ConfirmForm(payment)


def _capture_form(payment: Payment) -> CaptureForm:
    from payscope.areas.payments.forms import CaptureForm

    return CaptureForm(payment)


def _cancel_form(payment: Payment) -> CancelForm:
    from payscope.areas.payments.forms import CancelForm

    return CancelForm(payment)


def _refund_form(payment: Payment) -> RefundForm:
    from payscope.areas.payments.forms import RefundForm

    return RefundForm(payment)


def _update_form(payment: Payment) -> UpdateForm:
    from payscope.areas.payments.forms import UpdateForm

    return UpdateForm(payment)


def _review(action: str) -> Callable[[ActionHost, str | None, Any], None]:
    def run(host: ActionHost, payment_id: str | None, payment: Any) -> None:
        from payscope.areas.payments.forms import review_form

        host.app.push_screen(
            review_form(host.app.runtime.client, str(payment_id), action), host.acted
        )

    return run


def _three_ds(payment: Payment) -> ThreeDSForm:
    from payscope.areas.payments.forms import ThreeDSForm

    return ThreeDSForm(payment.payment_id, payment.payment_method)


def page_url(payment: Any) -> str | None:
    """Where the customer's step is: the redirect, QR code or voucher page of its next action."""
    action = getattr(payment, "next_action", None)
    if action is None:
        return None
    data = action.model_dump()
    voucher = data.get("voucher_details")
    found = [data.get("redirect_to_url"), data.get("qr_code_url"), data.get("popup_url")]
    if isinstance(voucher, dict):  # the real service's shape varies by voucher
        found.append(voucher.get("download_url"))
    return next((url for url in found if isinstance(url, str) and url), None)


def _open_page(host: ActionHost, payment_id: str | None, payment: Any) -> None:
    app = host.app

    async def go() -> None:
        from payscope.views.browser import open_in_browser

        current = payment
        if current is None or current.next_action is None:
            current = await app.runtime.api.payments.retrieve(str(payment_id))
        url = page_url(current)
        if url is None:
            app.notify(f"{payment_id} has no page to open now.", title="No page", markup=False)
            return
        open_in_browser(app, url, "the customer's page")

    host.run_worker(go(), group="payment-action", exit_on_error=False, description="Payment")


def _dispute_form(payment: Payment) -> OpenDisputeForm:
    from payscope.areas.payments.forms import OpenDisputeForm

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
    # What lost disputes charged back is not disputed again.
    left = received is None or disputable(payment) > 0
    return left and not busy


def _refund_left(payment: Any) -> bool:
    """Something is left to refund (received, less refunds and what lost disputes took); a row
    whose refunds are not known (a list's) offers the action, and the form then says."""
    if getattr(payment, "refunds", None) is None and not getattr(payment, "disputes", None):
        return True
    return refundable(payment) > 0


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
            _with_payment(_confirm_form),
            _UNCONFIRMED,
            palette="Confirm this payment",
        ),
        Action(
            "capture",
            "c",
            "Capture",
            "Capture all or part",
            _with_payment(_capture_form),
            statuses("requires_capture", "partially_captured_and_capturable"),
            palette="Capture this payment",
        ),
        Action(
            "cancel",
            "x",
            "Cancel",
            "Cancel with a reason",
            _with_payment(_cancel_form),
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
            _with_payment(_refund_form, needs_refunds=True),
            REFUNDABLE,
            when=_refund_left,
            palette="Refund this payment",
        ),
        Action(
            "update",
            "e",
            "Update",
            "Change amount, description, email (unconfirmed)",
            _with_payment(_update_form),
            _UNCONFIRMED,
            palette="Update this payment",
        ),
        Action(
            "3ds",
            "3",
            "Customer step",
            "Complete 3-D Secure or the method's step as the customer (local sandbox)",
            _with_payment(_three_ds),
            statuses("requires_action", "requires_customer_action"),
            local_only=True,
            palette="Complete 3-D Secure",
        ),
        Action(
            "page",
            "o",
            "Open page",
            "Open the customer's page (redirect, QR code, voucher) in the browser",
            _open_page,
            statuses("requires_action", "requires_customer_action"),
            when=lambda payment: page_url(payment) is not None,
            palette="Open the customer's page in the browser",
        ),
        Action(
            "dispute",
            "D",
            "Open dispute",
            "Act as the card network: open a dispute on it (local sandbox)",
            _with_payment(_dispute_form, needs_refunds=True),
            statuses("succeeded", "partially_captured", "partially_captured_and_capturable"),
            when=_disputable,
            local_only=True,
            palette="Open a dispute (sandbox network)",
        ),
    ),
    PAYMENT_STATUSES,
)
