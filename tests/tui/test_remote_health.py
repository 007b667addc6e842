"""A remote sandbox that is down: a banner with retry, checked again with backoff, recovering."""

from __future__ import annotations

import asyncio
import socket
from pathlib import Path

from payscope.core.display import STABLE
from payscope.shell.health import MAX_RETRY, next_delay, watch_health
from tests.tui.conftest import frozen_clock
from tests.tui.pilot import until
from tests.waits import on_screen


def _closed_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def test_backoff_doubles_and_is_capped() -> None:
    delays = [1.0]
    for _ in range(8):
        delays.append(next_delay(delays[-1]))
    assert delays[:4] == [1.0, 2.0, 4.0, 8.0]
    assert delays[-1] == MAX_RETRY


async def test_watch_health_reports_down_then_up_once() -> None:
    answers = [OSError("refused"), OSError("refused"), None, None]
    events: list[str] = []
    wake = asyncio.Event()

    async def check() -> None:
        answer = answers.pop(0) if answers else None
        if answer is not None:
            raise answer

    def down(error: BaseException, retry_in: float) -> None:
        events.append(f"down {retry_in:.0f}")
        wake.set()  # "retry now": no real waiting in the test

    def up() -> None:
        events.append("up")
        wake.set()

    task = asyncio.create_task(watch_health(check, down, up, wake, healthy_interval=0.01))
    await until(lambda: not answers and "up" in events)
    task.cancel()
    assert events == ["down 1", "down 2", "up"]


async def test_down_service_shows_banner_and_recovers_by_itself(dirs: tuple[Path, Path]) -> None:
    from payscope.app import make_app
    from payscope.core import config, secrets
    from payscope.sandbox.config import SandboxConfig
    from payscope.sandbox.server import Sandbox
    from payscope.shell.main import Banner, MainScreen

    config_dir, data = dirs
    port = _closed_port()
    sandbox = Sandbox(SandboxConfig(data_dir=data / "sandbox", time_source=frozen_clock))
    profile = config.Profile(
        name="remote",
        base_url=f"http://127.0.0.1:{port}",
        merchant_id=sandbox.credentials.merchant_id,
        profile_id=sandbox.credentials.profile_id,
        listener_port=0,
    )
    config.save_settings(config.add_profile(config.load_settings(), profile))
    secrets.set_secret("remote", sandbox.credentials.api_key)

    app = make_app(profile="remote", config_dir=config_dir, data_dir=data, display=STABLE)
    async with app.run_test(size=(120, 40)):
        await app.runtime.ready.wait()
        main = app.get_screen_main()
        assert isinstance(main, MainScreen)
        banner = main.query_one(Banner)
        await until(lambda: banner.has_class("-shown"))
        shown = str(banner.render())
        assert "not answering" in shown and "Ctrl+R" in shown
        assert main.service_is_down

        await sandbox.start("127.0.0.1", port)
        try:
            # No key pressed: the backoff's next check finds it up.
            await until(lambda: not banner.has_class("-shown"))
            assert not main.service_is_down
        finally:
            await sandbox.stop()


async def test_remote_events_say_how_webhooks_get_here_and_history_says_what_is_missing(
    dirs: tuple[Path, Path],
) -> None:
    from payscope.app import make_app
    from payscope.areas.events.history import ServiceEventsScreen
    from payscope.areas.events.view import EventsView
    from payscope.core import config, secrets
    from payscope.sandbox.config import SandboxConfig
    from payscope.sandbox.server import Sandbox

    config_dir, data = dirs
    sandbox = Sandbox(SandboxConfig(data_dir=data / "sandbox", time_source=frozen_clock))
    url = await sandbox.start("127.0.0.1", 0)
    try:
        # A profile without a merchant id: payments work, the events API (by merchant) cannot.
        profile = config.Profile(name="remote", base_url=url, listener_port=0)
        config.save_settings(config.add_profile(config.load_settings(), profile))
        secrets.set_secret("remote", sandbox.credentials.api_key)
        app = make_app(profile="remote", config_dir=config_dir, data_dir=data)
        async with app.run_test(size=(120, 40)) as pilot:
            await app.runtime.ready.wait()
            await pilot.press("colon", *"events", "enter")
            view = app.screen.query_one(EventsView)
            await until(lambda: view.has_class("-empty"))
            empty = str(view.query_one(".empty").render())
            assert app.runtime.listener_url in empty
            assert "webhook_url" in empty and "--profile remote --kind webhook" in empty
            # The empty view keeps the focus, so its keys work: h opens the service's history.
            await until(lambda: app.focused is view)
            await pilot.press("h")
            await until(lambda: on_screen(app, ServiceEventsScreen))
            title = app.screen.query_one("#service-title")
            await until(lambda: "could not load (Merchant id missing)" in str(title.render()))
    finally:
        await sandbox.stop()
