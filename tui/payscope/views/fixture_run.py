"""Run a fixture from the TUI (the Sandbox area's `f`, the palette's "Run a fixture"): ask for
the file, show each step as it finishes, then open what it made. The runner is
`payscope.api.fixtures`, shared with `payscope fixtures run`; this is only its screen."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any, ClassVar

from rich.text import Text
from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Vertical, VerticalScroll
from textual.screen import ModalScreen
from textual.widgets import Input, Static

from payscope.api.fixtures.files import load_fixture
from payscope.api.fixtures.running import run_fixture
from payscope.api.fixtures.steps import Allowed, FixtureError
from payscope.core import config, secrets
from payscope.views.access import AppAccess
from payscope.views.areas import registry
from payscope.views.ask import AskScreen
from payscope.webhooks.compose import sender
from payscope.widgets.errors import describe_error
from payscope.widgets.text import safe

if TYPE_CHECKING:
    from payscope.api.fixtures.steps import Made, StepResult

# Where the examples are, from payscope's source tree (offered when it is the current directory).
EXAMPLES = Path("fixtures")


class FixtureScreen(AppAccess, ModalScreen[None]):  # type: ignore[misc]
    """A fixture's path, then its steps as they run; Enter runs, `o` opens what it made."""

    DEFAULT_CSS = """
    FixtureScreen { align: center middle; }
    FixtureScreen > Vertical {
        width: 96; max-width: 96%; height: auto; max-height: 90%;
        border: round $primary; background: $surface; padding: 0 1;
    }
    FixtureScreen #fixture-title { text-style: bold; padding: 0 0 1 0; }
    FixtureScreen #fixture-hint { color: $text-muted; padding: 1 0 0 0; }
    FixtureScreen VerticalScroll { height: auto; max-height: 20; }
    FixtureScreen #fixture-steps { padding: 1 0 0 0; }
    """

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape", "dismiss", "Close", id="fixture.close", tooltip="Close"),
        Binding("ctrl+o", "open_made", "Open", id="fixture.open", tooltip="Open what the run made"),
    ]

    def __init__(self, path: str = "") -> None:
        super().__init__()
        self.path = path
        self.results: list[StepResult] = []
        self.made: list[Made] = []
        self.error: str = ""
        self.running = False

    def compose(self) -> ComposeResult:
        with Vertical():
            yield Static("Run a fixture", id="fixture-title")
            yield Input(
                self.path,
                placeholder=f"{EXAMPLES}/refund.toml" if EXAMPLES.is_dir() else "my-fixture.toml",
                id="fixture-path",
            )
            with VerticalScroll():
                yield Static(id="fixture-steps")
            yield Static(
                "Enter runs it · a TOML or JSON file of steps (docs/tools.md) · Esc closes",
                id="fixture-hint",
            )

    def on_mount(self) -> None:
        self.query_one(Input).focus()

    @on(Input.Submitted, "#fixture-path")
    def _submitted(self, event: Input.Submitted) -> None:
        event.stop()
        if not self.running:
            self.run_file(event.value.strip())

    @work(group="fixture", exclusive=True, exit_on_error=False, description="Fixture")
    async def run_file(self, path: str) -> None:
        self.results, self.made, self.error = [], [], ""
        if not path:
            self.error = "Type the path of a fixture file (.toml or .json)."
            self._show()
            return
        self.running = True
        try:
            fixture = load_fixture(Path(path).expanduser())
            self.query_one("#fixture-title", Static).update(
                Text.assemble(("Fixture ", "bold"), safe(fixture.name))
            )
            allowed = Allowed(env=frozenset(self._allowed_env()), ask_remote=self._ask_remote)
            async for result in run_fixture(self.runtime.api, fixture, self._sender(), allowed):
                self.results.append(result)
                self.made.extend(result.made)
                self._show()
        except FixtureError as exc:
            self.error = str(exc)
            self.made = list(exc.made) or self.made
        except Exception as exc:  # the client's own errors (not connected, read-only...)
            self.error = describe_error(exc)[1]
        finally:
            self.running = False
        self._show()
        if not self.error:
            self.runtime.forget_clock()  # a step may have moved the sandbox's clock
            summary = ", ".join(m.id for m in self.made) or "nothing new"
            self.notify(f"{len(self.results)} step(s) done; made {summary}.", title="Fixture")
            self.action_open_made()

    def _allowed_env(self) -> list[str]:
        """The profile's `allow_env` (the local sandbox's: `[local] allow_env`)."""
        runtime = self.runtime
        try:
            # Read afresh: a name added to the file since start-up counts at the next run.
            return config.allowed_env(config.load_settings(), runtime.options.profile)
        except Exception:  # a file that broke since start-up: allow nothing
            return []

    async def _ask_remote(self, url: str) -> bool:
        """Whether the user lets an event step send to `url`, off this machine."""
        question = (
            f"This fixture sends a signed event to {url}, which is neither this machine nor "
            "the profile's service. A fixture is someone else's code: send only to a host you "
            "trust with what the event holds."
        )
        answer = await self.app.push_screen_wait(
            AskScreen("Send to another host?", question, yes="Send", no="Don't send")
        )
        return bool(answer)

    def _sender(self) -> Any:
        """Event steps go signed with the profile's webhook secret, to their `to` or to this
        run's own listener."""
        runtime = self.runtime
        secret: str | None = None
        if runtime.credentials is not None:
            secret = str(runtime.credentials.webhook_secret)
        else:
            try:
                secret = secrets.get_secret(runtime.profile_name, "webhook")
            except secrets.SecretsError:
                secret = None
        listener = runtime.listener
        own = (listener.url if listener is not None else None) or ""
        return sender(secret, own) if secret else None

    def _show(self) -> None:
        lines = Text()
        for result in self.results:
            made = ", ".join(m.id for m in result.made)
            lines.append(f"{result.step.index:>2}. ", style="dim")
            lines.append_text(safe(result.step.name, "bold"))  # the file's text: from outside
            lines.append(f"  {result.method} ")
            lines.append_text(safe(result.path))
            lines.append(f"  {result.status}", style="green")
            if made:
                lines.append_text(safe(f"  made {made}", "dim"))
            lines.append("\n")
        if self.error:
            # A step's failure quotes the service's message: shown, never obeyed.
            lines.append_text(safe(self.error, "bold red", multiline=True))
        elif self.made and not self.running:
            lines.append("Ctrl+O opens what it made.", style="dim")
        self.query_one("#fixture-steps", Static).update(lines)

    def action_open_made(self) -> None:
        """Open the last record the run made that an area shows (the most specific one)."""
        for made in reversed(self.made):
            area = registry().for_id(made.id)
            if area is not None:
                self.app.goto(area.key, made.id)
                return
        if self.made:
            self.notify("No area shows what it made.", severity="warning")

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if action == "open_made":
            return bool(self.made) and not self.running
        return True

    def on_unmount(self) -> None:
        self.workers.cancel_group(self, "fixture")
