"""The theme (issue 41): `:theme` keeps the theme chosen, as Settings does, and Settings marks
the theme in use however it was chosen."""

from __future__ import annotations

from pathlib import Path

from textual.widgets import OptionList

from tests.tui.pilot import run_command, type_text, until
from tests.tui.snapshot_app import build, ready
from tests.waits import on_screen

Dirs = tuple[Path, Path]


async def test_theme_command_keeps_the_theme_and_settings_marks_it(dirs: Dirs) -> None:
    from payscope.areas.settings.view import SettingsView
    from payscope.core import config

    app = build(*dirs)
    async with app.run_test(size=(120, 40)) as pilot:
        await ready(pilot)
        await run_command(pilot, "theme payscope-light")
        await until(lambda: app.theme == "payscope-light")
        assert config.load_settings().theme == "payscope-light"

        await run_command(pilot, "settings")
        view = app.screen.query_one(SettingsView)
        options = view.query_one("#theme-list", OptionList)
        await until(lambda: options.highlighted is not None)
        highlighted = options.get_option_at_index(options.highlighted or 0)
        assert highlighted.id == "payscope-light"
        marked = [
            options.get_option_at_index(i).id
            for i in range(options.option_count)
            if "✓ saved" in str(options.get_option_at_index(i).prompt)
        ]
        assert marked == ["payscope-light"]

    # The next start is in it.
    again = build(*dirs, theme=None)
    async with again.run_test(size=(120, 40)) as pilot:
        await ready(pilot)
        assert again.theme == "payscope-light"


async def test_the_theme_picker_keeps_the_theme_picked(dirs: Dirs) -> None:
    from textual.command import CommandPalette

    from payscope.core import config

    app = build(*dirs)
    async with app.run_test(size=(120, 40)) as pilot:
        await ready(pilot)
        await run_command(pilot, "theme")
        await until(lambda: on_screen(app, CommandPalette))
        await type_text(pilot, "payscope-light")
        await pilot.pause()
        await pilot.press("enter")
        await until(lambda: app.theme == "payscope-light")
        assert config.load_settings().theme == "payscope-light"
