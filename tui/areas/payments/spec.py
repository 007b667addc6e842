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
    from tui.views.filters import Filter, Grammar, Term

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
            method_term(real=real),
            *time_terms(),
            server_term(("id", "payment"), "payment_id", "id:pay_…"),
        ],
        bare=id_word({"pay_": "payment_id", "cus_": "customer_id"}, 20, own="pay_"),
        bare_example="pay_… or part of an id",
    )


def method_term(*, real: bool = False) -> Term:
    """`method:wallet` (a family: asked of the service, except the real one's list, which has
    no such filter) or `method:ideal` (a type: matched in the view), several with commas."""
    from tui.api.models.methods import FAMILIES, KINDS
    from tui.views.filters import Term

    families = {"card", *FAMILIES}
    types = {"credit", "debit", *(k.type for k in KINDS)}

    def apply(value: str, result: Filter) -> None:
        wanted = [v.strip().lower() for v in value.split(",") if v.strip()]
        for word in wanted:
            if word not in families and word not in types:
                close = sorted(w for w in families | types if word in w or w in word)
                hint = f" Did you mean {', '.join(close[:3])}?" if close else ""
                raise ValueError(
                    f"`{word}` is not a payment method.{hint} Families: "
                    f"{', '.join(sorted(families))}; or a type such as ideal, apple_pay, sepa."
                )
        if all(w in families for w in wanted) and not real:
            result.server["payment_method"] = wanted
            return
        chosen = set(wanted)
        result.local.append(
            lambda p: (
                getattr(p, "payment_method", None) in chosen
                or getattr(p, "payment_method_type", None) in chosen
            )
        )

    return Term(("method", "m"), "method:wallet", apply)


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


def _three_ds(payment: Any) -> Any:
    from tui.areas.payments.forms import ThreeDSForm

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
        from tui.views.browser import open_in_browser

        current = payment
        if current is None or current.next_action is None:
            current = await app.runtime.api.payments.retrieve(str(payment_id))
        url = page_url(current)
        if url is None:
            app.notify(f"{payment_id} has no page to open now.", title="No page", markup=False)
            return
        open_in_browser(app, url, "the customer's page")

    app.run_worker(go(), group="payment-action", exit_on_error=False, description="Payment")


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
            _with_payment(_dispute_form),
            statuses("succeeded", "partially_captured", "partially_captured_and_capturable"),
            when=_disputable,
            local_only=True,
            palette="Open a dispute (sandbox network)",
        ),
    ),
    PAYMENT_STATUSES,
)
