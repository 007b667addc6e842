"""`:sandbox`: the embedded sandbox as a developer uses it from outside payscope, its clock, and
Trigger (one key makes a payment in a flow, a failing refund, a dispute, a payout, a renewal,
a paid link, and opens it).

Everything a shell needs is here: base URL, merchant and profile ids, the secret and publishable
keys, the webhook URL and signing secret, the API docs; masked until `s` shows them, `y` copies
the selected value and `x` copies them all as `export` lines. A curl copied from the Requests
log reads `$PAYSCOPE_API_KEY`; with these exports it runs as-is in another terminal.
"""

from __future__ import annotations

import shlex
from dataclasses import dataclass, replace
from datetime import UTC, datetime, timedelta
from typing import TYPE_CHECKING, Any, ClassVar

from rich.text import Text
from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import VerticalScroll
from textual.widgets import Static

from payscope.api.scenarios import SCENARIOS
from payscope.api.trigger import Trigger
from payscope.core.secrets import mask
from payscope.views.access import Guarded, refused
from payscope.views.area import AreaView, TitleBar
from payscope.views.areas import registry
from payscope.views.clipboard import copy_text
from payscope.views.clock import ClockScreen
from payscope.views.columns import CellContext, Column
from payscope.views.fixture_run import FixtureScreen
from payscope.views.forms import ConfirmScreen
from payscope.views.listing import ResourceListView
from payscope.views.table import ResourceTable
from payscope.views.when import span_text
from payscope.widgets.errors import describe_error
from payscope.widgets.format import theme_colour
from payscope.widgets.text import safe

if TYPE_CHECKING:
    from collections.abc import Iterable

    from payscope.api.scenarios import Scenario

CURL_EXAMPLE = 'curl -sS "$PAYSCOPE_BASE_URL/payments/list" -H "api-key: $PAYSCOPE_API_KEY"'


@dataclass(frozen=True)
class Value:
    """One value a developer copies: its label, the text, and whether it is a secret."""

    key: str
    label: str
    text: str
    env: str | None = None
    secret: bool = False
    reveal: bool = False  # a secret shown in full (after `s`)

    def shown(self) -> str:
        """The text as the screen shows it: a secret masked unless revealed."""
        if self.secret and not self.reveal:
            return mask(self.text)
        return self.text


VALUE_COLUMNS: tuple[Column[Value], ...] = (
    Column("label", "What", 16, lambda v, c: Text(v.label, style="bold")),
    Column("value", "Value", 30, lambda v, c: safe(c.display.url(v.shown())), flex=(30, 200)),
    Column("env", "Exported as", 26, lambda v, c: Text(v.env or "", style="dim"), 90),
)
TRIGGER_COLUMNS: tuple[Column[Scenario], ...] = (
    Column("key", "Key", 3, lambda s, c: Text(s.key, style="bold")),
    Column("title", "Trigger", 31, lambda s, c: Text(s.title), flex=(31, 34)),
    Column("help", "What it makes", 30, lambda s, c: Text(s.help, style="dim"), 72, (30, 200)),
)


def export_lines(values: list[Value], *, shown: bool = False) -> str:
    """`export NAME='value'` for each exported value: in full, or as the screen shows them."""
    return "\n".join(
        f"export {v.env}={shlex.quote(v.shown() if shown else v.text)}"
        for v in values
        if v.env is not None
    )


class SandboxView(AreaView):
    """The `:sandbox` area (see the module docstring)."""

    DEFAULT_CSS = """
    SandboxView VerticalScroll { height: 1fr; }
    SandboxView .section { padding: 1 1 0 1; text-style: bold; color: $accent; }
    SandboxView .section.first { padding: 0 1; }
    SandboxView .section-line { padding: 1 1 0 1; }
    SandboxView .hint { padding: 0 1; color: $text-muted; }
    SandboxView #sandbox-exports { padding: 0 1; margin: 0 1; background: $boost; }
    SandboxView ResourceTable { height: auto; max-height: 14; margin: 0 1; }
    SandboxView #sandbox-values { max-height: 20; }
    SandboxView #sandbox-remote { padding: 1 2; }
    """

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("y", "copy_value", "Copy", id="sandbox.copy", tooltip="Copy the selected value"),
        Binding(
            "s", "reveal", "Show keys", id="sandbox.reveal", tooltip="Show or hide the secrets"
        ),
        Binding(
            "x",
            "copy_exports",
            "Copy exports",
            id="sandbox.exports",
            tooltip="Copy every value as shell export lines",
        ),
        Binding("t", "clock", "Clock", id="sandbox.clock", tooltip="Advance the sandbox clock"),
        Binding(
            "R",
            "reset",
            "Reset",
            id="sandbox.reset",
            tooltip="Bring back the seeded demo data and the clock (asks first)",
        ),
        Binding(
            "f",
            "fixture",
            "Fixture",
            id="sandbox.fixture",
            tooltip="Run a fixture file (your own scenario) and open what it made",
        ),
    ]

    reveal = False

    def compose(self) -> ComposeResult:
        yield TitleBar(id="sandbox-header")
        with VerticalScroll(id="sandbox-body"):
            yield Static("Use it from outside payscope", classes="section first")
            # Wrapping: a key or a secret read off the screen is whole (`y` copies it too).
            yield ResourceTable(
                VALUE_COLUMNS, lambda v: v.key, self._cells_context, id="sandbox-values", wrap=True
            )
            yield Static(
                "y copies a value · s shows the keys · x copies all as export lines: then a "
                "curl copied from Requests runs as-is, e.g.",
                classes="hint",
            )
            yield Static(id="sandbox-exports")
            yield Static(id="sandbox-clock", classes="section-line")
            yield Static(
                "Trigger  [dim]one key makes it and opens it · f runs a fixture file[/dim]",
                classes="section",
                id="sandbox-trigger-title",
            )
            yield ResourceTable(
                TRIGGER_COLUMNS, lambda s: s.key, self._cells_context, id="sandbox-triggers"
            )
        yield Static(id="sandbox-remote")

    def on_mount(self) -> None:
        self._fit()
        self.triggers.show(SCENARIOS)
        if self.runtime.options.read_only:  # Trigger writes: not offered on a read-only profile
            for widget in self.query("#sandbox-trigger-title, #sandbox-triggers"):
                widget.display = False
        self.show_values()

    # -- pieces ---------------------------------------------------------------------------------

    @property
    def values_table(self) -> ResourceTable[Value]:
        return self.query_one("#sandbox-values", ResourceTable)

    @property
    def triggers(self) -> ResourceTable[Scenario]:
        return self.query_one("#sandbox-triggers", ResourceTable)

    def _cells_context(self) -> CellContext:
        return CellContext(self.app.theme_variables, self.runtime.display, None)

    def _fit(self) -> None:
        width = max(40, self.size.width or self.app.size.width) - 4
        self.values_table.fit_to(width)
        self.triggers.fit_to(width)

    def on_resize(self) -> None:
        self._fit()

    def focus_main(self) -> None:
        # The area opens at its top: focus must not scroll the body to the table.
        (self.values_table if self._local else self).focus(scroll_visible=False)

    @property
    def _local(self) -> bool:
        return self.runtime.options.is_local

    def values(self) -> list[Value]:
        """The values a developer needs, from the running sandbox (nothing before it runs)."""
        runtime = self.runtime
        creds = runtime.credentials
        if creds is None or not runtime.base_url:
            return []
        base = runtime.base_url
        values = [
            Value("base_url", "Base URL", base, "PAYSCOPE_BASE_URL"),
            Value("docs", "API docs", f"{base}/docs"),
            Value("merchant_id", "Merchant id", creds.merchant_id, "PAYSCOPE_MERCHANT_ID"),
            Value("profile_id", "Profile id", creds.profile_id, "PAYSCOPE_PROFILE_ID"),
            Value("api_key", "Secret key", creds.api_key, "PAYSCOPE_API_KEY", secret=True),
            Value(
                "publishable_key",
                "Publishable key",
                creds.publishable_key,
                "PAYSCOPE_PUBLISHABLE_KEY",
                secret=True,
            ),
            Value("webhook_url", "Webhook URL", runtime.listener_url, "PAYSCOPE_WEBHOOK_URL"),
            Value(
                "webhook_secret",
                "Signing secret",
                creds.webhook_secret,
                "PAYSCOPE_WEBHOOK_SECRET",
                secret=True,
            ),
        ]
        return [replace(v, reveal=self.reveal) for v in values]

    def show_values(self) -> None:
        local = self._local
        for widget in self.query("#sandbox-body"):
            widget.display = local
        remote = self.query_one("#sandbox-remote", Static)
        remote.display = not local
        if not local:
            self.query_one("#sandbox-header", TitleBar).update(
                Text.assemble(("Sandbox", "bold"), "  remote profile")
            )
            remote.update(
                Text.assemble(
                    "This profile talks to ",
                    safe(self.runtime.base_url or "its service"),
                    ".\n\nThe sandbox area is about the sandbox payscope runs itself: start "
                    "payscope without --profile to use it, its clock and Trigger.\n"
                    "The webhook listener of this profile: ",
                    safe(self.runtime.listener_url or "not running yet"),
                )
            )
            return
        values = self.values()
        self.values_table.show(values)
        clock = self.runtime.clock_text()
        header = Text.assemble(("Sandbox", "bold"), "  local")
        if values:
            header.append("  ·  ")
            header.append_text(safe(self.runtime.display.url(values[0].text)))
        if clock:
            header.append(f"  ·  clock {clock} UTC")
        self.query_one("#sandbox-header", TitleBar).update(header)
        self.query_one("#sandbox-exports", Static).update(Text(CURL_EXAMPLE, no_wrap=True))
        self.query_one("#sandbox-clock", Static).update(self.clock_text())

    def clock_text(self) -> Text:
        if not self.runtime.has_local_sandbox:
            return Text("The sandbox is starting…", style="italic")
        now = datetime.fromtimestamp(self.runtime.now(), UTC)
        return Text.assemble(
            ("Clock ", f"bold {theme_colour(self.app.theme_variables, 'accent')}"),
            now.strftime("%Y-%m-%d %H:%M:%S UTC"),
            ("  ·  t advances it, saying first what falls due", "dim"),
        )

    def runtime_ready(self) -> None:
        self.show_values()

    # -- actions --------------------------------------------------------------------------------

    def action_copy_value(self) -> None:
        value = self.values_table.selected()
        if value is None:
            self.notify("Nothing to copy yet: the sandbox is starting.", severity="warning")
            return

        if value.secret and refused(self, Guarded.REVEAL_KEYS):
            return
        masked = value.secret and not self.reveal
        copy_text(
            self.app,
            value.text,
            value.label,
            secret=value.secret,
            note="Masked here, copied in full (s shows it)." if masked else "",
        )

    def action_copy_exports(self) -> None:
        values = self.values()
        if not values:
            self.notify("Nothing to copy yet: the sandbox is starting.", severity="warning")
            return

        if refused(self, Guarded.REVEAL_KEYS):
            return
        copy_text(
            self.app,
            export_lines(values) + "\n",
            "the export lines",
            secret=True,  # they hold the key
            note="Paste them into another terminal; a curl copied from Requests then runs as-is. "
            "In that shell, payscope --profile NAME would use this key too.",
        )

    def action_reveal(self) -> None:
        if not self.reveal and refused(self, Guarded.REVEAL_KEYS):
            return
        self.reveal = not self.reveal
        self.show_values()

    def action_clock(self) -> None:
        if not self._local:
            self.notify("The clock belongs to the local sandbox.", severity="warning")
            return

        self.app.push_screen(ClockScreen(), lambda _moved: self.show_values())

    def action_reset(self) -> None:
        """Ask, then bring back the seeded demo data and the clock (`POST /_sandbox/reset`)."""
        if not self._local:
            self.notify("Reset belongs to the local sandbox.", severity="warning")
            return
        self._ask_reset()

    @work(group="sandbox-reset", exclusive=True, exit_on_error=False)
    async def _ask_reset(self) -> None:
        try:  # how far ahead the clock runs, as the sandbox says
            ahead = float((await self.runtime.api.sandbox.clock()).get("offset_seconds") or 0)
        except Exception:
            ahead = 0.0  # said as "stays": the reset itself reports an unreachable sandbox
        clock = (
            f"the clock returns to real time (it is {span_text(timedelta(seconds=ahead))} ahead)"
            if ahead >= 60
            else "the clock stays at real time"
        )
        intro = (
            "Every record goes, payments, refunds, disputes, subscriptions and events made since "
            "included; the seeded demo data is written again as it was seeded (laid out back "
            f"from today), and {clock}.\n"
            "The keys, the profile and the webhook settings stay: curl commands copied before "
            "still work."
        )

        async def reset() -> Any:
            return await self.runtime.api.sandbox.reset()

        screen = ConfirmScreen(
            "Reset the sandbox", intro, "Reset the sandbox", reset, variant="error"
        )
        self.app.push_screen(screen, self._reset_done)

    def _reset_done(self, answer: Any) -> None:
        if answer is None:
            return  # closed without resetting
        self.runtime.forget_clock()
        seeded = answer.get("seeded_payments") if isinstance(answer, dict) else None
        self.notify(
            f"The seeded demo data is back ({seeded} payments and what goes with them), and "
            "the clock is at real time."
            if seeded
            else "Every record is gone (this sandbox was never seeded); the clock is at real time.",
            title="Sandbox reset",
        )
        self.show_values()

        # Every list on screen reads its page again (the others read theirs when opened).
        for view in self.app.screen.query(ResourceListView):
            view.action_reload()

    def action_fixture(self) -> None:
        if not refused(self, Guarded.RUN_FIXTURES):
            self.app.push_screen(FixtureScreen())

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if action in ("clock", "fixture", "reset") and self.runtime.options.read_only:
            return False  # they write: a read-only profile offers neither
        if action in ("copy_value", "reveal", "copy_exports", "clock", "reset"):
            return self._local
        return True

    # -- trigger ----------------------------------------------------------------------------------

    def key_help_rows(self) -> Iterable[tuple[str, str, str]]:
        """The Trigger keys (`on_key` handles them: one per scenario), for `?`."""
        if not self._local or self.runtime.options.read_only:
            return []

        return [(s.key, f"Trigger: {s.title}", s.help) for s in SCENARIOS]

    def on_key(self, event: Any) -> None:
        if not self._local or event.character is None or self.runtime.options.read_only:
            return

        scenario = next((s for s in SCENARIOS if s.key == event.character), None)
        if scenario is not None:
            event.stop()
            event.prevent_default()
            self.fire(scenario)

    @on(ResourceTable.Open, "#sandbox-triggers")
    def _open_trigger(self, event: ResourceTable.Open) -> None:
        event.stop()

        scenario = next((s for s in SCENARIOS if s.key == event.record_id), None)
        if scenario is not None:
            self.fire(scenario)

    @on(ResourceTable.Open, "#sandbox-values")
    def _open_value(self, event: ResourceTable.Open) -> None:
        event.stop()
        self.action_copy_value()

    def fire(self, scenario: Scenario) -> None:
        for table in self.query("#sandbox-triggers").results(ResourceTable):
            if scenario.key in table.records:
                table.move_cursor(row=table.get_row_index(scenario.key))
        self.notify(f"{scenario.title}: {scenario.help}…", title="Trigger")
        self._run(scenario)

    @work(group="trigger", exit_on_error=False, description="Trigger")
    async def _run(self, scenario: Scenario) -> None:
        creds = self.runtime.credentials
        key = creds.publishable_key if creds is not None else None
        try:
            made = await scenario.run(Trigger(self.runtime.api, key))
            self.runtime.forget_clock()  # a renewal moves it
        except Exception as exc:
            title, message = describe_error(exc)
            self.notify(f"{scenario.title}: {message}", title=title, severity="error")
            return
        self.notify(made.summary, title=scenario.title)
        self.show_values()  # the clock may have moved

        # Over :sandbox, where the user was: Esc comes back here.
        area = registry().by_key.get(made.area)
        if area is not None and area.detail is not None:
            self.app.push_screen(area.detail_screen(made.record_id))
        else:
            self.app.goto(made.area, made.record_id)
