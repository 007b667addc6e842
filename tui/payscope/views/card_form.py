"""Card fields and the form that has them: new payments, confirming one, new subscriptions.

On local profiles Ctrl+T (or the button) fills them from the sandbox's test-card picker.
"""

from __future__ import annotations

from typing import Any, ClassVar

from textual import on
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.widgets import Button, Input, Static

from payscope.views.forms import Field, FormScreen
from payscope.widgets.card_picker import TestCardPicker
from payscope.widgets.format import brand_label

# A card that succeeds on the local sandbox and on the reference's sandboxes alike.
DEFAULT_TEST_CARD = "4242 4242 4242 4242"


def card_fields(local: bool) -> list[Field]:
    """The card, expiry and CVC fields (on local profiles prefilled with a card that succeeds)."""
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


def card_data(form: FormScreen) -> dict[str, Any]:
    """The `payment_method_data` of the card typed in `form`'s card fields."""
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
