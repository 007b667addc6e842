"""The sandbox clock (local profile): how far to move it, what that will set off, then move it.

Advancing the embedded sandbox's clock runs everything that falls due on the way, each at its
own time: authorisations and links expire, refunds settle, disputes pass their deadline, payouts
move on, subscriptions renew (or fail to) and webhook retries are sent. The form shows that list
before anything happens; the submit button says exactly how far the clock will move.
"""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from typing import Any

from rich.text import Text
from textual import on, work
from textual.widgets import Input, Select, Static

from payscope.views.forms import Field, FormErrors, FormScreen
from payscope.views.when import SPAN_EXAMPLES, add_months, parse_moment, parse_span, span_text
from payscope.widgets.errors import describe_error
from payscope.widgets.format import format_time
from payscope.widgets.text import safe, visible

# How many of the things due the preview lists before "and N more".
PREVIEW_LINES = 8
# The presets of a fixed length (a month is a calendar month on, not a number of seconds).
STEPS: dict[str, timedelta] = {
    "hour": timedelta(hours=1),
    "day": timedelta(days=1),
    "week": timedelta(weeks=1),
}
PRESETS: tuple[tuple[str, str], ...] = (
    ("1 hour", "hour"),
    ("1 day", "day"),
    ("1 week", "week"),
    ("1 month", "month"),
)


def _stamp(moment: datetime) -> str:
    return moment.astimezone(UTC).strftime("%Y-%m-%d %H:%M:%S UTC")


class ClockScreen(FormScreen):
    """Move the local sandbox's clock on: by a preset, to the next renewal, or to a typed time.

    Dismissed with the sandbox's new time (a datetime), or None when closed without moving it.
    """

    DEFAULT_CSS = """
    ClockScreen #clock-preview { padding: 0 0 0 1; height: auto; }
    """

    title_text = "Sandbox clock"
    submit_label = "Advance"

    def __init__(self, next_renewal: datetime | None = None, *, label: str = "") -> None:
        super().__init__()
        self.next_renewal = next_renewal
        self.renewal_label = label or "the next renewal"
        self.preview_text: str = ""

    # -- the fields ---------------------------------------------------------------------------

    def now(self) -> datetime:
        return datetime.fromtimestamp(self.runtime.now(), UTC)

    @property
    def intro(self) -> str:  # type: ignore[override]
        now = self.now()
        ahead = self.runtime.now() - datetime.now(UTC).timestamp()
        lead = f", {span_text(timedelta(seconds=ahead))} ahead of real time" if ahead >= 60 else ""
        return (
            f"Sandbox time: {_stamp(now)}{lead}.\n"
            "Everything that falls due on the way runs at its own time, and its webhooks are sent."
        )

    def fields(self) -> list[Field]:
        options = list(PRESETS)
        default = "day"
        if self.next_renewal is not None and self.next_renewal > self.now():
            options.append((f"To {self.renewal_label} ({_stamp(self.next_renewal)})", "renewal"))
            default = "renewal"
        return [
            Field(
                "preset",
                "Advance by",
                Select(options, value=default, allow_blank=False, id="clock-preset"),
            ),
            Field(
                "to",
                "Or to a time",
                Input(placeholder="2024-06-01T09:00, +3d", id="clock-to"),
                hint=f"An ISO date or time (UTC), or a span from now: {SPAN_EXAMPLES}.",
            ),
            Field("preview", "What falls due", Static(id="clock-preview")),
        ]

    def on_mount(self) -> None:
        # FormScreen's own on_mount puts the focus on the first field (the preset).
        self._refresh_preview()
        # The sandbox's clock runs on while the form is open: its time and the target with it.
        self.set_interval(1.0, self._tick)

    def _tick(self) -> None:
        intro = self.query("#form-intro").first(Static)
        intro.update(Text(visible(self.intro, multiline=True)))
        self._relabel()

    # -- where the clock would go ---------------------------------------------------------------

    def step(self) -> timedelta | None:
        """A chosen step (a preset of fixed length, a typed span): the clock moves by exactly
        that, from the moment it is applied. None for a moment (a typed time, the renewal, a
        calendar month on)."""
        typed = self.value("to")
        if typed:
            try:
                return parse_span(str(typed))
            except ValueError:
                return None  # not a span: a moment, which `target` reads
        return STEPS.get(str(self.value("preset")))

    def target(self, now: datetime | None = None) -> datetime:
        """The time the form's fields say, from `now` (ValueError with a sentence when they say
        nothing)."""
        now = now or self.now()
        step = self.step()
        if step is not None:
            return now + step
        typed = self.value("to")
        if typed:
            moment = parse_moment(str(typed), now)
            if moment <= now:
                raise ValueError(f"the clock only moves forward: pick a time after {_stamp(now)}.")
            return moment
        preset = self.value("preset")
        if preset == "renewal" and self.next_renewal is not None:
            # One second past it, so what is due at that instant runs.
            return max(self.next_renewal + timedelta(seconds=1), now + timedelta(seconds=1))
        return add_months(now, 1)

    def submit_text(self) -> str | None:
        now = self.now()
        moment = self.target(now)
        return f"Advance {span_text(self.step() or moment - now)} (to {_stamp(moment)[:-7]})"

    @on(Input.Changed, "#clock-to")
    @on(Select.Changed, "#clock-preset")
    def _changed(self) -> None:
        self._refresh_preview()

    @work(exclusive=True, group="clock-preview", exit_on_error=False)
    async def _refresh_preview(self) -> None:
        box = self.query_one("#clock-preview", Static)
        try:
            moment = self.target()
        except ValueError as exc:
            self.show_preview(Text(str(exc), style="italic"))
            return
        if self.preview_text == "":
            box.update(Text("Looking...", style="italic"))
        seconds = (moment - self.now()).total_seconds()
        try:
            found = await self.runtime.api.sandbox.upcoming(seconds=seconds)
        except Exception as exc:  # said in place; advancing still works
            title, message = describe_error(exc)
            self.show_preview(Text(f"{title}: {message}", style="italic"))
            return
        self.show_preview(preview_of(found, span_text(self.step() or moment - self.now())))

    def show_preview(self, text: Text) -> None:
        self.preview_text = text.plain
        self.query_one("#clock-preview", Static).update(text)

    # -- moving it --------------------------------------------------------------------------------

    def build(self) -> Any:
        try:
            self.target()
        except ValueError as exc:
            field = "to" if self.value("to") else "preset"
            raise FormErrors({field: str(exc)}) from None
        return self.step()

    async def send(self, request: Any) -> Any:
        # How far, judged now (the clock ran on since the form opened): a step exactly.
        now = self.now()
        span = request if isinstance(request, timedelta) else self.target(now) - now
        seconds = max(1.0, span.total_seconds())
        answer = await self.runtime.api.sandbox.advance_clock(seconds)
        self.runtime.forget_clock()
        moment = now + timedelta(seconds=seconds)
        ran = answer.get("ran") if isinstance(answer, dict) else None
        self.app.notify(outcome_text(moment, ran), title="Sandbox clock")
        return datetime.fromtimestamp(self.runtime.now(), UTC)


# What each kind of thing due does, said of one and of several.
_DOES: dict[str, tuple[str, str]] = {
    "payment_expiry": ("payment expires", "payments expire"),
    "payment_settles": ("processing payment settles", "processing payments settle"),
    "refund_settles": ("refund settles", "refunds settle"),
    "dispute_opens": ("dispute opens", "disputes open"),
    "dispute_expires": ("dispute expires", "disputes expire"),
    "link_expires": ("payment link expires", "payment links expire"),
    "payout_moves": ("payout moves on", "payouts move on"),
    "subscription_renews": ("subscription renews", "subscriptions renew"),
    "subscription_change": ("scheduled subscription change applies", "scheduled changes apply"),
    "webhook_retry": ("webhook is sent again", "webhooks are sent again"),
}


def changes_line(items: list[dict[str, Any]], total: int) -> str:
    """`3 disputes expire, 1 subscription renews`: what the move changes, by kind, most first."""
    counts: dict[str, int] = {}
    for item in items:
        kind = str(item.get("kind") or "")
        counts[kind] = counts.get(kind, 0) + 1
    parts = []
    for kind, count in sorted(counts.items(), key=lambda pair: -pair[1]):
        one, many = _DOES.get(kind, (kind.replace("_", " ") or "thing falls due",) * 2)
        parts.append(f"{count} {one if count == 1 else many}")
    line = ", ".join(parts)
    if total > len(items):
        line += f", and {total - len(items)} more"
    return line


def preview_of(found: dict[str, Any], span: str = "") -> Text:
    """What the move changes (by kind, then each record soonest first), as the form shows it;
    `span` (`31d`) heads it."""
    items = [item for item in found.get("items") or [] if isinstance(item, dict)]
    total = int(found.get("total") or len(items))
    if not items:
        return Text("Nothing is due in that time: only the clock moves.", style="italic")
    out = Text()
    head = f"Advance {span}: " if span else ""
    out.append(f"{head}{changes_line(items, total)}.\n", style="bold")
    for item in items[:PREVIEW_LINES]:
        out.append(f"{format_time(str(item.get('at') or ''))}  ", style="dim")
        out.append_text(safe(str(item.get("text") or item.get("kind") or "")))
        out.append("\n")
    if total > PREVIEW_LINES:
        out.append(f"and {total - PREVIEW_LINES} more", style="italic")
    out.append("\nThe demo data comes back with R (Reset) in :sandbox.", style="dim")
    return out


def outcome_text(moment: datetime, ran: Any) -> str:
    """`Now 2024-05-02 12:00 UTC: 1 renewal, 2 webhook attempts.`"""
    done = ""
    if isinstance(ran, dict):
        names = {
            "webhook_attempts": "webhook attempts",
            "subscriptions_due": "subscription renewals and changes",
            "expired_payments": "payments expired",
            "expired_payment_links": "links expired",
            "settled_refunds": "refunds settled",
            "payouts_due": "payout steps",
            "scheduled_disputes": "disputes opened",
            "expired_disputes": "disputes past deadline",
        }
        parts = [f"{count} {names.get(key, key)}" for key, count in ran.items() if count]
        done = ": " + ", ".join(parts) if parts else ": nothing fell due"
    return f"Sandbox time is now {_stamp(moment)[:-7]} UTC{done}."
