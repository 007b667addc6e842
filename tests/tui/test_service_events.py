"""The service's delivery history on a remote profile: the local sandbox, reached as if remote.

A real sandbox serves on a free loopback port; the app knows it only as a profile (base URL, ids,
key in the in-memory keyring), so it talks to it exactly as it would to a hosted one.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest

from payscope.core.display import STABLE
from tests.tui.conftest import frozen_clock
from tests.tui.pilot import create_payment, run_command, screen_text, until
from tests.waits import on_screen


@pytest.fixture
async def remote(dirs: tuple[Path, Path]) -> AsyncIterator[Any]:
    """A running sandbox and a `remote` profile pointing at it (listener on a free port)."""
    from payscope.core import config, secrets
    from payscope.sandbox.config import SandboxConfig
    from payscope.sandbox.server import Sandbox

    _, data = dirs
    sandbox = Sandbox(SandboxConfig(data_dir=data / "sandbox", time_source=frozen_clock))
    url = await sandbox.start("127.0.0.1", 0)
    credentials = sandbox.credentials
    profile = config.Profile(
        name="remote",
        base_url=url,
        merchant_id=credentials.merchant_id,
        profile_id=credentials.profile_id,
        listener_port=0,
    )
    config.save_settings(config.add_profile(config.load_settings(), profile))
    secrets.set_secret("remote", credentials.api_key)
    secrets.set_secret("remote", credentials.webhook_secret, "webhook")
    try:
        yield sandbox
    finally:
        await sandbox.stop()


async def test_service_history_lists_attempts_and_retries(
    remote: Any, dirs: tuple[Path, Path]
) -> None:
    from payscope.app import make_app
    from payscope.areas.events.history import ServiceEventsScreen

    app = make_app(profile="remote", config_dir=dirs[0], data_dir=dirs[1], display=STABLE)
    async with app.run_test(size=(120, 40)) as pilot:
        await app.runtime.ready.wait()
        assert app.runtime.environment == "sandbox"
        listener = app.runtime.listener
        remote.set_webhook(listener.url, remote.credentials.webhook_secret)
        payment = await create_payment(app.runtime.client)
        await until(lambda: listener.journal.count(object_id=payment.payment_id) > 0)

        await run_command(pilot, "events")
        await pilot.pause()
        await pilot.press("h")
        await until(lambda: on_screen(app, ServiceEventsScreen))
        screen = app.screen
        assert isinstance(screen, ServiceEventsScreen)
        await until(lambda: any(e.object_id == payment.payment_id for e in screen.events.values()))
        event_id = next(i for i, e in screen.events.items() if e.object_id == payment.payment_id)
        from textual.widgets import DataTable

        table: DataTable[Any] = screen.query_one(DataTable)
        table.move_cursor(row=table.get_row_index(event_id))
        await until(lambda: len(screen.attempts.get(event_id, [])) >= 1)
        before = len(screen.attempts[event_id])
        assert all(a.is_delivery_successful for a in screen.attempts[event_id])
        # Each attempt names the endpoint it went to, in the history's "To" column.
        assert {a.request.url for a in screen.attempts[event_id]} == {listener.url}
        endpoint = app.runtime.shown_url(listener.url).split("://", 1)[1]  # its port hidden
        await until(lambda: endpoint[:20] in screen_text(app))

        await pilot.press("r")
        await until(lambda: len(screen.attempts.get(event_id, [])) == before + 1)
        # The retried delivery reached the listener too: a duplicate of the same event.
        await until(lambda: listener.journal.get(event_id).event.duplicates >= 1)
        assert [a.response.status_code for a in screen.attempts[event_id]] == [200] * (before + 1)

        await pilot.press("escape")
        await until(lambda: not isinstance(app.screen, ServiceEventsScreen))


async def test_a_retry_the_endpoint_has_not_answered_yet_is_said_as_such(
    remote: Any, dirs: tuple[Path, Path]
) -> None:
    """The sandbox answers a retry after a quarter of a second whatever the endpoint does; an
    attempt still under way is "sent, no answer yet", not "got no answer"."""
    import socket

    from payscope.app import make_app
    from payscope.areas.events.history import ServiceEventsScreen

    silent = socket.create_server(("127.0.0.1", 0))  # accepts, never answers
    silent_url = f"http://127.0.0.1:{silent.getsockname()[1]}/hook"
    app = make_app(profile="remote", config_dir=dirs[0], data_dir=dirs[1], display=STABLE)
    try:
        async with app.run_test(size=(120, 40)) as pilot:
            await app.runtime.ready.wait()
            listener = app.runtime.listener
            remote.set_webhook(listener.url, remote.credentials.webhook_secret)
            payment = await create_payment(app.runtime.client)
            await until(lambda: listener.journal.count(object_id=payment.payment_id) > 0)
            remote.set_webhook(silent_url, remote.credentials.webhook_secret)

            await run_command(pilot, "events")
            await pilot.pause()
            await pilot.press("h")
            await until(lambda: on_screen(app, ServiceEventsScreen))
            screen = app.screen
            assert isinstance(screen, ServiceEventsScreen)
            await until(
                lambda: any(e.object_id == payment.payment_id for e in screen.events.values())
            )
            event_id = next(
                i for i, e in screen.events.items() if e.object_id == payment.payment_id
            )
            from textual.widgets import DataTable

            table: DataTable[Any] = screen.query_one(DataTable)
            table.move_cursor(row=table.get_row_index(event_id))
            await until(lambda: len(screen.attempts.get(event_id, [])) >= 1)

            await pilot.press("r")
            said = lambda: [n.message for n in app.told]  # noqa: E731
            await until(lambda: any("not answered yet" in m for m in said()))
            assert not any("got no answer" in m for m in said())
    finally:
        silent.close()
