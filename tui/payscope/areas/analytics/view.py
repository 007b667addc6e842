"""`:analytics`: payment, refund and dispute metrics as charts, a table and totals.

The controls (domain, metric, range, granularity, group-by) are selects, and each has a key
that moves it to its next choice (d m t g b); `c` asks for a custom range, `/` for filters, `u`
shows an amount in the next currency, Enter on a row of the table keeps only that group, Esc
clears the filters. Under them: the totals of every metric of the domain with their change from
the previous window (as long, just before), the time chart (stacked bars for counts and amounts,
lines for rates) beside the breakdown (bars by group), and the table of the same numbers. At 80
columns the charts stack and the table folds under them.

A query runs in an exclusive worker: a new choice cancels the one under way (the header says
Loading… with the time it has taken). A new metric or currency redraws from the answer already
there. The figures themselves are in `data` (no Textual); what the charts draw is built in
`figures`, the totals and the table's rows in `numbers`.
"""

from __future__ import annotations

import time
from dataclasses import replace
from typing import Any, ClassVar

from rich.text import Text
from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.timer import Timer
from textual.widgets import Select, Static

from payscope.api.ids import ID_PREFIX
from payscope.areas.analytics import data, figures
from payscope.areas.analytics.data import CUSTOM, OTHER, Answer, Choice, Metric
from payscope.areas.analytics.forms import CustomRangeForm, FilterForm
from payscope.areas.analytics.numbers import (
    NUMBER_COLUMNS,
    NumberRow,
    number_rows,
    table_title,
    totals_line,
)
from payscope.views.area import AreaView, TitleBar, area_width
from payscope.views.columns import CellContext
from payscope.views.live import Change, watch_changes
from payscope.views.table import ResourceTable
from payscope.widgets.charts import Bar, BarFigure, Chart
from payscope.widgets.errors import describe_error
from payscope.widgets.format import theme_colour
from payscope.widgets.text import visible

# Below this area width the controls take two lines and the charts stack.
NARROW_WIDTH = 96
# A change that concerns the domain shown reads the answer again this long after it (a burst of
# webhooks is one read).
LIVE_DELAY = 1.5
# The kind of record each domain counts: a change to one of its ids makes the answer stale.
DOMAIN_KIND = {"payments": "payment", "refunds": "refund", "disputes": "dispute"}


def _select_width(options: list[tuple[str, str]]) -> int:
    """A compact select as wide as its longest choice and its arrow."""
    return max(len(label) for label, _ in options) + 3


class AnalyticsView(AreaView):
    """The `:analytics` area (see the module docstring)."""

    DEFAULT_CSS = """
    AnalyticsView #analytics-controls { height: 1; padding: 0 1; }
    AnalyticsView #analytics-controls Select { margin: 0 1 0 0; }
    AnalyticsView #analytics-controls.-narrow { height: 2; layout: grid; grid-size: 3 2; }
    AnalyticsView #analytics-body { height: 1fr; }
    AnalyticsView #analytics-totals { padding: 0 1; height: auto; }
    AnalyticsView #analytics-filters { padding: 0 1; height: auto; color: $text-muted; }
    AnalyticsView #analytics-charts { height: 20; }
    AnalyticsView .panel {
        border: round $primary; border-title-color: $foreground; border-title-style: bold;
        padding: 0 1;
    }
    AnalyticsView #series-box { width: 3fr; height: 1fr; }
    AnalyticsView #breakdown-box { width: 2fr; height: 1fr; }
    AnalyticsView #analytics-legend { height: auto; color: $foreground; }
    AnalyticsView #numbers-box { height: auto; }
    AnalyticsView #analytics-table { height: auto; max-height: 40; }
    AnalyticsView #analytics-charts.-narrow { layout: vertical; height: auto; }
    AnalyticsView #analytics-charts.-narrow #series-box { width: 1fr; height: 16; }
    AnalyticsView #analytics-charts.-narrow #breakdown-box { width: 1fr; height: 12; }
    AnalyticsView #analytics-charts.-no-breakdown #breakdown-box { display: none; }
    """

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding(
            "d",
            "cycle('domain')",
            "Domain",
            id="analytics.domain",
            tooltip="Payments, refunds or disputes (next)",
        ),
        Binding(
            "m",
            "cycle('metric')",
            "Metric",
            id="analytics.metric",
            tooltip="The next metric of the domain",
        ),
        Binding(
            "t",
            "cycle('range')",
            "Range",
            id="analytics.range",
            tooltip="The next time range: 24 h, 7, 30 or 90 days",
        ),
        Binding(
            "g",
            "cycle('granularity')",
            "Granularity",
            id="analytics.granularity",
            tooltip="Buckets of an hour, a day, a week or a month",
        ),
        Binding(
            "b",
            "cycle('group')",
            "Group by",
            id="analytics.group",
            tooltip="The next dimension to break the numbers down by",
        ),
        Binding(
            "c",
            "custom_range",
            "Custom range",
            id="analytics.custom",
            tooltip="Choose the dates of the range",
        ),
        Binding(
            "u",
            "next_currency",
            "Currency",
            id="analytics.currency",
            tooltip="Show amounts in the next currency",
        ),
        Binding(
            "r",
            "reload",
            "Reload",
            id="analytics.reload",
            tooltip="Ask the service again",
            show=False,
        ),
    ]

    filterable = True

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.choice = Choice()
        self.answer: Answer | None = None
        self.error: str | None = None
        self.loading_since: float | None = None
        self._asked: tuple[Any, ...] | None = None  # the query key of the answer shown
        self._asked_at = 0.0  # the service's time of that answer
        self._stale = False
        self._live_timer: Timer | None = None
        self._ticker: Timer | None = None
        # perf_counter() when the last answer arrived (the benchmark reads it).
        self.answered_at = 0.0
        self._shown_options: dict[str, list[tuple[str, str]]] = {}
        self._totals_text = Text()
        self._filters_text = Text()

    # -- layout ---------------------------------------------------------------------------------

    def compose(self) -> ComposeResult:
        narrow = area_width(self.app.size.width) < NARROW_WIDTH
        self._narrow = narrow
        yield TitleBar(Text.assemble(("Analytics", "bold")), id="analytics-header")
        with Horizontal(id="analytics-controls", classes="-narrow" if narrow else ""):
            yield self._select("domain", self._offered("domain"))
            yield self._select("metric", self._metric_options())
            yield self._select("range", self._range_options())
            yield self._select("granularity", self._granularity_options())
            yield self._select("group", self._group_options())
        with VerticalScroll(id="analytics-body"):
            yield Static(id="analytics-totals")
            yield Static(id="analytics-filters")
            with Horizontal(id="analytics-charts", classes="-narrow" if narrow else ""):
                with Vertical(id="series-box", classes="panel"):
                    yield Chart(id="analytics-series")
                    yield Static(id="analytics-legend")
                with Vertical(id="breakdown-box", classes="panel"):
                    yield Chart(id="analytics-breakdown")
            with Vertical(id="numbers-box", classes="panel"):
                table: ResourceTable[NumberRow] = ResourceTable(
                    NUMBER_COLUMNS, lambda r: r.key, self._cells_context, id="analytics-table"
                )
                table.zebra_stripes = False
                yield table

    def _select(self, name: str, options: list[tuple[str, str]]) -> Select[str]:
        values = [value for _, value in options]
        current = self._control_value(name)
        self._shown_options[name] = list(options)
        select: Select[str] = Select(
            [(label, value) for label, value in options],
            value=current if current in values else values[0],
            allow_blank=False,
            compact=True,
            id=f"analytics-{name}",
        )
        select.styles.width = _select_width(options)
        return select

    def on_mount(self) -> None:
        self._fit()
        self.app.theme_changed_signal.subscribe(self, lambda _theme: self._draw())
        watch_changes(self, self._changed)
        self._show_state()
        self._say_everywhere("Waiting for the service…")

    def on_resize(self) -> None:
        self._fit()

    def _fit(self) -> None:
        width = self.size.width or area_width(self.app.size.width)
        narrow = width < NARROW_WIDTH
        self._narrow = narrow
        self.query_one("#analytics-controls").set_class(narrow, "-narrow")
        for name in ("domain", "metric", "range", "granularity", "group"):
            select = self.query_one(f"#analytics-{name}", Select)
            select.styles.width = "1fr" if narrow else _select_width(self._offered(name))
        charts = self.query_one("#analytics-charts")
        charts.set_class(narrow, "-narrow")
        self.table.fit_to(max(30, width - 6))
        height = self.size.height or self.app.size.height - 3
        controls = 2 if narrow else 1
        body = self.query_one("#analytics-body").size.height or max(12, height - 1 - controls)
        # The lines the totals and the filters take, from their text (known before layout, so
        # one pass sizes the charts right).
        totals = self._lines(self._totals_text, width)
        filters = self._lines(self._filters_text, width) if self.choice.filters else 0
        room = body - totals - filters
        if narrow:
            # The time chart fills the first screen; the breakdown and the table fold under it.
            self.query_one("#series-box").styles.height = max(12, room)
            bars = len(self._breakdown_bars()) or 4
            self.query_one("#breakdown-box").styles.height = min(16, max(8, bars * 2 + 3))
            charts.styles.height = "auto"
        else:
            table_rows = len(self.table.records) or 6
            charts.styles.height = max(12, min(24, room - (table_rows + 3)))

    def _lines(self, text: Text, width: int) -> int:
        """How many lines `text` wraps to in a line of the body (padding 1 on each side)."""
        if not text:
            return 0
        return len(text.wrap(self.app.console, max(10, width - 2)))

    @property
    def table(self) -> ResourceTable[NumberRow]:
        return self.query_one("#analytics-table", ResourceTable)

    @property
    def series_chart(self) -> Chart:
        return self.query_one("#analytics-series", Chart)

    @property
    def breakdown_chart(self) -> Chart:
        return self.query_one("#analytics-breakdown", Chart)

    def _cells_context(self) -> CellContext:
        return CellContext(self.app.theme_variables, self.runtime.display)

    def focus_main(self) -> None:
        # Keys work from the body; it opens at its top.
        self.query_one("#analytics-body").focus(scroll_visible=False)
        if self.runtime.ready.is_set() and (self._stale or self._clock_moved()):
            self.run_query()

    # -- controls -------------------------------------------------------------------------------

    def _metric_options(self) -> list[tuple[str, str]]:
        return [(m.label, m.key) for m in data.metrics_of(self.choice.domain)]

    def _range_options(self) -> list[tuple[str, str]]:
        return [(p.label, p.key) for p in data.PRESETS] + [("Custom range…", CUSTOM)]

    def _granularity_options(self) -> list[tuple[str, str]]:
        return [(f"By {label}", key) for key, label in data.GRANULARITIES]

    def _group_options(self) -> list[tuple[str, str]]:
        return [("No breakdown", "none")] + [
            (f"By {data.dimension_label(d).lower()}", d)
            for d in data.dimensions_of(self.choice.domain)
        ]

    def _offered(self, name: str) -> list[tuple[str, str]]:
        if name == "domain":
            return [(label, key) for key, label in data.DOMAINS]
        return {
            "metric": self._metric_options,
            "range": self._range_options,
            "granularity": self._granularity_options,
            "group": self._group_options,
        }[name]()

    def _control_value(self, name: str) -> str:
        choice = self.choice
        if name == "group":
            return choice.group or "none"
        value: str = getattr(choice, name)
        return value

    def _sync_controls(self) -> None:
        """Make every select show the choice (their options follow the domain)."""
        for name in ("domain", "metric", "range", "granularity", "group"):
            select = self.query_one(f"#analytics-{name}", Select)
            options = self._offered(name)
            if self._shown_options.get(name, options) != options:
                select.set_options(options)
                if not self._narrow:
                    select.styles.width = _select_width(options)
            self._shown_options[name] = options
            wanted = self._control_value(name)
            if select.value != wanted:
                select.value = wanted

    def _apply(self, choice: Choice) -> None:
        """Take `choice`: ask the service again if the question changed, else redraw."""
        if choice.range != CUSTOM:
            choice = replace(choice, custom=None)
        window = choice.window(self.runtime.now()) if self.runtime.ready.is_set() else None
        if window is not None:
            fitted = data.fit_granularity(window, choice.granularity)
            if fitted != choice.granularity:
                label = data.GRANULARITY_LABEL
                self.notify(
                    f"By {label[choice.granularity]} would draw more than {data.MAX_BUCKETS} "
                    f"buckets: shown by {label[fitted]}.",
                    title="Analytics",
                )
                choice = replace(choice, granularity=fitted)
        self.choice = choice
        self._sync_controls()
        if choice.query_key != self._asked:
            self.run_query()
        else:
            self._draw()

    @on(Select.Changed)
    def _select_changed(self, event: Select.Changed) -> None:
        event.stop()
        name = (event.select.id or "").removeprefix("analytics-")
        value = event.value
        if value is Select.NULL or value != event.select.value:
            return  # a step of the controls catching up with the choice (new options, then value)
        if value == self._control_value(name):
            return  # the controls catching up with the choice
        choice = self.choice
        if name == "domain":
            self._apply(choice.with_domain(str(value)))
        elif name == "metric":
            self._apply(replace(choice, metric=str(value)))
        elif name == "range":
            if value == CUSTOM:
                self.action_custom_range()
                return
            preset = data.PRESET_BY_KEY[str(value)]
            self._apply(replace(choice, range=preset.key, granularity=preset.granularity))
        elif name == "granularity":
            self._apply(replace(choice, granularity=str(value)))
        elif name == "group":
            self._apply(replace(choice, group=None if value == "none" else str(value)))

    def action_cycle(self, name: str) -> None:
        """Move a control to its next choice."""
        if name == "range":
            keys = [p.key for p in data.PRESETS]
            current = self.choice.range
            nxt = keys[(keys.index(current) + 1) % len(keys)] if current in keys else keys[0]
            preset = data.PRESET_BY_KEY[nxt]
            self._apply(replace(self.choice, range=nxt, granularity=preset.granularity))
            return
        values = [v for _, v in self._offered(name)]
        current = self._control_value(name)
        nxt = values[(values.index(current) + 1) % len(values)] if current in values else values[0]
        if name == "domain":
            self._apply(self.choice.with_domain(nxt))
        elif name == "group":
            self._apply(replace(self.choice, group=None if nxt == "none" else nxt))
        elif name == "metric":
            self._apply(replace(self.choice, metric=nxt))
        else:
            self._apply(replace(self.choice, granularity=nxt))

    def action_custom_range(self) -> None:

        now = self.runtime.now()
        current = self.choice.window(now)

        def chosen(window: data.Window | None) -> None:
            if window is None:
                self._sync_controls()  # the range select goes back to what is shown
                return
            self._apply(
                replace(
                    self.choice,
                    range=CUSTOM,
                    custom=window,
                    granularity=data.usual_granularity(window),
                )
            )

        self.app.push_screen(CustomRangeForm(current), chosen)

    def action_next_currency(self) -> None:
        answer = self.answer
        metric = self.metric
        if answer is None or not metric.per_currency:
            self.notify(
                "Only amounts are shown in one currency: pick an amount metric (m).",
                title="Analytics",
                severity="warning",
            )
            return
        seen = answer.currencies()
        if len(seen) < 2:
            self.notify("No other currency in this range.", title="Analytics")
            return
        shown = answer.shown_currency()
        nxt = seen[(seen.index(shown) + 1) % len(seen)] if shown in seen else seen[0]
        self._apply(replace(self.choice, currency=nxt))

    def action_reload(self) -> None:
        self.run_query()

    async def start_filter(self) -> None:

        def chosen(filters: data.Filters | None) -> None:
            if filters is not None:
                self._apply(replace(self.choice, filters=filters))

        self.app.push_screen(FilterForm(self.choice.domain, self.choice.filters), chosen)

    def back(self) -> None:
        if self.choice.filters:
            self._apply(replace(self.choice, filters=()))
            self.notify("Filters cleared.", title="Analytics")

    @on(ResourceTable.Open, "#analytics-table")
    def _drill(self, event: ResourceTable.Open) -> None:
        """Enter on a group: keep only that group (Esc clears it)."""
        event.stop()
        row = self.table.records.get(event.record_id)
        group = self.choice.group
        if row is None or row.total or group is None or row.key == OTHER:
            return
        if row.label == data.NONE_LABEL and row.key == "\x00none":
            self.notify("Rows without a value cannot be filtered on.", severity="warning")
            return
        filters = dict(self.choice.filters)
        filters[group] = (row.key,)
        self._apply(replace(self.choice, filters=tuple(filters.items())))

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if action == "next_currency":
            return self.metric.per_currency
        return True

    @property
    def metric(self) -> Metric:
        return data.metric_of(self.choice.domain, self.choice.metric)

    # -- the query ------------------------------------------------------------------------------

    def runtime_ready(self) -> None:
        self._apply(self.choice)
        if self.choice.query_key == self._asked:
            self.run_query()  # ready again (a reconnect): read again

    def _clock_moved(self) -> bool:
        return abs(self.runtime.now() - self._asked_at) > 60

    def _changed(self, change: Change) -> None:
        prefix = ID_PREFIX[DOMAIN_KIND[self.choice.domain]]
        if not any(i.startswith(prefix) for i in change.ids):
            return
        self._stale = True
        if self.display and self.is_on_screen:
            if self._live_timer is not None:
                self._live_timer.stop()
            self._live_timer = self.set_timer(LIVE_DELAY, self._live_reload)

    def _live_reload(self) -> None:
        self._live_timer = None
        if self._stale:
            self.run_query()

    def run_query(self) -> None:
        """Ask the service for the choice (cancelling a question still under way)."""
        if not self.runtime.ready.is_set():
            self._show_state()  # asked once the service is up (`runtime_ready`)
            return
        self._stale = False
        self.loading_since = time.perf_counter()
        if self._ticker is None:
            self._ticker = self.set_interval(0.2, self._show_state)
        self._show_state()
        self._query(self.choice)

    @work(exclusive=True, group="analytics", exit_on_error=False, description="Analytics")
    async def _query(self, choice: Choice) -> None:
        now = self.runtime.now()
        try:
            answer = await data.fetch(self.runtime.api, choice, now)
        except Exception as exc:
            title, message = describe_error(exc)
            self._stop_loading()
            self.error = visible(f"{title}: {message}", multiline=True)
            self._asked = None
            self._show_state()
            self._say_everywhere(f"The service did not answer this query.\n{self.error}")
            return
        self.answered_at = time.perf_counter()
        self._stop_loading()
        self.error = None
        self.answer = answer
        self._asked = choice.query_key
        self._asked_at = now
        self._draw()

    def _stop_loading(self) -> None:
        self.loading_since = None
        if self._ticker is not None:
            self._ticker.stop()
            self._ticker = None

    # -- drawing --------------------------------------------------------------------------------

    def _show_state(self) -> None:
        header = Text.assemble(("Analytics  ", "bold"))
        choice = self.choice
        if self.runtime.ready.is_set():
            window = choice.window(self.answer_now())
            header.append(window.text())
            granularity = self.answer.granularity if self.answer else choice.granularity
            header.append(f", by {data.GRANULARITY_LABEL[granularity]}")
        if self.loading_since is not None:
            spent = time.perf_counter() - self.loading_since
            header.append("  ·  ")
            accent = theme_colour(self.app.theme_variables, "accent")
            header.append("Loading…", style=f"bold {accent}")
            waited = self.runtime.display.measured(f" {spent:.0f} s (a new choice cancels it)")
            if spent >= 1 and waited is not None:
                header.append(waited, style="dim")
        elif self.error:
            header.append("  ·  ")
            header.append("no answer", style=theme_colour(self.app.theme_variables, "error"))
        self.query_one("#analytics-header", TitleBar).update(header)

    @property
    def answer_is_current(self) -> bool:
        """Whether the answer shown is the service's answer to the choice made now."""
        return self.answer is not None and self._asked == self.choice.query_key

    def answer_now(self) -> float:
        """The service's time the window shown is computed from (that of the answer)."""
        if self.answer_is_current:
            return self._asked_at
        return self.runtime.now()

    def _say_everywhere(self, message: str) -> None:
        self.series_chart.say(message)
        self.breakdown_chart.say("")
        self.query_one("#analytics-legend", Static).update("")
        self._totals_text = Text()
        self.query_one("#analytics-totals", Static).update("")
        self.table.show([])

    def _colours(self, groups: list[data.GroupKey]) -> dict[data.GroupKey, str]:
        return figures.group_colours(self.choice, groups, self.app.theme_variables)

    def _draw(self) -> None:
        """Charts, totals and table from the answer (no request)."""
        self._show_state()
        self._show_filters()
        answer = self.answer
        if answer is None or self._asked != self.choice.query_key:
            return
        answer.currency = self.choice.currency
        self._show_totals(answer)
        metric = self.metric
        groups = answer.groups(metric)
        each = metric.per_currency and self.choice.group == "currency"
        colours = self._colours(
            answer.groups(metric, each_currency=each) if self.choice.group else [None]
        )
        self._show_table(answer, metric, colours)
        charts = self.query_one("#analytics-charts")
        charts.set_class(self.choice.group is None, "-no-breakdown")
        if answer.empty:
            noun = self.choice.domain
            self.series_chart.say(
                f"No {noun} between {answer.window.text()}.\n"
                "Choose a longer range (t), or make some: the sandbox's Trigger (:sandbox)."
            )
            self.query_one("#analytics-legend", Static).update("")
            self.breakdown_chart.say(f"No {noun} in this range.")
        else:
            self._show_series(answer, metric, groups, colours)
            self._show_breakdown(answer, metric, groups, colours)
        self._fit()

    def _show_filters(self) -> None:
        line = self.query_one("#analytics-filters", Static)
        text = self.choice.filter_text()
        line.display = bool(text)
        self._filters_text = Text()
        if text:
            self._filters_text = Text.assemble(
                ("Filters  ", "bold"), f"{visible(text)}   ", ("/ changes · Esc clears", "dim")
            )
            line.update(self._filters_text)

    def _show_totals(self, answer: Answer) -> None:
        line = totals_line(answer, self.choice, self.app.theme_variables, narrow=self._narrow)
        self._totals_text = line
        self.query_one("#analytics-totals", Static).update(line)

    def _show_series(
        self,
        answer: Answer,
        metric: Metric,
        groups: list[data.GroupKey],
        colours: dict[data.GroupKey, str],
    ) -> None:
        shown = figures.series(
            answer, metric, self.choice, groups, colours, self.app.theme_variables
        )
        self.series_chart.show(shown.figure)
        self.query_one("#series-box").border_title = visible(shown.title)
        legend = self.query_one("#analytics-legend", Static)
        legend.update(shown.legend)
        legend.display = bool(shown.legend)

    def _breakdown_bars(self) -> list[Bar]:
        figure = self.breakdown_chart.figure if self.is_mounted else None
        return list(figure.bars) if isinstance(figure, BarFigure) else []

    def _show_breakdown(
        self,
        answer: Answer,
        metric: Metric,
        groups: list[data.GroupKey],
        colours: dict[data.GroupKey, str],
    ) -> None:
        box = self.query_one("#breakdown-box")
        group = self.choice.group
        if group is None:
            return
        box.border_title = visible(f"By {data.dimension_label(group).lower()}")
        if metric.per_currency and group == "currency":
            self.breakdown_chart.say(
                "Amounts in different currencies are not compared: the table lists each."
            )
            return
        figure = figures.breakdown_bars(answer, metric, self.choice, groups, colours)
        if figure is None:
            self.breakdown_chart.say("Nothing in this range.")
            return
        self.breakdown_chart.show(figure)

    def _show_table(
        self,
        answer: Answer,
        metric: Metric,
        colours: dict[data.GroupKey, str],
    ) -> None:
        rows = number_rows(
            answer, metric, self.choice, colours, lambda g: figures.group_names(self.choice, g)
        )
        table = self.table
        kept = table.selected_id() in {row.key for row in rows}
        table.show(rows)
        if not kept and rows:
            table.move_cursor(row=0)  # another breakdown: start at its largest group
        title = table_title(answer, metric, self.choice)
        self.query_one("#numbers-box").border_title = visible(title)
