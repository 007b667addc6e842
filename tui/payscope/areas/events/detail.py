"""The Events area's detail: one record, its sections and its actions."""

from __future__ import annotations

import difflib
from typing import Any, ClassVar

from rich.console import Group, RenderableType
from rich.table import Table
from rich.text import Text

from payscope.areas.events.actions import EVENT_ACTIONS
from payscope.areas.events.spec import clock
from payscope.core import bounded
from payscope.views.detail import DetailScreen, Missing, empty, grid
from payscope.views.json_view import json_view
from payscope.webhooks.records import EventDetail, ForwardRecord
from payscope.webhooks.signing import SIGNATURE_HEADER
from payscope.widgets.format import theme_colour
from payscope.widgets.text import safe

# -- the detail ------------------------------------------------------------------------------------


def answer_text(last: ForwardRecord, previous: ForwardRecord | None) -> Text:
    """The last forward's or replay's answer (headers, body), and how it differs from the
    answer before it: status, headers, and the body's changed lines."""
    text = Text("\nLast answer", style="bold")
    if last.status is None:
        text.append(": none", style="bold")
        return text
    text.append(f": {last.status}\n")
    for name, value in (last.headers or {}).items():
        text.append(f"{name}: ", style="dim")
        text.append_text(safe(value))
        text.append("\n")
    text.append_text(safe(last.body, multiline=True, empty="(empty body)"))
    if previous is None:
        return text
    text.append("\n\nAgainst the answer before it", style="bold")
    changes: list[str] = []
    if previous.status != last.status:
        changes.append(f"status {previous.status} -> {last.status}")
    before, after = previous.headers or {}, last.headers or {}
    volatile = {"date"}  # differs every time: not a change of the handler's
    for name in sorted((set(before) | set(after)) - volatile):
        if before.get(name) != after.get(name):
            changes.append(f"{name}: {before.get(name, '(none)')} -> {after.get(name, '(none)')}")
    diff = list(
        difflib.unified_diff(
            (previous.body or "").splitlines(), (last.body or "").splitlines(), lineterm="", n=0
        )
    )[2:]
    if not changes and not diff:
        text.append(": the same", style="dim")
        return text
    for change in changes:
        text.append("\n  ")
        text.append_text(safe(change))
    for line in diff[:20]:
        style = "green" if line.startswith("+") else "red" if line.startswith("-") else "dim"
        text.append("\n  ")
        text.append_text(safe(line, style))
    if len(diff) > 20:
        text.append(f"\n  … {len(diff) - 20} more changed lines", style="dim")
    return text


class EventDetailScreen(DetailScreen[EventDetail]):
    """One event: verification, headers, raw body, pretty JSON, forwards and replays."""

    noun = "Event"
    scope = "event"
    actions = EVENT_ACTIONS
    sections: ClassVar[tuple[tuple[str, str], ...]] = (
        ("verification", "Verification"),
        ("headers", "Headers"),
        ("raw-body", "Raw body (exactly as signed)"),
        ("json", "JSON"),
        ("forwards", "Forwards and replays"),
    )

    async def fetch(self) -> EventDetail:
        detail = self.runtime.journal.get(self.record_id)
        if detail is None:
            raise Missing(self.record_id)
        return detail

    def not_found_text(self) -> str:
        return "No event has this id in this profile's listener journal; Esc goes back."

    def watched_ids(self, record: EventDetail) -> set[str]:
        return set()  # a journaled event does not change; replays reload it (acted)

    def acted(self, result: Any) -> None:
        self.load(now=True)

    def raw(self, record: EventDetail) -> RenderableType:
        return self._pretty(record)

    def title_text(self, d: EventDetail) -> Text:
        variables = self.app.theme_variables
        ok = d.verified
        return Text.assemble(
            ("Event ", "bold"),
            safe(d.event.event_id, "bold"),
            "  ",
            safe(d.event.event_type, empty=""),
            "  ",
            (
                "✓ signature verified" if ok else "✗ signature not verified",
                theme_colour(variables, "event-verified" if ok else "event-rejected"),
            ),
        )

    def render_record(self, d: EventDetail) -> None:
        self.section("verification").update(self._verification(d))
        headers = grid()
        for name, value in sorted(d.headers.items()):
            if name == "host":  # the listener's port
                value = self.runtime.display.host(value)
            headers.add_row(safe(name), safe(value))
        self.section("headers").update(headers)
        # Exactly as signed, wrapped at punctuation (never inside a key or an id).
        self.section("raw-body").update(json_view(d.body, exact=True))
        self.section("json").update(self._pretty(d))
        self.section("forwards").update(self._forwards(d))

    def _pretty(self, d: EventDetail) -> RenderableType:
        try:
            bounded.loads_json(d.body)
        except ValueError:  # not JSON, or nested deeper than payscope reads
            return empty("The body is not JSON.")
        return json_view(d.body)

    def _forwards(self, d: EventDetail) -> RenderableType:
        if not d.forwards:
            return empty("Not forwarded or replayed yet: p replays it to a URL of yours.")
        rows = Table(box=None, header_style="bold", padding=(0, 2))
        for col in ("Sent", "URL", "Status", "Latency"):
            rows.add_column(col, no_wrap=col != "URL")
        display = self.runtime.display
        for f in d.forwards:
            latency = None if f.latency_ms is None else display.measured(f"{f.latency_ms:.0f} ms")
            rows.add_row(
                clock(f.sent_at, display),
                safe(f.url),
                Text(str(f.status)) if f.status else safe(f.error, "bold", empty="no answer"),
                latency or "",
            )

        last = d.forwards[-1]
        previous = d.forwards[-2] if len(d.forwards) > 1 else None
        return Group(rows, answer_text(last, previous))

    def _verification(self, d: EventDetail) -> Text:
        variables = self.app.theme_variables
        if d.verified:
            verdict = Text("✓ verified", style=f"bold {theme_colour(variables, 'event-verified')}")
            why: Text | str = (
                f": {SIGNATURE_HEADER} is the HMAC of the raw body below under a known secret."
            )
        else:
            verdict = Text(
                "✗ not verified", style=f"bold {theme_colour(variables, 'event-rejected')}"
            )
            why = Text.assemble(": ", safe(d.delivery.reason or "the signature does not match"))
        seen = d.event.duplicates
        again = (
            f"\nDelivered again {seen} time{'s' if seen != 1 else ''} (duplicates)." if seen else ""
        )
        return Text.assemble(verdict, why, f"\nAnswered HTTP {d.delivery.status}.", again)
