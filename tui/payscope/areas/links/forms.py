"""The payment link form: amount, currency, description, expiry, return URL, the page's look
and a customer, validated by the API's `PaymentLinkCreateRequest` before anything is sent.

On the local sandbox the link is made with `POST /payment_link`; on a remote profile the real
service's way (`POST /payments` with `payment_link: true`, the expiry as `session_expiry`
seconds). The expiry is typed as a span from now (`30m`, `1h`, `1d`) or a time, and judged by
the service's clock (the sandbox's may be ahead of real time). The button says what will be
made.
"""

from __future__ import annotations

from datetime import UTC, datetime

from pydantic import ValidationError
from textual import on
from textual.widgets import Input, Label, Select

from payscope.api.errors import NotFoundError
from payscope.api.models._iso import is_currency
from payscope.api.models.links import PaymentLink, PaymentLinkCreateRequest
from payscope.views.forms import (
    Field,
    FormErrors,
    FormScreen,
    amount_field,
    read_amount,
    validation_messages,
)
from payscope.views.ids import id_problem
from payscope.views.when import SPAN_EXAMPLES, parse_moment, parse_span, span_text
from payscope.widgets.format import format_amount, parse_amount

# What the service does with no expiry: the link lives 15 minutes (the local sandbox and the
# real service alike). The form starts with it.
DEFAULT_EXPIRY = "15m"
# Hosted-page layouts the real service's SDK knows (`payment_link_config.sdk_layout`).
LAYOUTS: tuple[tuple[str, str], ...] = (
    ("tabs", "tabs"),
    ("accordion", "accordion"),
    ("spaced accordion", "spaced_accordion"),
)
DEFAULT_CURRENCY = "USD"


def _span_seconds(text: str | None) -> int | None:
    """The seconds of a span typed (`2h`), or None for anything else (a time)."""
    try:
        return int(parse_span(text or "").total_seconds())
    except ValueError:
        return None


class NewLinkForm(FormScreen[PaymentLinkCreateRequest, PaymentLink]):
    """Make a payment link: what it asks for, until when, where the customer goes after, and
    how the page looks."""

    title_text = "New payment link"
    submit_label = "Make link"
    # Seconds the link lives (set when the fields are read; None: the service's default).
    lifetime: int | None = None

    @property
    def intro(self) -> str:  # type: ignore[override]
        if self.runtime.options.is_local:
            return (
                "The local sandbox makes the link and its payment; the customer pays on the "
                "link's page (test cards work there)."
            )
        return (
            "Made the service's way: a payment with payment_link: true; the expiry is sent as "
            "the payment's session_expiry."
        )

    def fields(self) -> list[Field]:
        return [
            amount_field("amount", "Amount", DEFAULT_CURRENCY, None, "What the customer pays."),
            Field(
                "currency",
                "Currency",
                Input(DEFAULT_CURRENCY, id="field-currency", max_length=3),
                "ISO 4217 (USD, EUR, JPY).",
            ),
            Field(
                "description",
                "Description",
                Input(placeholder="e.g. Workshop seat", id="field-description"),
                "Shown to the customer on the page.",
            ),
            Field(
                "expiry",
                "Expires",
                Input(DEFAULT_EXPIRY, id="field-expiry"),
                f"A span from now ({SPAN_EXAMPLES}) or a time (2024-06-01T09:00Z); by the "
                "service's clock. Blank: the service's default, 15 minutes.",
            ),
            Field(
                "return_url",
                "Return URL (optional)",
                Input(placeholder="https://shop.example/thanks", id="field-return_url"),
                "Where the customer lands after paying.",
            ),
            Field(
                "seller_name",
                "Seller name (optional)",
                Input(placeholder="the name on the page", id="field-seller_name"),
                group="Look of the page",
            ),
            Field(
                "sdk_layout",
                "Layout",
                Select(LAYOUTS, prompt="the service's default", id="field-sdk_layout"),
                "How the page lays out the payment methods.",
                group="Look of the page",
            ),
            Field(
                "customer_id",
                "Customer (optional)",
                Input(placeholder="cus_…", id="field-customer_id"),
                "The customer the payment is for.",
            ),
        ]

    # -- reading the fields ----------------------------------------------------------------------

    def _now(self) -> datetime:
        return datetime.fromtimestamp(self.runtime.now(), UTC)

    def _currency(self) -> str:
        return str(self.value("currency") or "").upper()

    def _expiry(self, errors: dict[str, str]) -> datetime | None:
        """The expiry typed, as a moment (None: blank, the service's default)."""
        raw = self.value("expiry")
        if raw is None:
            return None
        now = self._now()
        try:
            moment = parse_moment(raw, now)
        except ValueError as exc:
            errors["expiry"] = str(exc)[:1].upper() + str(exc)[1:]
            return None
        if moment <= now:
            stamp = now.strftime("%Y-%m-%d %H:%M UTC")
            errors["expiry"] = f"That is not after the service's now ({stamp}): pick a later time."
            return None
        return moment

    @on(Input.Changed, "#field-currency")
    def _currency_typed(self) -> None:
        # The amount is read in the currency: its label says which.
        code = self._currency() or "?"
        self.query_one("#label-amount", Label).update(f"Amount ({code})")

    def submit_text(self) -> str | None:
        currency = self._currency()
        raw = self.value("amount")
        if not raw or not is_currency(currency):
            return None
        what = format_amount(parse_amount(raw, currency), currency)
        moment = self._expiry({})
        if moment is None:
            return f"Make a {what} link" if self.value("expiry") else f"Make a {what} link (15 min)"
        return f"Make a {what} link ({span_text(moment - self._now())})"

    def build(self) -> PaymentLinkCreateRequest:
        errors: dict[str, str] = {}
        currency = self._currency()
        amount: int | None = None
        if not is_currency(currency):
            errors["currency"] = (
                f"{currency or 'Nothing'!r} is not an ISO 4217 code (USD, EUR, JPY)."
            )
        elif self.value("amount") is None:
            errors["amount"] = "Type what the customer pays, such as 25.00."
        else:
            amount = read_amount(self, "amount", currency, errors)
            if amount == 0:
                errors["amount"] = "A link asks for more than nothing: type an amount above 0."
        moment = self._expiry(errors)
        # How long the link lives, for the real service's `session_expiry`: a span exactly as
        # typed, a time as the seconds from now to it.
        self.lifetime = _span_seconds(self.value("expiry")) if moment else None
        if moment and self.lifetime is None:
            self.lifetime = max(round((moment - self._now()).total_seconds()), 1)
        return_url = self.value("return_url")
        if return_url and not return_url.startswith(("https://", "http://")):
            errors["return_url"] = "A web address starting with https:// (or http://)."
        customer = self.value("customer_id")
        if customer and (problem := id_problem(customer, "customer")):
            errors["customer_id"] = problem
        config = {
            "seller_name": self.value("seller_name"),
            "sdk_layout": self.value("sdk_layout"),
        }
        body = {
            "amount": amount,
            "currency": currency,
            "description": self.value("description"),
            "expiry": moment.strftime("%Y-%m-%dT%H:%M:%SZ") if moment else None,
            "return_url": return_url,
            "customer_id": customer,
            "payment_link_config": {k: v for k, v in config.items() if v} or None,
        }
        try:
            request = PaymentLinkCreateRequest.model_validate(
                {k: v for k, v in body.items() if v is not None}
            )
        except ValidationError as exc:
            # The model's messages, under the fields the form's own checks left alone.
            for name, message in validation_messages(exc).items():
                errors.setdefault(name, message)
        if errors:
            raise FormErrors(errors)
        return request

    async def send(self, request: PaymentLinkCreateRequest) -> PaymentLink:
        try:
            return await self._make(request)
        except NotFoundError:
            if request.customer_id:  # the only thing a link names that may not exist
                raise FormErrors(
                    {"customer_id": "No customer has this id on this profile: check the id."}
                ) from None
            raise

    async def _make(self, request: PaymentLinkCreateRequest) -> PaymentLink:
        links = self.client.payment_links
        if self.runtime.options.is_local:
            return await links.create(request)
        # The real service: a payment with a link, living `session_expiry` seconds.
        return await links.create_with_payment(request, session_expiry=self.lifetime)
