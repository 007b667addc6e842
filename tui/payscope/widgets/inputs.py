"""Inputs for service data: one that never passes control characters to the terminal, and
one for an account or card number, readable while typed and masked once left.

`SafeInput` is for a field prefilled with what the service sent (a description to edit): the
value is kept as it is, but control characters show as visible symbols (ESC as ␛), one cell
each, so the cursor stays where the characters are and no escape sequence reaches the terminal.

`MaskedInput`: what is typed shows while the field has the focus (a number must be checked as
it is typed); once the focus moves on, all but the last four characters show as `•`, as the
detail shows them afterwards. The value itself is untouched.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from typing import Any, TypeVar

from rich.console import RenderableType
from rich.highlighter import Highlighter
from rich.text import Text
from textual.widgets import Input, Select
from textual.widgets.select import NoSelection

V = TypeVar("V")

# Characters a service uses to mask (`****4242`, `•••• 4242`, `0001****3456`).
_MASKS = "*•xX#"


def mask(value: str, keep: int = 4) -> str:
    """`value` with all but its last `keep` characters as `•` (spaces kept, so a number
    grouped in fours stays grouped); a value no longer than `keep` is shown as it is."""
    shown = sum(1 for c in value if not c.isspace())
    if shown <= keep:
        return value
    hidden = shown - keep
    out = []
    for c in value:
        if c.isspace():
            out.append(c)
        elif hidden > 0:
            out.append("•")
            hidden -= 1
        else:
            out.append(c)
    return "".join(out)


def last_digits(value: str | None, keep: int = 4) -> str:
    """An account or card number as a screen shows it, `•••• 4242`, however the service masked
    it (`************4242`, `0001****3456`, `DE8937******013000`) or not at all."""
    if not value:
        return ""
    plain = "".join(c for c in str(value) if not c.isspace())
    tail = plain[-keep:]
    if any(c in _MASKS for c in tail):  # masked to the end: nothing worth showing
        return "••••"
    return f"•••• {tail}" if len(plain) > keep else tail


# C0 and C1 controls, DEL, and the bidirectional overrides that reorder a line.
_UNSAFE = re.compile(r"[\x00-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069]")


def _symbol(match: re.Match[str]) -> str:
    code = ord(match.group())
    if code < 0x20:
        return chr(0x2400 + code)  # the Control Pictures block: ␛ for ESC
    if code == 0x7F:
        return "\u2421"  # ␡
    return "\ufffd"  # one cell, as the character it stands for


def one_cell_visible(value: str) -> str:
    """`value` with each control character as one visible symbol (same length, same places)."""
    return _UNSAFE.sub(_symbol, value)


class _Shown(Highlighter):
    """What an input shows of its value: Rich's highlighter hook, the one Textual's `Input`
    offers for how its text is drawn (not used for a password field)."""

    def __init__(self, field: SafeInput) -> None:
        self.field = field

    def highlight(self, text: Text) -> None:
        # From the value itself: the text Textual made of it has lost some control characters
        # already (Rich strips BEL, BS, VT, FF and CR), which would move the cursor off them.
        text.plain = self.field.shown(self.field.value)


class SafeInput(Input):
    """An `Input` that shows control characters as symbols instead of sending them on."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        kwargs["highlighter"] = _Shown(self)
        super().__init__(*args, **kwargs)

    def shown(self, value: str) -> str:
        """What the field shows for `value` (the value itself is kept)."""
        return one_cell_visible(value)


class MaskedInput(SafeInput):
    """An `Input` whose value is masked (but for its last four characters) when unfocused."""

    def shown(self, value: str) -> str:
        if self.has_focus or not value:
            return super().shown(value)
        return mask(super().shown(value))

    def on_focus(self) -> None:
        self.refresh()

    def on_blur(self) -> None:
        self.refresh()


class Picker(Select[V]):
    """A `Select` that says, before it is mounted, which value it will start with
    (`starting_value`): Textual gives `value` only on mount, from the value it was built with,
    or its first option when it may not be blank. A form reads the fields it holds back
    unmounted (`payscope.views.forms`). `choices` is what it offers now, (prompt, value) pairs, as
    it was last given them (Textual's Select keeps its options to itself)."""

    def __init__(
        self,
        options: Iterable[tuple[RenderableType, V]],
        *,
        allow_blank: bool = True,
        value: V | NoSelection = Select.NULL,
        **settings: Any,
    ) -> None:
        options = list(options)
        self.choices: list[tuple[RenderableType, V]] = options
        super().__init__(options, allow_blank=allow_blank, value=value, **settings)
        self.starting_value: V | NoSelection = value
        if value == Select.NULL and not allow_blank and options:
            self.starting_value = options[0][1]

    def set_options(self, options: Iterable[tuple[RenderableType, V]]) -> None:
        options = list(options)
        self.choices = options
        super().set_options(options)
