"""The payscope Textual app: one factory (`make_app`) for the CLI and the tests.

Start-up paints the shell at once; the embedded sandbox and listener start in a worker inside
the app's loop (their server stack is imported there, not here), and the Payments table fills as
soon as data arrives. Every worker failure lands in one handler that tells the user what happened.
"""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Awaitable, Callable, Iterable
from pathlib import Path
from typing import TYPE_CHECKING, Any, ClassVar, NamedTuple, NoReturn

from textual import events, work
from textual.app import App, SystemCommand
from textual.binding import Binding, BindingType
from textual.notifications import SeverityLevel
from textual.screen import Screen
from textual.signal import Signal
from textual.theme import Theme
from textual.worker import Worker, WorkerState

from payscope.api.terminal import say
from payscope.app.served import served_by
from payscope.areas import AREAS
from payscope.core import gc_pause
from payscope.core.display import USER, DisplayPolicy
from payscope.core.paths import ENV_SANDBOX_MODE
from payscope.shell.main import MainScreen
from payscope.views.access import Guarded
from payscope.widgets.errors import describe_error
from payscope.widgets.text import visible
from payscope.widgets.theming import (
    DEFAULT_THEME,
    load_one_theme,
    load_themes,
    theme_defaults,
)

ENV_CURSOR_BLINK = "PAYSCOPE_CURSOR_BLINK"

# The longest the garbage collector stays paused after the first frame, waiting for the
# runtime's start (tui/payscope/core/gc_pause.py): a first run's seeding can take minutes.
GC_PAUSE_LIMIT = 3.0

if TYPE_CHECKING:
    from payscope.app.runtime import Runtime
    from payscope.app.runtime.options import RuntimeOptions
    from payscope.views.access import AppHost, Guarded
    from payscope.views.live import Change


TOLD_KEPT = 100  # toasts kept in `PayscopeApp.told`


class Told(NamedTuple):
    """A toast as the user was shown it (`PayscopeApp.told`)."""

    message: str
    title: str
    severity: str


class PayscopeApp(App[int]):
    """payscope: payments, live webhooks and every request, in the terminal."""

    TITLE = "payscope"
    CSS = """
    Screen { background: $background; }
    /* A form or the key help dims the screen it opened over instead of hiding it. */
    ModalScreen { background: $background 60%; }
    Toast { max-width: 70; }
    DataTable > .datatable--header { text-style: bold; color: $text-muted; }
    """
    ENABLE_COMMAND_PALETTE = True
    COMMAND_PALETTE_BINDING = "ctrl+p"
    NOTIFICATION_TIMEOUT = 6

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding(
            "ctrl+q",
            "quit",
            "Quit",
            id="app.quit",
            tooltip=(
                "Quit payscope; a background sandbox keeps running for next time: "
                "`payscope sandbox stop` stops it"
            ),
            priority=True,
        ),
        Binding(
            "ctrl+p",
            "command_palette",
            "Palette",
            id="app.palette",
            tooltip="Commands for what is selected, areas and themes",
            priority=True,
        ),
        Binding(
            "question_mark",
            "help",
            "Keys",
            id="app.help",
            tooltip="Show every key of this screen",
        ),
    ]

    def __init__(
        self,
        options: RuntimeOptions,
        runtime: Runtime | None = None,
        display: DisplayPolicy = USER,
    ) -> None:
        self._theme_defaults: dict[str, dict[str, str]] = {}  # before Textual asks for them
        self._themes: dict[str, Theme] = {}  # every theme registered here, by name
        super().__init__()
        self.options = options
        self._runtime = runtime
        self._display_policy = display  # given to the runtime this app builds
        # Live updates: every view subscribes here (see payscope.views.live), never to the listener.
        self.changes: Signal[Change] = Signal(self, "changes")
        self.deliveries: Signal[Any] = Signal(self, "deliveries")
        self.requests: Signal[Any] = Signal(self, "requests")
        self._unhook: list[Callable[[], None]] = []
        self.startup_problems: list[str] = []
        # What the toasts said, newest last, until they are cleared: what a user was told, for
        # whatever must know it without reading the screen (the tests, a demo's captions).
        self.told: list[Told] = []
        self.last_copy: Any = None  # where the latest copy went (payscope.views.clipboard.Copied)
        self._own_theme_names: list[str] = []
        self._all_themes_loaded = False
        self._lazy_themes = False
        wanted = options.theme or DEFAULT_THEME
        # Only the active theme before the first frame; the others load right after it, or as
        # soon as anything lists the themes.
        first = load_one_theme(wanted, options.user_theme_dir)
        if first is not None:
            self.register_theme(first)
        else:
            self.startup_problems.extend(self.load_all_themes())
            if self.get_theme(wanted) is None:
                self.startup_problems.append(
                    f"Theme {wanted!r} was not found; using {DEFAULT_THEME}. "
                    f"Themes: {', '.join(sorted(self._own_theme_names))}."
                )
                wanted = DEFAULT_THEME
        self.theme = wanted
        self._lazy_themes = True
        if options.keymap:
            self.set_keymap(options.keymap)

    def notify(
        self,
        message: str,
        *,
        title: str = "",
        severity: SeverityLevel = "information",
        timeout: float | None = None,
        markup: bool = False,
    ) -> None:
        """A toast. Its text is shown literally (`markup=False` unless asked): toasts carry ids,
        statuses and messages from the service, which are data, never markup or escapes."""
        shown, titled = visible(message, multiline=True), visible(title)
        self.told.append(Told(shown, titled, severity))
        del self.told[:-TOLD_KEPT]
        super().notify(shown, title=titled, severity=severity, timeout=timeout, markup=markup)

    def clear_notifications(self) -> None:
        self.told.clear()
        super().clear_notifications()

    def load_all_themes(self) -> list[str]:
        """Register the shipped and the user's themes (once); the problems found, for the user."""
        if self._all_themes_loaded:
            return []
        self._all_themes_loaded = True
        loaded = load_themes(self.options.user_theme_dir)
        self._own_theme_names = sorted(loaded.themes)
        for theme in loaded.themes.values():
            self.register_theme(theme)
        return loaded.problems

    @property
    def available_themes(self) -> dict[str, Theme]:
        if self._lazy_themes and not self._all_themes_loaded:
            self._tell_theme_problems(self.load_all_themes())
        return super().available_themes

    def register_theme(self, theme: Theme) -> None:
        super().register_theme(theme)
        self._themes[theme.name] = theme

    def get_theme(self, theme_name: str) -> Theme | None:
        # The active theme is asked for on every line drawn; the base class copies the whole
        # registry (and so would load every theme, see `available_themes`) each time.
        theme = self._themes.get(theme_name)
        return theme if theme is not None else super().get_theme(theme_name)

    def _tell_theme_problems(self, problems: list[str]) -> None:
        if not self.is_running:
            self.startup_problems.extend(problems)  # told by on_mount
            return
        for problem in problems:
            self.notify(problem, title="Theme problem", severity="warning", timeout=10)

    @property
    def runtime(self) -> Runtime:
        """The sandbox, listener and client this app works with (built on first use)."""
        if self._runtime is None:
            from payscope.app.runtime import Runtime

            self._runtime = Runtime(self.options, self._display_policy)
        return self._runtime

    def get_css_variables(self) -> dict[str, str]:
        variables = super().get_css_variables()
        # The footer sits on the surface colour, like the status bar above it, unless the theme
        # designs its own footer as a whole (solarized-light: light text on blue), which a
        # changed background alone would make unreadable.
        if "footer-background" not in self.current_theme.variables and "surface" in variables:
            variables["footer-background"] = variables["surface"]  # also self.theme_variables
        return variables

    def get_theme_variable_defaults(self) -> dict[str, str]:
        # Derived from the active theme (see `theme_defaults`), once per theme.
        theme = self.current_theme
        cached = self._theme_defaults.get(theme.name)
        if cached is None:
            cached = self._theme_defaults[theme.name] = theme_defaults(theme)
        return dict(cached)

    def get_default_screen(self) -> Screen[Any]:
        return MainScreen()

    def on_app_focus(self) -> None:
        """The terminal (a browser tab under `payscope serve`) has the focus again: Textual puts
        it back on the widget that had it when focus left, and on nothing when focus left before
        a screen had focused anything (a served page sends blur as it loads, before the table
        takes the focus). Then the screen's own first widget takes it, as when it opened."""
        self.call_after_refresh(self._focus_if_none)

    def _focus_if_none(self) -> None:
        screen = self.screen
        if screen.focused is not None or not self.app_focus:
            return
        target = self.AUTO_FOCUS if screen.AUTO_FOCUS is None else screen.AUTO_FOCUS
        if not target:
            return
        for widget in screen.query(target):  # as Textual picks it when a screen opens
            if widget.focusable:
                widget.focus(scroll_visible=False)
                return

    def on_mount(self) -> None:
        for problem in self.startup_problems:
            self.notify(problem, title="Theme problem", severity="warning", timeout=10)
        server = served_by() if self.is_web else None
        if server is not None:
            # A tab of `payscope serve`: this payscope quits (cleanly: its listener detached)
            # once the server is gone, however it stopped (Ctrl+C, or killed).
            self.set_interval(1.0, lambda: self._quit_when_server_gone(server))

    def _quit_when_server_gone(self, server: int) -> None:
        if os.getppid() != server:
            self.exit(0)

    def first_frame_out(self) -> None:
        """The shell is on screen: start the runtime."""
        self.start_runtime()
        # The collector stays paused while the runtime's imports run
        # (tui/payscope/core/gc_pause.py), at most this long (a first run's seeding).
        self.set_timer(GC_PAUSE_LIMIT, self._resume_gc)
        self._tell_theme_problems(self.load_all_themes())

    @work(exclusive=True, group="runtime", exit_on_error=False, description="Starting")
    async def start_runtime(self) -> None:
        """Start the sandbox (local profiles), the listener and the client; then load data."""
        screen = self.get_screen_main()
        try:
            await self.runtime.start(progress=screen.show_progress if screen else None)
        finally:
            self._resume_gc()
        self._hook_runtime()
        if isinstance(screen, MainScreen):
            screen.runtime_ready()
        for problem in await self.runtime.check_settings():
            self.notify(problem, title="Settings problem", severity="warning", timeout=10)

    @staticmethod
    def _resume_gc() -> None:
        # Frozen first: the modules and the shell made so far are never garbage, and full
        # collections need not go over them again.
        gc_pause.resume(freeze=True)

    def _hook_runtime(self) -> None:
        """Feed the app's signals from the listener and the client (again after a retry)."""
        for unhook in self._unhook:
            unhook()
        self._unhook = []
        listener = self.runtime.listener
        if listener is not None:
            self._unhook.append(listener.add_subscriber(self._delivered))
        client = self.runtime.client
        if client is not None:
            self._unhook.append(client.journal.subscribe(self.requests.publish))

    def _delivered(self, delivery: Any) -> None:
        from payscope.views.live import change_of

        self.deliveries.publish(delivery)
        change = change_of(delivery)
        if change is not None:
            self.changes.publish(change)

    def get_screen_main(self) -> MainScreen | None:
        for screen in self.screen_stack:
            if isinstance(screen, MainScreen):
                return screen
        return None

    def action_change_theme(self) -> None:
        """The theme picker (Ctrl+P Theme, `:theme`): the theme picked is kept, as Settings
        keeps it (`choose_theme`)."""
        self.search_commands(
            [
                (name, lambda name=name: self.choose_theme(name), "Use this theme and keep it")
                for name in sorted(self.available_themes)
            ],
            placeholder="Search for themes…",
        )

    def choose_theme(self, name: str) -> None:
        """Use the theme `name` and keep it for the next start (the settings file, or the
        profile's own theme when it has one); say where it was kept."""
        from payscope.core import config

        self.theme = name
        try:
            path = config.save_theme(name, self.runtime.options.profile)
        except (config.ConfigError, OSError) as exc:
            self.notify(f"Theme {name} is used, but not kept: {exc}", severity="warning")
            return
        self.notify(f"Theme {name} saved to {path}.", title="Theme", markup=False)

    def on_key(self, event: events.Key) -> None:
        """A key that reached the app unhandled. Keys typed at once after `n` were sent to the
        list before its form opened; they come here after, from a screen no longer on show. A
        screen that takes them (a form: `take_stray_key`) gets them as typed."""
        take = getattr(self.screen, "take_stray_key", None)
        if take is not None and take(event):
            event.stop()
            event.prevent_default()

    def on_descendant_focus(self, event: events.DescendantFocus) -> None:
        """An input focused keeps its cursor still when the user asked for that (the setting
        `cursor_blink = false`, or `PAYSCOPE_CURSOR_BLINK=off` for one run)."""
        if not self.cursors_still():
            return  # first: the table's focus at start-up need not import TextArea
        from textual.widgets import Input, TextArea

        widget = event.widget
        if isinstance(widget, Input | TextArea) and widget.cursor_blink:
            widget.cursor_blink = False

    def cursors_still(self) -> bool:
        wanted = os.environ.get(ENV_CURSOR_BLINK, "").strip().lower()
        if wanted:
            return wanted in ("off", "0", "false", "no")
        settings = self.options.settings
        return settings is not None and not settings.cursor_blink

    async def on_unmount(self) -> None:
        for unhook in self._unhook:
            unhook()
        if self._runtime is not None:
            await self._runtime.stop()

    def on_worker_state_changed(self, event: Worker.StateChanged) -> None:
        """The one place worker failures become messages for the user (never a crash)."""
        if event.state != WorkerState.ERROR:
            return
        error = event.worker.error
        assert error is not None
        title, message = describe_error(error)
        what = event.worker.description or event.worker.name
        if event.worker.group == "runtime":
            screen = self.get_screen_main()
            if screen is not None:
                screen.runtime_failed(title, message)
            return
        main = self.get_screen_main()
        if main is not None and main.service_is_down and _is_connection_error(error):
            return  # the service-down banner already says it, with when it is tried again
        self.notify(message, title=f"{title} ({what})" if what else title, severity="error")

    def action_help(self) -> None:
        from payscope.shell.help import KeyHelpScreen

        if not isinstance(self.screen, KeyHelpScreen):
            self.push_screen(KeyHelpScreen(self.screen))

    def get_system_commands(self, screen: Screen[Any]) -> Iterable[SystemCommand]:
        from payscope.views.detail import DetailScreen

        if isinstance(screen, MainScreen | DetailScreen):
            yield from screen.context_commands()
        main = self.get_screen_main()
        for area in AREAS:
            if main is not None:
                yield SystemCommand(
                    f"Go to {area.title}",
                    area.description,
                    lambda key=area.key: self.goto(key),
                    discover=False,
                )
        yield SystemCommand(
            "Find",
            "Find a payment, refund, dispute, customer or event by id, email or last 4",
            self.action_find,
        )
        if not self.runtime.options.read_only:
            yield SystemCommand(
                "Run a fixture",
                "Run a fixture file's steps (your own scenario), then open what it made",
                self.action_run_fixture,
            )
        if self.runtime.options.is_local and not self.runtime.options.read_only:
            from payscope.api.scenarios import SCENARIOS

            yield SystemCommand(
                "Sandbox clock",
                "Advance the local sandbox's clock, after a preview of what falls due",
                self.action_sandbox_clock,
            )
            for scenario in SCENARIOS:
                yield SystemCommand(
                    f"Trigger: {scenario.title}",
                    f"{scenario.help} (key {scenario.key} in :sandbox)",
                    lambda key=scenario.key: self.trigger(key),
                )
        yield SystemCommand("Theme", "Preview and pick a theme (live)", self.action_change_theme)
        yield SystemCommand("Keys", "Show every key of this screen", self.action_help)
        yield SystemCommand("Quit", "Quit payscope", self.action_quit)

    def action_sandbox_clock(self) -> None:
        """The local sandbox's clock, over whatever is on screen."""
        from payscope.views.clock import ClockScreen

        if self.runtime.options.is_local and not isinstance(self.screen, ClockScreen):
            self.push_screen(ClockScreen())

    def refuses(self, what: Guarded) -> bool:
        """Whether `what` is refused now (said to the user when it is): nothing is, in payscope
        itself; the demo player (tui/payscope/demo/player.py) refuses all of `Guarded` while it
        plays."""
        return False

    def action_run_fixture(self) -> None:
        """Ask for a fixture file and run it (tui/payscope/views/fixture_run.py), over whatever is
        on
        screen; nothing on a read-only profile."""
        from payscope.views.fixture_run import FixtureScreen

        if self.refuses(Guarded.RUN_FIXTURES):
            return
        if not self.runtime.options.read_only and not isinstance(self.screen, FixtureScreen):
            self.push_screen(FixtureScreen())

    def trigger(self, key: str) -> None:
        """Fire the Trigger scenario of `key` from the :sandbox area (it opens what it made)."""
        from payscope.api.scenarios import SCENARIOS
        from payscope.areas.sandbox.view import SandboxView

        main = self.get_screen_main()
        scenario = next((s for s in SCENARIOS if s.key == key), None)
        if main is None or scenario is None:
            return
        self.goto("sandbox")
        view = main.current_view()
        if isinstance(view, SandboxView):
            # After the next refresh: a view shown for the first time composes first.
            self.call_after_refresh(view.fire, scenario)

    def goto(self, area: str, record_id: str | None = None) -> None:
        """Show an area (closing screens above the main one), and open a record in it."""
        main = self.get_screen_main()
        if main is None:
            return
        while len(self.screen_stack) > 1 and self.screen is not main:
            self.pop_screen()
        view = main.show_area(area)
        if record_id is not None:
            view.open_record(record_id)

    async def action_command(self) -> None:
        """Command mode (`:`), on every screen: the main screen's prompt, else one over the
        screen on show; what is typed runs as it does on the main screen."""
        from payscope.shell.command_prompt import CommandScreen

        main = self.get_screen_main()
        if main is None:
            return
        if self.screen is main:
            await main.prompt_command("")
            return
        if isinstance(self.screen, CommandScreen):
            return

        def run(command: Any) -> None:
            if command is not None:
                main.run_command(command)

        self.push_screen(CommandScreen(tuple(sorted(self.available_themes))), run)

    async def action_find(self) -> None:
        """Ask for what to find (`:find TEXT` does it at once)."""
        main = self.get_screen_main()
        if main is not None:
            self.goto(main.current_area())
            await main.prompt_command("find ")


def make_app(
    *,
    profile: str | None = None,
    seed: int | None = None,
    theme: str | None = None,
    allow_production: bool = False,
    config_dir: Path | None = None,
    data_dir: Path | None = None,
    runtime: Runtime | None = None,
    display: DisplayPolicy = USER,
    retry_rng: Callable[[], float] | None = None,
    retry_sleep: Callable[[float], Awaitable[Any]] | None = None,
    daemon: bool = False,
    read_only: bool = False,
    app_class: type[PayscopeApp] | None = None,
    **sandbox_options: Any,
) -> PayscopeApp:
    """Build the app the CLI runs and the tests drive; nothing starts until it is mounted.

    `sandbox_options` go to the embedded sandbox's config (tests freeze its clock with them);
    `display` is what the screens show of ports and wall-clock times (tests give `STABLE`);
    `retry_rng` replaces the API client's backoff jitter (`random.random`) so tests repeat exactly;
    `retry_sleep` its wait before a retry (`asyncio.sleep`), so tests need not sit through it.
    `read_only` (`--read-only`): no action that writes is offered, and the client refuses them.
    `app_class`: a subclass to build instead (`payscope demo`'s player).
    """
    from payscope.app.runtime.options import RuntimeOptions

    options = RuntimeOptions.build(
        profile=profile,
        seed=seed,
        theme=theme,
        allow_production=allow_production,
        config_dir=config_dir,
        data_dir=data_dir,
        sandbox_options=sandbox_options,
    )
    options.retry_rng = retry_rng
    options.retry_sleep = retry_sleep
    options.daemon = daemon and not sandbox_options
    options.read_only = read_only
    return (app_class or PayscopeApp)(options, runtime, display)


def run_tui(args: argparse.Namespace) -> int:
    """Run the TUI from the parsed command line; the exit status for the shell.

    The garbage collector is paused already (`payscope.cli`, from launch); the first frame resumes
    it (`first_frame_out`), or the end of this call if no frame came."""
    from payscope.app.runtime.options import OptionsError

    try:
        try:
            app = make_app(
                profile=args.profile,
                seed=args.seed,
                theme=args.theme,
                allow_production=args.allow_production,
                daemon=os.environ.get(ENV_SANDBOX_MODE, "") != "in-process",
                read_only=bool(getattr(args, "read_only", False)),
            )
        except OptionsError as exc:
            say(f"payscope: {exc}", file=sys.stderr)
            return 2
        app.runtime.spawn_early()  # the sandbox starts while Textual loads
        result = app.run()
    finally:
        gc_pause.resume()  # an app that failed before its first frame
    return result or 0


def exit_now(code: int) -> NoReturn:
    """Leave at once once the app has stopped: everything that holds data (the listener's
    journal, an in-app sandbox's database) is closed by `Runtime.stop` before `App.run`
    returns, so the interpreter's own teardown (freeing every object one by one, about half a
    second after a session) has nothing left to save."""
    sys.stdout.flush()
    sys.stderr.flush()
    os._exit(code)


def _is_connection_error(error: BaseException) -> bool:
    """No answer or a timeout: the kind of failure the service-down banner covers."""
    return any(cls.__name__ == "ApiConnectionError" for cls in type(error).__mro__)


if TYPE_CHECKING:

    def _is_a_host(app: PayscopeApp) -> AppHost:
        """The app is what the layers below it see of it (`payscope.views.access`): mypy checks."""
        return app
