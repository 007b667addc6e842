"""Pilot tests of Settings: editing a profile (pre-filled, saved to the file, webhook secret to
the keyring and shown masked) and the layout that stacks the panels on narrow terminals."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from textual.widgets import DataTable, Input

from payscope.areas.settings.view import NARROW_WIDTH, ProfileForm, SettingsView, url_width
from payscope.core import config, secrets
from payscope.core.paths import CONFIG_FILE
from tests.tui.pilot import field_error, run_command, submit, until
from tests.tui.snapshot_app import build, ready
from tests.waits import on_screen

Dirs = tuple[Path, Path]
WEBHOOK = "whsec_edit_test_0123456789abcdef"


def _staging() -> None:
    profile = config.Profile(
        name="staging",
        base_url="https://sandbox.example.com",
        merchant_id="merchant_1",
        listener_port=8787,
        forward_url="http://127.0.0.1:3000/webhooks",
    )
    config.save_settings(config.add_profile(config.load_settings(), profile))


async def _open_edit(pilot: Any, name: str) -> ProfileForm:
    app = pilot.app
    await ready(pilot)
    await run_command(pilot, "settings")
    await until(lambda: bool(app.screen.query(SettingsView)))
    table = app.screen.query_one("#profiles-table", DataTable)
    await until(lambda: table.row_count > 1)
    table.move_cursor(row=table.get_row_index(name))
    # `e` is the area's: pressed once the focus has come into it (it moves there after a
    # refresh), not to whatever held the focus before.
    view = app.screen.query_one(SettingsView)
    await until(
        lambda: app.focused is not None and view in app.focused.ancestors_with_self,
        "the focus in the Settings area",
    )
    await pilot.press("e")
    await until(lambda: on_screen(app, ProfileForm))
    form = app.screen
    assert isinstance(form, ProfileForm)
    return form


async def test_edit_profile_is_prefilled_and_saves_fields_and_webhook_secret(dirs: Dirs) -> None:
    _staging()
    app = build(*dirs)
    async with app.run_test(size=(120, 40)) as pilot:
        form = await _open_edit(pilot, "staging")
        assert form.query_one("#field-name", Input).value == "staging"
        assert form.query_one("#field-name", Input).disabled
        assert form.query_one("#field-base_url", Input).value == "https://sandbox.example.com"
        assert form.query_one("#field-merchant_id", Input).value == "merchant_1"
        assert form.query_one("#field-listener_port", Input).value == "8787"
        assert "Stored: none" in str(form.query_one("#hint-webhook_secret").render())

        form.query_one("#field-base_url", Input).value = "https://other.example.com/"
        form.query_one("#field-profile_id", Input).value = "pro_1"
        form.query_one("#field-listener_port", Input).value = "9000"
        form.query_one("#field-theme", Input).value = "payscope-light"
        form.query_one("#field-webhook_secret", Input).value = WEBHOOK
        await submit(pilot, ProfileForm)

        saved = config.get_profile(config.load_settings(), "staging")
        assert saved.base_url == "https://other.example.com"
        assert saved.merchant_id == "merchant_1"
        assert saved.profile_id == "pro_1"
        assert saved.listener_port == 9000
        assert saved.theme == "payscope-light"
        assert saved.forward_url == "http://127.0.0.1:3000/webhooks"  # not on the form: kept
        assert secrets.get_secret("staging", "webhook") == WEBHOOK
        assert secrets.get_secret("staging", "secret") is None
        # Shown masked afterwards: in the notification and in the form's hint, never whole.
        shown = [str(n.message) for n in app.told]
        assert any(secrets.mask(WEBHOOK) in text for text in shown)
        assert not any(WEBHOOK in text for text in shown)

        form = await _open_edit(pilot, "staging")
        hint = str(form.query_one("#hint-webhook_secret").render())
        assert secrets.mask(WEBHOOK) in hint
        assert WEBHOOK not in hint
        assert form.query_one("#field-listener_port", Input).value == "9000"
        # Saving again with the secret left blank keeps the stored one.
        await submit(pilot, ProfileForm)
        assert secrets.get_secret("staging", "webhook") == WEBHOOK


async def test_edit_profile_shows_bad_input_at_the_field(dirs: Dirs) -> None:
    _staging()
    app = build(*dirs)
    async with app.run_test(size=(120, 40)) as pilot:
        form = await _open_edit(pilot, "staging")
        form.query_one("#field-listener_port", Input).value = "eighty"
        form.query_one("#field-theme", Input).value = "no-such-theme"
        form.query_one("#field-webhook_secret", Input).value = "has a space"
        await pilot.press("ctrl+s")
        await pilot.pause()
        assert isinstance(app.screen, ProfileForm)
        assert "port" in field_error(form, "listener_port")
        assert "no-such-theme" in field_error(form, "theme")
        assert "spaces" in field_error(form, "webhook_secret")
        assert "has a space" not in field_error(form, "webhook_secret")
        assert config.get_profile(config.load_settings(), "staging").listener_port == 8787
        assert secrets.get_secret("staging", "webhook") is None


async def test_embedded_sandbox_is_not_editable(dirs: Dirs) -> None:
    app = build(*dirs)
    async with app.run_test(size=(120, 40)) as pilot:
        await ready(pilot)
        await run_command(pilot, "settings")
        await until(lambda: bool(app.screen.query(SettingsView)))
        await pilot.pause()
        await pilot.press("e")
        await pilot.pause()
        assert not isinstance(app.screen, ProfileForm)
        assert any("embedded sandbox" in str(n.message) for n in app.told)


async def test_panels_stack_when_narrow_and_the_table_fits(dirs: Dirs) -> None:
    app = build(*dirs)
    async with app.run_test(size=(80, 24)) as pilot:
        await ready(pilot)
        await run_command(pilot, "settings")
        await until(lambda: bool(app.screen.query(SettingsView)))
        await pilot.pause()
        view = app.screen.query_one(SettingsView)
        body = view.query_one("#settings-body")
        assert body.has_class("-narrow")
        profiles = view.query_one("#profiles-box")
        side = view.query_one("#side")
        assert side.region.y >= profiles.region.bottom
        table = view.query_one("#profiles-table", DataTable)
        assert table.virtual_size.width <= table.content_region.width
        await pilot.resize_terminal(140, 40)
        await pilot.pause()
        assert not body.has_class("-narrow")
        assert side.region.x >= profiles.region.right
        assert table.virtual_size.width <= table.content_region.width


def test_url_column_takes_the_width_left() -> None:
    assert url_width(NARROW_WIDTH) < url_width(NARROW_WIDTH - 1)
    assert url_width(200) > url_width(NARROW_WIDTH)
    assert url_width(10) == 12


async def test_a_settings_problem_the_start_only_peeked_at_is_told_once_the_sandbox_is_up(
    dirs: Dirs,
) -> None:
    """The start reads the file without validating it (the embedded sandbox needs nothing from
    it); what is wrong with a part it does not use is told once the client and the listener
    are up, and the sandbox works meanwhile."""
    config_dir, _data = dirs
    (config_dir / CONFIG_FILE).write_text(
        '[profiles.staging]\nbase_url = "ftp://sandbox.example.com"\nmerchant_id = "m_1"\n',
        encoding="utf-8",
    )
    app = build(*dirs)
    async with app.run_test(size=(120, 40)) as pilot:
        await ready(pilot)
        assert app.runtime.client is not None and app.runtime.listener is not None
        told = [n for n in app.told if n.title == "Settings problem"]
        assert len(told) == 1
        assert "base_url must be an http:// or https:// URL" in told[0].message
        assert app.runtime.options.settings is None  # nothing half-validated was kept


async def test_the_form_refuses_clear_text_http_and_keeps_the_files_own_allowance(
    dirs: Dirs,
) -> None:
    """An http:// base URL off this machine is said at the field (issue 38); a profile whose
    file accepts it (allow_insecure_http, allow_env: not on the form) keeps both when edited."""
    _staging()
    app = build(*dirs)
    async with app.run_test(size=(120, 40)) as pilot:
        form = await _open_edit(pilot, "staging")
        form.query_one("#field-base_url", Input).value = "http://pay.example.com"
        await pilot.press("ctrl+s")
        await pilot.pause()
        assert isinstance(app.screen, ProfileForm)
        said = str(form.query_one("#error-base_url").render())
        assert "unencrypted" in said and "allow_insecure_http" in said
        assert config.get_profile(config.load_settings(), "staging").base_url.startswith("https")
        await pilot.press("escape")

        settings = config.load_settings()
        staging = settings.profiles["staging"]
        staging.allow_insecure_http = True
        staging.allow_env = ["SHOP_ID"]
        staging.base_url = "http://pay.example.com"
        config.save_settings(settings)
        form = await _open_edit(pilot, "staging")
        form.query_one("#field-merchant_id", Input).value = "merchant_2"
        await submit(pilot, ProfileForm)
        saved = config.get_profile(config.load_settings(), "staging")
        assert saved.merchant_id == "merchant_2" and saved.allow_insecure_http
        assert saved.allow_env == ["SHOP_ID"] and saved.base_url == "http://pay.example.com"
