"""The payment forms: new payment, confirm, capture, refund, cancel, update, 3-D Secure.

Built on the generic forms of `payscope.views.forms`; each button says what will be sent.
"""

from __future__ import annotations

from typing import Any, TypedDict

from textual.widgets import Checkbox, Input, Select

from payscope.api.models._iso import is_currency
from payscope.api.models.disputes import NETWORK_REASONS, OPENING_STAGES, Dispute
from payscope.api.models.payments import (
    Payment,
    PaymentCancelRequest,
    PaymentCaptureRequest,
    PaymentConfirmRequest,
    PaymentCreateRequest,
    PaymentUpdateRequest,
)
from payscope.api.models.refunds import RefundCreateRequest
from payscope.views.forms import (
    ConfirmScreen,
    Field,
    FormErrors,
    FormScreen,
    amount_field,
    read_amount,
)
from payscope.views.live import announce
from payscope.views.pay_method import PayMethodFormScreen
from payscope.views.payment import charged_back, disputable, refundable
from payscope.widgets.format import format_amount, parse_amount
from payscope.widgets.inputs import SafeInput


class CaptureForm(FormScreen[PaymentCaptureRequest, Payment]):
    """Capture all or part of an authorisation."""

    title_text = "Capture"

    def __init__(self, payment: Payment) -> None:
        super().__init__()
        self.payment = payment
        capturable = payment.amount_capturable or payment.amount
        self.intro = (
            f"{payment.payment_id} can capture up to "
            f"{format_amount(capturable, payment.currency)}. Leave the full amount or type less "
            "for a partial capture."
        )
        self.submit_label = "Capture"
        self.capturable = capturable

    def fields(self) -> list[Field]:
        currency = self.payment.currency
        return [amount_field("amount", "Amount to capture", currency, self.capturable)]

    def submit_text(self) -> str | None:
        amount = parse_amount(self.value("amount") or "", self.payment.currency)
        return f"Capture {format_amount(amount, self.payment.currency)}"

    def build(self) -> PaymentCaptureRequest:
        errors: dict[str, str] = {}
        amount = read_amount(self, "amount", self.payment.currency, errors)
        if amount is not None and amount > self.capturable:
            errors["amount"] = (
                f"At most {format_amount(self.capturable, self.payment.currency)} can be captured."
            )
        if errors:
            raise FormErrors(errors)
        return PaymentCaptureRequest(amount_to_capture=amount)

    async def send(self, request: PaymentCaptureRequest) -> Payment:
        return await self.client.payments.capture(self.payment.payment_id, request)


class RefundForm(FormScreen[RefundCreateRequest, Payment]):
    """Refund all or part of what was received."""

    title_text = "Refund"
    submit_variant = "warning"

    def __init__(self, payment: Payment) -> None:
        super().__init__()
        self.payment = payment
        self.remaining = refundable(payment)
        lost = charged_back(payment)
        self.intro = (
            f"{format_amount(self.remaining, payment.currency)} of {payment.payment_id} can be "
            "refunded. Type less for a partial refund."
            + (
                f" A lost dispute charged back {format_amount(lost, payment.currency)}: that is "
                "not refundable again."
                if lost
                else ""
            )
        )
        self.submit_label = "Refund"

    def fields(self) -> list[Field]:
        return [
            amount_field("amount", "Amount", self.payment.currency, self.remaining),
            Field(
                "reason", "Reason", Input(placeholder="e.g. customer request", id="field-reason")
            ),
        ]

    def submit_text(self) -> str | None:
        amount = parse_amount(self.value("amount") or "", self.payment.currency)
        return f"Refund {format_amount(amount, self.payment.currency)}"

    def build(self) -> RefundCreateRequest:
        errors: dict[str, str] = {}
        amount = read_amount(self, "amount", self.payment.currency, errors)
        if amount is not None and amount > self.remaining:
            errors["amount"] = (
                f"At most {format_amount(self.remaining, self.payment.currency)} can be refunded."
            )
        if errors:
            raise FormErrors(errors)
        return RefundCreateRequest(
            payment_id=self.payment.payment_id,
            amount=None if amount == self.remaining else amount,
            reason=self.value("reason"),
        )

    async def send(self, request: RefundCreateRequest) -> Payment:
        refund = await self.client.refunds.create(request)
        self.app.notify(
            f"{refund.refund_id}: {format_amount(refund.amount, refund.currency)} {refund.status}.",
            title="Refund created",
        )

        # No webhook until it settles: announced, so the Refunds list shows it at once.
        announce(self.app, refund.refund_id, "refund_created", refund.status)
        return self.payment


class CancelForm(FormScreen[PaymentCancelRequest, Payment]):
    """Cancel (void) a payment with a reason."""

    title_text = "Cancel payment"
    submit_variant = "error"

    def __init__(self, payment: Payment) -> None:
        super().__init__()
        self.payment = payment
        self.intro = f"Cancel {payment.payment_id}? The customer is not charged."
        self.submit_label = "Cancel payment"

    def fields(self) -> list[Field]:
        return [
            Field(
                "reason",
                "Reason",
                Input(placeholder="e.g. requested_by_customer", id="field-reason"),
            )
        ]

    def build(self) -> PaymentCancelRequest:
        return PaymentCancelRequest(cancellation_reason=self.value("reason"))

    async def send(self, request: PaymentCancelRequest) -> Payment:
        return await self.client.payments.cancel(self.payment.payment_id, request)


def review_form(client: Any, payment_id: str, action: str) -> ConfirmScreen:
    """Approve or reject a payment held for review: a confirmation with no fields."""
    if action == "approve":
        return ConfirmScreen(
            "Approve payment",
            f"Approve {payment_id}? It is released from review and proceeds.",
            "Approve",
            lambda: client.payments.approve(payment_id),
        )
    return ConfirmScreen(
        "Reject payment",
        f"Reject {payment_id}? The authorisation is voided; no charge.",
        "Reject",
        lambda: client.payments.reject(payment_id),
        variant="error",
    )


class ConfirmForm(PayMethodFormScreen, FormScreen[PaymentConfirmRequest, Payment]):  # type: ignore[misc]
    """Confirm (authorise) a payment created with confirm=false, with any way to pay New
    payment offers (`PayMethodFormScreen`): a redirect or a transfer then waits on the
    customer, as it would have in one step."""

    title_text = "Confirm payment"

    def __init__(self, payment: Payment) -> None:
        super().__init__()
        self.payment = payment
        self.intro = f"Authorise {payment.payment_id} with a card or another way to pay."
        self.submit_label = f"Confirm {format_amount(payment.amount, payment.currency)}"

    def fields(self) -> list[Field]:
        # Authentication was chosen when the payment was created: a confirm cannot change it.
        return self.method_fields(authentication=False)

    def submit_text(self) -> str | None:
        kind = self.kind()
        if kind is None:
            return None
        return f"{self.submit_label} · pay with {kind.title}"

    def build(self) -> PaymentConfirmRequest:
        errors: dict[str, str] = {}
        body = self.method_body(errors) | {"return_url": "https://example.com/return"}
        if errors:
            raise FormErrors(errors)
        return PaymentConfirmRequest.model_validate(body)

    async def send(self, request: PaymentConfirmRequest) -> Payment:
        return await self.client.payments.confirm(self.payment.payment_id, request)


class UpdateForm(FormScreen[PaymentUpdateRequest, Payment]):
    """Change an unconfirmed payment's amount, description or email."""

    title_text = "Update payment"

    def __init__(self, payment: Payment) -> None:
        super().__init__()
        self.payment = payment
        self.intro = f"Only unconfirmed payments can change. {payment.payment_id}:"
        self.submit_label = "Update"

    def fields(self) -> list[Field]:
        p = self.payment
        return [
            amount_field("amount", "Amount", p.currency, p.amount),
            Field(
                "description", "Description", SafeInput(p.description or "", id="field-description")
            ),
            Field("email", "Email", SafeInput(p.email or "", id="field-email")),
        ]

    def build(self) -> PaymentUpdateRequest:
        errors: dict[str, str] = {}
        amount = read_amount(self, "amount", self.payment.currency, errors)
        if errors:
            raise FormErrors(errors)
        return PaymentUpdateRequest.model_validate(
            {
                "amount": amount,
                "description": self.value("description"),
                "email": self.value("email"),
            }
        )

    async def send(self, request: PaymentUpdateRequest) -> Payment:
        return await self.client.payments.update(self.payment.payment_id, request)


class ThreeDSForm(FormScreen[None, Payment]):
    """Finish the customer's step on the local sandbox (the customer's browser stands in): a
    card's 3-D Secure challenge, or a method's page (a bank or wallet redirect, a QR code,
    transfer or voucher instructions, a UPI collect)."""

    title_text = "3-D Secure"

    def __init__(self, payment_id: str, method: str | None = None) -> None:
        super().__init__()
        self.payment_id = payment_id
        # A card (or not known): the challenge; another family: the method's page.
        self.method = None if method in (None, "card") else method
        if self.method is None:
            self.intro = f"Act as the cardholder completing the challenge of {payment_id}."
            self.submit_label = "Complete challenge"
        else:
            self.title_text = "Customer's step"
            self.intro = (
                f"Act as the customer on the {self.method.replace('_', ' ')} page of "
                f"{payment_id}: pay, fail (declined), or give up."
            )
            self.submit_label = "Answer as the customer"

    def fields(self) -> list[Field]:
        return [
            Field(
                "result",
                "Outcome",
                Select(
                    [("authorise", "authorize"), ("fail", "fail"), ("abandon", "abandon")],
                    value="authorize",
                    allow_blank=False,
                    id="field-result",
                ),
            )
        ]

    async def send(self, request: None) -> Payment:
        # The outcome is read here: the form builds no request of its own.
        if self.method is None:
            return await self.client.sandbox.complete_3ds(self.payment_id, self.value("result"))
        return await self.client.sandbox.complete_redirect(self.payment_id, self.value("result"))


class NewPaymentScreen(PayMethodFormScreen, FormScreen[PaymentCreateRequest, Payment]):  # type: ignore[misc]
    """Create a payment: amount, currency, customer, capture, and a way to pay: a card, or any
    family and type the request models name, whose fields follow it (`PayMethodFormScreen`)."""

    title_text = "New payment"
    intro = "Validated before sending; the service's answer appears on the payment."
    submit_label = "Create payment"

    def fields(self) -> list[Field]:
        return [
            Field("amount", "Amount", Input(value="25.00", id="field-amount")),
            Field("currency", "Currency", Input(value="USD", id="field-currency"), "ISO 4217"),
            Field(
                "customer_id",
                "Customer (optional)",
                Input(placeholder="cus_…", id="field-customer_id"),
            ),
            Field(
                "email",
                "Email (optional)",
                Input(placeholder="e.g. ada@example.com", id="field-email"),
                # A rule of payscope's own sandbox: a remote service has no such test address.
                "+expire in it lets transfer and voucher instructions lapse (a sandbox test "
                "address)."
                if self.local
                else "",
            ),
            Field(
                "capture_method",
                "Capture",
                Select(
                    [
                        ("automatic", "automatic"),
                        ("manual", "manual"),
                        ("manual multiple", "manual_multiple"),
                    ],
                    value="automatic",
                    allow_blank=False,
                    id="field-capture_method",
                ),
            ),
            Field("confirm", "", Checkbox("Confirm now (one step)", True, id="field-confirm")),
            *self.method_fields(),
            Field(
                "payment_id",
                "Payment id (optional)",
                Input(placeholder="your own id makes retries safe", id="field-payment_id"),
            ),
        ]

    def submit_text(self) -> str | None:
        kind = self.kind()
        if kind is None or not self.value("confirm"):
            return None
        return f"Create · pay with {kind.title}"

    def build(self) -> PaymentCreateRequest:
        errors: dict[str, str] = {}
        currency = str(self.value("currency") or "").upper()
        amount: Any = self.value("amount")
        if not is_currency(currency):
            errors["currency"] = (
                f"{currency or 'Nothing'!r} is not an ISO 4217 code (USD, EUR, JPY)."
            )
        elif amount is not None:
            try:
                amount = parse_amount(amount, currency or "USD")
            except ValueError as exc:
                errors["amount"] = str(exc)
        confirm = bool(self.value("confirm"))
        kind = self.kind()
        body: dict[str, Any] = {
            "amount": amount,
            "currency": currency,
            "customer_id": self.value("customer_id"),
            "email": self.value("email"),
            "capture_method": self.value("capture_method"),
            "authentication_type": self.value("authentication_type") if kind is None else None,
            "confirm": confirm,
            "payment_id": self.value("payment_id"),
            "return_url": "https://example.com/return",
        }
        if confirm:
            body |= self.method_body(errors)
        if errors:
            raise FormErrors(errors)
        return PaymentCreateRequest.model_validate({k: v for k, v in body.items() if v is not None})

    async def send(self, request: PaymentCreateRequest) -> Payment:
        return await self.client.payments.create(request)


# -- opening a dispute on a payment (the payment's action) ---------------------------------------


class DisputeOpening(TypedDict):
    """What the sandbox's network opens a dispute with (`SandboxResource.open_dispute`)."""

    reason: str
    stage: str
    amount: int | None


class OpenDisputeForm(FormScreen[DisputeOpening, Dispute]):
    """Act as the card network of the local sandbox: open a dispute on a payment."""

    title_text = "Open a dispute (sandbox network)"
    submit_label = "Open dispute"
    submit_variant = "warning"

    def __init__(self, payment: Payment) -> None:
        super().__init__()
        self.payment = payment
        # What a dispute may take: what was received, less what lost disputes took back.
        self.received = disputable(payment)
        lost = charged_back(payment)
        held = (
            f"{format_amount(self.received + lost, payment.currency)} received, "
            f"{format_amount(lost, payment.currency)} of it already charged back"
            if lost
            else f"{format_amount(self.received, payment.currency)} received"
        )
        self.intro = (
            f"The cardholder disputes {payment.payment_id} ({held}). The dispute shows "
            "in Disputes at once; the merchant then has 7 days (sandbox clock) to accept or "
            "challenge it."
        )

    def fields(self) -> list[Field]:
        # The reasons and opening stages the sandbox's network control takes.
        currency = self.payment.currency
        return [
            Field(
                "reason",
                "Reason",
                Select(
                    [(f"{r.replace('_', ' ')}  (code {c})", r) for r, c in NETWORK_REASONS.items()],
                    value="fraudulent",
                    allow_blank=False,
                    id="field-reason",
                ),
            ),
            Field(
                "stage",
                "Stage",
                Select(
                    [(s.replace("_", " "), s) for s in OPENING_STAGES],
                    value="dispute",
                    allow_blank=False,
                    id="field-stage",
                ),
            ),
            amount_field(
                "amount",
                "Amount disputed",
                currency,
                self.received,
                f"At most the {format_amount(self.received, currency)} received."
                if not charged_back(self.payment)
                else f"At most the {format_amount(self.received, currency)} not charged back.",
            ),
        ]

    def submit_text(self) -> str | None:
        amount = parse_amount(self.value("amount") or "", self.payment.currency)
        return f"Open dispute for {format_amount(amount, self.payment.currency)}"

    def build(self) -> DisputeOpening:
        currency = self.payment.currency
        errors: dict[str, str] = {}
        amount = read_amount(self, "amount", currency, errors)
        if amount is None and not errors:
            errors["amount"] = "Enter the amount the cardholder disputes."
        elif amount is not None and not 0 < amount <= self.received:
            errors["amount"] = (
                f"Between {format_amount(1, currency)} and {format_amount(self.received, currency)}"
                + (
                    " (received, less what lost disputes charged back)."
                    if charged_back(self.payment)
                    else " (the amount received)."
                )
            )
        if errors:
            raise FormErrors(errors)
        return {"reason": self.value("reason"), "stage": self.value("stage"), "amount": amount}

    async def send(self, request: DisputeOpening) -> Dispute:
        dispute = await self.client.sandbox.open_dispute(self.payment.payment_id, **request)
        self.app.notify(
            f"{dispute.dispute_id} on {dispute.payment_id}: "
            f"{format_amount(dispute.amount, dispute.currency)}. :dp {dispute.dispute_id} "
            "opens it.",
            title="Dispute opened",
        )
        return dispute
