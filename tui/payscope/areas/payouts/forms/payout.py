"""The payout form: a new payout whose fields follow the chosen method (`methods`), and its update
before confirmation. The models check the method fields and their messages appear under the
fields. Account and card numbers show masked once typed. Each button says what will be sent.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

from pydantic import ValidationError
from rich.text import Text
from textual import work
from textual.widgets import Checkbox, Select, Static
from textual.widgets.select import NoSelection

from payscope.api.errors import ApiError
from payscope.api.models._iso import is_currency
from payscope.api.models.payouts import (
    _METHOD_PAYOUT_TYPE,
    EntityType,
    Payout,
    PayoutCreateRequest,
    PayoutPriority,
    PayoutType,
    PayoutUpdateRequest,
)
from payscope.api.models.real_payouts import REAL_BANK_FIELDS
from payscope.areas.payouts.forms.methods import (
    KIND_PICKER_LABELS,
    METHOD_LABELS,
    METHODS,
    PAYOUT_TEST_CARD,
    PLACEHOLDERS,
    VARIANTS,
    Variant,
    kinds_of,
    nest,
)
from payscope.areas.payouts.spec import FIELD_LABELS, method_text
from payscope.views.choices import Choice, ChoiceFormScreen
from payscope.views.forms import (
    Field,
    FormErrors,
    FormScreen,
    Req,
    Res,
    metadata_field,
    read_metadata,
)
from payscope.views.live import announce
from payscope.views.model_fields import model_errors, model_inputs, model_message, read_model
from payscope.widgets.format import format_amount, parse_amount
from payscope.widgets.inputs import Picker, SafeInput
from payscope.widgets.text import safe, safe_markup

# How much a payout's flow moves on with each choice, said on the button.
_KEEP = "keep"
_NONE = "none"


class PayoutForm(ChoiceFormScreen, FormScreen[Req, Res]):  # type: ignore[misc]
    """The fields a payout is created or updated with; the method fields follow the method."""

    # One-line fields, each on a tinted band so an empty one is still seen.
    DEFAULT_CSS = """
    PayoutForm Input.-textual-compact {
        margin: 0 1 0 1; padding: 0 1; background: $foreground 8%;
    }
    PayoutForm Input.-textual-compact:focus { background: $primary 25%; }
    PayoutForm Select.-textual-compact { margin: 0 1 0 1; }
    PayoutForm Checkbox { margin: 0 0 0 1; }
    PayoutForm TextArea { height: 4; }
    """

    payout: Payout | None = None  # the payout updated (None: a new one)

    def filled(self, key: str) -> Mapping[str, str]:
        """Values a method's fields start with (none: an update shows the payout's own)."""
        return {}

    # -- fields ---------------------------------------------------------------------------------

    def method_options(self) -> list[tuple[str | Text, str]]:
        return [(METHOD_LABELS.get(m, m), m) for m in METHODS]

    def default_method(self) -> str:
        return "card"

    def fields(self) -> list[Field]:
        p = self.payout

        currency = p.currency if p is not None else "USD"
        amount = format_amount(p.amount, p.currency, code=False) if p is not None else "25.00"
        result = [
            Field("amount", "Amount", SafeInput(amount, compact=True, id="field-amount")),
            Field(
                "currency",
                "Currency",
                SafeInput(currency, compact=True, id="field-currency"),
                "ISO 4217: USD, EUR, GBP, BRL…",
            ),
            Field(
                "method",
                "Method",
                Picker(
                    self.method_options(),
                    value=self.default_method(),
                    allow_blank=False,
                    compact=True,
                    id="field-method",
                ),
                "Card, bank account, wallet, bank redirect, or another PSP's token.",
            ),
        ]
        for method in METHODS:
            kinds = self.kinds(method)
            if len(kinds) > 1:
                result.append(
                    Field(
                        f"{method}-kind",
                        KIND_PICKER_LABELS.get(method, "Kind"),
                        Picker(
                            [(v.label, v.key) for v in kinds],
                            value=kinds[0].key,
                            allow_blank=False,
                            compact=True,
                            id=f"field-{method}-kind",
                        ),
                        kinds[0].about,
                    )
                )
            for variant in kinds:
                result.extend(
                    model_inputs(
                        variant.model,
                        variant.key,
                        labels=FIELD_LABELS,
                        placeholders=PLACEHOLDERS,
                        values=self.filled(variant.key),
                    )
                )
        customer = p.customer if p is not None else None
        result += [
            Field(
                "payout_type",
                "Payout type",
                Picker(
                    [(t.value, t.value) for t in PayoutType],
                    prompt="(not set)",
                    value=(p.payout_type if p is not None and p.payout_type else Select.NULL),
                    compact=True,
                    id="field-payout_type",
                ),
                "Follows the method; needed before confirmation.",
            ),
            Field(
                "customer-id",
                "Customer id (optional)",
                SafeInput(
                    (customer.id if customer else None) or "",
                    placeholder="cus_…  blank: a new customer is made",
                    compact=True,
                    id="field-customer-id",
                ),
            ),
            Field(
                "customer-name",
                "Customer name (optional)",
                SafeInput(
                    (customer.name if customer else None) or "",
                    compact=True,
                    id="field-customer-name",
                ),
            ),
            Field(
                "customer-email",
                "Customer email (optional)",
                SafeInput(
                    (customer.email if customer else None) or "",
                    placeholder="e.g. payee@example.com",
                    compact=True,
                    id="field-customer-email",
                ),
            ),
            Field(
                "description",
                "Description (optional)",
                SafeInput(
                    (p.description if p is not None else None) or "",
                    placeholder="e.g. Seller settlement",
                    compact=True,
                    id="field-description",
                ),
            ),
            Field(
                "priority",
                "Priority (optional)",
                Picker(
                    [(v.value, v.value) for v in PayoutPriority],
                    prompt="(service default: regular)",
                    value=(p.priority if p is not None and p.priority else Select.NULL),
                    compact=True,
                    id="field-priority",
                ),
            ),
            Field(
                "entity_type",
                "Recipient entity (optional)",
                Picker(
                    [(v.value, v.value) for v in EntityType],
                    prompt="(not set)",
                    value=_entity(p.entity_type if p is not None else None),
                    compact=True,
                    id="field-entity_type",
                ),
            ),
            Field(
                "auto_fulfill",
                "",
                Checkbox(
                    "Auto-fulfil: send it as soon as it is confirmed",
                    bool(p.auto_fulfill) if p is not None else False,
                    compact=True,
                    id="field-auto_fulfill",
                ),
            ),
            Field(
                "confirm",
                "",
                Checkbox(self.confirm_label(), False, compact=True, id="field-confirm"),
            ),
            metadata_field(
                "metadata", "Metadata (optional)", p.metadata if p is not None else None
            ),
        ]
        return result

    def confirm_label(self) -> str:
        return "Confirm now (create and confirm in one step)"

    def choices(self) -> list[Choice]:
        shows: dict[str, list[str]] = {}
        kinds: list[Choice] = []
        for method in METHODS:
            variants = self.kinds(method)
            if len(variants) > 1:
                shows[method] = [f"{method}-kind"]
                kinds.append(Choice(f"{method}-kind", {v.key: self._names_of(v) for v in variants}))
            else:
                shows[method] = self._names_of(variants[0])
        return [Choice("method", shows), *kinds]

    def kinds(self, method: str) -> list[Variant]:
        """The kinds of `method` this profile's service takes: the real service pays out to
        ACH, BACS, SEPA and Pix bank accounts only (payscope.api.models.payouts.real_service_body),
        so its forms do not offer the spec's other schemes."""
        kinds = kinds_of(method)
        if method == "bank_transfer" and self.app.runtime.api.contract == "real":
            kinds = [v for v in kinds if v.key in REAL_BANK_FIELDS]
        return kinds

    def _names_of(self, variant: Variant) -> list[str]:
        return [f.name for f in self._fields if f.name.startswith(f"{variant.key}-")]

    def variant(self) -> Variant | None:
        """The method kind chosen now (None: no method, or the current one kept)."""
        method = self.value("method")
        if method not in METHODS:
            return None
        kinds = self.kinds(str(method))
        if len(kinds) == 1:
            return kinds[0]
        return VARIANTS.get(str(self.value(f"{method}-kind")), kinds[0])

    def choice_changed(self, name: str) -> None:
        variant = self.variant()
        if name.endswith("-kind") and variant is not None:
            self.query_one(f"#hint-{name}", Static).update(safe_markup(variant.about))
        if name == "method" and variant is not None:
            implied = _METHOD_PAYOUT_TYPE.get(variant.method)
            if implied is not None:  # a passthrough token fits any type: left as it is
                self.query_one("#field-payout_type", Select).value = implied.value

    def on_mount(self) -> None:
        # FormScreen/ChoiceFormScreen.on_mount run as well (Textual calls each class's).
        if self.runtime.has_local_sandbox:
            self._test_accounts()

    @work(group="payout-test-accounts", exit_on_error=False, description="Test accounts")
    async def _test_accounts(self) -> None:
        rows = await self.client.sandbox.payout_test_accounts()
        said = [account_said(r) for r in rows if r.get("rule") != "anything else"]
        if said:
            text = "Sandbox: " + " · ".join(safe_markup(s) for s in said)
            self.query_one("#hint-method", Static).update(text)

    # -- reading -----------------------------------------------------------------------------

    def read(self) -> dict[str, Any]:
        """The request body the fields say (FormErrors for what is wrong, each at its field)."""

        errors: dict[str, str] = {}
        body: dict[str, Any] = {}
        currency = str(self.value("currency") or "").upper()
        if not is_currency(currency):
            errors["currency"] = f"{currency or 'Nothing'!r} is not an ISO 4217 code (USD, EUR)."
        else:
            body["currency"] = currency
            raw = self.value("amount")
            if raw is None:
                errors["amount"] = "Enter the amount to pay out."
            else:
                try:
                    body["amount"] = parse_amount(raw, currency)
                except ValueError as exc:
                    errors["amount"] = str(exc)
        variant = self.variant()
        if variant is not None:
            data = read_model(self, variant.model, variant.key)
            try:
                variant.model.model_validate(data)
            except ValidationError as exc:
                errors.update(model_errors(exc, variant.key, self.shown_fields()))
            body["payout_method_data"] = nest(variant.path, data)
        customer = {
            key: value
            for key in ("id", "name", "email")
            if (value := self.value(f"customer-{key}"))
        }
        if customer:
            body["customer"] = customer
        for name in ("payout_type", "description", "priority", "entity_type"):
            if (value := self.value(name)) is not None:
                body[name] = value
        body["auto_fulfill"] = bool(self.value("auto_fulfill"))
        if self.value("confirm"):
            body["confirm"] = True
        metadata = read_metadata(self, "metadata", errors)
        if metadata:
            body["metadata"] = metadata
        if errors:
            raise FormErrors(errors)
        return body

    def request_errors(self, error: ValidationError) -> dict[str, str]:
        """The request model's messages, each under the field it is about."""

        shown = self.shown_fields()
        variant = self.variant()
        messages: dict[str, str] = {}
        for item in error.errors(include_input=False):
            loc = [str(part) for part in item.get("loc", ())]
            name = loc[0] if loc else "form"
            if name == "customer" and len(loc) > 1:
                name = f"customer-{loc[1]}"
            elif name == "payout_method_data":
                inner = f"{variant.key}-{loc[-1]}" if variant is not None else ""
                name = inner if inner in shown else "method"
            if name not in shown:
                name = "form"
            messages.setdefault(name, model_message(item))
        return messages

    def field_of_error(self, error: BaseException) -> str | None:
        """The field a refusal from the service names (payout_method_data, payout_type, a
        method field such as iban), else what the generic forms find."""

        if isinstance(error, ApiError):
            shown = self.shown_fields()
            variant = self.variant()
            names = sorted(
                (f for f in shown if variant is not None and f.startswith(f"{variant.key}-")),
                key=len,
                reverse=True,
            )
            for name in names:
                word = name.removeprefix(f"{variant.key}-") if variant else name
                if re.search(rf"(?<![A-Za-z_]){re.escape(word)}(?![A-Za-z_])", error.message):
                    return name
            for word, name in (
                ("payout_method_data", "method"),
                ("payout_type", "payout_type"),
                ("entity_type", "entity_type"),
                ("priority", "priority"),
                ("metadata", "metadata"),
            ):
                if word in error.message and name in shown:
                    return name
        return super().field_of_error(error)

    def amount_text(self) -> str:
        currency = str(self.value("currency") or "").upper()
        return format_amount(parse_amount(self.value("amount") or "", currency), currency)


def account_said(row: Mapping[str, Any]) -> str:
    """A sandbox test account in a few words: "…0002 → failed when it settles"."""

    rule, outcome = str(row.get("rule") or ""), str(row.get("outcome") or "")
    ending = re.search(r"ending in (\S+)", rule)
    fail_mail = re.search(r"local part is '([^']+)'", rule)
    what = f"…{ending[1]}" if ending else f"{fail_mail[1]}@…" if fail_mail else rule
    return f"{what} → {outcome.split(':')[0].split('(')[0].strip()}"


def _entity(value: str | None) -> str | NoSelection:

    if not value:
        return Select.NULL
    key = value.replace("_", "").lower()
    return next((e.value for e in EntityType if e.value.lower() == key), Select.NULL)


class NewPayoutForm(PayoutForm[PayoutCreateRequest, Payout]):
    """Create a payout: amount, method (its fields follow it), customer and options."""

    title_text = "New payout"
    intro = "Fields follow the method and its scheme. Numbers show masked once typed."
    submit_label = "Create payout"

    def method_options(self) -> list[tuple[str | Text, str]]:
        return [*super().method_options(), ("None yet (add it with Update)", _NONE)]

    def filled(self, key: str) -> Mapping[str, str]:
        # As the payment form: on the local sandbox the card starts as a test card that pays
        # out, so Ctrl+S sends at once; elsewhere its values are only placeholders.
        if key != "card" or not self.runtime.has_local_sandbox:
            return {}
        return PAYOUT_TEST_CARD

    def submit_text(self) -> str | None:
        amount = self.amount_text()
        if not self.value("confirm"):
            return f"Create payout · {amount}"
        if self.value("auto_fulfill"):
            return f"Create and send · {amount}"
        return f"Create and confirm · {amount}"

    def build(self) -> Any:

        body = self.read()
        try:
            return PayoutCreateRequest.model_validate(body)
        except ValidationError as exc:
            raise FormErrors(self.request_errors(exc)) from None

    async def send(self, request: Any) -> Any:

        payout = await self.client.payouts.create(request)
        # No webhook says a payout was created (only its sending and outcome do).
        announce(self.app, payout.payout_id, "payout_created", payout.status)
        return payout


class PayoutUpdateForm(PayoutForm[PayoutUpdateRequest, Payout]):
    """Change a payout before it is confirmed: what differs from it as read is sent."""

    title_text = "Update payout"
    submit_label = "Save"

    payout: Payout

    def __init__(self, payout: Payout) -> None:
        super().__init__()
        self.payout = payout
        kept = method_text(payout) if payout.payout_method_data else "none yet"
        self.intro = (
            f"{payout.payout_id} is {payout.status}: until it is confirmed, its method, type, "
            f"amount and details can change. Current method: {kept}."
        )

    def method_options(self) -> list[tuple[str | Text, str]]:

        current = method_text(self.payout) if self.payout.payout_method_data else "none yet"
        keep = Text.assemble("Keep the current method (", safe(current), ")")
        return [(keep, _KEEP), *super().method_options()]

    def default_method(self) -> str:
        return _KEEP

    def confirm_label(self) -> str:
        return "Confirm once saved"

    def changes(self) -> dict[str, Any]:
        """What differs from the payout as read (FormErrors for a mistake)."""
        p = self.payout
        body = self.read()
        changes: dict[str, Any] = {}
        current = {
            "amount": p.amount,
            "currency": p.currency,
            "payout_type": p.payout_type,
            "description": p.description,
            "priority": p.priority,
            "entity_type": _entity(p.entity_type) if p.entity_type else None,
            "auto_fulfill": bool(p.auto_fulfill),
            "metadata": p.metadata or {},
        }
        for name, value in body.items():
            if name in current and value != current[name]:
                changes[name] = value
        if "metadata" not in body and p.metadata:
            changes["metadata"] = {}
        if "payout_method_data" in body:
            changes["payout_method_data"] = body["payout_method_data"]
        before = p.customer
        customer = body.get("customer", {})
        was = {
            "id": before.id if before else p.customer_id,
            "name": before.name if before else None,
            "email": before.email if before else None,
        }
        if any(customer.get(k) != was[k] for k in customer):
            changes["customer"] = customer
        if body.get("confirm"):
            changes["confirm"] = True
        return changes

    def submit_text(self) -> str | None:
        try:
            changes = self.changes()
        except FormErrors:
            return None  # said under the fields on sending
        confirm = changes.pop("confirm", False)
        names = {
            "payout_method_data": "method",
            "payout_type": "type",
            "auto_fulfill": "auto-fulfil",
            "entity_type": "entity",
        }
        said = [names.get(k, k) for k in changes]
        if not said:
            return "Confirm as it is" if confirm else "Nothing changed yet"
        text = "Save " + ", ".join(said)
        return f"{text} and confirm" if confirm else text

    def build(self) -> Any:

        changes = self.changes()
        if not changes:
            raise FormErrors({"form": "Nothing changed: edit a field, or pick a new method."})
        try:
            return PayoutUpdateRequest.model_validate(changes)
        except ValidationError as exc:
            raise FormErrors(self.request_errors(exc)) from None

    async def send(self, request: Any) -> Any:

        if request.model_dump(exclude_none=True) == {"confirm": True}:
            payout = await self.client.payouts.confirm(self.payout.payout_id)
        else:
            payout = await self.client.payouts.update(self.payout.payout_id, request)
        # No webhook reports an update (or a confirmation short of sending): announced.
        announce(self.app, payout.payout_id, "payout_updated", payout.status)
        return payout
