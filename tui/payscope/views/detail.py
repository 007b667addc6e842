"""`DetailScreen`: one record, in sections, with its actions, kept live.

A concrete detail declares its sections and actions and how to fetch and render its record;
this base gives it the title bar, raw JSON (`v`), reload (`r`), Esc back, the actions' keys,
buttons and palette entries (only those the record's state allows), "not found", and live
reloads: every webhook about the record or an object it shows (`watched_ids`) asks for a
reload, and a burst of them becomes one read.
"""

from __future__ import annotations

from collections.abc import Awaitable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, ClassVar, Generic, TypeVar

from rich.console import RenderableType
from rich.table import Table
from rich.text import Text
from textual import on, work
from textual.app import ComposeResult, SystemCommand
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, VerticalScroll
from textual.css.query import NoMatches
from textual.message import Message
from textual.screen import Screen
from textual.widgets import Button, Static
from textual.worker import Worker, get_current_worker

from payscope.api.codes import explain
from payscope.api.errors import ClientError, NotFoundError
from payscope.views.access import AppAccess
from payscope.views.actions import Action
from payscope.views.actions import find as find_action
from payscope.views.area import TitleBar
from payscope.views.columns import CellContext, Column
from payscope.views.json_view import json_view, value_view
from payscope.views.live import Change, watch_changes
from payscope.views.related import RelatedRow, RelatedSection
from payscope.views.stall import StallWatch
from payscope.widgets.errors import describe_error
from payscope.widgets.footer import KeyFooter
from payscope.widgets.status_bar import StatusBar
from payscope.widgets.text import safe

T = TypeVar("T")
R = TypeVar("R")

# Webhooks of one burst (an action's answer and the events it causes) become one read.
RELOAD_DELAY = 0.1
# How often a detail's status bar takes up what the main screen's says (its clock, events).
STATUS_EVERY = 0.5


class Missing(LookupError):
    """`fetch` found no such record (the service's 404 is another way to say it)."""


def grid() -> Table:
    """Label / value rows of a section."""
    table = Table.grid(padding=(0, 2))
    table.add_column(style="bold", min_width=14, no_wrap=True)
    table.add_column()
    return table


def table(*columns: str) -> Table:
    """A borderless table with these headings (a payment's refunds, a customer's payments)."""
    result = Table(box=None, padding=(0, 2), header_style="bold")
    for name in columns:
        result.add_column(name, no_wrap=True)
    return result


def empty(text: str) -> Text:
    """What a section says when it has nothing to show."""
    return Text(text, style="dim")


def metadata_grid(metadata: Mapping[str, Any] | None, none: str) -> RenderableType:
    """A record's metadata section: a row per key (a value that is not text, as JSON), or
    `none` (what to say when it has none)."""
    if not metadata:
        return empty(none)
    rows = grid()
    for key, value in metadata.items():
        rows.add_row(safe(key), value_view(value))
    return rows


# A failed refund: the codes' meanings and advice speak of a payment and a new card, which a
# refund has not (the money is back with the merchant; the customer is not paid back).
REFUND_MEANING = (
    "The refund failed: the card's issuer did not take the money back ({title}). The customer "
    "has not been paid back; the amount stays with you."
)
REFUND_ADVICE = (
    "Not as is — the card cannot take the money back now. Pay the customer back another way "
    "(ask them how), or refund again once the issuer allows it."
)


def explained_code(
    code: str,
    message: str | None = None,
    acquirer: str | None = None,
    *,
    subject: str = "payment",
) -> Table:
    """A decline or failure code explained: its title, meaning and retry advice
    (`payscope.api.codes`), then the service's message and the acquirer's. `subject="refund"`
    words them for a failed refund."""
    info = explain(code)
    details = grid()
    details.add_row("Code", Text.assemble(safe(code, "bold"), (f"  {info.title}", "bold")))
    if subject == "refund":
        details.add_row("Meaning", REFUND_MEANING.format(title=info.title.lower()))
        details.add_row("Retry", REFUND_ADVICE)
    else:
        details.add_row("Meaning", info.meaning)
        retry = "" if info.retryable is None else ("yes — " if info.retryable else "no — ")
        details.add_row("Retry", retry + info.advice)
    if message:
        details.add_row("Message", safe(message, multiline=True))
    if acquirer:
        details.add_row("Acquirer", safe(acquirer, "dim", multiline=True))
    return details


@dataclass(frozen=True)
class Related(Generic[R]):
    """A record a detail shows beside its own (a refund's payment), or why it could not be read
    (said for a person)."""

    record: R | None = None
    problem: str = ""


async def read_related(read: Awaitable[R]) -> Related[R]:
    """Read a related record without failing the screen: one failed read never hides the whole
    detail; its section says what went wrong."""
    try:
        return Related(await read)
    except ClientError as exc:
        title, message = describe_error(exc)
        return Related(problem=f"{title}: {message}")


class DetailBody(VerticalScroll):
    """A detail's sections, scrolled; says when its size changes (`Resized`, to the screen),
    which the screen's own resize does not tell: its title or status bar taking a second line,
    its first layout after the record was drawn. What is drawn to fit the rows in sight (a
    link's QR code) is drawn again then."""

    class Resized(Message):
        """The body's size changed."""

    def on_resize(self) -> None:
        self.post_message(self.Resized())


class DetailScreen(AppAccess, Screen[None], Generic[T]):  # type: ignore[misc]
    """The detail of one record; Esc goes back."""

    DEFAULT_CSS = """
    DetailScreen { background: $background; }
    /* A title longer than the screen (a 64-character id, its status and amount) goes on over
       a second line rather than losing its end unmarked. */
    DetailScreen > #detail-title { height: auto; }
    DetailScreen > VerticalScroll { padding: 0 1; }
    DetailScreen .section {
        border: round $foreground 25%; border-title-color: $accent; border-title-style: bold;
        padding: 0 1; height: auto;
    }
    DetailScreen .section.-hidden { display: none; }
    DetailScreen > #detail-actions { height: auto; padding: 0 1; display: none; }
    DetailScreen > #detail-actions.-shown { display: block; }
    DetailScreen > #detail-actions Button { margin: 0 1 0 0; min-width: 10; }
    /* Toasts at the top right, under the title: at the bottom (Textual's place) they hid a
       detail's last sections (a payment's story) for seconds. */
    DetailScreen ToastRack { dock: top; align: right top; margin-bottom: 0; margin-top: 1; }
    DetailScreen #raw { display: none; }
    DetailScreen.-raw #raw { display: block; }
    DetailScreen.-raw .section { display: none; }
    """

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape", "back", "Back", id="detail.back", tooltip="Back to the list"),
        Binding("v", "toggle_raw", "Raw JSON", id="detail.raw", tooltip="Show the raw JSON"),
        Binding("r", "reload", "Reload", id="detail.reload", tooltip="Read it again"),
        Binding(
            "colon",
            "app.command",
            "Command",
            id="detail.command",
            tooltip="Command mode: `ref <id>`, an area name, `find <text>`",
            key_display=":",
            show=False,  # in the key help (?); the footer has no room for it at 80 columns
        ),
    ]

    # -- the spec a subclass gives -----------------------------------------------------------
    noun: ClassVar[str] = "Record"  # "Payment"
    scope: ClassVar[str] = "record"  # binding ids: "payment.capture"
    sections: ClassVar[Sequence[tuple[str, str]]] = ()  # (key, title)
    actions: ClassVar[Sequence[Action[Any]]] = ()
    # Never in the raw JSON view (a payment's client secret).
    raw_exclude: ClassVar[frozenset[str]] = frozenset()
    # The action Enter does too (a refund's detail: open its payment).
    enter_action: ClassVar[str | None] = None
    # Sections of related records (key: their columns): rows Tab reaches and Enter opens.
    related: ClassVar[Mapping[str, Sequence[Column[RelatedRow]]]] = {}

    def __init_subclass__(cls, **kwargs: Any) -> None:
        if "actions" in cls.__dict__:
            own = list(cls.__dict__.get("BINDINGS", []))
            cls.BINDINGS = [*own, *(a.binding(cls.scope) for a in cls.actions)]
            if cls.enter_action is not None:
                chosen = find_action(cls.actions, cls.enter_action)
                assert chosen is not None, f"{cls.__name__}.enter_action names no action"
                enter = chosen.binding(cls.scope)
                cls.BINDINGS.append(
                    Binding(
                        "enter",
                        enter.action,
                        enter.description,
                        id=f"{cls.scope}.enter",
                        tooltip=enter.tooltip,
                        show=False,
                    )
                )
        super().__init_subclass__(**kwargs)

    async def fetch(self) -> T:
        """The record, fresh from the service (NotFoundError when there is none)."""
        raise NotImplementedError

    def render_record(self, record: T) -> None:
        """Fill the sections (`self.section(key).update(...)`)."""

    def title_text(self, record: T) -> Text:
        """The title bar once the record is loaded."""
        return Text.assemble((f"{self.noun} ", "bold"), (self.record_id, "bold"))

    def watched_ids(self, record: T) -> set[str]:
        """Ids whose webhooks reload this screen: the record's and those of what it shows."""
        return {self.record_id}

    def not_found_text(self) -> str:
        return (
            f"No {self.noun.lower()} has this id on this profile. Check the id or the profile "
            "in the status bar; Esc goes back."
        )

    # -- state -------------------------------------------------------------------------------

    def __init__(self, record_id: str) -> None:
        super().__init__()
        self.record_id = record_id
        self.record: T | None = None
        self.missing = False
        self._watched: set[str] = {record_id}
        self._loading = False
        self._stale = False
        self._timer: Any = None
        # A read with no answer for the client's timeout: said in the title
        # (tui/payscope/views/stall.py).
        self.stall = StallWatch(self, self._stall_said, "r retries")
        self._reader: Any = None

    def compose(self) -> ComposeResult:
        yield TitleBar(
            Text.assemble((f"{self.noun} ", "bold"), safe(self.record_id), ("  loading…", "dim")),
            id="detail-title",
        )
        with Horizontal(id="detail-actions"):
            for chosen in self.actions:
                yield Button(
                    f"{chosen.title} ({chosen.key_display or chosen.key})",
                    id=f"act-{chosen.name}",
                    compact=True,
                )
        with DetailBody(id="detail-body"):
            for key, title in self.sections:
                if key in self.related:
                    yield RelatedSection(key, title, self.related[key], self.cell_context)
                    continue
                section = Static(classes="section", id=f"section-{key}")
                section.border_title = title
                yield section
            yield Static(id="raw")
        # The main screen's status bar stays in sight (profile, environment, listener, clock).
        yield StatusBar(id="detail-status")
        yield KeyFooter(show_command_palette=False)  # Ctrl+P is already an app binding

    def section(self, key: str) -> Static:
        """The section `key` (declared in `sections`)."""
        return self.query_one(f"#section-{key}", Static)

    def related_section(self, key: str) -> RelatedSection:
        """The section of related records `key` (declared in `related`)."""
        return self.query_one(f"#section-{key}", RelatedSection)

    def cell_context(self) -> CellContext:
        """What the cells of related rows are drawn with (the theme, the service's time)."""
        return CellContext(self.app.theme_variables, self.runtime.display, self.runtime.now())

    def show_section(self, key: str, shown: bool) -> None:
        """Hide a section that has nothing to say for this record (a payment's decline)."""
        self.query_one(f"#section-{key}").set_class(not shown, "-hidden")

    def _mirror_status(self) -> None:
        main: Any = self.app.get_screen_main()
        if main is None:
            return
        try:
            shown = main.query_one(StatusBar)
        except NoMatches:  # the app is closing
            return
        self.query_one("#detail-status", StatusBar).mirror(shown)

    def on_mount(self) -> None:
        self._mirror_status()
        # What the main screen's bar is told (the clock, the event count) follows here.
        self.set_interval(STATUS_EVERY, self._mirror_status)
        self.load(now=True)
        watch_changes(self, self.on_change)
        # The sections are drawn with the theme's colours: a theme chosen later redraws them.
        self.app.theme_changed_signal.subscribe(self, lambda _theme: self._redraw())
        self.query_one("#detail-body", VerticalScroll).focus()
        if not self.runtime.ready.is_set():
            self._redraw_when_up()

    @work(group="detail-ready", exit_on_error=False)
    async def _redraw_when_up(self) -> None:
        """Opened once the client was up, before the listener: what the sections show of the
        listener (a payment's events) is drawn again once it is."""
        await self.runtime.ready.wait()
        self._redraw()

    def _redraw(self) -> None:
        """Draw the record shown again, as it is (no read): after a change of theme."""
        record = self.record
        if record is None or self.missing:
            return
        self.set_title(self.title_text(record))
        self.render_record(record)
        self.query_one("#raw", Static).update(self.raw(record))
        for section in self.query(RelatedSection):
            for row in list(section.table.records.values()):
                section.table.update(row)  # statuses take the theme's colours

    def on_change(self, change: Change) -> None:
        if change.concerns(self._watched):
            self.load()

    # -- loading -----------------------------------------------------------------------------

    def load(self, *, now: bool = False) -> None:
        """Read the record again: at once, or after a short pause that gathers a burst.

        While a read is in flight a further call only marks it stale, and one more read
        follows; the request log shows one read per burst of webhooks, not one per webhook.
        """
        if self._loading:
            self._stale = True
            return
        if now:
            self._start()
        elif self._timer is None:
            self._timer = self.set_timer(RELOAD_DELAY, self._start)

    @property
    def busy(self) -> bool:
        """A read is in flight or about to start."""
        return self._loading or self._timer is not None

    def _start(self) -> None:
        self._timer = None
        if self._loading:
            self._stale = True
            return
        self._loading = True
        self._read()

    @work(group="detail", exit_on_error=False, description="Loading")
    async def _read(self) -> None:
        self._reader = me = get_current_worker()
        read = self.stall.begin()
        try:
            while True:
                self._stale = False
                try:
                    record = await self.fetch()
                except (NotFoundError, Missing):
                    self.show_missing()
                    return
                self.record = record
                self._watched = self.watched_ids(record) | {self.record_id}
                self.set_title(self.title_text(record))
                self.render_record(record)
                self.query_one("#raw", Static).update(self.raw(record))
                self.refresh_actions()
                if not self._stale:
                    return
        except Exception as exc:
            if self.record is None:  # nothing shown yet: the title says it failed, and how to retry
                title, _message = describe_error(exc)
                self.set_title(
                    Text.assemble(
                        (f"{self.noun} ", "bold"),
                        safe(self.record_id),
                        (f"  could not load ({title}) · r retries", "dim"),
                    )
                )
            raise  # and the app's toast says why
        finally:
            if self._reader is me:  # not a read a retry replaced
                self._loading = False
                self._reader = None
            self.stall.end(read)

    def _stall_said(self, note: str | None) -> None:
        if self.record is not None:
            title = self.title_text(self.record)
        else:
            title = Text.assemble((f"{self.noun} ", "bold"), safe(self.record_id))
            if note is None and not self.missing:
                title.append("  loading…", style="dim")
        if note is not None:
            title.append(f"  {note}", style="bold")
        if note is not None or not self.missing:
            self.set_title(title)

    def set_title(self, title: Text) -> None:
        """Say `title` in the title bar, which grows to a second line when it does not fit
        (so an update lays the screen out again, unlike a list's one-line bar)."""
        self.query_one("#detail-title", TitleBar).update(title, layout=True)

    def raw(self, record: T) -> RenderableType:
        dump = getattr(record, "model_dump_json", None)
        if dump is None:
            return Text(repr(record))
        return json_view(dump(exclude_none=True, exclude=set(self.raw_exclude)))

    def show_missing(self) -> None:
        self.missing = True
        self.set_title(
            Text.assemble((f"{self.noun} ", "bold"), safe(self.record_id), ("  not found", "bold"))
        )
        if self.sections:
            self.section(self.sections[0][0]).update(self.not_found_text())
        self.refresh_actions()

    # -- actions -----------------------------------------------------------------------------

    def allowed(self) -> list[Action[Any]]:
        """The actions this record's state allows now."""
        if self.record is None:
            return []
        local, read_only = self.runtime.options.is_local, self.runtime.options.read_only
        return [a for a in self.actions if a.allows(self.record, local=local, read_only=read_only)]

    def refresh_actions(self) -> None:
        """Keys, buttons and palette follow the record's state."""
        allowed = {a.name for a in self.allowed()}
        for chosen in self.actions:
            self.query_one(f"#act-{chosen.name}", Button).display = chosen.name in allowed
        self.query_one("#detail-actions").set_class(bool(allowed), "-shown")
        self.refresh_bindings()

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if action == "act" and parameters:
            return find_action(self.actions, str(parameters[0])) in self.allowed()
        return super().check_action(action, parameters)

    def action_act(self, name: str) -> None:
        chosen = find_action(self.actions, name)
        if chosen is not None and chosen in self.allowed():
            chosen.run(self, self.record_id, self.record)

    @on(Button.Pressed, "#detail-actions Button")
    def _button(self, event: Button.Pressed) -> None:
        if event.button.id:
            self.action_act(event.button.id.removeprefix("act-"))

    def acted(self, result: Any) -> None:
        """An action's form closed: read the record again."""
        if result is not None:
            self.load(now=True)

    def action_back(self) -> None:
        self.app.pop_screen()

    def action_toggle_raw(self) -> None:
        self.toggle_class("-raw")

    def action_reload(self) -> None:
        if self.stall.stalled and self._reader is not None:
            # The read in flight has had no answer for the client's timeout: r starts afresh
            # (the one waiting is cancelled) rather than queueing behind it.
            self._reader.cancel()
            self._reader = None
            self._loading = False
        self.load(now=True)

    def context_commands(self) -> Iterable[SystemCommand]:
        """Palette: this record's actions, then raw JSON."""
        for chosen in self.allowed():
            yield SystemCommand(
                chosen.palette or chosen.title,
                self.record_id,
                lambda name=chosen.name: self.action_act(name),
            )
        yield SystemCommand("Toggle raw JSON", self.record_id, self.action_toggle_raw)

    def on_worker_state_changed(self, event: Worker.StateChanged) -> None:
        self.app.on_worker_state_changed(event)


def flat_rows(data: Any, prefix: str = "") -> list[tuple[str, str]]:
    """A nested object as label / value rows (`steps.iban` -> "steps iban"), blanks and
    one-key wrappers left out:
    what a service sends whose shape varies (a payment method's details, a next action's
    instructions) shown without knowing it in advance."""
    rows: list[tuple[str, str]] = []
    if isinstance(data, dict) and len(data) == 1 and isinstance(next(iter(data.values())), dict):
        return flat_rows(next(iter(data.values())), prefix)  # a wrapper says nothing itself
    if isinstance(data, dict):
        for key, value in data.items():
            label = f"{prefix} {key}".strip().replace("_", " ")
            rows.extend(flat_rows(value, label))
    elif isinstance(data, list):
        for index, value in enumerate(data, 1):
            rows.extend(flat_rows(value, f"{prefix} {index}".strip()))
    elif data not in (None, "", {}):
        rows.append((prefix or "value", str(data).lower() if isinstance(data, bool) else str(data)))
    return rows
