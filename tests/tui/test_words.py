"""Words and numbers a user reads: what a key says it does is what it does, durations in one
style, plurals that agree (issue 33, items 11-17)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from payscope.core.display import STABLE
from tests.tui.pilot import until
from tests.tui.snapshot_app import build, ready
from tests.waits import on_screen

Dirs = tuple[Path, Path]


async def test_the_help_says_quitting_leaves_the_background_sandbox_running(dirs: Dirs) -> None:
    from textual.widgets import DataTable

    from payscope.shell.help import KeyHelpScreen

    app = build(*dirs)
    async with app.run_test(size=(120, 40)) as pilot:
        await ready(pilot)
        await pilot.press("question_mark")
        await until(lambda: on_screen(app, KeyHelpScreen))
        table = app.screen.query_one(DataTable)
        rows = [[str(cell) for cell in table.get_row_at(i)] for i in range(table.row_count)]
        (quit_row,) = [row for row in rows if row[1] == "Quit"]
        said = quit_row[2]
        # What Ctrl+Q really does (the background sandbox outlives it), and how to stop that.
        assert "keeps running" in said and "payscope sandbox stop" in said
        assert "stop with it" not in said


# Keys a terminal multiplexer keeps for itself by default: tmux's prefix and GNU screen's.
MULTIPLEXER_PREFIXES = {"ctrl+b", "ctrl+a"}


async def test_no_action_is_reachable_only_by_a_multiplexers_prefix(dirs: Dirs) -> None:
    app = build(*dirs)
    async with app.run_test(size=(120, 40)) as pilot:
        await ready(pilot)
        keys_of: dict[str, set[str]] = {}
        for key, active in app.screen.active_bindings.items():
            keys_of.setdefault(active.binding.action, set()).add(key)
        assert "toggle_nav" in keys_of
        stuck = {action: keys for action, keys in keys_of.items() if keys <= MULTIPLEXER_PREFIXES}
        assert stuck == {}


@pytest.mark.parametrize("size", [(120, 40), (80, 24)])
async def test_ctrl_n_shows_and_hides_the_rail(dirs: Dirs, size: tuple[int, int]) -> None:
    from payscope.shell.main import NavRail

    app = build(*dirs)
    async with app.run_test(size=size) as pilot:
        await ready(pilot)
        rail = app.screen.query_one(NavRail)
        shown = rail.display
        await pilot.press("ctrl+n")
        await until(lambda: rail.display is not shown)
        await pilot.press("ctrl+n")
        await until(lambda: rail.display is shown)


def test_counts_agree_with_their_nouns() -> None:
    from payscope.api.vocabulary import counted

    assert counted(1, "event") == "1 event"
    assert counted(0, "event") == "0 events"
    assert counted(1200, "match", "matches") == "1,200 matches"


async def test_an_amount_field_names_its_currency_in_capitals() -> None:
    from textual.app import App

    from payscope.views.forms import amount_field

    async with App[None]().run_test():  # its Input needs an app
        assert amount_field("amount", "Amount", "usd", 1250).label == "Amount (USD)"


async def test_the_status_bar_says_1_event(dirs: Dirs) -> None:
    from textual.widgets import Static

    from payscope.widgets.status_bar import StatusBar
    from tests.tui.pilot import shown_text

    app = build(*dirs)
    async with app.run_test(size=(120, 40)) as pilot:
        await ready(pilot)
        status = app.screen.query_one(StatusBar)
        status.event_count = 1
        await pilot.pause()
        line = " ".join(shown_text(s) for s in status.query(Static))
        assert "1 event " in line + " " and "1 events" not in line


def test_durations_have_one_style_and_round_their_smaller_unit() -> None:
    from payscope.views.when import span_text

    assert span_text(86400) == "1d"
    assert span_text(86400 - 1) == "1d"  # not "23h 59m": rounded, carried into days
    assert span_text(31 * 86400 - 5) == "31d"  # a fresh monthly period, not "30d 23h"
    assert span_text(6 * 86400 + 23 * 3600) == "6d 23h"
    assert span_text(5400) == "1h 30m"
    assert span_text(45) == "45s"
    assert span_text(86400 * 12 + 3 * 3600, short=True) == "12d"


async def test_a_chosen_step_moves_the_clock_by_exactly_that_step(dirs: Dirs) -> None:
    """The sandbox's clock runs on while the form is open (here by hand): the label says the
    step, its target follows the clock, and the clock moves by the step from when it is sent."""
    from textual.widgets import Static

    from payscope.app import make_app
    from payscope.views.clock import ClockScreen
    from tests.tui.conftest import FROZEN_TIME
    from tests.tui.pilot import shown_text

    clock = [FROZEN_TIME]
    app = make_app(
        theme="payscope-dark",
        config_dir=dirs[0],
        data_dir=dirs[1],
        display=STABLE,
        time_source=lambda: clock[0],
    )
    async with app.run_test(size=(120, 40)) as pilot:
        await ready(pilot)
        app.push_screen(ClockScreen())
        await until(lambda: on_screen(app, ClockScreen))
        form = app.screen
        await until(lambda: bool(form.query("#form-submit")))
        label = lambda: str(form.query_one("#form-submit").label)  # noqa: E731
        await until(lambda: label() == "Advance 1d (to 2024-05-02 12:00)")
        clock[0] += 17 * 60 + 30  # the wall clock runs on
        await until(lambda: label() == "Advance 1d (to 2024-05-02 12:17)")
        assert "2024-05-01 12:17:30" in shown_text(form.query_one("#form-intro", Static))
        clock[0] += 2.5
        start = app.runtime.now()
        await pilot.press("ctrl+s")
        await until(lambda: not isinstance(app.screen, ClockScreen))
        assert app.runtime.now() == start + 86400


@pytest.mark.parametrize("size", [(120, 40), (80, 24)])
@pytest.mark.parametrize("area", ["analytics", "disputes", "payments"])
async def test_the_footers_keys_key_is_always_whole(
    dirs: Dirs, size: tuple[int, int], area: str
) -> None:
    from tests.tui.pilot import run_command

    app = build(*dirs)
    async with app.run_test(size=size) as pilot:
        await ready(pilot)
        await run_command(pilot, area)
        await app.workers.wait_for_complete()
        await pilot.pause()

        def help_keys() -> list[Any]:
            # FooterKey: Textual's footer key, found by its CSS type (the class is not exported).
            return [k for k in app.screen.query("FooterKey") if getattr(k, "action", "") == "help"]

        await until(lambda: bool(help_keys()))
        await pilot.pause()
        (key,) = help_keys()
        region = key.region
        assert region.right <= size[0] and region.width >= len("? Keys"), (area, region)


@pytest.mark.parametrize("size", [(120, 40), (80, 24)])
async def test_a_value_cut_by_its_column_ends_in_an_ellipsis(
    dirs: Dirs, size: tuple[int, int]
) -> None:
    """The test cards' outcome "partial authorization" is wider than its column: it was shown
    as "partial authorizat" with no mark."""
    import html
    import re

    from textual.widgets import DataTable

    from payscope.areas.payments.forms import NewPaymentScreen
    from payscope.widgets.card_picker import TestCardPicker

    app = build(*dirs)
    async with app.run_test(size=size) as pilot:
        await ready(pilot)
        await pilot.press("n")
        await until(lambda: on_screen(app, NewPaymentScreen))
        await pilot.press("ctrl+t")
        await until(lambda: on_screen(app, TestCardPicker))
        table = app.screen.query_one(DataTable)
        await until(lambda: table.row_count > 0)
        number = "4000000000000127"  # the partial-authorisation card
        table.move_cursor(row=table.get_row_index(number))
        await pilot.pause()
        shown = html.unescape(app.export_screenshot()).replace("\xa0", " ")
        assert re.search(r"partial authori?z?a?…", shown), re.findall(r"partial[^<]*", shown)
