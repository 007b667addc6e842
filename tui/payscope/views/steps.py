"""A flow as steps: what is done, where the record stands now, what comes next.

A detail shows a record's way through its states (a payout: created, method data, confirmed,
fulfilled, sent, paid out) as one line per step, the current step highlighted with the key of
the action that moves it on. A step that ended the flow (failed, cancelled) says so in the
error colour; steps never reached are dimmed.

    flow_steps([Step("Created", DONE, "May 01 12:00"), Step("Confirm", CURRENT, "o confirms")],
               variables)
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Literal

from rich.console import RenderableType
from rich.table import Table
from rich.text import Text

from payscope.widgets.format import theme_colour

StepState = Literal["done", "current", "todo", "stopped"]
DONE: StepState = "done"
CURRENT: StepState = "current"
TODO: StepState = "todo"
STOPPED: StepState = "stopped"  # the flow ended here (failed, cancelled, expired)

_MARKS: Mapping[StepState, str] = {"done": "✓", "current": "▶", "todo": "·", "stopped": "✗"}


@dataclass(frozen=True)
class Step:
    """One step: its title, its state, and a note (when it happened, what moves it on)."""

    title: str
    state: StepState
    note: RenderableType = ""
    key: str = ""  # the key of the action that moves this step on (shown when current)


def flow_steps(steps: Sequence[Step], variables: Mapping[str, str]) -> Table:
    """The steps as a table: mark, title, key, note; the current one bold in the accent."""
    colours: Mapping[StepState, str] = {
        "done": theme_colour(variables, "status-succeeded"),
        "current": theme_colour(variables, "accent"),
        "todo": theme_colour(variables, "muted"),
        "stopped": theme_colour(variables, "status-failed"),
    }
    table = Table.grid(padding=(0, 1))
    table.add_column(width=1, no_wrap=True)
    table.add_column(min_width=12, no_wrap=True)
    table.add_column(no_wrap=True)
    table.add_column()
    for step in steps:
        colour = colours[step.state]
        bold = "bold " if step.state in ("current", "stopped") else ""
        key = Text("")
        if step.key and step.state == "current":
            key = Text(f" {step.key} ", style=f"bold reverse {colour}")
        note = step.note
        if isinstance(note, str):
            note = Text(note, style="dim" if step.state == "todo" else "")
        table.add_row(
            Text(_MARKS[step.state], style=f"bold {colour}"),
            Text(step.title, style=f"{bold}{colour}"),
            key,
            note,
        )
    return table
