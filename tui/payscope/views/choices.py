"""Fields a form shows by a choice: a picker decides which of the other fields are in sight.

A payout's method picker shows the card fields, or a bank-scheme picker whose own choice
shows the fields of ACH, SEPA, Pix...; a form declares each picker once as a `Choice` and
`ChoiceFormScreen` keeps the form to what the current choices name. Choices may nest: a choice
whose picker is hidden hides everything it controls. A field no choice names always shows.

    class PayoutForm(ChoiceFormScreen):
        def choices(self):
            return [
                Choice("method", {"card": ["card-number", "card-expiry"], "bank": ["scheme"]}),
                Choice("scheme", {"ach": ["ach-routing"], "sepa": ["sepa-iban", "sepa-bic"]}),
            ]

`shown(name)` says whether a field is in sight and `shown_value(name)` reads it only then
(None when hidden), so what the form sends is what the user sees.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from textual import on
from textual.widget import Widget
from textual.widgets import Select

from payscope.views.forms import FormScreen


@dataclass(frozen=True)
class Choice:
    """The picker `field` (a Select of the form): each of its values shows these fields."""

    field: str
    shows: Mapping[Any, Sequence[str]]

    @property
    def controlled(self) -> set[str]:
        """Every field this choice shows for one value or another."""
        return {name for names in self.shows.values() for name in names}


class ChoiceFormScreen(FormScreen):
    """A form whose fields show and hide with the values of its pickers (`choices()`)."""

    DEFAULT_CSS = """
    ChoiceFormScreen .-off { display: none !important; }
    """

    def choices(self) -> Sequence[Choice]:
        """The pickers of this form, a parent before the choices it shows."""
        return ()

    def shown_fields(self) -> set[str]:
        """The names of the fields in sight for the current choices."""
        chosen = list(self.choices())
        every = {f.name for f in self._fields}
        shown = every - set().union(*(c.controlled for c in chosen))
        for choice in chosen:
            if choice.field in shown:
                shown.update(choice.shows.get(self.value(choice.field), ()))
        return shown

    def held_back(self) -> set[str]:
        # Out of sight at the start: mounted the first time a choice shows them (a payout's
        # form holds every method's fields, 280 widgets, of which a fifth show at a time).
        return {f.name for f in self._fields} - self.shown_fields()

    def shown(self, name: str) -> bool:
        """True if field `name` is in sight."""
        return name in self.shown_fields()

    def shown_value(self, name: str) -> Any:
        """The value of field `name` if it is in sight, else None."""
        return self.value(name) if self.shown(name) else None

    def apply_choices(self) -> None:
        """Show the fields the current choices name, hide the others (with their errors)."""
        shown = self.shown_fields()
        # The form's nodes by id, from one walk: a query per label, hint and error line walked
        # the whole form each time (the payout form's ~100 fields: ~1 s on every choice).
        by_id: dict[str, list[Widget]] = {}
        for node in self.walk_children(Widget):
            if node.id is not None:
                by_id.setdefault(node.id, []).append(node)
        for field in self._fields:
            off = field.name not in shown
            for part in (f"label-{field.name}", f"hint-{field.name}", f"error-{field.name}"):
                for node in by_id.get(part, ()):
                    node.set_class(off, "-off")
            # A field held back (never mounted) is styled when it is mounted: Textual would
            # otherwise restyle it here, in no DOM, with its parts (an input: 0.7 ms each).
            widget = field.widget
            widget.set_class(off, "-off", update=widget.is_attached)
        self.mount_fields(shown)  # after: one styling, as mounted, with the classes set

    def on_mount(self) -> None:
        # FormScreen.on_mount (focus, the button's label) is called by Textual as well.
        self.apply_choices()

    @on(Select.Changed)
    def _chosen(self, event: Select.Changed) -> None:
        if any(c.field == (event.select.id or "").removeprefix("field-") for c in self.choices()):
            self.apply_choices()
            self.choice_changed(event.select.id.removeprefix("field-") if event.select.id else "")

    def choice_changed(self, name: str) -> None:
        """A picker changed (a form may follow it: a hint, an implied value)."""

    def show_errors(self, errors: dict[str, str], general: str | None = None) -> None:
        # A message about a hidden field would point at nothing: it goes to the form's line.
        shown = self.shown_fields()
        hidden = {k: v for k, v in errors.items() if k not in shown and k in self._names()}
        visible = {k: v for k, v in errors.items() if k not in hidden}
        if hidden:
            extra = "\n".join(f"{self.label_of(k)}: {v}" for k, v in hidden.items())
            general = f"{general}\n{extra}" if general else extra
        super().show_errors(visible, general)

    def _names(self) -> set[str]:
        return {f.name for f in self._fields}
