"""Words and numbers a user reads: what a key says it does is what it does, durations in one
style, plurals that agree (issue 33, items 11-17)."""

from __future__ import annotations

from pathlib import Path

from tests.tui.pilot import until
from tests.tui.snapshot_app import build, ready

Dirs = tuple[Path, Path]


async def test_the_help_says_quitting_leaves_the_background_sandbox_running(dirs: Dirs) -> None:
    from textual.widgets import DataTable

    from tui.shell.help import KeyHelpScreen

    app = build(*dirs)
    async with app.run_test(size=(120, 40)) as pilot:
        await ready(pilot)
        await pilot.press("question_mark")
        await until(lambda: isinstance(app.screen, KeyHelpScreen))
        table = app.screen.query_one(DataTable)
        rows = [[str(cell) for cell in table.get_row_at(i)] for i in range(table.row_count)]
        (quit_row,) = [row for row in rows if row[1] == "Quit"]
        said = quit_row[2]
        # What Ctrl+Q really does (the background sandbox outlives it), and how to stop that.
        assert "keeps running" in said and "payscope sandbox stop" in said
        assert "stop with it" not in said
