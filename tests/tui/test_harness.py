"""The pilot harness itself (tests/tui/conftest.py): frames in between are skipped headless, the
last frame is drawn in full, so a widget that cannot render still fails its test."""

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


async def test_a_widget_that_cannot_render_fails_the_test_at_the_last_frame() -> None:
    app = Small()
    with pytest.raises(RuntimeError, match="cannot render"):
        async with app.run_test(size=(40, 5)) as pilot:
            widget = app.query_one(Breaks)
            widget.broken = True
            widget.refresh()
            await pilot.pause()  # a frame in between: skipped, so no error yet


async def test_frames_in_between_are_skipped_and_the_last_is_drawn() -> None:
    app = Small()
    drawn: list[int] = []
    async with app.run_test(size=(40, 5)) as pilot:
        widget = app.query_one(Breaks)
        original = widget.render_lines
        widget.render_lines = lambda crop: drawn.append(1) or original(crop)  # type: ignore[method-assign]
        for _ in range(3):
            widget.refresh()
            await pilot.pause()
        assert drawn == []
    assert drawn == [1]


async def test_a_screenshot_is_still_drawn_in_full() -> None:
    app = Small()
    async with app.run_test(size=(40, 5)) as pilot:
        await pilot.pause()
        assert "fine" in app.export_screenshot()
