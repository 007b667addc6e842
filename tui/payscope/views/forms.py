"""Generic forms: fields validated by the API's pydantic models, errors under their fields.

Each form says exactly what will happen on its submit button ("Refund 5.00 USD"), recomputed as
the fields change, so the button is the confirmation. Validation errors appear under the field
they are about (scrolled into view, and announced, so Ctrl+S never seems to do nothing); errors
from the service appear in the form, which stays open so the user can fix and resend.
"""

from __future__ import annotations

import functools
import json
import re
import weakref
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, ClassVar, Generic, cast

from pydantic import ValidationError
from rich.text import Text
from textual import events, on, work
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.message import Message
from textual.screen import ModalScreen
from textual.widget import Widget
from textual.widgets import Button, Checkbox, Input, Label, Select, Static, TextArea
from typing_extensions import TypeVar  # a default for each parameter (PEP 696)

from payscope.api.errors import ApiError
from payscope.api.terminal import UNSAFE_ONE_LINE, safe_json
from payscope.views.access import AppAccess
from payscope.views.stall import StallWatch
from payscope.widgets.errors import describe_error
from payscope.widgets.format import format_amount, parse_amount
from payscope.widgets.inputs import Picker
from payscope.widgets.text import visible

if TYPE_CHECKING:
    from payscope.api.client import ApiClient


@dataclass
class Field:
    """One form field: its model field name, label, widget and a hint."""

    name: str
    label: str
    widget: Widget
    hint: str = ""
    # A heading shown above the first field of each group (a dispute's evidence categories).
    group: str = ""


# What a form's `build` reads from its fields, and what its `send` answers (the form is dismissed
# with it, or with None when closed). A form that does not say is `FormScreen[Any, Any]`.
Req = TypeVar("Req", default=Any)
Res = TypeVar("Res", default=Any)


class FormScreen(AppAccess, ModalScreen[Res | None], Generic[Req, Res]):  # type: ignore[misc]
    """A modal form: fields, an error line per field, a submit button that states the action.

    `FormScreen[Req, Res]`: `build()` reads the fields into a `Req`, `send(Req)` answers a `Res`.
    """

    # The form focuses its first field once mounted (`on_mount`). Textual's auto focus would
    # first give it to the first focusable widget, the fields' scroll, and take it back: each
    # change restyles every widget under the scroll (about 225 ms for the payout form's 280).
    AUTO_FOCUS = ""

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
    FormScreen .field-group { padding: 1 0 0 0; text-style: bold; color: $accent; }
    FormScreen .field-group:first-child { padding: 0; }
    FormScreen .field-label { padding: 0 0 0 1; text-style: bold; }
    FormScreen .field-hint { padding: 0 0 0 1; color: $text-muted; }
    FormScreen .field-error { padding: 0 0 0 1; color: $error; display: none; }
    FormScreen .field-error.-shown { display: block; }
    FormScreen TextArea { height: 6; }
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
    _check_line = False  # the form's error line is only "Not sent: check <fields>."
    _erred: dict[str, Any] = {}  # fields in error, their values then (replaced, never mutated)
    submit_label = "Send"
    submit_variant = "primary"

    @property
    def client(self) -> ApiClient:
        """The shared API client."""
        return self.runtime.api

    def submit_text(self) -> str | None:
        """The submit button's label for what the fields say now (None: `submit_label`).

        Recomputed on every change, so the button always says what will be sent."""
        return None

    def fields(self) -> list[Field]:
        """The form's fields (built once, at compose)."""
        return []

    def compose(self) -> ComposeResult:
        self._fields = self.fields()
        # Fields a subclass holds back (`held_back`) are mounted in their place when needed.
        self._held: set[str] = set()
        with Vertical() as box:
            box.border_title = self.title_text
            if self.intro:
                yield Static(Text(visible(self.intro, multiline=True)), id="form-intro")
            with VerticalScroll():
                group = ""
                held = self.held_back()
                for field in self._fields:
                    if field.group and field.group != group:
                        yield Static(field.group, classes="field-group")
                    group = field.group
                    if field.name in held:
                        self._held.add(field.name)
                    else:
                        yield from _parts(field)
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

    def held_back(self) -> set[str]:
        """Fields not mounted with the form, only once `mount_fields` asks for them (fields out
        of sight: every widget mounted costs its styling and layout, and restyles with the
        form on every focus change)."""
        return set()

    def mounted(self, name: str) -> bool:
        """True if field `name` is in the form's DOM (not held back)."""
        return name not in self._held

    def mount_fields(self, names: set[str]) -> None:
        """Mount the held-back fields among `names`, each in its place among the others."""
        wanted = [f for f in self._fields if f.name in names and f.name in self._held]
        if not wanted:
            return
        scroll = self.query_one(VerticalScroll)
        for field in wanted:
            self._held.discard(field.name)
            after = self._fields[self._fields.index(field) + 1 :]
            following = next((f for f in after if f.name not in self._held), None)
            # Before the next mounted field's label, or, where that field begins a group, its
            # heading (a heading of this field's own group stays above it).
            anchor: Widget | None = None
            if following is not None:
                anchor = self.query_one(f"#label-{following.name}")
                before = self._fields[self._fields.index(following) - 1]
                if following.group and following.group != before.group:
                    anchor = scroll.children[scroll.children.index(anchor) - 1]
            if anchor is None:
                scroll.mount_all(_parts(field))
            else:
                scroll.mount_all(_parts(field), before=anchor)

    # Keys that went through this form (`on_key`), and keys typed before it had a field to
    # give them to (`take_stray_key`), handed over once it has.
    _keys_seen: Any = None
    _early_keys: Any = None

    def on_key(self, event: events.Key) -> None:
        if self._keys_seen is None:
            self._keys_seen = weakref.WeakSet()
        self._keys_seen.add(event)

    def take_stray_key(self, event: events.Key) -> bool:
        """A key the app got that never went through this form: typed while it opened (sent to
        the screen below it). It goes to the form's field as if typed now (once the form has
        focused its first field); True when taken."""
        if self._keys_seen is not None and event in self._keys_seen:
            return False  # this form's own key, which nothing here handled
        if self.focused is None:
            if self._early_keys is None:
                self._early_keys = []
            self._early_keys.append((event.key, event.character))
        else:
            self.app.post_message(events.Key(event.key, event.character))
        return True

    def on_descendant_focus(self) -> None:
        # The first field has the focus now (`focus()` gives it after this turn): the keys
        # typed before go to it, in order.
        for key, character in self._early_keys or ():
            self.app.post_message(events.Key(key, character))
        self._early_keys = None

    def on_mount(self) -> None:
        focusable = [f.widget for f in self._fields if self.mounted(f.name) and f.widget.focusable]
        (focusable[0] if focusable else self.query_one("#form-submit")).focus()
        self._relabel()
        self.call_after_refresh(self._fit_height)

    def on_resize(self) -> None:
        self.call_after_refresh(self._fit_height)

    def _fit_height(self) -> None:
        """Keep the fields' scroll inside what the box shows: on a short terminal the box is cut
        at 94% of the screen, and a scroll taller than that never scrolls to a field under the
        cut (an error there would stay out of sight)."""
        if not self.is_mounted:
            return
        box = self.query_one("#form-footer").parent
        if not isinstance(box, Widget):
            return
        parts = [p for p in box.children if not isinstance(p, VerticalScroll)]
        if any(p.outer_size.height == 0 for p in parts if p.display):
            self.call_after_refresh(self._fit_height)  # not laid out yet
            return
        room = int(self.size.height * 0.94) - box.styles.gutter.height
        room -= sum(p.outer_size.height for p in parts)
        # A line kept for the form's error line (under the fields, above the buttons), which
        # would otherwise cover the last field shown when it appears.
        if not self.query_one("#form-error").has_class("-shown"):
            room -= 1
        scroll = self.query_one(VerticalScroll)
        scroll.styles.max_height = max(3, min(28, room))

    @on(Input.Changed)
    @on(Select.Changed)
    @on(Checkbox.Changed)
    def _relabel(self, event: Message | None = None) -> None:
        if not self.is_mounted:
            return
        if event is not None:
            self._forget_error(getattr(event, "control", None))
        try:
            text = self.submit_text()
        except (ValueError, TypeError, AttributeError):
            text = None
        button = self.query_one("#form-submit", Button)
        if str(button.label) != (text or self.submit_label):
            button.label = text or self.submit_label
            button.refresh(layout=True)  # a longer label widens the button, not cut

    # By name: TextArea (a multi-line field) is imported only by the forms that use one.
    def on_text_area_changed(self, event: Message) -> None:
        self._relabel(event)

    def _forget_error(self, widget: Any) -> None:
        """A field in error was edited: its message goes (it spoke of the value that was there),
        and the form's "Not sent: check ..." line with the last of them."""
        field = next((f for f in self._fields if f.widget is widget), None)
        if field is None or not self.mounted(field.name):
            return
        line = self.query_one(f"#error-{field.name}", Static)
        if not line.has_class("-shown") or self.value(field.name) == self._erred.get(field.name):
            return  # (a change from before the send, arriving after it: still the same value)
        line.update("")
        line.remove_class("-shown")
        still = any(
            self.query_one(f"#error-{f.name}").has_class("-shown")
            for f in self._fields
            if self.mounted(f.name)
        )
        if not still and self._check_line:
            box = self.query_one("#form-error", Static)
            box.update("")
            box.remove_class("-shown")
            self._check_line = False

    def value(self, name: str) -> Any:
        """The current value of a field's widget (None for blank text or no selection)."""
        widget = next(f.widget for f in self._fields if f.name == name)
        if isinstance(widget, Input):
            return widget.value.strip() or None
        if isinstance(widget, Select):
            # Select.NULL: no choice (Select.BLANK is Widget.BLANK, a bool, never a value).
            chosen = widget.value if widget.is_mounted else _starting_value(widget)
            return None if chosen is Select.NULL else chosen
        if isinstance(widget, Checkbox):
            return widget.value
        text = getattr(widget, "text", None)  # a TextArea
        if isinstance(text, str):
            return text.strip() or None
        return None

    def show_errors(self, errors: dict[str, str], general: str | None = None) -> None:
        """Put each message under its field; what fits no field goes to the form's error line."""
        known = {f.name for f in self._fields if self.mounted(f.name)}
        leftover = [msg for name, msg in errors.items() if name not in known]
        for field in self._fields:
            if not self.mounted(field.name):
                continue
            line = self.query_one(f"#error-{field.name}", Static)
            message = errors.get(field.name)
            line.update(Text(visible(message or "", multiline=True)))
            line.set_class(bool(message), "-shown")
        wrong = [f for f in self._fields if f.name in errors and self.mounted(f.name)]
        self._erred = {f.name: self.value(f.name) for f in wrong}
        if wrong and general is None:
            # Announced on the form's own line beside the buttons (always in sight, where a
            # toast would cover them), so a field scrolled out of view is never missed.
            general = _check_text(self, wrong)
        # Only the line made from the fields' errors goes once they are fixed; what the
        # service said stays until the next send.
        self._check_line = bool(wrong) and not leftover and general == _check_text(self, wrong)
        text = "\n".join([*leftover, *([general] if general else [])])
        box = self.query_one("#form-error", Static)
        box.update(Text(visible(text, multiline=True)))
        box.set_class(bool(text), "-shown")
        if wrong:
            # The first field in error comes into view with its message, and takes the focus.
            first = wrong[0]
            # After the next layout: the error line had no place while it was hidden. The
            # label first, then the message, so the whole field shows whichever way it scrolls
            # (focus alone does not scroll to a field that already has it).
            scroll = self.query_one(VerticalScroll)
            for part in (f"#label-{first.name}", f"#error-{first.name}"):
                target = self.query_one(part)
                self.call_after_refresh(scroll.scroll_to_widget, target, animate=False)
            if first.widget.focusable:
                first.widget.focus(scroll_visible=True)

    def build(self) -> Req:
        """Read the fields into a request (raise FormErrors or pydantic's ValidationError).
        A form without fields to read (a confirmation) sends None."""
        return cast(Req, None)

    async def send(self, request: Req) -> Res | None:
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
        try:
            request = self.build()
        except FormErrors as exc:
            self.show_errors(exc.errors, exc.general)
            return
        except ValidationError as exc:
            self.show_errors(validation_messages(exc))
            return
        self.show_errors({})
        self.query_one("#form-submit", Button).disabled = True
        self._send(request)

    @functools.cached_property
    def _stall(self) -> StallWatch:
        """Says a send with no answer for the client's timeout (tui/payscope/views/stall.py)."""

        def said(note: str | None) -> None:
            if note is not None:  # the answer, when it comes, says the rest
                self.show_errors({}, f"Sent; {note}")

        then = "it may still be applied: Esc closes, and the list shows whether it was"
        return StallWatch(self, said, then)

    @work(exclusive=True, group="form", exit_on_error=False, description="Sending")
    async def _send(self, request: Req) -> None:
        try:
            with self._stall.watching():
                result = await self.send(request)
        except FormErrors as exc:  # a check that needed the service (the payment's currency)
            self.show_errors(exc.errors, exc.general)
            self.query_one("#form-submit", Button).disabled = False
            return
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
        if not isinstance(error, ApiError):
            return None
        return field_named_in(error.message, {f.name for f in self._fields})

    def label_of(self, name: str) -> str:
        """A field's label as the user sees it (its name when it has none)."""
        field = next((f for f in self._fields if f.name == name), None)
        return in_sentence(field.label if field and field.label else name)


def in_sentence(label: str) -> str:
    """A label as a sentence says it: "Amount (USD)" -> "amount (USD)", "Card number" ->
    "card number"; codes and names in capitals keep them ("CVC", "IBAN", "(USD)")."""
    words = label.split(" ")
    return " ".join(
        word if word.isupper() and len(word.strip("()")) > 1 else word.lower() for word in words
    )


class FormErrors(Exception):
    """Field errors found before the models are even built (e.g. an amount that is not a number).

    `general` replaces the form line's "Not sent: check ..." (a card declined after the request
    was sent says so there, its field error under the card)."""

    def __init__(self, errors: dict[str, str], general: str | None = None) -> None:
        super().__init__(errors)
        self.errors = errors
        self.general = general


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


def _check_text(form: FormScreen, wrong: list[Field]) -> str:
    """The form's line naming the fields in error."""
    return f"Not sent: check {', '.join(form.label_of(f.name) for f in wrong)}."


def amount_field(
    name: str, label: str, currency: str, default: int | None, hint: str = ""
) -> Field:
    """An amount typed as people write it, in `currency` ("12.50"), prefilled with `default`."""
    text = format_amount(default, currency, code=False) if default is not None else ""
    return Field(name, f"{label} ({currency.upper()})", Input(value=text, id=f"field-{name}"), hint)


def read_amount(form: FormScreen, name: str, currency: str, errors: dict[str, str]) -> int | None:
    """The amount field `name` in minor units (None when blank); a mistake goes to `errors`."""
    raw = form.value(name)
    if raw is None:
        return None
    try:
        return parse_amount(raw, currency)
    except ValueError as exc:
        errors[name] = str(exc)
        return None


def metadata_field(name: str, label: str, current: dict[str, Any] | None, hint: str = "") -> Field:
    """Metadata typed as `key=value` lines (or a JSON object), prefilled with `current`."""
    text = metadata_text(current)
    hint = hint or "One key=value a line, or a JSON object."
    return Field(name, label, TextArea(text, id=f"field-{name}", soft_wrap=False), hint)


def metadata_text(metadata: dict[str, Any] | None) -> str:
    """Metadata as the field shows it: `key=value` lines, or JSON when a value is not text."""
    if not metadata:
        return ""
    # Lines read back as they were only for one-line text without edge spaces or `=` in keys.
    plain = all(
        isinstance(v, str)
        and "\n" not in v + k
        and "=" not in k
        and k.strip() == k != ""
        and v.strip() == v
        and not UNSAFE_ONE_LINE.search(k + v)
        for k, v in metadata.items()
    )
    if plain:
        return "\n".join(f"{k}={v}" for k, v in metadata.items())
    # Control and direction characters (an ESC would reach the terminal from the text area) are
    # written as JSON escapes (`payscope.api.terminal`): shown harmlessly, read back as they were.
    return safe_json(metadata, indent=2)


def parse_metadata(text: str) -> dict[str, Any]:
    """`key=value` lines or a JSON object -> a dict; ValueError says which line is wrong."""
    text = text.strip()
    if not text:
        return {}
    if text.startswith("{"):
        try:
            data = json.loads(text)
        except ValueError as exc:
            raise ValueError(f"Not valid JSON: {exc}.") from None
        if not isinstance(data, dict):
            raise ValueError('JSON metadata must be an object, as in {"order_id": "42"}.')
        return data
    result: dict[str, Any] = {}
    for number, line in enumerate(text.splitlines(), 1):
        if not line.strip():
            continue
        key, sep, value = line.partition("=")
        key = key.strip()
        if not sep or not key:
            raise ValueError(f"Line {number} ({line.strip()[:30]}) is not key=value.")
        if key in result:
            raise ValueError(f"Line {number}: the key {key!r} is given twice.")
        result[key] = value.strip()
    return result


def read_metadata(form: FormScreen, name: str, errors: dict[str, str]) -> dict[str, Any] | None:
    """The metadata field `name` as a dict ({} when blank); a mistake goes to `errors`."""
    try:
        return parse_metadata(str(form.value(name) or ""))
    except ValueError as exc:
        errors[name] = str(exc)
        return None


class ConfirmScreen(FormScreen):
    """A confirmation with no fields (approve, delete, accept): the button says what happens."""

    def __init__(
        self,
        title: str,
        intro: str,
        submit: str,
        do: Any,
        *,
        variant: str = "primary",
    ) -> None:
        super().__init__()
        self.title_text = title
        self.intro = intro
        self.submit_label = submit
        self.submit_variant = variant
        self._do = do

    async def send(self, request: Any) -> Any:
        return await self._do()


def _parts(field: Field) -> list[Widget]:
    """What a field shows, in order: its label, its widget, its hint and its error line."""
    parts: list[Widget] = [
        Label(field.label, classes="field-label", id=f"label-{field.name}"),
        field.widget,
    ]
    if field.hint:
        parts.append(Static(field.hint, classes="field-hint", id=f"hint-{field.name}"))
    parts.append(Static(classes="field-error", id=f"error-{field.name}"))
    return parts


def _starting_value(select: Select[Any]) -> Any:
    """The value a Select not mounted yet will start with (a form's fields that may be held
    back are `Picker`s, which say it; a plain Select says it only once mounted)."""
    return select.starting_value if isinstance(select, Picker) else select.value
