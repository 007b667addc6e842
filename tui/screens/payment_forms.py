"""Forms for payment actions and the new-payment form, validated by the API's pydantic models.

Each form says exactly what will happen on its submit button ("Capture 12.50 USD"), so the
button is the confirmation. Validation errors appear under the field they are about; errors from
the service appear in the form, which stays open so the user can fix and resend.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, ClassVar

from textual import on, work
from textual.app import App, ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.screen import ModalScreen
from textual.widget import Widget
from textual.widgets import Button, Checkbox, Input, Label, Select, Static

from tui.widgets.errors import describe_error
from tui.widgets.format import brand_label, format_amount, parse_amount

# A card that succeeds on the local sandbox and on the reference's sandboxes alike.
DEFAULT_TEST_CARD = "4242 4242 4242 4242"


@dataclass
class Field:
    """One form field: its model field name, label, widget and a hint."""

    name: str
    label: str
    widget: Widget
    hint: str = ""


class FormScreen(ModalScreen[Any]):
    """A modal form: fields, an error line per field, a submit button that states the action."""

    DEFAULT_CSS = """
    FormScreen { align: center middle; }
    FormScreen > Vertical {
        width: 76; max-width: 96%; height: auto; max-height: 94%;
        border: round $primary; background: $surface; padding: 0 1;
    }
    FormScreen #form-intro { padding: 0 0 1 0; color: $text-muted; }
    FormScreen VerticalScroll { height: auto; max-height: 28; }
    /* Docked: on a short terminal the fields scroll, the buttons stay in sight. */
    FormScreen #form-footer { dock: bottom; height: auto; }
    FormScreen .field-label { padding: 0 0 0 1; text-style: bold; }
    FormScreen .field-hint { padding: 0 0 0 1; color: $text-muted; }
    FormScreen .field-error { padding: 0 0 0 1; color: $error; display: none; }
    FormScreen .field-error.-shown { display: block; }
    FormScreen #form-error { color: $error; display: none; padding: 0 1; }
    FormScreen #form-error.-shown { display: block; }
    FormScreen #form-buttons { height: auto; align-horizontal: right; padding: 1 0 0 0; }
    FormScreen #form-buttons Button { margin: 0 0 0 1; }
    """

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding(
            "escape", "dismiss_form", "Close", id="form.close", tooltip="Close without sending"
        ),
        Binding("ctrl+s", "submit", "Send", id="form.submit", tooltip="Send the form"),
    ]

    title_text = "Form"
    intro = ""
    submit_label = "Send"
    submit_variant = "primary"

    def fields(self) -> list[Field]:
        """The form's fields (built once, at compose)."""
        return []

    def compose(self) -> ComposeResult:
        self._fields = self.fields()
        with Vertical() as box:
            box.border_title = self.title_text
            if self.intro:
                yield Static(self.intro, id="form-intro")
            with VerticalScroll():
                for field in self._fields:
                    yield Label(field.label, classes="field-label")
                    yield field.widget
                    if field.hint:
                        yield Static(field.hint, classes="field-hint", id=f"hint-{field.name}")
                    yield Static(classes="field-error", id=f"error-{field.name}")
            with Vertical(id="form-footer"):
                yield Static(id="form-error")
                with Horizontal(id="form-buttons"):
                    yield from self.extra_buttons()
                    yield Button("Close", id="form-close")
                    yield Button(
                        self.submit_label,
                        variant=self.submit_variant,  # type: ignore[arg-type]
                        id="form-submit",
                    )

    def extra_buttons(self) -> ComposeResult:
        """Buttons before Close (e.g. the test-card picker)."""
        yield from ()

    def on_mount(self) -> None:
        focusable = [f.widget for f in self._fields if f.widget.focusable]
        (focusable[0] if focusable else self.query_one("#form-submit")).focus()

    def value(self, name: str) -> Any:
        """The current value of a field's widget (None for blank text or no selection)."""
        widget = next(f.widget for f in self._fields if f.name == name)
        if isinstance(widget, Input):
            return widget.value.strip() or None
        if isinstance(widget, Select):
            return None if widget.value is Select.BLANK else widget.value
        if isinstance(widget, Checkbox):
            return widget.value
        return None

    def show_errors(self, errors: dict[str, str], general: str | None = None) -> None:
        """Put each message under its field; what fits no field goes to the form's error line."""
        known = {f.name for f in self._fields}
        leftover = [msg for name, msg in errors.items() if name not in known]
        for field in self._fields:
            line = self.query_one(f"#error-{field.name}", Static)
            message = errors.get(field.name)
            line.update(message or "")
            line.set_class(bool(message), "-shown")
        text = "\n".join([*leftover, *([general] if general else [])])
        box = self.query_one("#form-error", Static)
        box.update(text)
        box.set_class(bool(text), "-shown")

    def build(self) -> Any:
        """Read the fields into a request (raise FormErrors or pydantic's ValidationError)."""
        return None

    async def send(self, request: Any) -> Any:
        """Send the request; the result is what the form is dismissed with."""
        return None

    def action_dismiss_form(self) -> None:
        self.dismiss(None)

    @on(Button.Pressed, "#form-close")
    def _close(self) -> None:
        self.dismiss(None)

    @on(Button.Pressed, "#form-submit")
    def _pressed(self) -> None:
        self.action_submit()

    @on(Input.Submitted)
    def _entered(self) -> None:
        self.action_submit()

    def action_submit(self) -> None:
        from pydantic import ValidationError

        try:
            request = self.build()
        except FormErrors as exc:
            self.show_errors(exc.errors)
            return
        except ValidationError as exc:
            self.show_errors(validation_messages(exc))
            return
        self.show_errors({})
        self.query_one("#form-submit", Button).disabled = True
        self._send(request)

    @work(exclusive=True, group="form", exit_on_error=False, description="Sending")
    async def _send(self, request: Any) -> None:
        try:
            result = await self.send(request)
        except Exception as exc:  # shown in the form: the user fixes and sends again
            title, message = describe_error(exc)
            field = self.field_of_error(exc)
            if field is not None:
                self.show_errors({field: message}, f"{title}: see {self.label_of(field)}.")
            else:
                self.show_errors({}, f"{title}: {message}")
            self.query_one("#form-submit", Button).disabled = False
            return
        self.dismiss(result)

    def field_of_error(self, error: BaseException) -> str | None:
        """The form field a refusal from the service is about, when its message names one."""
        from tui.api.errors import ApiError

        if not isinstance(error, ApiError):
            return None
        return field_named_in(error.message, {f.name for f in self._fields})

    def label_of(self, name: str) -> str:
        """A field's label as the user sees it (its name when it has none)."""
        field = next((f for f in self._fields if f.name == name), None)
        return (field.label if field and field.label else name).lower()


class FormErrors(Exception):
    """Field errors found before the models are even built (e.g. an amount that is not a number)."""

    def __init__(self, errors: dict[str, str]) -> None:
        super().__init__(errors)
        self.errors = errors


# pydantic locations inside nested request models, mapped to the form field that holds them.
_LOCATION_TO_FIELD = {
    "payment_method_data": "card",
    "card_number": "card",
    "card_exp_month": "expiry",
    "card_exp_year": "expiry",
    "card_cvc": "cvc",
    "amount_to_capture": "amount",
    "cancellation_reason": "reason",
}


# Words of the service's messages that name a request field, longest first so that
# `amount_to_capture` is not taken for `amount`.
_MESSAGE_WORDS = sorted(
    {
        **_LOCATION_TO_FIELD,
        "amount": "amount",
        "currency": "currency",
        "customer_id": "customer_id",
        "customer": "customer_id",
        "payment_id": "payment_id",
        "email": "email",
        "description": "description",
        "reason": "reason",
        "capture_method": "capture_method",
        "authentication_type": "authentication_type",
    }.items(),
    key=lambda item: -len(item[0]),
)


def field_named_in(message: str, fields: set[str]) -> str | None:
    """The first of `fields` a service message names (`amount_to_capture` -> amount)."""
    import re

    for word, name in _MESSAGE_WORDS:
        if name in fields and re.search(rf"(?<![A-Za-z_]){re.escape(word)}(?![A-Za-z_])", message):
            return name
    return None


def validation_messages(error: Any) -> dict[str, str]:
    """pydantic errors -> {form field: message}, the first message per field."""
    messages: dict[str, str] = {}
    for item in error.errors():
        loc = [str(part) for part in item.get("loc", ())]
        name = next((_LOCATION_TO_FIELD[p] for p in reversed(loc) if p in _LOCATION_TO_FIELD), None)
        name = name or (loc[0] if loc else "form")
        message = str(item.get("msg", "is not valid")).removeprefix("Value error, ")
        messages.setdefault(name, message)
    return messages


def _amount_field(name: str, label: str, payment: Any, default: int | None, hint: str) -> Field:
    currency = getattr(payment, "currency", "") or ""
    text = format_amount(default, currency, code=False) if default is not None else ""
    return Field(name, f"{label} ({currency})", Input(value=text, id=f"field-{name}"), hint)


def _parse_amount_field(form: FormScreen, name: str, currency: str, errors: dict[str, str]) -> Any:
    raw = form.value(name)
    if raw is None:
        return None
    try:
        return parse_amount(raw, currency)
    except ValueError as exc:
        errors[name] = str(exc)
        return None


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
        self.submit_label = f"Capture {format_amount(capturable, payment.currency)}"
        self.capturable = capturable

    def fields(self) -> list[Field]:
        return [_amount_field("amount", "Amount to capture", self.payment, self.capturable, "")]

    def build(self) -> Any:
        from tui.api.models.payments import PaymentCaptureRequest

        errors: dict[str, str] = {}
        amount = _parse_amount_field(self, "amount", self.payment.currency, errors)
        if amount is not None and amount > self.capturable:
            errors["amount"] = (
                f"At most {format_amount(self.capturable, self.payment.currency)} can be captured."
            )
        if errors:
            raise FormErrors(errors)
        return PaymentCaptureRequest(amount_to_capture=amount)

    async def send(self, request: Any) -> Any:
        client = self.app.runtime.client  # type: ignore[attr-defined]
        return await client.payments.capture(self.payment.payment_id, request)


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
        self.submit_label = f"Refund {format_amount(self.remaining, payment.currency)}"

    def fields(self) -> list[Field]:
        return [
            _amount_field("amount", "Amount", self.payment, self.remaining, ""),
            Field(
                "reason", "Reason", Input(placeholder="e.g. customer request", id="field-reason")
            ),
        ]

    def build(self) -> Any:
        from tui.api.models.refunds import RefundCreateRequest

        errors: dict[str, str] = {}
        amount = _parse_amount_field(self, "amount", self.payment.currency, errors)
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
        client = self.app.runtime.client  # type: ignore[attr-defined]
        refund = await client.refunds.create(request)
        self.app.notify(
            f"{refund.refund_id}: {format_amount(refund.amount, refund.currency)} {refund.status}.",
            title="Refund created",
        )
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
        client = self.app.runtime.client  # type: ignore[attr-defined]
        return await client.payments.cancel(self.payment.payment_id, request)


class SimpleActionForm(FormScreen):
    """Approve or reject a payment held for review: a confirmation with no fields."""

    def __init__(self, payment_id: str, action: str) -> None:
        super().__init__()
        self.payment_id = payment_id
        self.action = action
        self.title_text = f"{action.title()} payment"
        if action == "approve":
            self.intro = f"Approve {payment_id}? It is released from review and proceeds."
        else:
            self.intro = f"Reject {payment_id}? The authorisation is voided; no charge."
            self.submit_variant = "error"
        self.submit_label = action.title()

    async def send(self, request: Any) -> Any:
        client = self.app.runtime.client  # type: ignore[attr-defined]
        call = client.payments.approve if self.action == "approve" else client.payments.reject
        return await call(self.payment_id)


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
        return getattr(self.app.runtime, "sandbox", None) is not None  # type: ignore[attr-defined]

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
        client = self.app.runtime.client  # type: ignore[attr-defined]
        return await client.payments.confirm(self.payment.payment_id, request)


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
            _amount_field("amount", "Amount", p, p.amount, ""),
            Field("description", "Description", Input(p.description or "", id="field-description")),
            Field("email", "Email", Input(p.email or "", id="field-email")),
        ]

    def build(self) -> Any:
        from tui.api.models.payments import PaymentUpdateRequest

        errors: dict[str, str] = {}
        amount = _parse_amount_field(self, "amount", self.payment.currency, errors)
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
        client = self.app.runtime.client  # type: ignore[attr-defined]
        return await client.payments.update(self.payment.payment_id, request)


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
        client = self.app.runtime.client  # type: ignore[attr-defined]
        return await client.sandbox.complete_3ds(self.payment_id, self.value("result"))


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
        client = self.app.runtime.client  # type: ignore[attr-defined]
        return await client.payments.create(request)


def open_action(
    app: App[Any],
    action: str,
    payment: Any,
    payment_id: str,
    callback: Callable[[Any], None],
) -> None:
    """Open the form of `action` for a payment (fetching it first when only the id is known)."""
    runtime = app.runtime  # type: ignore[attr-defined]
    if action == "3ds" and runtime.sandbox is None:
        app.notify("3-D Secure completion is for the local sandbox only.", severity="warning")
        return
    if action in ("approve", "reject"):
        app.push_screen(SimpleActionForm(payment_id, action), callback)
        return
    if action == "3ds":
        app.push_screen(ThreeDSForm(payment_id), callback)
        return

    async def with_payment() -> None:
        current = payment
        if current is None or (action == "refund" and current.refunds is None):
            current = await runtime.client.payments.retrieve(payment_id)
        forms: dict[str, Callable[[], FormScreen]] = {
            "capture": lambda: CaptureForm(current),
            "refund": lambda: RefundForm(current),
            "cancel": lambda: CancelForm(current),
            "update": lambda: UpdateForm(current),
            "confirm": lambda: ConfirmForm(current),
        }
        if action not in forms:
            app.notify(f"No action {action!r}.", severity="warning")
            return
        await app.push_screen(forms[action](), callback)

    app.run_worker(
        with_payment(), group="payment-action", exit_on_error=False, description="Payment"
    )
