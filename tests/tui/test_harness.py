"""The pilot harness itself: a pilot test runs the app as Textual runs it (every frame drawn,
headless), so a widget that cannot render fails its test."""

from __future__ import annotations

import pytest
from textual.app import App, ComposeResult
from textual.widgets import Static


class Breaks(Static):
    broken = False

    def render(self) -> str:
        if self.broken:
            raise RuntimeError("cannot render")
        return "fine"


class Small(App[None]):
    def compose(self) -> ComposeResult:
        yield Breaks(id="w")


async def test_a_widget_that_cannot_render_fails_its_test() -> None:
    app = Small()
    with pytest.raises(RuntimeError, match="cannot render"):
        async with app.run_test(size=(40, 5)) as pilot:
            widget = app.query_one(Breaks)
            widget.broken = True
            widget.refresh()
            await pilot.pause()


async def test_a_screenshot_shows_what_is_drawn() -> None:
    app = Small()
    async with app.run_test(size=(40, 5)) as pilot:
        await pilot.pause()
        assert "fine" in app.export_screenshot()
