"""A second payscope on the same remote profile: the service sends the profile's webhooks to
the one URL registered with it, so the second starts no listener of its own (it took another
port before, and got nothing, without a word) and says plainly which payscope gets them. Once
the first has quit, a payscope started again listens. A real sandbox as the remote service, a
real listener process for the first payscope, a payment whose webhook reaches it."""

from __future__ import annotations

import os
from pathlib import Path

from textual.widgets import Static

from payscope.app import make_app
from payscope.app.runtime import Runtime
from payscope.app.runtime.options import RuntimeOptions
from payscope.areas.events.view import EventsView
from payscope.widgets.status_bar import StatusBar
from tests.tui.pilot import run_command, shown_text, until
from tests.tui.test_remote_snapshots import ThreadedSandbox, _point_webhook, remote  # noqa: F401

Dirs = tuple[Path, Path]


def _runtime_options(dirs: Dirs) -> RuntimeOptions:
    config, data = dirs
    return RuntimeOptions(
        profile="remote",
        seed=0,
        theme=None,
        allow_production=False,
        config_dir=config,
        data_dir=data,
        user_theme_dir=None,
    )


async def test_the_second_payscope_says_who_gets_the_webhooks(
    dirs: Dirs,
    remote: ThreadedSandbox,  # noqa: F811
) -> None:
    from tests.tui.pilot import create_payment

    first = Runtime(_runtime_options(dirs))
    await first.start()
    try:
        assert first.listener is not None and first.listener_url
        await _point_webhook(first.api, first.listener_url)

        app = make_app(profile="remote", config_dir=dirs[0], data_dir=dirs[1])
        async with app.run_test(size=(120, 40)) as pilot:
            await app.runtime.ready.wait()
            runtime = app.runtime
            assert runtime.listener is None  # no second listener on another port
            said = runtime.listener_elsewhere
            assert f"Another payscope (pid {os.getpid()}) already listens" in said
            assert first.listener_url in said and "this payscope gets none" in said
            await until(lambda: any(said in t.message for t in app.told), 10)
            status = app.screen.query_one(StatusBar)
            line = status.query_one("#status-line", Static)
            await until(lambda: "listener: in the other payscope" in shown_text(line))
            await run_command(pilot, "events")
            view = app.screen.query_one(EventsView)
            await until(lambda: view.loaded, 10)  # (the health watch never ends: no wait_for)
            await pilot.pause()
            empty = shown_text(view.query_one(".empty", Static))
            assert "No listener here" in empty and "quit it and start this one" in empty

            # The first payscope gets the webhook of a payment made meanwhile.
            made = await create_payment(runtime.api, amount=1111)
            journal = first.listener.journal
            await until(lambda: journal.count(object_id=made.payment_id) > 0, 20)
    finally:
        await first.stop()

    # The first quit: a payscope started again on the profile listens itself.
    again = Runtime(_runtime_options(dirs))
    await again.start()
    try:
        assert again.listener is not None and again.listener_elsewhere == ""
    finally:
        await again.stop()
