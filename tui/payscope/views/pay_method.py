"""Choosing a way to pay in a form: a card, or any family and type the request models name,
whose fields follow the choice (built from `payscope.api.models.methods`, as the payout form is).

New payment and Confirm payment (a payment created without confirming) both pay with it. On
local profiles Ctrl+T picks a test card, or the chosen method's test value from
`GET /_sandbox/test-methods`.
"""

from __future__ import annotations

from typing import Any

from pydantic import ValidationError
from rich.text import Text
from textual import work
from textual.widgets import Button, Input, Select, Static

from payscope.api.models.methods import BY_KEY, FAMILIES, kinds_of, method_data
from payscope.views.card_form import CardFormScreen, card_data, card_fields
from payscope.views.choices import Choice, ChoiceFormScreen
from payscope.views.forms import Field
from payscope.views.model_fields import nested_errors, nested_inputs, read_nested
from payscope.widgets.inputs import Picker
from payscope.widgets.method_picker import TestValuePicker, test_values

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
CARD_HINT = "A card, or any other family the service takes (its fields follow it)."
# The billing address sent with a method (the spec requires one with payment_method_data).
BILLING = {"address": {"line1": "1 Test Street", "city": "Testville", "country": "US"}}
_CARD_FIELDS = ("card", "expiry", "cvc", "authentication_type")


def about(model: Any) -> str:
    """A model's own description (its docstring's first line)."""
    doc = (model.__doc__ or "").strip()
    return doc.splitlines()[0] if doc else ""


class PayMethodFormScreen(CardFormScreen, ChoiceFormScreen):  # type: ignore[misc]
    """A form with a way to pay: `method_fields()` among its fields, `method_body()` in what
    it sends."""

    # Method fields are compact, as the payout form's (one line each, on a tinted band).
    DEFAULT_CSS = """
    PayMethodFormScreen Input.-textual-compact {
        margin: 0 1 0 1; padding: 0 1; background: $foreground 8%;
    }
    PayMethodFormScreen Input.-textual-compact:focus { background: $primary 25%; }
    """

    def __init__(self) -> None:
        super().__init__()
        # family/type/variant -> its row of GET /_sandbox/test-methods (local profiles)
        self.method_rows: dict[tuple[str, str, str | None], dict[str, Any]] = {}

    def method_fields(self, *, authentication: bool = True) -> list[Field]:
        """The method picker, the card's fields (and its 3-D Secure choice when
        `authentication`), and each other family's type picker and fields."""
        result = [
            Field(
                "method",
                "Pay with",
                Select(
                    [(FAMILY_LABELS.get(f, f), f) for f in ("card", *FAMILIES)],
                    value="card",
                    allow_blank=False,
                    id="field-method",
                ),
                CARD_HINT,
            ),
        ]
        if authentication:
            result.append(
                Field(
                    "authentication_type",
                    "Authentication",
                    Select(
                        [("no 3-D Secure", "no_three_ds"), ("3-D Secure", "three_ds")],
                        value="no_three_ds",
                        allow_blank=False,
                        id="field-authentication_type",
                    ),
                )
            )
        result.extend(card_fields(self.local))
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
                        about(kinds[0].model),
                    )
                )
            for kind in kinds:
                result.extend(nested_inputs(kind.model, kind.key, fill=self.local))
        return result

    def choices(self) -> list[Choice]:
        names = [f.name for f in self._fields]

        def of(key: str) -> list[str]:
            return [n for n in names if n.startswith(f"{key}-")]

        by_family: dict[Any, list[str]] = {"card": [n for n in _CARD_FIELDS if n in names]}
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

    def _say_kind(self, about_it: str | None = None) -> None:
        """Under the type (or the method) picker: what the chosen kind does (or `about_it`)."""
        kind = self.kind()
        row = None if kind is None else self.method_row(kind)
        self._say_picker(kind, row)
        if kind is None:
            self.query_one("#hint-method", Static).update(CARD_HINT)
            return
        if about_it is None:
            about_it = about(kind.model)
            if row is not None:
                about_it = f"{row.get('flow') or ''}: {row.get('description') or ''}"
                if row.get("test_values"):
                    about_it += " · Ctrl+T picks a test value"
        target = f"{kind.family}-kind" if self.shown(f"{kind.family}-kind") else "method"
        self.query_one(f"#hint-{target}", Static).update(Text(about_it))

    def _say_picker(self, kind: Any, row: dict[str, Any] | None) -> None:
        """The picker button follows the way to pay: test cards for a card, test values for a
        method that has them, none for one that has not."""
        for button in self.query("#form-pick-card").results(Button):
            if kind is None:
                button.label, button.display = "Test cards…", True
            else:
                button.label = "Test values…"
                button.display = row is not None and bool(test_values(row))

    def action_pick_card(self) -> None:
        kind = self.kind()
        if kind is None:
            super().action_pick_card()
            return
        if not self.local:
            return

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

    def card_needs_3ds(self) -> None:
        if self.shown("authentication_type"):
            self.query_one("#field-authentication_type", Select).value = "three_ds"

    # -- reading -----------------------------------------------------------------------------

    def method_body(self, errors: dict[str, str]) -> dict[str, Any]:
        """`payment_method`, `payment_method_type`, `payment_method_data` and `billing` of the
        chosen way to pay; a method's field mistakes go into `errors`."""
        kind = self.kind()
        if kind is None:
            return {
                "payment_method": "card",
                "payment_method_type": "credit",
                "payment_method_data": card_data(self),
                "billing": BILLING,
            }
        data = read_nested(self, kind.model, kind.key)
        try:
            kind.model.model_validate(data)
        except ValidationError as exc:
            errors.update(nested_errors(exc, kind.key, self.shown_fields()))
        return {
            "payment_method": kind.family,
            "payment_method_type": kind.type,
            "payment_method_data": method_data(kind, data),
            "billing": BILLING,
        }
