"""The subscription forms: a new subscription, a plan change, pause, resume, cancel.

Built on the generic forms of `payscope.views.forms`, validated by the request models of
`payscope.api.models.subscriptions`; each button says what will be sent. Pause and cancel take the
spec's options (now, at the end of the term, on a date); cancelling asks once more. What a form
changed is announced by the action that opened it (no webhook reports it); a new subscription
is announced here, a declined one too (it exists, failed) while the form stays open.
"""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any, TypeVar, cast

from rich.text import Text
from textual import on, work
from textual.widgets import Input, Select, Static

from payscope.api.codes import explain
from payscope.api.errors import ClientError
from payscope.api.models.customers import Customer, CustomerListRequest
from payscope.api.models.subscriptions import (
    Subscription,
    SubscriptionCancelRequest,
    SubscriptionCreateRequest,
    SubscriptionListRequest,
    SubscriptionPauseRequest,
    SubscriptionResumeRequest,
    SubscriptionUpdateRequest,
)
from payscope.areas.subscriptions.spec import Catalogue
from payscope.views.card_form import CardFormScreen, card_data, card_fields
from payscope.views.choices import Choice, ChoiceFormScreen
from payscope.views.forms import ConfirmScreen, Field, FormErrors, FormScreen
from payscope.views.ids import id_problem
from payscope.views.live import announce
from payscope.views.lookup import look_up_id
from payscope.views.when import parse_moment
from payscope.widgets.format import brand_label, format_time
from payscope.widgets.inputs import Picker, SafeInput
from payscope.widgets.text import safe, safe_markup, visible

# What a date field takes (payscope.views.when reads it).
EXAMPLES = "In UTC: 2024-06-01, 2024-06-01T14:30, or a span from now such as 3d."
# The customers the picker offers (the newest).
CUSTOMERS_OFFERED = 50
# The local sandbox's card that pays the first term and declines every later charge.
RENEWAL_FAILS_CARD = "4000 0000 0000 0341"
NEW_CARD = "card"
# Decline codes that are about one card field, and that field.
_DECLINE_FIELDS = {"UE_1002": "expiry", "UE_1003": "card", "UE_1004": "cvc", "UE_4002": "cvc"}


def future_moment(typed: str, now: float) -> str:
    """A time typed in a form, as the service takes it (ValueError said for a person): after
    the service's now (the sandbox clock on a local profile)."""
    start = datetime.fromtimestamp(now, UTC)
    moment = parse_moment(typed, start).astimezone(UTC)
    if moment <= start:
        raise ValueError(
            f"{moment:%Y-%m-%d %H:%M} UTC is not ahead: the service's time is now "
            f"{start:%Y-%m-%d %H:%M} UTC."
        )
    return moment.strftime("%Y-%m-%dT%H:%M:%SZ")


def price_options(found: Catalogue, skip: str | None = None) -> list[tuple[Text, str]]:
    """(label, price id) for each price of the catalogue, `skip` left out."""
    return [
        (Text(visible(p.label)), p.price_id) for p in found.prices.values() if p.price_id != skip
    ]


def declined(sub: Subscription) -> FormErrors | None:
    """The decline of a subscription's first charge, per card field when it is about one."""
    payment = sub.payment
    if sub.status != "failed" and (payment is None or payment.status != "failed"):
        return None
    code = (payment.unified_code or payment.error_code) if payment else None
    message = (payment.unified_message or payment.error_message) if payment else None
    info = explain(code)
    what = f"{code} {info.title}" if code else "declined"
    reason = f": {message}" if message and message != info.title else ""
    general = (
        f"Declined ({what}{reason}). {sub.id} was made and is failed; change the card and "
        "send again for a new one."
    )
    field = _DECLINE_FIELDS.get(str(code))
    if field is None:
        return FormErrors({}, general)
    return FormErrors({field: f"{what}: {info.meaning}"}, general)


# -- a new subscription ---------------------------------------------------------------------------


class NewSubscriptionForm(  # type: ignore[misc]
    CardFormScreen, ChoiceFormScreen, FormScreen[SubscriptionCreateRequest, Subscription]
):
    """A customer (picked or typed), a plan's price, and a card or the customer's saved one."""

    title_text = "New subscription"
    intro = "Charged now for the first term (a trial price starts the trial)."
    submit_label = "Subscribe"

    def __init__(
        self, found: Catalogue, *, customer_id: str | None = None, plan_id: str | None = None
    ) -> None:
        super().__init__()
        self.catalogue = found
        self.initial_customer = customer_id or ""
        self.initial_plan = plan_id
        self.customer: Customer | None = None  # the customer the id field names, once read
        self.saved: dict[str, str] = {}  # payment method id -> label

    def fields(self) -> list[Field]:
        prices = price_options(self.catalogue)
        first = next(
            (p.price_id for p in self.catalogue.prices.values() if p.plan_id == self.initial_plan),
            prices[0][1] if prices else Select.NULL,
        )
        price_hint = (
            f"The plans could not be read: {safe_markup(self.catalogue.problem)}"
            if self.catalogue.problem
            else "From the service's plan catalogue."
        )
        card, expiry, cvc = card_fields(self.local)
        if self.local:
            card.hint = (
                f"Visa · succeeds. {RENEWAL_FAILS_CARD} pays the first term, then every renewal "
                "declines. Ctrl+T picks another test card."
            )
        return [
            Field(
                "customers",
                "Customer",
                Picker([], prompt="Pick one of the newest customers…", id="field-customers"),
            ),
            Field(
                "customer_id",
                "Customer id",
                SafeInput(self.initial_customer, placeholder="cus_…", id="field-customer_id"),
                "Picked above, or typed.",
            ),
            Field(
                "item_price_id",
                "Plan and price",
                Picker(
                    prices,
                    prompt="No plans" if not prices else "Pick a price",
                    value=first,
                    allow_blank=not prices,
                    id="field-item_price_id",
                ),
                price_hint,
            ),
            Field(
                "method",
                "Pay with",
                Picker(
                    [("a new card", NEW_CARD)],
                    value=NEW_CARD,
                    allow_blank=False,
                    id="field-method",
                ),
                "A customer's saved card is offered once the customer is known."
                if self.local
                else "",
            ),
            card,
            expiry,
            cvc,
            Field(
                "card_holder_name",
                "Name on card",
                Input("Test Customer", id="field-card_holder_name"),
            ),
            Field(
                "merchant_reference_id",
                "Your reference (optional)",
                Input(placeholder="e.g. order_1042", id="field-merchant_reference_id"),
            ),
        ]

    def on_mount(self) -> None:
        # FormScreen.on_mount (focus, the button's label) is called by Textual as well.
        self._load_customers()
        if self.initial_customer:
            self._look_up(self.initial_customer)

    # -- the customer ------------------------------------------------------------------------

    @work(group="subscription-customers", exit_on_error=False, description="Customers")
    async def _load_customers(self) -> None:
        page = await self.client.customers.list(CustomerListRequest(limit=CUSTOMERS_OFFERED))
        options = []
        for c in page.data:
            words = [w for w in (c.name, c.email) if w] or ["(no name)"]
            label = Text.assemble(safe(" · ".join(str(w) for w in words)), "  ")
            label.append_text(safe(c.customer_id, "dim"))
            options.append((label, c.customer_id))
        picker = self.query_one("#field-customers", Select)
        picker.set_options(options)
        if self.initial_customer in {value for _label, value in options}:
            picker.value = self.initial_customer

    @on(Select.Changed, "#field-customers")
    def _picked(self, event: Select.Changed) -> None:
        if event.value is not Select.NULL:
            self.query_one("#field-customer_id", Input).value = str(event.value)

    @on(Input.Changed, "#field-customer_id")
    def _customer_typed(self, event: Input.Changed) -> None:
        self.customer = None
        self._hint("customer_id", "Picked above, or typed.")
        self._offer_saved({})
        self._look_up(event.value.strip())

    @work(exclusive=True, group="subscription-customer", exit_on_error=False)
    async def _look_up(self, customer_id: str) -> None:
        customer = await look_up_id(
            customer_id,
            "customer",
            self.client.customers.retrieve,
            lambda text: self._hint("customer_id", text),
        )
        if customer is None:
            return
        self.customer = customer
        words = [safe_markup(w) for w in (customer.name, customer.email) if w]
        self._hint("customer_id", " · ".join(words) or "a customer without a name")
        if self.local:
            self._offer_saved(await self._saved_methods(customer_id))

    async def _saved_methods(self, customer_id: str) -> dict[str, str]:
        """The cards this customer's other subscriptions saved (the local sandbox charges a
        saved one by its payment_method_id), each with its number's end when a charge shows."""
        try:
            page = await self.client.sandbox.subscriptions(
                SubscriptionListRequest(customer_id=customer_id, limit=20)
            )
        except ClientError:
            return {}
        found: dict[str, str] = {}
        for sub in page.data:
            pm = sub.payment_method_id
            if not pm or pm in found:
                continue
            label = f"saved card {pm} (from {sub.id})"
            if sub.payment is not None:
                try:
                    payment = await self.client.payments.retrieve(sub.payment.payment_id)
                except ClientError:
                    payment = None
                card = (
                    payment.payment_method_data.card
                    if payment and payment.payment_method_data
                    else None
                )
                if card is not None:
                    label = f"saved {brand_label(card.brand)} •••• {card.last4} ({pm})"
            found[pm] = label
        return found

    def _offer_saved(self, saved: dict[str, str]) -> None:
        self.saved = saved
        method = self.query_one("#field-method", Select)
        chosen = method.value
        options: list[tuple[Any, str]] = [("a new card", NEW_CARD)]
        options += [(Text(visible(label)), pm) for pm, label in saved.items()]
        method.set_options(options)
        method.value = chosen if chosen in {NEW_CARD, *saved} else NEW_CARD
        if self.local and saved:
            self._hint(
                "method", f"{len(saved)} saved card{'s' * (len(saved) != 1)} of this customer."
            )

    def choices(self) -> list[Choice]:
        # A saved card needs no card fields.
        return [Choice("method", {NEW_CARD: ["card", "expiry", "cvc", "card_holder_name"]})]

    def _hint(self, name: str, markup: str) -> None:
        for hint in self.query(f"#hint-{name}"):
            if isinstance(hint, Static):
                hint.update(markup)

    # -- sending -------------------------------------------------------------------------------

    def submit_text(self) -> str | None:
        price = self.catalogue.price(self.value("item_price_id"))
        if price is None:
            return None
        if price.trial_days:
            return f"Start a {price.trial_days}-day trial, then {price.charge}"
        return f"Subscribe: {price.charge}"

    def build(self) -> SubscriptionCreateRequest:
        errors: dict[str, str] = {}
        customer_id = self.value("customer_id")
        if not customer_id:
            errors["customer_id"] = "Pick a customer above or type an id (cus_…)."
        elif problem := id_problem(customer_id, "customer"):
            errors["customer_id"] = problem
        price = self.catalogue.price(self.value("item_price_id"))
        if price is None:
            errors["item_price_id"] = "Pick a plan's price." + (
                " The catalogue could not be read: Esc, then try again."
                if self.catalogue.problem
                else ""
            )
        method = self.value("method") or NEW_CARD
        details: dict[str, Any] = {
            "payment_method": "card",
            "setup_future_usage": "off_session",
            "customer_acceptance": {
                "acceptance_type": "online",
                "online": {"ip_address": "127.0.0.1", "user_agent": "payscope"},
            },
        }
        if method == NEW_CARD:
            if not self.value("card"):
                errors["card"] = "Type a card number (Ctrl+T picks a test card)."
            if not self.value("card_holder_name"):
                errors["card_holder_name"] = "Type the name on the card."
            card = card_data(self)
            card["card"]["card_holder_name"] = self.value("card_holder_name") or ""
            details |= {"payment_method_type": "credit", "payment_method_data": card}
        else:
            details["payment_method_id"] = method
        if errors:
            raise FormErrors(errors)
        assert price is not None
        body = {
            "customer_id": customer_id,
            "plan_id": price.plan_id,
            "item_price_id": price.price_id,
            "merchant_reference_id": self.value("merchant_reference_id"),
            "payment_details": details,
        }
        return SubscriptionCreateRequest.model_validate({k: v for k, v in body.items() if v})

    async def send(self, request: SubscriptionCreateRequest) -> Subscription:
        sub = await self.client.subscriptions.create(request)
        announce(self.app, sub.id, "subscription_created", sub.status)
        problem = declined(sub)
        if problem is not None:
            raise problem
        return sub


# -- a plan change --------------------------------------------------------------------------------

_CHANGE_EFFECT = {
    "active": "The new price is charged now and a new term starts.",
    "unpaid": "The new price is charged now: paid, the subscription is active again.",
    "trial": "The trial goes on; the new price is charged when it ends.",
    "paused": "Nothing is charged: it waits, pending, until it is resumed.",
}


class UpdatePlanForm(FormScreen[SubscriptionUpdateRequest, Subscription]):
    """Move a subscription to another price (of its plan or another)."""

    title_text = "Change plan"
    submit_label = "Change plan"

    def __init__(self, sub: Subscription, found: Catalogue) -> None:
        super().__init__()
        self.sub = sub
        self.catalogue = found
        current = found.price(sub.item_price_id)
        now_on = current.label if current else f"{sub.plan_id} / {sub.item_price_id}"
        self.intro = f"{sub.id} is on {now_on}. " + _CHANGE_EFFECT.get(str(sub.status), "")

    def fields(self) -> list[Field]:
        if not self.catalogue.prices:
            # The catalogue could not be read: the ids are typed.
            hint = f"The plans could not be read ({self.catalogue.problem})."
            return [
                Field("plan_id", "Plan id", Input(id="field-plan_id"), hint),
                Field("item_price_id", "Price id", Input(id="field-item_price_id")),
            ]
        options = price_options(self.catalogue, skip=self.sub.item_price_id)
        return [
            Field(
                "item_price_id",
                "New plan and price",
                Picker(
                    options,
                    value=options[0][1] if options else Select.NULL,
                    allow_blank=not options,
                    id="field-item_price_id",
                ),
                "Its current price is left out.",
            )
        ]

    def submit_text(self) -> str | None:
        price = self.catalogue.price(self.value("item_price_id"))
        return f"Switch to {price.label}" if price else None

    def build(self) -> SubscriptionUpdateRequest:
        price_id = self.value("item_price_id")
        price = self.catalogue.price(price_id)
        plan_id = price.plan_id if price else self.value("plan_id")
        return SubscriptionUpdateRequest.model_validate(
            {"plan_id": plan_id or "", "item_price_id": price_id or ""}
        )

    async def send(self, request: SubscriptionUpdateRequest) -> Subscription:
        sub = await self.client.subscriptions.update(self.sub.id, request)
        if sub.status == "unpaid":
            self.app.notify(
                f"{sub.id}: the new price was declined, so it is unpaid; its detail says why.",
                title="Plan changed, charge declined",
                severity="warning",
                markup=False,
            )
        else:
            self.app.notify(f"{sub.id}: {sub.status}", title="Plan changed", markup=False)
        return sub


# -- pause and cancel: now, at the end of the term, or on a date ---------------------------------


# What a schedule form sends: a pause or a cancellation.
Schedule = TypeVar("Schedule", SubscriptionPauseRequest, SubscriptionCancelRequest)


class ScheduleForm(ChoiceFormScreen, FormScreen[Schedule, Subscription]):  # type: ignore[misc]
    """Pause or cancel (`action`) now, at the end of the term, or on a date."""

    action = "pause"
    verb = "Pause"
    model: type[Schedule]  # the request it sends

    def __init__(self, sub: Subscription, found: Catalogue) -> None:
        super().__init__()
        self.sub = sub
        self.title_text = f"{self.verb} subscription"
        self.submit_label = f"{self.verb} now"

    @property
    def option_field(self) -> str:
        return f"{self.action}_option"

    @property
    def date_field(self) -> str:
        return f"{self.action}_at"

    def options(self) -> list[tuple[str, str]]:
        choices = [("now", "immediately")]
        if self.sub.next_billing_at:
            end = format_time(self.sub.next_billing_at, seconds=False)
            choices.append((f"at the end of the term ({end})", "end_of_term"))
        choices.append(("on a date", "specific_date"))
        return choices

    def fields(self) -> list[Field]:
        return [
            Field(
                self.option_field,
                "When",
                Picker(
                    self.options(),
                    value="immediately",
                    allow_blank=False,
                    id=f"field-{self.option_field}",
                ),
            ),
            Field(
                self.date_field,
                "Date",
                Input(placeholder="2024-06-01", id=f"field-{self.date_field}"),
                EXAMPLES,
            ),
        ]

    def choices(self) -> list[Choice]:
        return [Choice(self.option_field, {"specific_date": [self.date_field]})]

    def _moment(self) -> str | None:
        """The date typed, as the service takes it (FormErrors under the field)."""
        if self.value(self.option_field) != "specific_date":
            return None
        try:
            return future_moment(self.value(self.date_field) or "", self.runtime.now())
        except ValueError as exc:
            raise FormErrors({self.date_field: str(exc)}) from None

    def submit_text(self) -> str | None:
        option = self.value(self.option_field)
        if option == "end_of_term":
            return f"{self.verb} at the end of the term"
        if option == "specific_date":
            try:
                moment = self._moment()
            except FormErrors:
                return f"{self.verb} on a date"
            return f"{self.verb} on {format_time(moment, seconds=False)}"
        return f"{self.verb} now"

    def build(self) -> Schedule:
        body = {self.option_field: self.value(self.option_field), self.date_field: self._moment()}
        return self.model.model_validate({k: v for k, v in body.items() if v is not None})

    async def send(self, request: Schedule) -> Subscription:
        sub = await self.call(request)
        change = sub.scheduled_change or {}
        when = f" at {format_time(change.get('at'))}" if change.get("action") else ""
        self.app.notify(f"{sub.id}: {sub.status}{when}", title=self.done_title(sub), markup=False)
        return sub

    async def call(self, request: Schedule) -> Subscription:
        """Send `request` (each form its own route)."""
        raise NotImplementedError

    def done_title(self, sub: Subscription) -> str:
        return "Pause scheduled" if sub.scheduled_change else "Subscription paused"


class PauseForm(ScheduleForm[SubscriptionPauseRequest]):
    """Pause: no charges until it is resumed."""

    action = "pause"
    verb = "Pause"
    model = SubscriptionPauseRequest
    submit_variant = "warning"

    def __init__(self, sub: Subscription, found: Catalogue) -> None:
        super().__init__(sub, found)
        self.intro = f"While {sub.id} is paused nothing is charged; u resumes it."

    async def call(self, request: SubscriptionPauseRequest) -> Subscription:
        return await self.client.subscriptions.pause(self.sub.id, request)


class CancelForm(ScheduleForm[SubscriptionCancelRequest]):
    """Cancel: no further charges, and a cancelled subscription cannot be resumed. Asks once
    more before sending."""

    action = "cancel"
    verb = "Cancel"
    model = SubscriptionCancelRequest
    submit_variant = "error"

    def __init__(self, sub: Subscription, found: Catalogue) -> None:
        super().__init__(sub, found)
        self.intro = f"Once {sub.id} is cancelled nothing more is charged and it cannot resume."

    async def call(self, request: SubscriptionCancelRequest) -> Subscription:
        option = self.value(self.option_field)
        when = self.submit_text() or "Cancel now"
        sure = await self.app.push_screen_wait(
            ConfirmScreen(
                "Cancel subscription",
                f"{when.replace('Cancel', 'Cancel ' + self.sub.id, 1)}? "
                + (
                    "Billing stops at once."
                    if option == "immediately"
                    else "Until then it runs and bills as now."
                ),
                "Yes, cancel it",
                lambda: self.client.subscriptions.cancel(self.sub.id, request),
                variant="error",
            )
        )
        if sure is None:
            raise FormErrors({}, "Not cancelled.")
        return cast(Subscription, sure)  # what the confirmation's cancel answered

    def done_title(self, sub: Subscription) -> str:
        return "Cancellation scheduled" if sub.scheduled_change else "Subscription cancelled"


# -- resume ---------------------------------------------------------------------------------------

_CHARGES = [
    ("bill the paused time now", "invoice_immediately"),
    ("add it to the next bill", "add_to_unbilled_charges"),
]
_UNPAID = [
    ("charge the failed invoice again", "schedule_payment_collection"),
    ("leave it unpaid, start a new term", "no_action"),
]


class ResumeForm(ChoiceFormScreen, FormScreen[SubscriptionResumeRequest, Subscription]):  # type: ignore[misc]
    """Resume now or on a date, with the spec's handling of accrued charges and unpaid invoices
    (each offered where it applies)."""

    title_text = "Resume subscription"
    submit_label = "Resume now"

    def __init__(self, sub: Subscription, found: Catalogue) -> None:
        super().__init__()
        self.sub = sub
        self.intro = {
            "unpaid": f"{sub.id} stopped billing when a charge failed. Resuming charges again "
            "unless the failed invoice is left unpaid.",
            "paused": f"{sub.id} is paused. Resuming starts a new term.",
            "pending": f"{sub.id} waits on its new plan. Resuming starts it.",
        }.get(str(sub.status), f"Resume {sub.id}.")

    def fields(self) -> list[Field]:
        found = [
            Field(
                "resume_option",
                "When",
                Picker(
                    [("now", "immediately"), ("on a date", "specific_date")],
                    value="immediately",
                    allow_blank=False,
                    id="field-resume_option",
                ),
            ),
            Field(
                "resume_date",
                "Date",
                Input(placeholder="2024-06-01", id="field-resume_date"),
                EXAMPLES,
            ),
        ]
        status = str(self.sub.status)
        if status != "unpaid":
            found.append(
                Field(
                    "charges_handling",
                    "Charges of the paused time",
                    Picker(_CHARGES, prompt="the service's default", id="field-charges_handling"),
                )
            )
        if status not in ("paused", "pending"):
            found.append(
                Field(
                    "unpaid_invoices_handling",
                    "The unpaid invoice",
                    Picker(
                        _UNPAID,
                        prompt="the service's default",
                        id="field-unpaid_invoices_handling",
                    ),
                )
            )
        return found

    def choices(self) -> list[Choice]:
        return [Choice("resume_option", {"specific_date": ["resume_date"]})]

    def _date(self) -> str | None:
        if self.value("resume_option") != "specific_date":
            return None
        try:
            return future_moment(self.value("resume_date") or "", self.runtime.now())
        except ValueError as exc:
            raise FormErrors({"resume_date": str(exc)}) from None

    def _has(self, name: str) -> bool:
        return any(f.name == name for f in self._fields)

    def submit_text(self) -> str | None:
        if self.value("resume_option") == "specific_date":
            try:
                moment = self._date()
            except FormErrors:
                return "Resume on a date"
            return f"Resume on {format_time(moment, seconds=False)}"
        return "Resume now"

    def build(self) -> SubscriptionResumeRequest:
        body = {
            "resume_option": self.value("resume_option"),
            "resume_date": self._date(),
            "charges_handling": self.value("charges_handling")
            if self._has("charges_handling")
            else None,
            "unpaid_invoices_handling": self.value("unpaid_invoices_handling")
            if self._has("unpaid_invoices_handling")
            else None,
        }
        return SubscriptionResumeRequest.model_validate(
            {k: v for k, v in body.items() if v is not None}
        )

    async def send(self, request: SubscriptionResumeRequest) -> Subscription:
        sub = await self.client.subscriptions.resume(self.sub.id, request)
        if sub.status == "unpaid":
            self.app.notify(
                f"{sub.id}: the charge on resuming was declined; its detail says why.",
                title="Resume declined",
                severity="warning",
                markup=False,
            )
        else:
            self.app.notify(f"{sub.id}: {sub.status}", title="Subscription resumed", markup=False)
        return sub
