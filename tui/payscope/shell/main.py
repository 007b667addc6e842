"""The main screen: navigation rail, the area views, command mode, the status bar."""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import TYPE_CHECKING, Any, ClassVar

from textual import events, on
from textual.app import ComposeResult, SystemCommand
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, Vertical
from textual.css.query import NoMatches
from textual.geometry import Size
from textual.screen import Screen
from textual.timer import Timer
from textual.widgets import ContentSwitcher, OptionList, Static
from textual.widgets.option_list import Option

from payscope.areas import AREA_BY_KEY, AREAS
from payscope.views.access import AppAccess
from payscope.views.area import AreaView, nav_shown_at
from payscope.views.listing import ResourceListView
from payscope.widgets.errors import describe_error
from payscope.widgets.footer import KeyFooter
from payscope.widgets.status_bar import StatusBar
from payscope.widgets.text import safe_markup

if TYPE_CHECKING:
    from payscope.shell.command_prompt import Command
    from payscope.shell.health import HealthNews, HealthSupervisor

# The prompt and the progress bar are imported when first shown: neither is in the first frame.
PROMPT = "#command-prompt"


class NavRail(OptionList):
    """The areas, always visible on the left."""

    DEFAULT_CSS = """
    /* width: NAV_WIDTH in tui/payscope/views/area.py */
    NavRail {
        dock: left; width: 16; height: 1fr; border: none; padding: 0 0;
        background: $surface; border-right: vkey $panel;
    }
    NavRail:focus { border: none; border-right: vkey $primary; }
    NavRail > .option-list--option { padding: 0 1; }
    """

    def __init__(self) -> None:
        super().__init__(
            *[Option(area.title, id=area.key) for area in AREAS],
            id="nav",
        )


# The status bar's count of events follows the deliveries at most this often.
COUNT_EVERY = 0.25


class Banner(Static):
    """A one-line problem banner (remote service down, start-up failed) with a retry key."""

    DEFAULT_CSS = """
    Banner {
        dock: top; height: auto; display: none; padding: 0 1;
        background: $error 25%; color: $text; border-left: thick $error;
    }
    Banner.-shown { display: block; }
    """


class StartupProgress(Vertical):
    """Shown while the embedded sandbox starts or seeds its first demo data."""

    DEFAULT_CSS = """
    StartupProgress {
        dock: top; height: auto; display: none; padding: 0 1; background: $boost;
    }
    StartupProgress.-shown { display: block; }
    StartupProgress > #progress-text { color: $text-muted; }
    StartupProgress > ProgressBar { width: 1fr; }
    """

    def compose(self) -> ComposeResult:
        # The bar is mounted when a first run seeds: most starts never need it.
        yield Static(id="progress-text")


class MainScreen(AppAccess, Screen[None]):  # type: ignore[misc]
    """The shell every area lives in."""

    # Focus given as the screen resumes, before its first frame: focusing from on_mount restyles
    # the table after it was drawn and costs a second full render of it at start-up.
    AUTO_FOCUS = "#payments-table"
    # Set once the user shows or hides the rail (Ctrl+N): resizing no longer decides for them.
    _nav_chosen = False
    _uncounted = 0  # deliveries counted, not yet in the status bar
    _count_timer: Timer | None = None
    _laid_out_for: Size | None = None  # the size of the screen's last full layout

    DEFAULT_CSS = """
    MainScreen { layout: vertical; }
    MainScreen > #body { height: 1fr; layers: default prompt; }
    MainScreen #views { width: 1fr; height: 1fr; }
    MainScreen StartupProgress { layer: prompt; dock: bottom; }
    MainScreen CommandPrompt {
        display: none; border: round $accent; height: 3; margin: 0 0;
        layer: prompt; dock: bottom;
    }
    MainScreen CommandPrompt.-shown { display: block; }
    """

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding(
            "colon",
            "command",
            "Command",
            id="main.command",
            tooltip="Command mode: an area name, `pay <id>`, `theme <name>`",
            key_display=":",
        ),
        Binding(
            "slash",
            "filter",
            "Filter",
            id="main.filter",
            tooltip="Filter the current table",
            key_display="/",
        ),
        Binding(
            "escape",
            "back",
            "Back",
            id="main.back",
            tooltip="Close the prompt or clear the filter",
            show=False,
        ),
        Binding(
            "ctrl+r",
            "retry",
            "Retry",
            id="main.retry",
            tooltip="Retry starting or reconnecting; reload the views when all is up",
            show=False,
        ),
        Binding(
            # Ctrl+B alone never arrived inside tmux (its prefix), where demos often run.
            "ctrl+n,ctrl+b",
            "toggle_nav",
            "Areas",
            id="main.toggle-nav",
            tooltip="Show or hide the navigation rail (Ctrl+N; Ctrl+B too, outside tmux)",
            show=False,
        ),
    ]

    service_is_down = False
    _resumed_once = False
    _webhooks_detached = False  # told once, until it changes
    status_poll: Timer | None = None  # the status bar's one-second poll, once the runtime is up
    _supervisor: HealthSupervisor | None = None
    _counting = False

    def compose(self) -> ComposeResult:
        yield Banner(id="banner")
        with Horizontal(id="body"):
            # Over the body's last rows while the runtime starts (the list has none yet), on
            # the prompt's layer, just above the status bar's "starting", rather than taking
            # a row from the body: shown and gone, it would lay out and draw again the
            # whole body twice in every start. First among the body's children, as the prompt
            # is (prompt_command): what shows on that layer then leaves the painting order of
            # the rail and the views as it was, and Textual draws only the widget that came.
            yield StartupProgress(id="startup")
            nav = NavRail()
            nav.display = nav_shown_at(self.app.size.width)
            yield nav
            with ContentSwitcher(id="views", initial="payments"):
                yield AREA_BY_KEY["payments"].build()
        yield StatusBar(id="status")
        yield KeyFooter(show_command_palette=False)

    def on_screen_resume(self, event: events.ScreenResume) -> None:
        # Screen's own handler, after this one, lays the screen out for the app's size.
        self._laid_out_for = self.app.size
        # Runs before Screen's own handler (Textual calls the subclass's first). The first
        # resume comes straight after the mount, which styled every node already: Textual would
        # style them all once more, before the first frame. Focus given on resume
        # restyles what it changes itself.
        if not self._resumed_once:
            self._resumed_once = True
            event.refresh_styles = False
            # The runtime starts once the first frame is out: Screen's own handler, after this
            # one, lays the screen out and draws it, and `call_next` runs once the handlers are
            # done. Before it, the import thread would compete with the first paint; waiting
            # for the screen to settle (`call_after_refresh`) would wait for the terminal's
            # answers to Textual's queries: three more layouts, then the focus and the footer's
            # keys.
            self.call_next(self.app.first_frame_out)

    def on_mount(self) -> None:
        status = self.query_one(StatusBar)
        runtime = self.app.runtime
        status.profile = runtime.profile_name
        status.read_only = runtime.options.read_only
        status.set_environment(runtime.environment)
        self.query_one(NavRail).highlighted = 0

    # -- areas -------------------------------------------------------------------------------

    def views(self) -> list[AreaView]:
        """The area views built so far."""
        return list(self.query_one(ContentSwitcher).query_children(AreaView))

    def current_area(self) -> str:
        """The key of the area on show."""
        return self.query_one(ContentSwitcher).current or "payments"

    def current_view(self) -> AreaView:
        return self.query_one(ContentSwitcher).get_child_by_id(self.current_area(), AreaView)

    def show_area(self, key: str) -> AreaView:
        """Switch to an area, building its view the first time it is shown."""
        switcher = self.query_one(ContentSwitcher)
        if not switcher.query_children(f"#{key}"):
            built = AREA_BY_KEY[key].build()
            switcher.mount(built)
            if self.app.runtime.ready.is_set():
                built.call_after_refresh(built.runtime_ready)
        switcher.current = key
        nav = self.query_one(NavRail)
        index = next(i for i, area in enumerate(AREAS) if area.key == key)
        if nav.highlighted != index:
            nav.highlighted = index
        view = switcher.get_child_by_id(key, AreaView)
        view.call_after_refresh(view.focus_main)
        self.refresh_bindings()  # `/` is offered only where the area filters
        return view

    @on(OptionList.OptionHighlighted, "#nav")
    def _nav_highlighted(self, event: OptionList.OptionHighlighted) -> None:
        if event.option.id and self.query_one(ContentSwitcher).current != event.option.id:
            self.show_area(event.option.id)
            self.query_one(NavRail).focus()

    @on(OptionList.OptionSelected, "#nav")
    def _nav_selected(self, event: OptionList.OptionSelected) -> None:
        if event.option.id:
            self.show_area(event.option.id)

    # -- start-up ----------------------------------------------------------------------------

    def show_progress(self, text: str, fraction: float | None) -> None:
        """Start-up progress from the runtime (seeding shows a bar)."""
        try:
            box = self.query_one(StartupProgress)
        except NoMatches:  # the app is closing (quit while starting): nothing left to tell
            return
        box.set_class(bool(text), "-shown")
        self.query_one("#progress-text", Static).update(text)
        # Looked for by id: the bar's module is imported only when a first run's seeding shows
        # one, not when a warm start's client comes up, just before the live page.
        if box.query("#progress-bar"):
            from textual.widgets import ProgressBar

            for bar in box.query("#progress-bar").results(ProgressBar):
                bar.display = fraction is not None
                if fraction is not None:
                    bar.update(progress=fraction)
        elif fraction is not None and text:
            from textual.widgets import ProgressBar

            bar = ProgressBar(total=1.0, show_eta=False, id="progress-bar")
            box.mount(bar)
            self.call_after_refresh(bar.update, progress=fraction)
        self.query_one(StatusBar).state = "starting" if text else ""

    def runtime_ready(self) -> None:
        """Everything is up: fill the status bar and let every built view load its data."""
        runtime = self.app.runtime
        try:
            self.query_one(Banner).remove_class("-shown")
        except NoMatches:  # the app is closing (quit while starting): nothing to fill
            return
        self.query_one(StartupProgress).remove_class("-shown")
        status = self.query_one(StatusBar)
        status.state = ""
        status.key_source = runtime.key_source
        status.listener_url = runtime.listener_url
        status.listener_elsewhere = bool(runtime.listener_elsewhere)
        status.read_only = runtime.options.read_only  # a profile's mark is read at its start
        status.insecure_http = runtime.insecure_http
        status.set_environment(runtime.environment)
        self._tell_notices()
        self._reload_views()
        self._watch_runtime()
        self._supervise()

    def _supervise(self) -> None:
        """Watch the remote service or the background sandbox (`HealthSupervisor`): its news
        come to `_health_news`. A retried start has one supervisor, not two."""
        from payscope.shell.health import HealthSupervisor

        supervisor = HealthSupervisor(self.app.runtime, self._health_news)
        watched = supervisor.watches
        if watched is None:
            return
        self._supervisor = supervisor
        self.run_worker(
            supervisor.run(),
            group="health",
            exclusive=watched == "sandbox",
            exit_on_error=False,
            description="Health" if watched == "service" else "Local sandbox",
        )

    def _health_news(self, news: HealthNews) -> None:
        """What the supervisor saw, said on the banner and the status bar."""
        from payscope.shell import health

        if isinstance(news, health.ServiceDown):
            self.service_down(news.error, news.retry_in)
        elif isinstance(news, health.ServiceUp):
            self.service_up()
        elif isinstance(news, health.SandboxDown):
            self._sandbox_down(news.why)
        elif isinstance(news, health.SandboxStarting):
            self.show_progress(news.text, news.fraction)
        elif isinstance(news, health.SandboxFailed):
            self._sandbox_failed(*describe_error(news.error))
        elif isinstance(news, health.SandboxBack):
            self._sandbox_back(news.url)

    def _sandbox_down(self, why: str) -> None:
        self.service_is_down = True  # the views' connection errors are the banner's to say
        self.app.clear_notifications()
        banner = self.query_one(Banner)
        banner.update(
            f"[b]The local sandbox stopped[/b] ({safe_markup(why)}). payscope is starting it "
            "again on the same port, with the same data and keys.\n"
            "[dim]`payscope sandbox status` in a shell shows it.[/dim]"
        )
        banner.add_class("-shown")
        self.query_one(StatusBar).state = "offline"

    def _sandbox_failed(self, title: str, message: str) -> None:
        self.query_one(StartupProgress).remove_class("-shown")
        banner = self.query_one(Banner)
        banner.update(
            f"[b]The local sandbox could not be started again: {safe_markup(title)}.[/b] "
            f"{safe_markup(message, multiline=True)}\n[dim]Ctrl+R tries again.[/dim]"
        )
        banner.add_class("-shown")

    def _sandbox_back(self, url: str) -> None:
        self.service_is_down = False
        self.query_one(Banner).remove_class("-shown")
        self.query_one(StartupProgress).remove_class("-shown")
        status = self.query_one(StatusBar)
        status.state = ""
        self.notify(f"The local sandbox is back on {url}.", title="Sandbox")
        self._tell_notices()
        self._reload_views()

    def service_down(self, error: BaseException, retry_in: float) -> None:
        """The remote service does not answer: a banner that says so and when it is tried again."""
        title, message = describe_error(error)
        self.service_is_down = True
        # A plain "no answer" is what the heading already says; a timeout or a 5xx is news.
        heading = "" if type(error).__name__ == "ApiConnectionError" else f": {title}"
        # The views' own failed loads said the same in toasts: the banner replaces them.
        self.app.clear_notifications()
        banner = self.query_one(Banner)
        said = safe_markup(message, multiline=True)
        banner.update(
            f"[b]The service is not answering{safe_markup(heading)}.[/b] {said}\n"
            f"[dim]Checking again in {retry_in:.0f} s; Ctrl+R to retry now.[/dim]"
        )
        banner.add_class("-shown")
        self.query_one(StatusBar).state = "offline"

    def service_up(self) -> None:
        """The service answers again: hide the banner and reload what the views show."""
        self.service_is_down = False
        self.query_one(Banner).remove_class("-shown")
        self.query_one(StatusBar).state = ""
        self.notify("The service answers again.", title="Reconnected")
        self._reload_views()

    def _reload_views(self) -> None:
        for view in self.views():
            view.runtime_ready()

    def runtime_failed(self, title: str, message: str) -> None:
        """Start-up failed: say so on a banner that offers a retry (Ctrl+R)."""
        try:
            self.query_one(StartupProgress).remove_class("-shown")
            banner = self.query_one(Banner)
        except NoMatches:  # quit while starting: the start was cut short, nobody to tell
            return
        banner.update(
            f"[b]{safe_markup(title)}.[/b] {safe_markup(message, multiline=True)}\n"
            "[dim]Press Ctrl+R to retry.[/dim]"
        )
        banner.add_class("-shown")
        self.query_one(StatusBar).state = "offline"

    def _tell_notices(self) -> None:
        """Say what the runtime has to tell (a port taken, a journal moved aside, its listener
        started again), once each, as plain text: paths and errors may hold '[' (a screen's
        `notify` reads markup unless told not to)."""
        notices = self.app.runtime.notices
        while notices:
            self.notify(
                notices.pop(0), title="Sandbox", severity="warning", timeout=12, markup=False
            )

    def _watch_runtime(self) -> None:
        from payscope.views.live import watch_deliveries, watch_requests

        listener = self.app.runtime.listener
        status = self.query_one(StatusBar)
        if listener is not None:
            status.event_count = listener.journal.count()
        # Runs again after a retried start: one subscription, one timer.
        if not self._counting:
            self._counting = True
            watch_deliveries(self, self._count_delivery)
            watch_requests(self, self._clock_moved)
        if self.status_poll is None:
            self.status_poll = self.set_interval(1.0, self.refresh_status)
        self.refresh_status()

    def _clock_moved(self, entry: Any) -> None:
        # Whoever moved the sandbox's clock (the clock form, a scenario, a script on the app's
        # client), the status bar says so at once rather than at its next poll.
        from payscope.api.resources import CLOCK_ADVANCE

        if entry.ok and entry.path == CLOCK_ADVANCE:
            self.app.runtime.forget_clock()
            self.refresh_status()

    def refresh_status(self) -> None:
        """Rate limit and clock are polled; cheap reads of state the client already holds."""
        runtime = self.app.runtime
        status = self.query_one(StatusBar)
        client = runtime.client
        limit = getattr(client, "rate_limit", None)
        if limit is not None and getattr(limit, "remaining", None) is not None:
            # A measurement: the window resets on the wall clock.
            window = runtime.display.measured(f"{limit.remaining}/{limit.limit}")
            if window is not None:
                status.rate_limit = window
        if runtime.has_local_sandbox:
            status.clock = runtime.clock_text()
        self._tell_notices()  # e.g. from work the runtime finishes after start-up
        detached = runtime.ready.is_set() and runtime.webhooks_detached()
        if detached != self._webhooks_detached:
            self._webhooks_detached = detached
            if detached:
                # Every payscope's listener is attached at once; only a detach stops them (a
                # curl's, or the sandbox's own when the listener did not answer: stopped).
                self.notify(
                    "This payscope's listener is no longer attached to the local sandbox (it "
                    "was detached from outside, or did not answer a delivery in time): live "
                    "updates here have stopped. Ctrl+R attaches it again.",
                    title="Webhooks",
                    severity="warning",
                    timeout=20,
                    markup=False,
                )

    def _count_delivery(self, delivery: Any) -> None:
        # Deliveries, not changes: payscope announces changes of its own that no webhook brings.
        # Counted at once, shown at most four times a second (a feed of 100 a second would
        # redraw the status line at every frame).
        if delivery.accepted and not delivery.duplicate:
            self._uncounted += 1
            if self._count_timer is None:
                self._count_timer = self.set_timer(COUNT_EVERY, self._show_count)

    def _show_count(self) -> None:
        self._count_timer = None
        self.query_one(StatusBar).event_count += self._uncounted
        self._uncounted = 0

    # -- actions -----------------------------------------------------------------------------

    async def action_command(self) -> None:
        await self.prompt_command("")

    async def prompt_command(self, text: str) -> None:
        """Open the command prompt with `text` typed in it."""
        from payscope.shell.command_prompt import CommandPrompt

        prompts = self.query(PROMPT).results(CommandPrompt)
        prompt = next(prompts, None)
        if prompt is None:
            # Mounted on first use: one widget less to build before the first paint. It lies
            # over the last rows of the body, on a layer of its own, rather than taking rows
            # from it: opening and closing it then draws the prompt alone, where taking rows
            # laid out and drew again every row of the table and the rail (the figures:
            # bench/key_costs.py). Mounted first in the body: Textual numbers the painting
            # order from the last child placed, so a prompt placed after the rail and the
            # views would renumber them both, and draw them again, each time it shows.
            prompt = CommandPrompt(themes=tuple(sorted(self.app.available_themes)))
            await self.query_one("#body").mount(prompt, before=0)
        prompt.add_class("-shown")
        prompt.value = text
        prompt.cursor_position = len(text)
        prompt.focus()

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if action == "filter":
            # `/` is offered (footer, key help) only where the area filters.
            return self.current_view().filterable
        return super().check_action(action, parameters)

    async def action_filter(self) -> None:
        view = self.current_view()
        if view.filterable:
            await view.start_filter()

    def action_back(self) -> None:
        if any(prompt.has_class("-shown") for prompt in self.query(PROMPT)):
            self._close_prompt()
            return
        self.current_view().back()

    def action_retry(self) -> None:
        if self.service_is_down:  # the runtime is up; only what the supervisor watches is not
            if self._supervisor is not None:
                self._supervisor.wake()
            return
        runtime = self.app.runtime
        if runtime.ready.is_set() and not self.query_one(Banner).has_class("-shown"):
            if self._webhooks_detached:
                self.run_worker(self._reclaim_webhooks(), group="webhooks", exit_on_error=False)
            # Everything is up; a view's load failed (a 5xx, say): load the views again.
            self._reload_views()
            return
        self.query_one(Banner).remove_class("-shown")
        self.app.start_runtime()

    async def _reclaim_webhooks(self) -> None:
        await self.app.runtime.reclaim_webhooks()
        self._webhooks_detached = False
        self.notify("The local sandbox's webhooks come here again.", title="Webhooks")

    def action_toggle_nav(self) -> None:
        nav = self.query_one(NavRail)
        nav.display = not nav.display
        self._nav_chosen = True  # from now on the rail stays as the user left it

    def on_resize(self, event: events.Resize) -> None:
        if event.size == self._laid_out_for:
            # Textual's own handler lays the whole screen out again and draws it, whatever the
            # size: three times after the first frame (the app's first size, the terminal's
            # answer with the same size, the screen's own first layout), CPU taken while the
            # client starts. A size it was laid out for already needs none of that; a change
            # of content lays itself out.
            event.prevent_default()
            return
        self._laid_out_for = event.size
        if not self._nav_chosen:
            self.query_one(NavRail).display = nav_shown_at(event.size.width)

    def _close_prompt(self) -> None:
        for prompt in self.query(PROMPT):
            prompt.remove_class("-shown")
        self.current_view().focus_main()

    # Handlers by name rather than `@on(CommandPrompt.Run)`: that would import the prompt's
    # module (and Input's) before the first frame.
    def on_command_prompt_closed(self) -> None:
        self._close_prompt()

    def on_command_prompt_run(self, event: Any) -> None:
        self._close_prompt()
        self.run_command(event.command)

    def run_command(self, command: Command) -> None:
        """Carry out a parsed command line: its kind names the handler (`COMMAND_HANDLERS`)."""
        handler = self.COMMAND_HANDLERS.get(command.kind)
        if handler is not None:
            handler(self, command)

    def _command_error(self, command: Command) -> None:
        self.notify(command.message or "Unknown command.", severity="warning")

    def _command_quit(self, command: Command) -> None:
        self.app.exit(0)

    def _command_help(self, command: Command) -> None:
        self.app.action_help()

    def _command_theme(self, command: Command) -> None:
        if not command.argument:
            self.app.action_change_theme()  # the picker lists every theme
        elif command.argument in self.app.available_themes:
            self.app.choose_theme(command.argument)  # kept, as Settings keeps it
        else:
            self.notify(
                f"No theme {command.argument!r}. Themes: "
                f"{', '.join(sorted(self.app.available_themes))}.",
                severity="warning",
            )

    def _command_new(self, command: Command) -> None:
        self.app.goto("payments")  # from a detail too: the screens above close
        view = self.current_view()
        if isinstance(view, ResourceListView):
            view.new_record()

    def _command_area(self, command: Command) -> None:
        if command.area:
            self.app.goto(command.area)  # from a detail too: the screens above close

    def _command_open(self, command: Command) -> None:
        if command.area and command.argument:
            self.open_id(command.area, command.argument)

    def _command_find(self, command: Command) -> None:
        if command.argument:
            self.find(command.argument)

    # What each kind of command line does (the kinds `payscope.shell.command_prompt` parses).
    COMMAND_HANDLERS: ClassVar[dict[str, Callable[[MainScreen, Command], None]]] = {
        "error": _command_error,
        "quit": _command_quit,
        "help": _command_help,
        "theme": _command_theme,
        "new": _command_new,
        "area": _command_area,
        "open": _command_open,
        "find": _command_find,
    }

    def open_id(self, area: str, text: str) -> None:
        """`:pay <id>`: a whole id opens at once; part of one is looked for among the area's
        records (one match opens, several are listed)."""
        from payscope.shell.find import KIND_OF_AREA, FindScreen, whole_id

        if area not in KIND_OF_AREA or whole_id(text, AREA_BY_KEY[area].id_prefix):
            self.app.goto(area, text)
        else:
            self.app.push_screen(FindScreen(text, area=area, open_single=True))

    def find(self, text: str) -> None:
        """`:find TEXT`: what matches across areas, Enter opens it."""
        from payscope.shell.find import FindScreen

        self.app.push_screen(FindScreen(text))

    def key_help_rows(self) -> Iterable[tuple[str, str, str]]:
        """The current area's own keys beyond its bindings (Sandbox's Trigger keys), for `?`."""
        return self.current_view().key_help_rows()

    def context_commands(self) -> Iterable[SystemCommand]:
        """Palette commands for what is selected in the current area."""
        yield from self.current_view().context_commands()
