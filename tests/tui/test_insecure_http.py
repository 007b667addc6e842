"""A profile that accepts an http:// service off this machine (`allow_insecure_http = true`)
says so on the status bar for as long as it is open; one that does not accept it does not
start, and says why (issue 38)."""

from __future__ import annotations

from pathlib import Path

from textual.widgets import Static

from payscope.core.display import STABLE
from tests.tui.pilot import shown_text, until

# TEST-NET-1 (RFC 5737): an address off this machine that nothing answers.
OFF_MACHINE = "http://192.0.2.1:9"
KEY = "snd_" + "d" * 32


async def test_the_status_bar_says_insecure_http(dirs: tuple[Path, Path]) -> None:
    from payscope.app import make_app
    from payscope.core import config, secrets
    from payscope.widgets.status_bar import StatusBar

    config_dir, data = dirs
    profile = config.Profile(
        name="plain", base_url=OFF_MACHINE, allow_insecure_http=True, listener_port=0
    )
    config.save_settings(config.add_profile(config.load_settings(), profile))
    secrets.set_secret("plain", KEY)
    app = make_app(profile="plain", config_dir=config_dir, data_dir=data, display=STABLE)
    async with app.run_test(size=(120, 40)):
        await app.runtime.ready.wait()
        assert app.runtime.insecure_http
        line = app.get_screen_main().query_one(StatusBar).query_one("#status-line", Static)
        await until(lambda: "INSECURE HTTP" in shown_text(line))
        assert shown_text(line).index("INSECURE HTTP") < shown_text(line).index("plain")


async def test_without_it_the_profile_does_not_start(dirs: tuple[Path, Path]) -> None:
    from payscope.app.runtime import Runtime
    from payscope.app.runtime.options import OptionsError, RuntimeOptions

    config_dir, _ = dirs
    (config_dir / "profiles.toml").write_text(
        f'[profiles.plain]\nbase_url = "{OFF_MACHINE}"\n', encoding="utf-8"
    )
    options = RuntimeOptions.build(
        profile="plain",
        seed=None,
        theme=None,
        allow_production=False,
        config_dir=None,
        data_dir=None,
        sandbox_options={},
    )
    runtime = Runtime(options)
    try:
        await runtime.start_client()
    except OptionsError as exc:
        said = str(exc)
    else:
        raise AssertionError("the profile started")
    assert "http:// to another machine" in said and "allow_insecure_http = true" in said
    assert runtime.client is None
