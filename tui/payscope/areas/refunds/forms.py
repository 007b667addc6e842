"""The refund forms: a new refund from the Refunds list, and a refund's reason and metadata.

(A refund made from a payment's detail uses `payment_forms.RefundForm`, which knows the
payment already.) Built on the generic forms of `payscope.views.forms`; each button says what
will be sent.
"""

from __future__ import annotations

from typing import Any

from pydantic import ValidationError
from textual import on, work
from textual.widgets import Input, Static

from payscope.api.errors import NotFoundError
from payscope.api.models.payments import Payment
from payscope.api.models.refunds import Refund, RefundCreateRequest, RefundUpdateRequest
from payscope.views.forms import (
    Field,
    FormErrors,
    FormScreen,
    metadata_field,
    read_metadata,
    validation_messages,
)
from payscope.views.ids import id_problem
from payscope.views.lookup import look_up_id
from payscope.views.payment import charged_back, refund_allowed, refundable
from payscope.widgets.format import format_amount, parse_amount
from payscope.widgets.inputs import SafeInput
from payscope.widgets.text import safe_markup


class NewRefundForm(FormScreen[RefundCreateRequest, Refund]):
    """Refund a payment given by its id: all that is left, or an amount in its currency."""

    title_text = "New refund"
    intro = (
        "The payment is read first: the amount is checked in its currency against what is "
        "left to refund."
    )
    submit_label = "Refund in full"
    submit_variant = "warning"

    def __init__(self, payment_id: str | None = None) -> None:
        super().__init__()
        self.initial_payment_id = payment_id or ""
        self.payment: Payment | None = None  # the payment the id field names, once read

    def fields(self) -> list[Field]:
        return [
            Field(
                "payment_id",
                "Payment",
                SafeInput(self.initial_payment_id, placeholder="pay_…", id="field-payment_id"),
                "The id of the payment to refund.",
            ),
            Field(
                "amount",
                "Amount",
                Input(placeholder="blank: refund all that is left", id="field-amount"),
                "In the payment's currency.",
            ),
            Field(
                "reason", "Reason", Input(placeholder="e.g. customer request", id="field-reason")
            ),
        ]

    def on_mount(self) -> None:
        # FormScreen.on_mount (focus, the button's label) is called by Textual as well.
        if self.initial_payment_id:
            self._look_up(self.initial_payment_id)

    # -- the payment, read as its id is typed --------------------------------------------------

    def _known(self) -> Payment | None:
        """The payment read for the id typed now (None: not read, or another id)."""
        p = self.payment
        return p if p is not None and p.payment_id == self.value("payment_id") else None

    @on(Input.Changed, "#field-payment_id")
    def _payment_typed(self, event: Input.Changed) -> None:
        self.payment = None
        self._hint("payment_id", "The id of the payment to refund.")
        self._hint("amount", "In the payment's currency.")
        self._look_up(event.value.strip())

    @on(Input.Submitted, "#field-payment_id")
    def _payment_entered(self, event: Input.Submitted) -> None:
        # Enter moves on to the amount rather than sending: a blank amount refunds in full.
        event.prevent_default()
        self.query_one("#field-amount", Input).focus()

    @work(exclusive=True, group="refund-payment", exit_on_error=False, description="Payment")
    async def _look_up(self, payment_id: str) -> None:
        payment = await look_up_id(
            payment_id,
            "payment",
            self.client.payments.retrieve,
            lambda text: self._hint("payment_id", text),
        )
        if payment is None:
            return
        self.payment = payment
        left = refundable(payment)
        state = f"{safe_markup(payment.status)} · received " + safe_markup(
            format_amount(payment.amount_received, payment.currency)
        )
        self._hint("payment_id", state)
        self._hint(
            "amount",
            f"In {safe_markup(payment.currency)}; "
            f"{safe_markup(format_amount(left, payment.currency))} left to refund.",
        )
        self._relabel()

    def _hint(self, name: str, markup: str) -> None:
        self.query_one(f"#hint-{name}", Static).update(markup)

    # -- sending ---------------------------------------------------------------------------------

    def submit_text(self) -> str | None:
        payment = self._known()
        amount = self.value("amount")
        if amount is None:
            if payment is None:
                return "Refund in full"
            return f"Refund in full ({format_amount(refundable(payment), payment.currency)})"
        if payment is None:
            return f"Refund {amount}"
        return f"Refund {format_amount(parse_amount(amount, payment.currency), payment.currency)}"

    def build(self) -> RefundCreateRequest:
        payment_id = self.value("payment_id")
        if not payment_id:
            raise FormErrors({"payment_id": "Type the id of the payment to refund (pay_…)."})
        if problem := id_problem(payment_id, "payment"):
            raise FormErrors({"payment_id": problem})
        # The id and the reason are checked now; the amount once the payment's currency is known.
        return RefundCreateRequest(payment_id=self.value("payment_id"), reason=self.value("reason"))

    async def send(self, request: RefundCreateRequest) -> Refund:
        payment = self._known()
        if payment is None:
            try:
                payment = await self.client.payments.retrieve(request.payment_id)
            except NotFoundError:
                raise FormErrors(
                    {"payment_id": "No payment has this id on this profile: check the id."}
                ) from None
            self.payment = payment
        left = refundable(payment)
        if not refund_allowed(payment):
            raise FormErrors(
                {
                    "payment_id": f"This payment is {payment.status}: only a payment whose money "
                    "was received (succeeded, partially captured) can be refunded."
                }
            )
        if left <= 0:
            if charged_back(payment):
                lost = format_amount(charged_back(payment), payment.currency)
                raise FormErrors(
                    {
                        "payment_id": f"Nothing is left to refund: a lost dispute charged back "
                        f"{lost} and refunds hold the rest."
                    }
                )
            raise FormErrors({"payment_id": "This payment is already refunded in full."})
        amount: int | None = None
        raw = self.value("amount")
        if raw is not None:
            try:
                amount = parse_amount(raw, payment.currency)
            except ValueError as exc:
                raise FormErrors({"amount": str(exc)}) from None
            if amount > left:
                limit = format_amount(left, payment.currency)
                raise FormErrors({"amount": f"At most {limit} is left to refund."})
        try:
            request = RefundCreateRequest.model_validate(
                {**request.model_dump(exclude_none=True), "amount": amount}
            )
        except ValidationError as exc:
            raise FormErrors(validation_messages(exc)) from None
        return await self.client.refunds.create(request)


class RefundUpdateForm(FormScreen[RefundUpdateRequest, Refund]):
    """Change a refund's reason or metadata (all the service lets change)."""

    title_text = "Update refund"
    submit_label = "Update"

    def __init__(self, refund: Refund) -> None:
        super().__init__()
        self.refund = refund
        self.intro = f"Only the reason and the metadata of {safe_markup(refund.refund_id)} change."

    def fields(self) -> list[Field]:
        r = self.refund
        return [
            Field("reason", "Reason", SafeInput(r.reason or "", id="field-reason")),
            metadata_field("metadata", "Metadata", r.metadata),
        ]

    def _changes(self) -> dict[str, Any]:
        """What differs from the refund as read (raises FormErrors for a mistake)."""
        errors: dict[str, str] = {}
        metadata = read_metadata(self, "metadata", errors)
        if errors:
            raise FormErrors(errors)
        changes: dict[str, Any] = {}
        reason = self.value("reason") or ""
        if reason != (self.refund.reason or ""):
            changes["reason"] = reason
        if metadata != (self.refund.metadata or {}):
            changes["metadata"] = metadata
        return changes

    def submit_text(self) -> str | None:
        try:
            changes = self._changes()
        except FormErrors:
            return None  # said under the field on sending
        if not changes:
            return "Nothing changed yet"
        return "Update " + " and ".join(changes)

    def build(self) -> RefundUpdateRequest:
        changes = self._changes()
        if not changes:
            raise FormErrors({"form": "Nothing changed: edit the reason or the metadata."})
        return RefundUpdateRequest.model_validate(changes)

    async def send(self, request: RefundUpdateRequest) -> Refund:
        refund = await self.client.refunds.update(self.refund.refund_id, request)
        changed = " and ".join(request.model_dump(exclude_none=True))
        self.app.notify(
            f"{refund.refund_id}: {changed} saved.", title="Refund updated", markup=False
        )
        return refund
