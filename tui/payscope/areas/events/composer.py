"""`c` in Events: compose a webhook event (the type's template, or the latest real object of
its kind), edit its JSON with its problems shown as you type, sign it and send it to payscope's
own listener or any URL, and read the answer: status, headers, body (up to 64 KiB), latency.
Composing, signing and sending are `payscope.webhooks.compose`'s, shared with `payscope
send-event`."""

from __future__ import annotations

import json
from typing import Any, ClassVar

from rich.text import Text
from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.screen import ModalScreen
from textual.widgets import Input, Select, Static, TextArea

from payscope.api.fixtures.files import append_event_step
from payscope.api.fixtures.steps import FixtureError
from payscope.api.models.events import EventType
from payscope.core import secrets
from payscope.views.access import AppAccess, Guarded, refused
from payscope.webhooks.compose import ComposeError, content_type_of, problems, send, template
from payscope.widgets.text import safe

# The latest real object of an event's kind: the list it is read from, by content.type.
_LATEST = {
    "payment_details": "payments",
    "refund_details": "refunds",
    "dispute_details": "disputes",
    "payout_details": "payouts",
}


class ComposerScreen(AppAccess, ModalScreen[None]):  # type: ignore[misc]
    """Type, body, target and secret; Ctrl+S signs and sends; the answer below."""

    DEFAULT_CSS = """
    ComposerScreen { align: center middle; }
    ComposerScreen > Vertical {
        width: 110; max-width: 98%; height: 94%;
        border: round $primary; background: $surface; padding: 0 1;
    }
    ComposerScreen #composer-title { text-style: bold; }
    ComposerScreen TextArea { height: 1fr; min-height: 8; }
    ComposerScreen #composer-problem { color: $error; height: auto; }
    ComposerScreen #composer-problem.-fine { color: $success; }
    ComposerScreen Horizontal { height: auto; }
    ComposerScreen Horizontal Input { width: 1fr; }
    ComposerScreen #composer-answer { height: auto; max-height: 12; }
    ComposerScreen .hint { color: $text-muted; }
    """

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape", "dismiss", "Close", id="composer.close", tooltip="Close"),
        Binding("ctrl+s", "send", "Sign and send", id="composer.send", tooltip="Sign and send"),
        Binding(
            "ctrl+t", "template", "Template", id="composer.template", tooltip="The type's template"
        ),
        Binding(
            "ctrl+f",
            "save",
            "Save as fixture step",
            id="composer.save",
            tooltip="Add it to a fixture file, to send again with payscope fixtures run",
        ),
        Binding(
            "ctrl+l",
            "latest",
            "Latest object",
            id="composer.latest",
            tooltip="Start from the latest real object of this kind",
        ),
    ]

    def __init__(self) -> None:
        super().__init__()
        self.answer: Any = None
        self.sending = False

    def compose(self) -> ComposeResult:
        with Vertical():
            yield Static("Compose a webhook event", id="composer-title")
            yield Select(
                [(t.value, t.value) for t in EventType],
                value=EventType.PAYMENT_SUCCEEDED.value,
                allow_blank=False,
                id="composer-type",
            )
            yield TextArea("", language="json", id="composer-body")
            yield Static(id="composer-problem")
            with Horizontal():
                listener = self.runtime.listener
                own = (listener.url if listener is not None else None) or ""
                yield Input(own, placeholder="http://…", id="composer-to")
                yield Input(
                    password=True,
                    placeholder="secret (blank: the profile's webhook secret)",
                    id="composer-secret",
                )
            yield Input(
                "composed-events.toml",
                placeholder="fixture file to save it in (.toml or .json)",
                id="composer-save",
            )
            yield Static(
                "Ctrl+T template · Ctrl+L latest real object · Ctrl+S sign and send · "
                "Ctrl+F save as a fixture step · Esc close",
                classes="hint",
            )
            with VerticalScroll(id="composer-answer"):
                yield Static(id="composer-answer-text")

    def on_mount(self) -> None:
        self.action_template()
        self.query_one(TextArea).focus()

    # -- the body ---------------------------------------------------------------------------------

    @property
    def event_type(self) -> str:
        return str(self.query_one("#composer-type", Select).value)

    def _merchant(self) -> str:
        return self.runtime.merchant_id or "merchant_composed"

    def _set_body(self, event: dict[str, Any]) -> None:
        self.query_one(TextArea).load_text(json.dumps(event, indent=2, ensure_ascii=False))
        self._check()

    def action_template(self) -> None:
        self._set_body(template(self.event_type, self._merchant()))

    @on(Select.Changed, "#composer-type")
    def _type_changed(self) -> None:
        self.action_template()

    @work(group="composer-latest", exclusive=True, exit_on_error=False)
    async def action_latest(self) -> None:
        kind = _LATEST.get(content_type_of(self.event_type))
        if kind is None:
            self.notify("No list to take a real object of this kind from.", severity="warning")
            return
        page = await getattr(self.runtime.api, kind).list()
        if not page.data:
            self.notify(f"No {kind} yet: the template stays.", severity="warning")
            return
        obj = page.data[0].model_dump(mode="json", exclude_none=True)
        self._set_body(template(self.event_type, self._merchant(), obj))

    @on(TextArea.Changed, "#composer-body")
    def _check(self) -> str:
        problem = problems(self.query_one(TextArea).text)
        line = self.query_one("#composer-problem", Static)
        line.set_class(not problem, "-fine")
        line.update(Text(problem or "A valid event: Ctrl+S signs and sends it."))
        return problem

    def action_save(self) -> None:
        """The body as a step of a fixture file (its target kept unless it is this run's own
        listener, whose port changes): `payscope fixtures run` or Run a fixture sends it again."""
        if refused(self, Guarded.WRITE_FILES):
            return
        if self._check():
            self.notify("Fix the body first: nothing was saved.", severity="error")
            return
        path = self.query_one("#composer-save", Input).value.strip()
        to = self.query_one("#composer-to", Input).value.strip()
        listener = self.runtime.listener
        if listener is not None and to == listener.url:
            to = ""  # "" : the listener of whatever runs the fixture
        try:
            name = append_event_step(path, json.loads(self.query_one(TextArea).text), to)
        except (FixtureError, OSError) as exc:
            self.notify(f"Not saved: {exc}", severity="error")
            return
        self.notify(f"Saved as step {name} of {path}.", title="Fixture")

    # -- sending ----------------------------------------------------------------------------------

    def _profile_secret(self) -> str | None:
        creds = self.runtime.credentials
        if creds is not None:
            return str(creds.webhook_secret)

        try:
            return secrets.get_secret(self.runtime.profile_name, "webhook")
        except secrets.SecretsError:
            return None

    def action_send(self) -> None:
        if self.sending:
            return
        if self._check():
            self.notify("Fix the body first: nothing was sent.", severity="error")
            return
        secret = self.query_one("#composer-secret", Input).value.strip() or self._profile_secret()
        if not secret:
            self.notify("No webhook secret: type one for this send.", severity="error")
            return
        to = self.query_one("#composer-to", Input).value.strip()
        self._send(self.query_one(TextArea).text.encode("utf-8"), to, secret)

    @work(group="composer-send", exclusive=True, exit_on_error=False)
    async def _send(self, body: bytes, to: str, secret: str) -> None:
        self.sending = True
        try:
            self.answer = await send(body, to, secret)
        except ComposeError as exc:
            self.notify(str(exc), severity="error")
            return
        except Exception as exc:  # a URL httpx cannot use, …: said, nothing else happens
            self.notify(f"Not sent: {exc}", severity="error")
            return
        finally:
            self.sending = False
        self._show_answer()

    def _show_answer(self) -> None:
        answer = self.answer
        text = Text()
        if answer.error:
            text.append_text(safe(f"No answer: {answer.error}", "bold red", multiline=True))
        else:
            style = "bold green" if answer.ok else "bold red"
            text.append(f"HTTP {answer.status}", style=style)
            text.append(f"  in {answer.latency_ms:.0f} ms\n", style="dim")
            for name, value in answer.headers.items():
                text.append(f"{name}: ", style="bold")
                text.append_text(safe(value))
                text.append("\n")
            text.append_text(safe(answer.body))
            if answer.truncated:
                text.append("  [cut at 64 KiB]", style="dim")
        self.query_one("#composer-answer-text", Static).update(text)
