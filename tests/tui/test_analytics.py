"""`:analytics` against the embedded sandbox: charts, the table and the totals from the seeded
demo data (300 payments laid out as a first run lays them out, clock frozen), every control (keys
and selects), the custom range and filter forms with their errors, drill-down, amounts in one
currency at a time, an empty range, a refusal said in place, a slow query cancelled by a new
choice, live updates, hostile group values, theme colours, and snapshots at two sizes in two
themes."""

from __future__ import annotations

import asyncio
import shutil
import sqlite3
from collections.abc import Callable, Iterator
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest
from textual.widgets import Input, Select

from payscope.areas.analytics import data
from payscope.areas.analytics.forms import CustomRangeForm, FilterForm
from payscope.areas.analytics.view import AnalyticsView
from payscope.widgets.charts import BarFigure, TimeFigure
from tests.conftest import ids_seeded_with
from tests.tui.conftest import FROZEN_TIME, frozen_clock
from tests.tui.pilot import LOOKS, create_payment, field_error, run_command, shown_text, until
from tests.tui.snapshot_app import build, ready
from tests.waits import on_screen

Dirs = tuple[Path, Path]
DEMO_PAYMENTS = 300  # what a first run seeds (runtime.DEFAULT_SEED)


# -- the demo data: a first run's seed, built once, copied per test ---------------------------


async def _build_demo(directory: Path) -> None:
    from payscope.sandbox.config import SandboxConfig
    from payscope.sandbox.server import Sandbox

    sandbox = Sandbox(
        SandboxConfig(
            data_dir=directory / "sandbox",
            time_source=frozen_clock,
            merchant_id="merchant_snapshot",
            profile_id="pro_snapshot",
        )
    )
    await sandbox.start("127.0.0.1", 0)
    try:
        sandbox.seed(DEMO_PAYMENTS)  # lifelike, as a person's first run
    finally:
        await sandbox.stop()


@pytest.fixture(scope="session")
def demo_template(tmp_path_factory: pytest.TempPathFactory) -> Path:
    directory = tmp_path_factory.mktemp("analytics-demo")
    with ids_seeded_with(2024):
        asyncio.run(_build_demo(directory))
    return directory


@pytest.fixture
def demo(
    tmp_path: Path, demo_template: Path, monkeypatch: pytest.MonkeyPatch
) -> Iterator[tuple[Path, Path]]:
    """(config dir, data dir) on a copy of the demo data."""
    data_dir = tmp_path / "data"
    shutil.copytree(demo_template, data_dir)
    config = tmp_path / "config"
    config.mkdir(mode=0o700)  # payscope's own: private (else it is made so, and said)
    monkeypatch.setenv("PAYSCOPE_CONFIG_DIR", str(config))
    monkeypatch.setenv("PAYSCOPE_DATA_DIR", str(data_dir))
    monkeypatch.delenv("PAYSCOPE_API_KEY", raising=False)
    yield config, data_dir


def _db(data_dir: Path) -> sqlite3.Connection:
    return sqlite3.connect(data_dir / "sandbox" / "sandbox.sqlite3")


def _counts(data_dir: Path, start: str, end: str, column: str = "currency") -> dict[str, int]:
    """Payments per `column` created in [start, end], read straight from the sandbox's store."""
    conn = _db(data_dir)
    try:
        rows = conn.execute(
            f"SELECT {column}, COUNT(*) FROM payments WHERE created BETWEEN ? AND ? "
            f"GROUP BY {column}",
            (start, end),
        ).fetchall()
    finally:
        conn.close()
    return {str(k): int(n) for k, n in rows}


# -- helpers ------------------------------------------------------------------------------------


def _settled(view: AnalyticsView) -> bool:
    return view.loading_since is None and view.answer_is_current


async def _analytics(pilot: Any) -> AnalyticsView:
    """Start, go to `:analytics` and wait for its first answer to be drawn."""
    app = pilot.app
    await ready(pilot)
    await run_command(pilot, "analytics")
    await until(lambda: bool(app.screen.query(AnalyticsView)))
    view = app.screen.query_one(AnalyticsView)
    await until(lambda: _settled(view))
    await pilot.pause()
    return view


async def _press(pilot: Any, view: AnalyticsView, *keys: str) -> None:
    """Press keys in the area and wait until the answer they ask for is drawn."""
    await pilot.press(*keys)
    await pilot.pause()
    await until(lambda: _settled(view))
    await pilot.pause()


def _rows(view: AnalyticsView) -> dict[str, tuple[str, ...]]:
    """The table as text: row label -> the other cells."""
    table = view.table
    out = {}
    for key in table.records:
        cells = [str(getattr(c, "plain", c)) for c in table.get_row(key)]
        out[cells[0].removeprefix("■ ").strip()] = tuple(cells[1:])
    return out


def _window(view: AnalyticsView) -> data.Window:
    assert view.answer is not None
    return view.answer.window


def _requests(app: Any) -> int:
    return sum(1 for e in app.runtime.api.journal.entries() if "/analytics/" in e.path)


# -- the demo data ------------------------------------------------------------------------------


def test_the_demo_seed_has_a_trend_several_currencies_and_failures(demo: Dirs) -> None:
    _, data_dir = demo
    day = 86400.0

    def iso(ts: float) -> str:
        return data.iso(ts)

    now = FROZEN_TIME
    last30 = sum(_counts(data_dir, iso(now - 30 * day), iso(now)).values())
    before30 = sum(_counts(data_dir, iso(now - 60 * day), iso(now - 30 * day)).values())
    first30 = sum(_counts(data_dir, iso(now - 90 * day), iso(now - 60 * day)).values())
    assert last30 > before30 > first30  # business picks up
    assert last30 >= 1.8 * first30
    week = _counts(data_dir, iso(now - 7 * day), iso(now))
    assert len(week) >= 3 and sum(week.values()) >= 20
    statuses = _counts(data_dir, iso(now - 7 * day), iso(now), "status")
    assert statuses.get("failed", 0) >= 2 and statuses.get("succeeded", 0) >= 8


def test_lifelike_only_moves_the_seeded_times(
    tmp_path: Path, seeded_ids: Callable[[int], None]
) -> None:
    """The even layout (the tests' fixed data) and the lifelike one draw the same payments."""
    from payscope.sandbox.config import SandboxConfig
    from payscope.sandbox.server import Sandbox

    made = {}
    for lifelike in (False, True):
        seeded_ids(7)  # both layouts draw from the same ids
        box = Sandbox(SandboxConfig(data_dir=tmp_path / str(lifelike), time_source=frozen_clock))
        box.seed(60, lifelike=lifelike)
        rows = box.state.db.conn.execute(
            "SELECT payment_id, status, amount, currency, created FROM payments ORDER BY rowid"
        ).fetchall()
        made[lifelike] = rows
    even, lifelike_rows = made[False], made[True]
    assert [(r[0], r[2], r[3]) for r in even] == [(r[0], r[2], r[3]) for r in lifelike_rows]
    # Statuses too, but for an authorisation's: older than 7 days, it has expired.
    held = {"requires_capture", "expired"}
    assert all(
        a[1] == b[1] or {a[1], b[1]} == held for a, b in zip(even, lifelike_rows, strict=True)
    )
    assert [r[4] for r in even] != [r[4] for r in lifelike_rows]
    # Weekends are quieter in the lifelike layout.
    weekend = sum(
        datetime.fromisoformat(r[4].replace("Z", "+00:00")).weekday() >= 5 for r in lifelike_rows
    )
    assert weekend < len(lifelike_rows) * 2 / 7


# -- the area -----------------------------------------------------------------------------------


async def test_analytics_shows_a_chart_and_a_table_of_the_seeded_data(demo: Dirs) -> None:
    app = build(*demo)
    async with app.run_test(size=(120, 40)) as pilot:
        view = await _analytics(pilot)
        window = _window(view)
        # Last 30 days: from the start of a day 29 days before the sandbox's now, to now.
        assert window.end == FROZEN_TIME
        assert datetime.fromtimestamp(window.start, UTC) == datetime(2024, 4, 2, tzinfo=UTC)
        expected = _counts(demo[1], data.iso(window.start), data.iso(window.end))
        rows = _rows(view)
        for currency, count in expected.items():
            assert rows[currency][0] == f"{count:,}"
        assert rows["Total"][0] == f"{sum(expected.values()):,}"
        # The time chart stacks the same payments, one bar a day.
        figure = view.series_chart.figure
        assert isinstance(figure, TimeFigure) and figure.stacked
        assert len(figure.x_labels) == 30 and figure.x_labels[0] == "Apr 02"
        assert sum(v or 0 for layer in figure.layers for v in layer.values) == sum(
            expected.values()
        )
        assert {layer.label for layer in figure.layers} == set(expected)
        bars = view.breakdown_chart.figure
        assert isinstance(bars, BarFigure)
        assert [b.label for b in bars.bars] == sorted(expected, key=lambda c: -expected[c])
        # Totals and the change from the 30 days before.
        previous = window.previous()
        before = sum(_counts(demo[1], data.iso(previous.start), data.iso(previous.end)).values())
        assert rows["Total"][1] == f"{before:,}"
        totals = str(view.query_one("#analytics-totals").render())
        change = round((sum(expected.values()) - before) * 100 / before)
        assert f"Payment count {sum(expected.values())} +{change}%" in totals
        assert "Loading" not in str(view.query_one("#analytics-header").render())
        # Drawn: the chart's text holds the day labels.
        drawn = view.series_chart.render().plain
        assert "Apr 02" in drawn


async def test_every_control_key_changes_the_view(demo: Dirs) -> None:
    app = build(*demo)
    async with app.run_test(size=(120, 40)) as pilot:
        view = await _analytics(pilot)
        asked = _requests(app)
        # m: the next metric redraws from the answer already there (no request).
        await pilot.press("m")
        await pilot.pause()
        assert view.choice.metric == "payment_success_count"
        assert _requests(app) == asked
        assert view.query_one("#analytics-metric", Select).value == "payment_success_count"
        assert "Succeeded per day" in str(view.query_one("#series-box").border_title)
        await pilot.press("m")  # a rate: one line over time, each currency in the breakdown
        await pilot.pause()
        figure = view.series_chart.figure
        assert isinstance(figure, TimeFigure) and not figure.stacked
        assert [layer.label for layer in figure.layers] == ["all"]
        assert figure.y_max == 100.0
        assert _rows(view)["Total"][0].endswith("%")
        # t: the next range (90 days), asked of the service.
        await _press(pilot, view, "t")
        assert view.choice.range == "90d"
        assert _requests(app) == asked + 2  # this window and the previous one
        assert len(view.answer.buckets) == 90
        assert view.query_one("#analytics-range", Select).value == "90d"
        # g: by week.
        await _press(pilot, view, "g")
        assert view.answer.granularity == "G_ONE_WEEK"
        assert all(b.weekday() == 0 for b in view.answer.buckets)
        # b: group by the next dimension.
        await _press(pilot, view, "b")
        assert view.choice.group == "payment_method"
        assert "card" in _rows(view)
        # d: refunds, with their own metrics and dimensions.
        await _press(pilot, view, "d")
        assert view.choice.domain == "refunds"
        assert view.choice.metric == "refund_count"
        metric = view.query_one("#analytics-metric", Select)
        assert metric.value == "refund_count"
        group = view.query_one("#analytics-group", Select)
        assert group.value == "currency"  # payment_method is not a refund dimension
        await _press(pilot, view, "d")
        assert view.choice.domain == "disputes"
        assert "Dispute count" in str(view.query_one("#analytics-totals").render())


async def test_the_selects_drive_the_same_choices(demo: Dirs) -> None:
    app = build(*demo)
    async with app.run_test(size=(120, 40)) as pilot:
        view = await _analytics(pilot)
        view.query_one("#analytics-group", Select).value = "status"
        await pilot.pause()
        await until(lambda: _settled(view) and view.choice.group == "status")
        rows = _rows(view)
        assert "succeeded" in rows and "failed" in rows
        view.query_one("#analytics-range", Select).value = "7d"
        await pilot.pause()
        await until(lambda: _settled(view) and view.choice.range == "7d")
        assert len(view.answer.buckets) == 7
        view.query_one("#analytics-granularity", Select).value = "G_ONE_HOUR"
        await pilot.pause()
        await until(lambda: _settled(view) and view.answer.granularity == "G_ONE_HOUR")
        assert len(view.answer.buckets) == 7 * 24 - 11  # today so far: 00:00 to 12:00
        view.query_one("#analytics-domain", Select).value = "disputes"
        await pilot.pause()
        await until(lambda: _settled(view) and view.choice.domain == "disputes")
        assert view.choice.group == "dispute_status"  # status has the dispute's own name
        # 90 days by hour would be 2,160 buckets: coarsened to days, and said.
        view.query_one("#analytics-range", Select).value = "90d"
        await pilot.pause()
        view.query_one("#analytics-granularity", Select).value = "G_ONE_HOUR"
        await pilot.pause()
        await until(lambda: _settled(view) and view.choice.range == "90d")
        assert view.answer.granularity == "G_ONE_DAY"
        assert view.query_one("#analytics-granularity", Select).value == "G_ONE_DAY"


async def test_custom_range_form_checks_each_field(demo: Dirs) -> None:
    app = build(*demo)
    async with app.run_test(size=(120, 40)) as pilot:
        view = await _analytics(pilot)
        await pilot.press("c")
        await until(lambda: on_screen(app, CustomRangeForm))
        form = app.screen
        form.query_one("#field-start", Input).value = "April 1st"
        form.query_one("#field-end", Input).value = "2024-04-10"
        await pilot.press("ctrl+s")
        await pilot.pause()
        assert "is not a date" in field_error(form, "start")
        assert field_error(form, "end") == ""
        form.query_one("#field-start", Input).value = "2024-04-20"
        await pilot.press("ctrl+s")
        await pilot.pause()
        assert field_error(form, "start") == ""
        assert "before the start" in field_error(form, "end")
        form.query_one("#field-start", Input).value = "2024-03-01"
        await pilot.pause()
        assert "Show 41 days" in str(form.query_one("#form-submit").label)
        await pilot.press("ctrl+s")
        await until(lambda: not isinstance(app.screen, CustomRangeForm))
        await until(lambda: _settled(view) and view.choice.range == "custom")
        window = _window(view)
        assert data.iso(window.start) == "2024-03-01T00:00:00.000Z"
        assert data.iso(window.end) == "2024-04-10T23:59:59.999Z"
        assert view.query_one("#analytics-range", Select).value == "custom"
        header = str(view.query_one("#analytics-header").render())
        assert "2024-03-01 → 2024-04-10 UTC" in header
        expected = _counts(demo[1], data.iso(window.start), data.iso(window.end))
        assert _rows(view)["Total"][0] == str(sum(expected.values()))
        # Closing the form without sending keeps the range shown.
        await pilot.press("c")
        await until(lambda: on_screen(app, CustomRangeForm))
        await pilot.press("escape")
        await until(lambda: not isinstance(app.screen, CustomRangeForm))
        assert view.choice.range == "custom"


async def test_an_empty_range_says_so(demo: Dirs) -> None:
    app = build(*demo)
    async with app.run_test(size=(120, 40)) as pilot:
        view = await _analytics(pilot)
        await pilot.press("c")
        await until(lambda: on_screen(app, CustomRangeForm))
        form = app.screen
        form.query_one("#field-start", Input).value = "2020-01-01"
        form.query_one("#field-end", Input).value = "2020-01-31"
        await pilot.press("ctrl+s")
        await until(lambda: _settled(view) and view.choice.range == "custom")
        assert view.answer.empty
        assert view.series_chart.figure is None
        assert "No payments between 2020-01-01 → 2020-01-31 UTC" in view.series_chart.message
        assert _rows(view)["Total"][0] == "0"


async def test_filters_drill_down_and_escape(demo: Dirs) -> None:
    app = build(*demo)
    async with app.run_test(size=(120, 40)) as pilot:
        view = await _analytics(pilot)
        await pilot.press("slash")
        await until(lambda: on_screen(app, FilterForm))
        form = app.screen
        form.query_one("#field-currency", Input).value = "usd, E1R"
        await pilot.press("ctrl+s")
        await pilot.pause()
        assert "'E1R' is not a currency code" in field_error(form, "currency")
        form.query_one("#field-currency", Input).value = "usd, eur"
        form.query_one("#field-status", Input).value = "failed"
        await pilot.press("ctrl+s")
        await until(lambda: not isinstance(app.screen, FilterForm))
        await until(lambda: _settled(view) and bool(view.choice.filters))
        assert dict(view.choice.filters) == {"currency": ("USD", "EUR"), "status": ("failed",)}
        window = _window(view)
        conn = _db(demo[1])
        expected = dict(
            conn.execute(
                "SELECT currency, COUNT(*) FROM payments WHERE created BETWEEN ? AND ? "
                "AND status = 'failed' AND currency IN ('USD', 'EUR') GROUP BY currency",
                (data.iso(window.start), data.iso(window.end)),
            ).fetchall()
        )
        conn.close()
        rows = _rows(view)
        assert {k for k in rows if k != "Total"} == set(expected)
        assert rows["Total"][0] == str(sum(expected.values()))
        filters_line = str(view.query_one("#analytics-filters").render())
        assert "currency USD, EUR · status failed" in filters_line
        # Esc clears them.
        await _press(pilot, view, "escape")
        assert view.choice.filters == ()
        assert not view.query_one("#analytics-filters").display
        # Enter on a row keeps only that group.
        table = view.table
        table.focus()
        table.move_cursor(row=table.get_row_index("EUR"))
        await _press(pilot, view, "enter")
        assert dict(view.choice.filters) == {"currency": ("EUR",)}
        assert {k for k in _rows(view) if k != "Total"} == {"EUR"}


async def test_amounts_are_shown_one_currency_at_a_time(demo: Dirs) -> None:
    app = build(*demo)
    async with app.run_test(size=(120, 40)) as pilot:
        view = await _analytics(pilot)
        view.query_one("#analytics-metric", Select).value = "payment_processed_amount"
        await until(lambda: view.choice.metric == "payment_processed_amount")
        await pilot.pause()
        # Grouped by currency: the table lists each in its own currency, the chart one of them,
        # and the breakdown does not compare different currencies.
        rows = _rows(view)
        assert rows["USD"][0].endswith(" USD") and rows["JPY"][0].endswith(" JPY")
        assert "Total" not in rows
        figure = view.series_chart.figure
        assert isinstance(figure, TimeFigure) and [x.label for x in figure.layers] == ["USD"]
        assert "not compared" in view.breakdown_chart.message
        # By status: every figure in USD (the busiest), u moves to the next currency.
        await _press(pilot, view, "b", "b", "b")
        assert view.choice.group == "status"
        assert all(cells[0].endswith(" USD") for cells in _rows(view).values())
        # The headline says its amounts leave the other currencies out.
        totals = shown_text(view.query_one("#analytics-totals"))
        assert f"(USD only, of {len(view.answer.currencies())} currencies)" in totals
        assert "Processed amount per day · USD" in str(view.query_one("#series-box").border_title)
        await pilot.press("u")
        await pilot.pause()
        assert view.choice.currency == "EUR"
        assert all(cells[0].endswith(" EUR") for cells in _rows(view).values())
        conn = _db(demo[1])
        window = _window(view)
        (eur,) = conn.execute(
            "SELECT SUM(amount) FROM payments WHERE created BETWEEN ? AND ? AND currency = 'EUR' "
            "AND status = 'succeeded'",
            (data.iso(window.start), data.iso(window.end)),
        ).fetchone()
        conn.close()
        from payscope.widgets.format import format_amount

        assert _rows(view)["Total"][0] == format_amount(eur, "EUR")


async def test_a_refusal_is_said_in_place(demo: Dirs) -> None:
    from payscope.api.errors import ApiError

    app = build(*demo)
    async with app.run_test(size=(120, 40)) as pilot:
        view = await _analytics(pilot)

        async def refuse(*args: Any, **kwargs: Any) -> Any:
            raise ApiError(
                400, "invalid_request", "IR_04", "groupByNames: [b]bold[/b]\x1b[31m not offered"
            )

        app.runtime.api.analytics.metrics = refuse  # type: ignore[method-assign]
        await pilot.press("t")
        await until(lambda: view.error is not None and view.loading_since is None)
        await pilot.pause()
        message = view.series_chart.message
        assert "The service did not answer this query" in message
        drawn = view.series_chart.render().plain
        assert "[b]bold[/b]\\x1b[31m not offered" in drawn and "\x1b" not in drawn
        assert "no answer" in str(view.query_one("#analytics-header").render())
        assert app.is_running


async def test_a_slow_query_shows_progress_and_a_new_choice_cancels_it(demo: Dirs) -> None:
    app = build(*demo)
    async with app.run_test(size=(120, 40)) as pilot:
        view = await _analytics(pilot)
        api = app.runtime.api.analytics
        real = api.metrics
        release = asyncio.Event()
        cancelled: list[str] = []

        async def slow(resource: Any, query: Any) -> Any:
            if resource == "payments" and query.time_range.start_time.startswith("2024-02"):
                try:
                    await release.wait()
                except asyncio.CancelledError:
                    cancelled.append(query.time_range.start_time)
                    raise
            return await real(resource, query)

        api.metrics = slow  # type: ignore[method-assign]
        await pilot.press("t")  # 90 days: held
        await until(lambda: view.loading_since is not None)
        await until(lambda: "Loading…" in str(view.query_one("#analytics-header").render()))
        await pilot.press("t")  # 24 hours: the 90 days' question is dropped
        await until(lambda: _settled(view) and view.choice.range == "24h")
        assert cancelled  # the held request was cancelled, not left to finish
        assert view.answer.granularity == "G_ONE_HOUR" and len(view.answer.buckets) == 24
        assert "Loading" not in str(view.query_one("#analytics-header").render())
        release.set()


async def test_a_new_payment_is_counted_live(demo: Dirs) -> None:
    app = build(*demo)
    async with app.run_test(size=(120, 40)) as pilot:
        view = await _analytics(pilot)
        before = int(_rows(view)["USD"][0].replace(",", ""))
        await create_payment(app.runtime.api)
        await until(
            lambda: _settled(view) and int(_rows(view)["USD"][0].replace(",", "")) == before + 1,
        )


async def test_hostile_group_values_are_shown_literally(demo: Dirs) -> None:
    from payscope.api.models.refunds import RefundCreateRequest

    app = build(*demo)
    async with app.run_test(size=(120, 40)) as pilot:
        view = await _analytics(pilot)
        payment = await create_payment(app.runtime.api)
        reason = "[b]x[/b]\x1b[31mred"
        await app.runtime.api.refunds.create(
            RefundCreateRequest.model_validate(
                {"payment_id": payment.payment_id, "amount": 100, "reason": reason}
            )
        )
        await _press(pilot, view, "d")
        view.query_one("#analytics-group", Select).value = "refund_reason"
        await until(lambda: _settled(view) and view.choice.group == "refund_reason")
        await pilot.pause()
        rows = _rows(view)
        assert "[b]x[/b]\\x1b[31mred" in rows
        bars = view.breakdown_chart.figure
        assert isinstance(bars, BarFigure)
        drawn = view.breakdown_chart.render()
        assert "\x1b" not in drawn.plain and "[b]x[/b]\\x1b" in drawn.plain


@pytest.mark.parametrize(("theme", "dark"), [("payscope-dark", True), ("payscope-light", False)])
async def test_chart_colours_follow_the_theme(demo: Dirs, theme: str, dark: bool) -> None:
    from textual.color import Color

    from payscope.widgets.format import theme_colour

    app = build(*demo, theme=theme)
    async with app.run_test(size=(120, 40)) as pilot:
        view = await _analytics(pilot)
        drawn = view.series_chart.render()
        colours = {
            Color.from_rich_color(span.style.color)  # type: ignore[union-attr]
            for span in drawn.spans
            if not isinstance(span.style, str) and span.style.color is not None
        }
        text = Color.parse(theme_colour(app.theme_variables, "foreground"))
        assert text in colours  # ticks in the theme's text colour
        background = Color.parse(app.theme_variables["background"])
        for colour in colours:  # every colour stands out from the background
            assert abs(colour.brightness - background.brightness) > 0.2, colour
        figure = view.series_chart.figure
        assert isinstance(figure, TimeFigure)
        assert figure.layers[0].colour == theme_colour(app.theme_variables, "primary")
        # No background of its own: the panel's shows through.
        assert all(
            isinstance(span.style, str) or span.style.bgcolor is None for span in drawn.spans
        )
        if not dark:
            assert text.brightness < 0.5
        # Another theme (Settings' live preview): redrawn in its colours.
        other = "payscope-light" if dark else "payscope-dark"
        app.theme = other
        await pilot.pause()
        figure = view.series_chart.figure
        assert isinstance(figure, TimeFigure)
        assert figure.layers[0].colour == theme_colour(app.theme_variables, "primary")
        ticks = Color.parse(theme_colour(app.theme_variables, "foreground"))
        redrawn = view.series_chart.render()
        assert ticks in {
            Color.from_rich_color(span.style.color)  # type: ignore[union-attr]
            for span in redrawn.spans
            if not isinstance(span.style, str) and span.style.color is not None
        }


async def test_at_80_columns_the_table_folds_under_the_chart(demo: Dirs) -> None:
    app = build(*demo)
    async with app.run_test(size=(80, 24)) as pilot:
        view = await _analytics(pilot)
        body = view.query_one("#analytics-body")
        series = view.query_one("#series-box")
        numbers = view.query_one("#numbers-box")
        assert series.region.bottom <= body.region.bottom  # the chart fits the first screen
        assert numbers.region.y >= body.region.bottom  # the table is under the fold
        assert body.max_scroll_y > 0
        body.scroll_end(animate=False)
        await pilot.pause()
        assert numbers.region.y < body.region.bottom


# -- figures (no UI) ------------------------------------------------------------------------------


def test_the_figures_module_and_the_area_cost_nothing_at_start_up() -> None:
    """analytics_data needs no Textual; neither it nor plotext is imported by the app's start."""
    import subprocess
    import sys

    code = (
        "import sys\n"
        "import payscope.areas.analytics.data\n"
        "assert not any(m.startswith('textual') for m in sys.modules), 'textual'\n"
        "import payscope.app, payscope.shell.main\n"
        "assert 'payscope.areas.analytics.view' not in sys.modules\n"
        "assert not any(m.startswith(('plotext', 'textual_plotext')) for m in sys.modules)\n"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr


def test_changes_read_as_people_read_them() -> None:
    count = data.metric_of("payments", "payment_count")
    rate = data.metric_of("payments", "payment_success_rate")
    assert data.change(count, 150, 100) == ("+50%", 1)
    assert data.change(count, 50, 100) == ("-50%", -1)
    assert data.change(count, 100, 100) == ("±0%", 0)
    assert data.change(count, 3, 0) == ("new", 1)
    assert data.change(count, 0, 0) == ("-", 0)
    assert data.change(count, 300, 10) == ("x30", 1)
    assert data.change(rate, 60.0, 62.5) == ("-2.5 pt", -1)
    assert data.change(rate, None, 50.0) == ("-", 0)


def test_windows_and_buckets() -> None:
    now = FROZEN_TIME  # 2024-05-01 12:00 UTC, a Wednesday
    week = data.preset_window("7d", now)
    assert data.iso(week.start) == "2024-04-25T00:00:00.000Z" and week.end == now
    before = week.previous()
    assert before.end < week.start and round(before.seconds, 3) == round(week.seconds, 3)
    day = data.preset_window("24h", now)
    assert data.iso(day.start) == "2024-04-30T13:00:00.000Z"
    assert len(day.buckets("G_ONE_HOUR")) == 24
    quarter = data.preset_window("90d", now)
    assert [b.day for b in quarter.buckets("G_ONE_MONTH")] == [1, 1, 1, 1]
    assert quarter.buckets("G_ONE_WEEK")[0].weekday() == 0
    assert data.fit_granularity(quarter, "G_ONE_HOUR") == "G_ONE_DAY"
    assert data.fit_granularity(day, "G_ONE_HOUR") == "G_ONE_HOUR"
    assert quarter.text() == "2024-02-02 → 2024-05-01 12:00 UTC"
    custom = data.Window(
        datetime(2024, 3, 1, tzinfo=UTC).timestamp(),
        datetime(2024, 3, 31, 23, 59, 59, 999000, tzinfo=UTC).timestamp(),
    )
    assert custom.text() == "2024-03-01 → 2024-03-31 UTC"
    assert data.parse_time("2024-04-02 00:00:00") == datetime(2024, 4, 2, tzinfo=UTC)
    assert data.parse_time("2024-04-02T00:00:00.000Z") == datetime(2024, 4, 2, tzinfo=UTC)
    assert data.parse_time("soon") is None


def test_rates_and_averages_come_from_the_sums_not_averaged() -> None:
    from payscope.api.models.analytics import AnalyticsResponse

    choice = data.Choice(group="currency")
    window = data.preset_window("7d", FROZEN_TIME)
    day1, day2 = (data.iso(b.timestamp()) for b in window.buckets("G_ONE_DAY")[:2])
    series = AnalyticsResponse.model_validate(
        {
            "queryData": [
                {
                    "currency": "USD",
                    "time_bucket": day1,
                    "payment_count": 1,
                    "payment_success_count": 1,
                    "payment_processed_amount": 1000,
                },
                {
                    "currency": "USD",
                    "time_bucket": day2,
                    "payment_count": 9,
                    "payment_success_count": 0,
                    "payment_processed_amount": 0,
                },
                {
                    "currency": "EUR",
                    "time_bucket": day2,
                    "payment_count": 2,
                    "payment_success_count": 2,
                    "payment_processed_amount": 500,
                },
            ]
        }
    )
    previous = AnalyticsResponse.model_validate({"queryData": []})
    answer = data.shape(choice, window, "G_ONE_DAY", series, previous)
    rate = data.metric_of("payments", "payment_success_rate")
    assert answer.totals(rate) == (pytest.approx(300 / 12), None)  # 3 of 12, not mean of rates
    average = data.metric_of("payments", "avg_ticket_size")
    assert answer.totals(average)[0] == 1000  # USD only (the busiest), never USD + EUR
    answer.currency = "EUR"
    assert answer.totals(average)[0] == 250
    count = data.metric_of("payments", "payment_count")
    assert answer.series(count, ["USD", "EUR"])[0][:3] == [1.0, 9.0, 0.0]
    assert answer.series(rate, [data.ALL])[0][:3] == [100.0, pytest.approx(200 / 11), None]


# -- snapshots ----------------------------------------------------------------------------------


async def _shown(pilot: Any) -> None:
    await _analytics(pilot)


async def _rates_by_network(pilot: Any) -> None:
    view = await _analytics(pilot)
    view.query_one("#analytics-group", Select).value = "card_network"
    await until(lambda: _settled(view) and view.choice.group == "card_network")
    await pilot.press("m", "m")  # success rate
    await pilot.pause()


async def _folded_table(pilot: Any) -> None:
    view = await _analytics(pilot)
    view.query_one("#analytics-body").scroll_end(animate=False)
    await pilot.pause()


async def _custom_form(pilot: Any) -> None:
    await _analytics(pilot)
    await pilot.press("c")
    await until(lambda: on_screen(pilot.app, CustomRangeForm))
    form = pilot.app.screen
    form.query_one("#field-start", Input).value = "2024-13-01"
    form.query_one("#field-end", Input).value = "2024-03-01"
    await pilot.press("ctrl+s")
    await pilot.pause()


@pytest.mark.parametrize("look", LOOKS)
def test_analytics_area(look: tuple[tuple[int, int], str], demo: Dirs, snap_compare: Any) -> None:
    size, theme = look
    assert snap_compare(build(*demo, theme=theme), terminal_size=size, run_before=_shown)


@pytest.mark.parametrize("theme", ["payscope-dark", "payscope-light"])
def test_analytics_rate_by_card_network(theme: str, demo: Dirs, snap_compare: Any) -> None:
    app = build(*demo, theme=theme)
    assert snap_compare(app, terminal_size=(120, 40), run_before=_rates_by_network)


@pytest.mark.parametrize("theme", ["payscope-dark", "payscope-light"])
def test_analytics_table_under_the_fold(theme: str, demo: Dirs, snap_compare: Any) -> None:
    app = build(*demo, theme=theme)
    assert snap_compare(app, terminal_size=(80, 24), run_before=_folded_table)


def test_analytics_custom_range_errors(demo: Dirs, snap_compare: Any) -> None:
    app = build(*demo, theme="payscope-light")
    assert snap_compare(app, terminal_size=(80, 24), run_before=_custom_form)
