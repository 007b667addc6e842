"""The payment forms: new payment, confirm, capture, refund, cancel, update, 3-D Secure.

Built on the generic forms of `tui.views.forms`; each button says what will be sent.
"""

from __future__ import annotations

from typing import Any, ClassVar

from textual import on
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.widgets import Button, Checkbox, Input, Select, Static

from tui.views.forms import (
    ConfirmScreen,
    Field,
    FormErrors,
    FormScreen,
    amount_field,
    read_amount,
)
from tui.widgets.format import brand_label, format_amount, parse_amount
from tui.widgets.inputs import SafeInput

# A card that succeeds on the local sandbox and on the reference's sandboxes alike.
DEFAULT_TEST_CARD = "4242 4242 4242 4242"


class CaptureForm(FormScreen):
    """Capture all or part of an authorisation."""

    title_text = "Capture"

    def __init__(self, payment: Any) -> None:
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

    def build(self) -> Any:
        from tui.api.models.payments import PaymentCaptureRequest

        errors: dict[str, str] = {}
        amount = read_amount(self, "amount", self.payment.currency, errors)
        if amount is not None and amount > self.capturable:
            errors["amount"] = (
                f"At most {format_amount(self.capturable, self.payment.currency)} can be captured."
            )
        if errors:
            raise FormErrors(errors)
        return PaymentCaptureRequest(amount_to_capture=amount)

    async def send(self, request: Any) -> Any:
        return await self.client.payments.capture(self.payment.payment_id, request)


class RefundForm(FormScreen):
    """Refund all or part of what was received."""

    title_text = "Refund"
    submit_variant = "warning"

    def __init__(self, payment: Any) -> None:
        super().__init__()
        self.payment = payment
        refunded = sum(r.amount for r in (payment.refunds or []) if r.status != "failed")
        self.remaining = max((payment.amount_received or 0) - refunded, 0)
        self.intro = (
            f"{format_amount(self.remaining, payment.currency)} of {payment.payment_id} can be "
            "refunded. Type less for a partial refund."
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

    def build(self) -> Any:
        from tui.api.models.refunds import RefundCreateRequest

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

    async def send(self, request: Any) -> Any:
        refund = await self.client.refunds.create(request)
        self.app.notify(
            f"{refund.refund_id}: {format_amount(refund.amount, refund.currency)} {refund.status}.",
            title="Refund created",
        )
        from tui.views.live import announce

        # No webhook until it settles: announced, so the Refunds list shows it at once.
        announce(self.app, refund.refund_id, "refund_created", refund.status)
        return self.payment


class CancelForm(FormScreen):
    """Cancel (void) a payment with a reason."""

    title_text = "Cancel payment"
    submit_variant = "error"

    def __init__(self, payment: Any) -> None:
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

    def build(self) -> Any:
        from tui.api.models.payments import PaymentCancelRequest

        return PaymentCancelRequest(cancellation_reason=self.value("reason"))

    async def send(self, request: Any) -> Any:
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


def _card_fields(local: bool) -> list[Field]:
    if local:
        card = Input(value=DEFAULT_TEST_CARD, id="field-card")
        hint = "Visa · succeeds. Ctrl+T picks another sandbox test card (outcome, code)."
    else:
        card = Input(placeholder=DEFAULT_TEST_CARD, id="field-card")
        hint = "Type a test card of the remote sandbox; its documentation lists them."
    return [
        Field("card", "Card", card, hint),
        Field("expiry", "Expiry (MM/YY)", Input(value="12/30", id="field-expiry")),
        Field("cvc", "CVC", Input(value="123", password=True, id="field-cvc")),
    ]


class CardFormScreen(FormScreen):
    """A form with card fields: on local profiles Ctrl+T fills them from the test-card picker."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding(
            "ctrl+t",
            "pick_card",
            "Test cards",
            id="form.test-cards",
            tooltip="Pick a sandbox test card (local profiles)",
        ),
    ]

    @property
    def local(self) -> bool:
        """True on the embedded sandbox, whose test-card table the picker shows."""
        return self.runtime.has_local_sandbox

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if action == "pick_card":
            return self.local
        return super().check_action(action, parameters)

    def extra_buttons(self) -> ComposeResult:
        if self.local:
            yield Button("Test cards…", id="form-pick-card")

    @on(Button.Pressed, "#form-pick-card")
    def _pick_pressed(self) -> None:
        self.action_pick_card()

    def action_pick_card(self) -> None:
        from tui.widgets.card_picker import TestCardPicker

        if self.local:
            self.app.push_screen(TestCardPicker(), self.use_card)

    def use_card(self, card: Any) -> None:
        """Fill the card fields from a picked test card (None: the picker was closed)."""
        if card is None:
            return
        self.query_one("#field-card", Input).value = card.grouped
        self.query_one("#field-cvc", Input).value = card.cvc
        code = f" {card.unified_code}" if card.unified_code else ""
        outcome = card.outcome.replace("_", " ")
        self.query_one("#hint-card", Static).update(
            f"{brand_label(card.brand)} · {outcome}{code}: {card.description}"
        )
        if card.outcome in ("three_ds_challenge", "decline_without_three_ds"):
            self.card_needs_3ds()
        self.query_one("#field-card", Input).focus()

    def card_needs_3ds(self) -> None:
        """A 3-D Secure card was picked (the new-payment form switches authentication on)."""


def _card_data(form: FormScreen) -> dict[str, Any]:
    number = str(form.value("card") or "").replace(" ", "")
    month, _, year = str(form.value("expiry") or "").partition("/")
    if len(year) == 2:
        year = "20" + year
    return {
        "card": {
            "card_number": number,
            "card_exp_month": month.strip(),
            "card_exp_year": year.strip(),
            "card_cvc": form.value("cvc"),
            "card_holder_name": "Test Customer",
        }
    }


_BILLING = {"address": {"line1": "1 Test Street", "city": "Testville", "country": "US"}}


class ConfirmForm(CardFormScreen):
    """Confirm (authorise) a payment created with confirm=false."""

    title_text = "Confirm payment"

    def __init__(self, payment: Any) -> None:
        super().__init__()
        self.payment = payment
        self.intro = f"Authorise {payment.payment_id} with a card."
        self.submit_label = f"Confirm {format_amount(payment.amount, payment.currency)}"

    def fields(self) -> list[Field]:
        return _card_fields(self.local)

    def build(self) -> Any:
        from tui.api.models.payments import PaymentConfirmRequest

        return PaymentConfirmRequest.model_validate(
            {
                "payment_method": "card",
                "payment_method_type": "credit",
                "payment_method_data": _card_data(self),
                "billing": _BILLING,
                "return_url": "https://example.com/return",
            }
        )

    async def send(self, request: Any) -> Any:
        return await self.client.payments.confirm(self.payment.payment_id, request)


class UpdateForm(FormScreen):
    """Change an unconfirmed payment's amount, description or email."""

    title_text = "Update payment"

    def __init__(self, payment: Any) -> None:
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

    def build(self) -> Any:
        from tui.api.models.payments import PaymentUpdateRequest

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

    async def send(self, request: Any) -> Any:
        return await self.client.payments.update(self.payment.payment_id, request)


class ThreeDSForm(FormScreen):
    """Finish a 3-D Secure challenge on the local sandbox (the customer's browser stands in)."""

    title_text = "3-D Secure"

    def __init__(self, payment_id: str) -> None:
        super().__init__()
        self.payment_id = payment_id
        self.intro = f"Act as the cardholder completing the challenge of {payment_id}."
        self.submit_label = "Complete challenge"

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

    async def send(self, request: Any) -> Any:
        return await self.client.sandbox.complete_3ds(self.payment_id, self.value("result"))


class NewPaymentScreen(CardFormScreen):
    """Create a payment: amount, currency, customer, capture, authentication, card, id."""

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
            Field(
                "authentication_type",
                "Authentication",
                Select(
                    [("no 3-D Secure", "no_three_ds"), ("3-D Secure", "three_ds")],
                    value="no_three_ds",
                    allow_blank=False,
                    id="field-authentication_type",
                ),
            ),
            Field("confirm", "", Checkbox("Confirm now (one step)", True, id="field-confirm")),
            *_card_fields(self.local),
            Field(
                "payment_id",
                "Payment id (optional)",
                Input(placeholder="your own id makes retries safe", id="field-payment_id"),
            ),
        ]

    def build(self) -> Any:
        from tui.api.models.payments import PaymentCreateRequest

        errors: dict[str, str] = {}
        from tui.api.models._iso import is_currency

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
        if errors:
            raise FormErrors(errors)
        confirm = bool(self.value("confirm"))
        body: dict[str, Any] = {
            "amount": amount,
            "currency": currency,
            "customer_id": self.value("customer_id"),
            "capture_method": self.value("capture_method"),
            "authentication_type": self.value("authentication_type"),
            "confirm": confirm,
            "payment_id": self.value("payment_id"),
            "return_url": "https://example.com/return",
        }
        if confirm:
            body |= {
                "payment_method": "card",
                "payment_method_type": "credit",
                "payment_method_data": _card_data(self),
                "billing": _BILLING,
            }
        return PaymentCreateRequest.model_validate({k: v for k, v in body.items() if v is not None})

    def card_needs_3ds(self) -> None:
        self.query_one("#field-authentication_type", Select).value = "three_ds"

    async def send(self, request: Any) -> Any:
        return await self.client.payments.create(request)
