"""`ResourceListView`: one server-paged table of a resource, generic over its model.

A concrete area declares its title, columns, filter grammar and actions, and how to fetch a
page and one record; this base gives it the header with counts and paging (`[` `]`), the `/`
filter with errors that leave the rows as they were, the empty state, reload `r`, an exclusive
paging worker, live rows from webhooks (one read per record per burst) and the actions' keys,
palette entries and state checks.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Iterable, Sequence
from typing import TYPE_CHECKING, Any, ClassVar, Generic, TypeVar

from rich.text import Text
from textual import on, work
from textual.app import ComposeResult, SystemCommand
from textual.binding import Binding, BindingType
from textual.widgets import Input, Static
from textual.worker import Worker, WorkerState

from payscope.core.waiting import within
from payscope.views.access import Guarded, refused
from payscope.views.actions import Action
from payscope.views.actions import find as find_action
from payscope.views.area import AreaView, TitleBar, area_width
from payscope.views.columns import CellContext, Column
from payscope.views.filters import Filter
from payscope.views.line_table import LineTable
from payscope.views.list_header import header_of
from payscope.views.stall import StallWatch
from payscope.views.table import ResourceTable
from payscope.widgets.errors import describe_error

if TYPE_CHECKING:
    from payscope.views.actions import ActionHost
    from payscope.views.filters import Grammar
    from payscope.views.live import Change

T = TypeVar("T")

# A filter the service cannot apply (an id fragment, an email) is matched in the view over the
# newest records, this many pages of them at most; the header says how far it looked.
SCAN_PAGES = 10
# Webhooks of one burst (an action's answer and its events) become one read per record.
LIVE_DELAY = 0.05
# More new records than this in one burst are not read one by one: the header says how many
# are new ("N new · r") and `r` shows them with one page read. So are new records made while
# another page than the first is shown.
LIVE_NEW_MAX = 3
# New records counted at most (the count goes on; the ids are only kept to count each once).
NEW_IDS_KEPT = 10_000
# Seconds an action asked for during start-up waits for the client before it is given up.
READY_WAIT = 15.0


class ResourceListView(AreaView, Generic[T]):
    """A resource's list area; subclasses are its spec plus what is truly theirs."""

    DEFAULT_CSS = """
    ResourceListView > .filter-box { display: none; border: round $accent; height: 3; }
    ResourceListView > .filter-box.-shown { display: block; }
    ResourceListView > .filter-error { display: none; padding: 0 1; color: $error; }
    ResourceListView > .filter-error.-shown { display: block; }
    ResourceListView > ResourceTable { height: 1fr; scrollbar-size-vertical: 1; }
    ResourceListView > LineTable { height: 1fr; scrollbar-size-vertical: 1; }
    ResourceListView > .empty {
        display: none; height: 1fr; width: 1fr; padding: 1 4;
        content-align: center middle; text-align: center; color: $text-muted;
    }
    ResourceListView.-empty > .empty { display: block; }
    ResourceListView.-empty > ResourceTable { display: none; }
    ResourceListView.-empty > LineTable { display: none; }
    """

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding(
            "right_square_bracket",
            "next_page",
            "Page",
            id="list.next-page",
            tooltip="Next page ([ goes back)",
            key_display="]",
        ),
        Binding(
            "left_square_bracket",
            "previous_page",
            "Prev page",
            id="list.previous-page",
            tooltip="Previous page",
            key_display="[",
            show=False,
        ),
        Binding("r", "reload", "Reload", id="list.reload", tooltip="Reload this page", show=False),
        Binding(
            "E",
            "export",
            "Export",
            id="list.export",
            tooltip="Export every record the filter matches (all pages) to CSV or JSON Lines",
        ),
    ]

    filterable = True
    _empty_said: str | None = None  # what the empty state says now (None: not said yet)
    # -- the spec a subclass gives -----------------------------------------------------------
    title: ClassVar[str] = "Records"
    noun: ClassVar[str] = "records"  # plural, lower case: "no refunds yet"
    scope: ClassVar[str] = "records"  # binding ids: "refunds.accept"
    id_prefix: ClassVar[str] = ""
    columns: ClassVar[Sequence[Column[Any]]] = ()
    actions: ClassVar[Sequence[Action[Any]]] = ()
    page_size: ClassVar[int] = 100
    # The table the list is drawn in: payscope's own, drawn a line at a time (the default), or
    # DataTable's (what bench/live_feed.py measures it against).
    table_class: ClassVar[type[ResourceTable[Any]] | type[LineTable[Any]]] = LineTable
    empty_hint: ClassVar[str] = ""  # markup: "Press [b]n[/b] to create one."

    def __init_subclass__(cls, **kwargs: Any) -> None:
        # Each action's key, declared once with the action (so the footer and the key help).
        if "actions" in cls.__dict__:
            own = list(cls.__dict__.get("BINDINGS", []))
            cls.BINDINGS = [*own, *(a.binding(cls.scope) for a in cls.actions)]
        super().__init_subclass__(**kwargs)

    def key_of(self, record: T) -> str:
        """The id of a record."""
        raise NotImplementedError

    async def fetch_page(
        self, filters: dict[str, Any], offset: int, limit: int
    ) -> tuple[list[T], int | None]:
        """One page of records (newest first) and how many match in all (None: the service
        does not say, as a list paged by cursor: a full page may have more after it)."""
        raise NotImplementedError

    async def fetch_one(self, record_id: str) -> T:
        """One record, fresh from the service."""
        raise NotImplementedError

    def filter_grammar(self) -> Grammar | None:
        """What `/` accepts here (built when first used: it may import the models)."""
        return None

    def order(self, record: T) -> Any:
        """Newest first: where a live record goes among the rows."""
        return getattr(record, "created", None) or ""

    def detail(self, record_id: str) -> Any:
        """The detail screen of a record (None: the area has none)."""
        return None

    # -- state -------------------------------------------------------------------------------

    def __init__(self, *, id: str) -> None:
        super().__init__(id=id)
        self.page_offset = 0
        self.total = 0
        self.total_known = True  # False: `total` is what was read, and more may follow
        self.filter = Filter()
        self.loaded = False
        self.load_error = ""  # the title of the last failed load, until one succeeds
        # A load with no answer for the client's timeout: said in the header
        # (tui/payscope/views/stall.py).
        self.stall_note: str | None = None
        self.stall = StallWatch(self, self._stall_said, "Ctrl+R retries")
        self.scanned: tuple[int, bool] | None = None  # (records looked at, all of them?)
        self._pending: set[str] = set()
        self._pending_new = 0  # new records of this burst being read
        # Records made elsewhere that the list does not show yet (said in the header).
        self.new_elsewhere: set[str] = set()
        self.new_count = 0
        self._flush_timer: Any = None
        self._submitted = False  # a typed filter is loading: its box closes once it loads
        self._following = False

    @property
    def rows(self) -> dict[str, T]:
        """The records on screen, by id, in their order (none before the view is composed)."""
        table: ResourceTable[T] | LineTable[T] | None = getattr(self, "_table", None)
        return table.records if table is not None else {}

    @property
    def table(self) -> ResourceTable[T] | LineTable[T]:
        """The view's table (kept from compose: asked for on every key the footer checks)."""
        return self._table

    def compose(self) -> ComposeResult:
        # The table first: the header counts its rows (and nothing else) from the first frame.
        table: ResourceTable[T] | LineTable[T] = self.table_class(
            self.columns, self.key_of, self.cell_context, id=f"{self.scope}-table"
        )
        self._table = table
        yield TitleBar(self.header_text(), id=f"{self.scope}-header", classes="list-header")
        yield Static(classes="filter-error")
        # The screen's size is known before layout: fit the columns now so the first frame
        # needs no second layout pass (on_resize corrects it if the rail is hidden).
        table.fit_to(area_width(self.app.size.width) - 1)
        yield table
        yield Static(classes="empty")

    def cell_context(self) -> CellContext:
        return CellContext(self.app.theme_variables, self.runtime.display, self.runtime.now())

    def on_mount(self) -> None:
        # The signal comes once the theme's variables are in place (a watch on `theme` runs
        # before, and would repaint the rows in the old theme's colours).
        self.app.theme_changed_signal.subscribe(self, lambda _theme: self._repaint())

    def on_resize(self) -> None:
        # One cell for the vertical scrollbar a full page brings.
        self.table.fit_to(self.size.width - 1)

    def _repaint(self) -> None:
        """Draw the rows again (a theme chosen at run time); an area with more drawn in the
        theme's colours extends it."""
        for record in list(self.rows.values()):
            self.table.update(record)

    def focus_main(self) -> None:
        self.focus_table(self.table)

    def runtime_ready(self) -> None:
        self.follow_changes()
        self.load()

    def follow_changes(self) -> None:
        """Follow the app's changes (webhooks) from now on; once, however often it is asked.
        Not on mount: no change comes before the runtime is up, and the first frame need not
        wait for the module."""
        if self._following:
            return
        self._following = True
        from payscope.views.live import watch_changes

        watch_changes(self, self.on_change)

    # -- loading -----------------------------------------------------------------------------

    def load(self, filter: Filter | None = None, offset: int | None = None) -> None:
        """Load a page (with `filter`, else the current one); the view changes only once it
        arrives, so a refused filter leaves the rows and the header as they were."""
        chosen = self.filter if filter is None else filter
        self._load(chosen, self.page_offset if offset is None else offset)

    @work(exclusive=True, group="list-page", exit_on_error=False, description="Loading")
    async def _load(self, filter: Filter, offset: int) -> None:
        with self.stall.watching():
            await self._load_page(filter, offset)

    def _stall_said(self, note: str | None) -> None:
        self.stall_note = note
        self.update_header()

    async def _load_page(self, filter: Filter, offset: int) -> None:
        known = True
        if filter.local:
            records, total, scanned = await self._scan(filter)
            offset = 0
        else:
            records, said = await self.fetch_page(filter.server, offset, self.page_size)
            scanned = None
            if said is None and offset and not records and filter is self.filter:
                # Past the end of a list without a total: this page stays, now known last.
                self.total, self.total_known = self.page_offset + len(self.rows), True
                self.update_header()
                self.notify(f"No more {self.noun} after these.")
                return
            # Without a total, a page that is not full is the last one.
            known = said is not None or len(records) < self.page_size
            total = offset + len(records) if said is None else said
        self.filter, self.page_offset, self.total, self.scanned = filter, offset, total, scanned
        self.total_known = known
        self.loaded = True
        self.load_error = ""
        self.table.show(records)
        if offset == 0:
            self.new_elsewhere.clear()
            self.new_count = 0
        self.page_loaded(records)
        self.update_header()
        if self._submitted:
            self._submitted = False
            self._close_filter()

    async def _scan(self, filter: Filter) -> tuple[list[T], int, tuple[int, bool]]:
        """Match the view's predicates over the newest records (SCAN_PAGES pages at most)."""
        found: list[T] = []
        looked = 0
        everything = False
        for page in range(SCAN_PAGES):
            records, total = await self.fetch_page(
                filter.server, page * self.page_size, self.page_size
            )
            looked += len(records)
            found.extend(r for r in records if filter.matches(r))
            # Without a total (a list paged by cursor), a page that is not full is the last.
            everything = len(records) < self.page_size if total is None else looked >= total
            if len(found) >= self.page_size or everything or not records:
                break
        return found[: self.page_size], len(found[: self.page_size]), (looked, everything)

    def page_loaded(self, records: list[T]) -> None:
        """A page is on screen (Payments keeps it as its start-up cache)."""

    def on_worker_state_changed(self, event: Worker.StateChanged) -> None:
        if event.worker.group == "list-page" and event.state == WorkerState.ERROR:
            title, message = describe_error(event.worker.error or Exception())
            if self._filter_box_shown():
                # A filter the service refused: said under the box, which stays open.
                self._submitted = False
                self.filter_problem(f"{title}: {message}")
                event.prevent_default()  # said there: not a toast as well
                return
            self.load_error = title
            self.update_header()
        # Textual calls AreaView's handler (the app's toast) after this one by itself: calling
        # it here too would show every failure twice.

    # -- header and empty state --------------------------------------------------------------

    def header_text(self) -> Text:
        """The title bar: title, counts and paging, filter, state."""
        return header_of(self)

    def loading_text(self) -> str:
        return "loading…"

    def header_extra(self, header: Text) -> None:
        """Add what is the area's own to the title bar (Payments: cached rows)."""

    def update_header(self) -> None:
        self.query_one(f"#{self.scope}-header", TitleBar).update(self.header_text())
        empty = self.loaded and not self.rows
        self.show_empty(empty, self.table)
        said = self.empty_text()
        if said != self._empty_said:  # unchanged most times: no layout for nothing
            self._empty_said = said
            self.query_one(".empty", Static).update(said)

    def empty_text(self) -> str:
        """What the empty area says, with the key that helps (markup)."""
        if self.filter:
            return "Nothing matches this filter. [b]Esc[/b] clears it, [b]/[/b] changes it."
        return f"No {self.noun} yet. {self.empty_hint}".strip()

    # -- live --------------------------------------------------------------------------------

    def on_change(self, change: Change) -> None:
        """A webhook arrived: refresh the rows it concerns, or add a new record on top."""
        shown = [i for i in change.ids if i in self.rows]
        object_id = change.object_id
        new = bool(
            object_id
            and self.id_prefix
            and object_id.startswith(self.id_prefix)
            and object_id not in self.rows
            and object_id not in self._pending
            and not self.filter
            and self.loaded
        )
        if (
            new
            and object_id
            and (self.page_offset or self.new_count or self._pending_new >= LIVE_NEW_MAX)
        ):
            # Not read one by one: counted, and `r` shows them (one page read).
            if object_id not in self.new_elsewhere:
                if len(self.new_elsewhere) < NEW_IDS_KEPT:
                    self.new_elsewhere.add(object_id)
                self.new_count += 1
                self.update_header()
            new = False
        if not shown and not new:
            return
        self._pending.update(shown)
        if new and object_id:
            self._pending.add(object_id)
            self._pending_new += 1
        if self._flush_timer is None:
            self._flush_timer = self.set_timer(LIVE_DELAY, self._flush)

    def _flush(self) -> None:
        self._flush_timer = None
        self._pending_new = 0
        pending, self._pending = self._pending, set()
        for record_id in pending:
            self.refresh_one(record_id)

    @work(group="list-row", exit_on_error=False, description="Update")
    async def refresh_one(self, record_id: str) -> None:
        """Read one record again and redraw its row (or add it on top of the first page); a
        record the service no longer has (deleted) leaves the list."""
        from payscope.api.errors import NotFoundError

        try:
            record = await self.fetch_one(record_id)
        except NotFoundError:
            self.forget(record_id)
            return
        if self.table.update(record):
            self.refreshed(record)
            return
        newest = max((self.order(r) for r in self.rows.values()), default="")
        if self.page_offset or self.filter or self.order(record) < newest:
            return  # an older record's event (a retried delivery): not on this page
        self.table.insert(record, self.order)
        self.total += 1
        # The page keeps its size: the oldest row leaves from the bottom (the next page has it).
        self.table.trim(self.page_size, from_top=False)
        self.update_header()

    def forget(self, record_id: str) -> None:
        """Take a record that is gone (deleted) off the list and out of the count."""
        if record_id not in self.rows:
            return
        self.table.drop(record_id)
        self.total = max(self.total - 1, 0)
        self.update_header()
        self.refresh_bindings()

    def refreshed(self, record: T) -> None:
        """A shown record was read again (actions' keys depend on its state)."""
        if self.table.selected_id() == self.key_of(record):
            self.refresh_bindings()

    # -- filter and paging -------------------------------------------------------------------

    def _filter_box(self) -> Input | None:
        return next(iter(self.query(".filter-box").results(Input)), None)

    def _filter_box_shown(self) -> bool:
        box = self._filter_box()
        return box is not None and box.has_class("-shown")

    async def start_filter(self) -> None:
        """`/`: type a filter; Enter applies it (mistakes are said under the box)."""
        box = self._filter_box()
        if box is None:
            # Mounted on first use: one widget less to build before the first paint.
            grammar = self.filter_grammar()
            help_text = grammar.help if grammar else ""
            box = Input(placeholder=help_text, classes="filter-box", id=f"{self.scope}-filter")
            await self.mount(box, after=f"#{self.scope}-header")
        box.add_class("-shown")
        box.value = self.filter.text
        box.focus()

    def filter_problem(self, message: str) -> None:
        """Say what is wrong with the typed filter (or nothing)."""
        line = self.query_one(".filter-error", Static)
        line.update(Text(message))
        line.set_class(bool(message), "-shown")

    def on_input_submitted(self, event: Input.Submitted) -> None:
        if not event.input.has_class("filter-box"):
            return
        event.stop()
        try:
            grammar = self.filter_grammar()
            parsed = grammar.parse(event.value) if grammar else Filter()
        except ValueError as exc:
            self.filter_problem(str(exc))
            return
        self.filter_problem("")
        self._submitted = True
        self.load(parsed, 0)

    def _close_filter(self) -> None:
        box = self._filter_box()
        if box is not None and box.has_class("-shown"):
            box.remove_class("-shown")
            self.filter_problem("")
            self.focus_main()

    def back(self) -> None:
        if self._filter_box_shown():
            self._close_filter()
        elif self.filter:
            self.load(Filter(), 0)

    def show_filtered(self, text: str) -> None:
        """Show what the filter `text` selects, as if typed after `/` (another area's "all of
        this customer's payments"); after the first load of a view just built, not before it."""
        grammar = self.filter_grammar()
        parsed = grammar.parse(text) if grammar else Filter()
        self.call_after_refresh(self.load, parsed, 0)

    def action_next_page(self) -> None:
        more = self.page_offset + self.page_size < self.total or not self.total_known
        if self.scanned is None and more:
            self.load(offset=self.page_offset + self.page_size)

    def action_previous_page(self) -> None:
        if self.page_offset > 0:
            self.load(offset=max(0, self.page_offset - self.page_size))

    def action_export(self) -> None:
        """Every record the current filter matches, to a file (tui/payscope/views/export_run.py)."""
        if refused(self, Guarded.WRITE_FILES):
            return
        if self.starting(self.action_export):
            return
        from payscope.views.export_run import ExportScreen

        self.app.push_screen(ExportScreen(self))

    def action_reload(self) -> None:
        # With records made elsewhere waiting, `r` goes to the first page, where they are.
        self.load(offset=0 if self.new_count else None)

    # -- records and actions -----------------------------------------------------------------

    def selected_id(self) -> str | None:
        """The id of the record under the cursor, if any."""
        return self.table.selected_id()

    @on(ResourceTable.Open)
    def _open(self, event: ResourceTable.Open) -> None:
        event.stop()
        self.open_record(event.record_id)

    @on(ResourceTable.RowHighlighted)
    @on(LineTable.RowHighlighted)
    def _highlighted(self) -> None:
        # The selected record's state decides which of its actions the footer shows. Keys are
        # checked as they are pressed, so a footer with no row action to show is left alone:
        # redrawing it on every cursor move rebuilds its keys (and costs the first paint).
        if any(a.show and a.needs_record for a in self.actions):
            self.refresh_bindings()

    def new_record(self) -> Awaitable[object] | None:
        """`n`: the area's form for a new record (see `new_record_action`). An area whose list
        makes records overrides it; what the form made goes to `show_created`. It returns what
        `push_screen` returns (the form's mounting), so keys typed at once reach the form."""
        return None

    def show_created(
        self, record_id: str, *, reload: bool = True, first_page: bool = False
    ) -> None:
        """A record this view's form made: the page is read again with its row under the
        cursor (no webhook announces every new record), then its detail opens.
        `first_page`: the first page with no filter is read instead, so that the row shows;
        `reload=False`: the page stays as it is (the new row would not show on it)."""
        if reload:
            self.table.select_next = record_id
            if first_page:
                self.load(Filter(), 0)
            else:
                self.load()
        self.open_record(record_id)

    def open_record(self, record_id: str) -> None:
        """Open a record's detail screen (`:ref <id>` lands here too)."""
        if self.starting(lambda: self.open_record(record_id)):
            return
        screen = self.detail(record_id)
        if screen is not None:
            self.app.push_screen(screen)

    def starting(self, then: Callable[[], object] | None = None) -> bool:
        """True while the client is not up yet. With `then`, what was asked runs as soon as it
        is (a key pressed on the first page while the client loads is not lost); without, the
        user is told to try again. The listener may still be coming up then: its events follow
        (the sandbox holds them until it is)."""
        if self.runtime.client_ready.is_set():
            return False
        if then is None:
            self.notify(
                "Still connecting to the service; try again in a moment.",
                severity="warning",
            )
        else:
            self._when_ready(then)
        return True

    @work(exclusive=True, group="when-ready", exit_on_error=False, description="Connecting")
    async def _when_ready(self, then: Callable[[], object]) -> None:
        try:
            await within(self.runtime.client_ready.wait(), READY_WAIT)
        except TimeoutError:
            self.notify(
                "Not connected to the service yet: nothing was done. Try again once it is.",
                severity="warning",
            )
            return
        then()

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if action == "act" and parameters:
            chosen = find_action(self.actions, str(parameters[0]))
            if chosen is None:
                return False
            record = self.table.selected() if chosen.needs_record else None
            return chosen.allows(
                record,
                local=self.runtime.options.is_local,
                read_only=self.runtime.options.read_only,
            )
        if action in ("next_page", "previous_page") and self.scanned is not None:
            return False
        return super().check_action(action, parameters)

    async def action_act(self, name: str) -> None:
        """An action's key: it runs, and a form it opens is mounted and focused before the
        next key is handled (keys typed at once after `n` reach the form, not nothing)."""
        opened = self.act(name)
        if opened is not None:
            await opened

    def act(self, name: str) -> Awaitable[object] | None:
        """Run the action `name` on the selected row; what its form's opening is awaited with
        (None when it opened none)."""
        chosen = find_action(self.actions, name)
        if chosen is None or self.starting(lambda: self.act(name)):
            return None
        record_id = self.table.selected_id() if chosen.needs_record else None
        if chosen.needs_record and record_id is None:
            self.notify("Select a row first.", severity="warning")
            return None
        record = self.table.selected() if chosen.needs_record else None
        if not chosen.allows(
            record,
            local=self.runtime.options.is_local,
            read_only=self.runtime.options.read_only,
        ):
            return None
        opened = chosen.run(self, record_id, self.record_for_action(record))
        return opened if isinstance(opened, Awaitable) else None

    def record_for_action(self, record: T | None) -> T | None:
        """The record an action gets (Payments: None for a row shown from the cache)."""
        return record

    def acted(self, result: Any) -> None:
        """An action's form closed: show what it changed."""
        if result is None:
            return
        try:
            record_id = self.key_of(result)
        except (AttributeError, TypeError):
            return
        if record_id in self.rows:
            self.refresh_one(record_id)

    def context_commands(self) -> Iterable[SystemCommand]:
        """Palette: the actions the selected record allows, then opening it."""
        local = self.runtime.options.is_local
        read_only = self.runtime.options.read_only
        record = self.table.selected()
        record_id = self.table.selected_id()
        for chosen in self.actions:
            shown = record if chosen.needs_record else None
            if not chosen.allows(shown, local=local, read_only=read_only):
                continue
            title = chosen.palette or chosen.title
            yield SystemCommand(
                title,
                record_id if chosen.needs_record and record_id else chosen.help,
                lambda name=chosen.name: self.act(name),
            )
        yield SystemCommand(
            f"Export {self.noun}",
            "Every record the filter matches (all pages) to CSV or JSON Lines (E)",
            self.action_export,
        )
        if record_id is not None:
            yield SystemCommand(
                f"Open {record_id}",
                f"Its {self.title.lower()[:-1]} detail",
                lambda: self.open_record(record_id),
            )


def new_record_action(
    title: str, help: str, palette: str, *, name: str = "new", key: str = "n"
) -> Action[Any]:
    """The list's action that makes a record (`n`): it runs the view's `new_record()`."""

    def run(host: ActionHost, _record_id: str | None, _record: Any) -> Awaitable[object] | None:
        assert isinstance(host, ResourceListView), "a new record is made from its list"
        return host.new_record()

    return Action(name, key, title, help, run, needs_record=False, palette=palette)


def listed_total(total_count: int | None, offset: int, shown: int) -> int:
    """A list answer's total, or when it gives none, what this page reaches (all that is known:
    the header says `1-20 of 20`)."""
    return total_count if total_count is not None else offset + shown
