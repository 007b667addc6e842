"""The text cursor of inputs blinks unless the user asks for it to stay still: the setting
`cursor_blink = false` in profiles.toml, or `PAYSCOPE_CURSOR_BLINK=off` for one run (which the
tests set for every app, so no snapshot catches a cursor mid-blink)."""

from __future__ import annotations

from pathlib import Path

import pytest
from textual.widgets import Input

from payscope.app import make_app
from payscope.areas.customers.view import CustomersView
from tests.tui.pilot import open_list


@pytest.mark.parametrize(
    ("env", "setting", "blinks"),
    [
        ("", "", True),  # nothing asked: Textual's default, the cursor blinks
        ("off", "", False),
        ("", "cursor_blink = false\n", False),
        ("on", "cursor_blink = false\n", True),  # one run's choice wins over the setting
    ],
)
async def test_the_cursor_blinks_unless_asked_not_to(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, env: str, setting: str, blinks: bool
) -> None:
    config, data = tmp_path / "config", tmp_path / "data"
    config.mkdir(mode=0o700)  # payscope's own: private (else it is made so, and said)
    (config / "profiles.toml").write_text(setting)
    if env:
        monkeypatch.setenv("PAYSCOPE_CURSOR_BLINK", env)
    else:
        monkeypatch.delenv("PAYSCOPE_CURSOR_BLINK", raising=False)
    app = make_app(config_dir=config, data_dir=data, seed=3)
    async with app.run_test(size=(100, 30)) as pilot:
        await open_list(pilot, "customers", CustomersView)
        await pilot.press("slash")
        await pilot.pause()
        box = app.focused
        assert isinstance(box, Input)
        assert box.cursor_blink is blinks
