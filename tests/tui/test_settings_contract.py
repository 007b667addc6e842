"""The Settings profile form shows and sets the contract a profile speaks (blank: auto)."""

from __future__ import annotations

from pathlib import Path

from textual.widgets import Input

from payscope.areas.settings.view import ProfileForm
from payscope.core import config
from tests.tui.pilot import field_error, submit
from tests.tui.snapshot_app import build
from tests.tui.test_settings import _open_edit, _staging

Dirs = tuple[Path, Path]


async def test_the_profile_form_sets_the_contract_and_refuses_a_bad_one(dirs: Dirs) -> None:
    _staging()
    app = build(*dirs)
    async with app.run_test(size=(120, 40)) as pilot:
        form = await _open_edit(pilot, "staging")
        contract = form.query_one("#field-contract", Input)
        assert contract.value == "" and contract.placeholder == "auto"

        contract.value = "stripe"
        await pilot.press("ctrl+s")
        await pilot.pause()
        assert isinstance(app.screen, ProfileForm)
        assert "real, spec or auto" in field_error(form, "contract")
        assert config.get_profile(config.load_settings(), "staging").contract is None

        contract.value = "Real"
        await submit(pilot, ProfileForm)
        assert config.get_profile(config.load_settings(), "staging").contract_setting == "real"

        form = await _open_edit(pilot, "staging")
        assert form.query_one("#field-contract", Input).value == "real"
        form.query_one("#field-contract", Input).value = ""
        await submit(pilot, ProfileForm)
        saved = config.get_profile(config.load_settings(), "staging")
        assert saved.contract is None and saved.contract_setting == "auto"
