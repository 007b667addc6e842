"""An input for an account or card number: readable while typed, masked once left.

What is typed shows while the field has the focus (a number must be checked as it is typed);
once the focus moves on, all but the last four characters show as `•`, as the detail shows
them afterwards. The value itself is untouched.
"""

from __future__ import annotations

from rich.text import Text
from textual.widgets import Input

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


class MaskedInput(Input):
    """An `Input` whose value is masked (but for its last four characters) when unfocused."""

    @property
    def _value(self) -> Text:
        if self.has_focus or self.password or not self.value:
            return super()._value
        return Text(mask(self.value), no_wrap=True, overflow="ignore", end="")

    def on_focus(self) -> None:
        self.refresh()

    def on_blur(self) -> None:
        self.refresh()
