"""The payment forms: new payment, confirm, capture, refund, cancel, update, 3-D Secure.

Built on the generic forms of `tui.views.forms`; each button says what will be sent.
"""

from __future__ import annotations

from typing import Any

from rich.text import Text
from textual import work
from textual.widgets import Checkbox, Input, Select, Static

from tui.api.models.disputes import NETWORK_REASONS, OPENING_STAGES
from tui.views.card_form import CardFormScreen, card_data, card_fields
from tui.views.choices import Choice, ChoiceFormScreen
from tui.views.forms import (
    ConfirmScreen,
    Field,
    FormErrors,
    FormScreen,
    amount_field,
    read_amount,
)
from tui.widgets.format import format_amount, parse_amount
from tui.widgets.inputs import Picker, SafeInput


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
        return card_fields(self.local)

    def build(self) -> Any:
        from tui.api.models.payments import PaymentConfirmRequest

        return PaymentConfirmRequest.model_validate(
            {
                "payment_method": "card",
                "payment_method_type": "credit",
                "payment_method_data": card_data(self),
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

    async def send(self, request: Any) -> Any:
        if self.method is None:
            return await self.client.sandbox.complete_3ds(self.payment_id, self.value("result"))
        return await self.client.sandbox.complete_redirect(self.payment_id, self.value("result"))


FAMILY_LABELS = {
    "card": "Card",
    "wallet": "Wallet",
    "pay_later": "Pay later",
    "bank_redirect": "Bank redirect",
    "bank_transfer": "Bank transfer",
    "bank_debit": "Bank debit",
    "crypto": "Crypto",
    "upi": "UPI",
    "voucher": "Voucher",
    "gift_card": "Gift card",
    "reward": "Reward",
    "open_banking": "Open banking",
    "mobile_payment": "Mobile payment",
    "real_time_payment": "Real-time payment",
    "card_redirect": "Card redirect",
    "network_token": "Network token",
}
_CARD_FIELDS = ("card", "expiry", "cvc", "authentication_type")
_CARD_HINT = "A card, or any other family the service takes (its fields follow it)."


class NewPaymentScreen(CardFormScreen, ChoiceFormScreen):  # type: ignore[misc]
    # Method fields are compact, as the payout form's (one line each, on a tinted band).
    DEFAULT_CSS = """
    NewPaymentScreen Input.-textual-compact {
        margin: 0 1 0 1; padding: 0 1; background: $foreground 8%;
    }
    NewPaymentScreen Input.-textual-compact:focus { background: $primary 25%; }
    """

    """Create a payment: amount, currency, customer, capture, and a way to pay: a card, or any
    family and type the request models name, whose fields follow it (built from
    `tui.api.models.methods`). On local profiles Ctrl+T picks a test card, or the chosen
    method's test value from `GET /_sandbox/test-methods`."""

    title_text = "New payment"
    intro = "Validated before sending; the service's answer appears on the payment."
    submit_label = "Create payment"

    def __init__(self) -> None:
        super().__init__()
        # family/type/variant -> its row of GET /_sandbox/test-methods (local profiles)
        self.method_rows: dict[tuple[str, str, str | None], dict[str, Any]] = {}

    def fields(self) -> list[Field]:
        from tui.api.models.methods import FAMILIES, kinds_of
        from tui.views.model_fields import nested_inputs

        result = [
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
                "On the local sandbox, +expire in it lets transfer and voucher instructions lapse.",
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
            Field(
                "method",
                "Pay with",
                Select(
                    [(FAMILY_LABELS.get(f, f), f) for f in ("card", *FAMILIES)],
                    value="card",
                    allow_blank=False,
                    id="field-method",
                ),
                _CARD_HINT,
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
            *card_fields(self.local),
        ]
        for family in FAMILIES:
            kinds = kinds_of(family)
            if len(kinds) > 1:
                result.append(
                    Field(
                        f"{family}-kind",
                        "Type",
                        Picker(
                            [(k.title, k.key) for k in kinds],
                            value=kinds[0].key,
                            allow_blank=False,
                            id=f"field-{family}-kind",
                        ),
                        _about(kinds[0].model),
                    )
                )
            for kind in kinds:
                result.extend(nested_inputs(kind.model, kind.key, fill=self.local))
        result.append(
            Field(
                "payment_id",
                "Payment id (optional)",
                Input(placeholder="your own id makes retries safe", id="field-payment_id"),
            )
        )
        return result

    def choices(self) -> list[Choice]:
        from tui.api.models.methods import FAMILIES, kinds_of

        names = [f.name for f in self._fields]

        def of(key: str) -> list[str]:
            return [n for n in names if n.startswith(f"{key}-")]

        by_family: dict[Any, list[str]] = {"card": list(_CARD_FIELDS)}
        kinds_choices = []
        for family in FAMILIES:
            kinds = kinds_of(family)
            if len(kinds) > 1:
                by_family[family] = [f"{family}-kind"]
                kinds_choices.append(Choice(f"{family}-kind", {k.key: of(k.key) for k in kinds}))
            else:
                by_family[family] = of(kinds[0].key)
        return [Choice("method", by_family), *kinds_choices]

    def kind(self) -> Any:
        """The method kind chosen (a `MethodKind`), or None for a card."""
        from tui.api.models.methods import BY_KEY, kinds_of

        family = self.value("method")
        if not family or family == "card":
            return None
        kinds = kinds_of(str(family))
        if len(kinds) == 1:
            return kinds[0]
        return BY_KEY.get(str(self.value(f"{family}-kind")), kinds[0])

    def method_row(self, kind: Any) -> dict[str, Any] | None:
        """The kind's row of the sandbox's test methods (None: not loaded, or remote)."""
        variant = kind.variant if kind.variant not in (None, "bare") else None
        return self.method_rows.get((kind.family, kind.type, variant))

    # -- test values (local profiles) -------------------------------------------------------------

    def on_mount(self) -> None:
        # FormScreen/ChoiceFormScreen.on_mount run as well (Textual calls each class's).
        if self.local:
            self._load_test_methods()

    @work(group="test-methods", exit_on_error=False, description="Test methods")
    async def _load_test_methods(self) -> None:
        for row in await self.client.sandbox.test_methods():
            family = str(row.get("payment_method") or "")
            data = (row.get("payment_method_data") or {}).get(family)
            variant = next(iter(data)) if isinstance(data, dict) and len(data) == 1 else None
            if family == "voucher" and isinstance(data, str):
                variant = None
            key = (family, str(row.get("payment_method_type") or ""), variant)
            if family in ("crypto", "network_token", "reward"):
                key = (family, key[1], None)
            self.method_rows.setdefault(key, row)
        self._say_kind()

    def choice_changed(self, name: str) -> None:
        self._say_kind()

    def _say_kind(self, about: str | None = None) -> None:
        """Under the type (or the method) picker: what the chosen kind does (or `about`)."""
        kind = self.kind()
        if kind is None:
            self.query_one("#hint-method", Static).update(_CARD_HINT)
            return
        row = self.method_row(kind)
        if about is None:
            about = _about(kind.model)
            if row is not None:
                about = f"{row.get('flow') or ''}: {row.get('description') or ''}"
                if row.get("test_values"):
                    about += " · Ctrl+T picks a test value"
        target = f"{kind.family}-kind" if self.shown(f"{kind.family}-kind") else "method"
        self.query_one(f"#hint-{target}", Static).update(Text(about))

    def action_pick_card(self) -> None:
        kind = self.kind()
        if kind is None:
            super().action_pick_card()
            return
        if not self.local:
            return
        from tui.widgets.method_picker import TestValuePicker, test_values

        row = self.method_row(kind)
        if row is None or not test_values(row):
            self.app.notify(
                f"{kind.title} has no test value: its outcome is chosen on the sandbox's page "
                "(o opens it, 3 answers it from here).",
                title="No test values",
                markup=False,
            )
            return
        self.app.push_screen(TestValuePicker(kind.title, row), self.use_value)

    def use_value(self, value: dict[str, Any] | None) -> None:
        """Fill the chosen method's test field (None: the picker was closed)."""
        kind = self.kind()
        if value is None or kind is None:
            return
        row = self.method_row(kind) or {}
        name = f"{kind.key}-" + str(row.get("test_field") or "").replace(".", "-")
        widget = next((f.widget for f in self._fields if f.name == name), None)
        if not isinstance(widget, Input):
            return
        widget.value = str(value["value"])
        code = f" {value['unified_code']}" if value.get("unified_code") else ""
        self._say_kind(
            f"Test value {value['value']} · {value.get('outcome')}{code}: "
            f"{value.get('description') or ''}"
        )
        widget.focus()

    # -- reading -----------------------------------------------------------------------------

    def submit_text(self) -> str | None:
        kind = self.kind()
        if kind is None or not self.value("confirm"):
            return None
        return f"Create · pay with {kind.title}"

    def build(self) -> Any:
        from pydantic import ValidationError

        from tui.api.models._iso import is_currency
        from tui.api.models.methods import method_data
        from tui.api.models.payments import PaymentCreateRequest
        from tui.views.model_fields import nested_errors, read_nested

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
        if confirm and kind is None:
            body |= {
                "payment_method": "card",
                "payment_method_type": "credit",
                "payment_method_data": card_data(self),
                "billing": _BILLING,
            }
        elif confirm:
            data = read_nested(self, kind.model, kind.key)
            try:
                kind.model.model_validate(data)
            except ValidationError as exc:
                errors.update(nested_errors(exc, kind.key, self.shown_fields()))
            body |= {
                "payment_method": kind.family,
                "payment_method_type": kind.type,
                "payment_method_data": method_data(kind, data),
                "billing": _BILLING,
            }
        if errors:
            raise FormErrors(errors)
        return PaymentCreateRequest.model_validate({k: v for k, v in body.items() if v is not None})

    def card_needs_3ds(self) -> None:
        self.query_one("#field-authentication_type", Select).value = "three_ds"

    async def send(self, request: Any) -> Any:
        return await self.client.payments.create(request)


def _about(model: Any) -> str:
    """A model's own description (its docstring's first line)."""
    doc = (model.__doc__ or "").strip()
    return doc.splitlines()[0] if doc else ""


# -- opening a dispute on a payment (the payment's action) ---------------------------------------


class OpenDisputeForm(FormScreen):
    """Act as the card network of the local sandbox: open a dispute on a payment."""

    title_text = "Open a dispute (sandbox network)"
    submit_label = "Open dispute"
    submit_variant = "warning"

    def __init__(self, payment: Any) -> None:
        super().__init__()
        self.payment = payment
        self.received = payment.amount_received or payment.amount or 0
        self.intro = (
            f"The cardholder disputes {payment.payment_id} "
            f"({format_amount(self.received, payment.currency)} received). The dispute shows "
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
                f"At most the {format_amount(self.received, currency)} received.",
            ),
        ]

    def submit_text(self) -> str | None:
        amount = parse_amount(self.value("amount") or "", self.payment.currency)
        return f"Open dispute for {format_amount(amount, self.payment.currency)}"

    def build(self) -> Any:
        currency = self.payment.currency
        errors: dict[str, str] = {}
        amount = read_amount(self, "amount", currency, errors)
        if amount is None and not errors:
            errors["amount"] = "Enter the amount the cardholder disputes."
        elif amount is not None and not 0 < amount <= self.received:
            errors["amount"] = (
                f"Between {format_amount(1, currency)} and {format_amount(self.received, currency)}"
                " (the amount received)."
            )
        if errors:
            raise FormErrors(errors)
        return {"reason": self.value("reason"), "stage": self.value("stage"), "amount": amount}

    async def send(self, request: Any) -> Any:
        dispute = await self.client.sandbox.open_dispute(self.payment.payment_id, **request)
        self.app.notify(
            f"{dispute.dispute_id} on {dispute.payment_id}: "
            f"{format_amount(dispute.amount, dispute.currency)}. :dp {dispute.dispute_id} "
            "opens it.",
            title="Dispute opened",
        )
        return dispute
