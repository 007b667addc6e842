"""Snapshots of a remote profile: the service-down banner, and the service's delivery history.

Both run the real app on a `remote` profile. What would move from run to run is pinned:
- the API client's backoff jitter (`retry_rng`), so retries against a dead port take no time;
- the health loop's clock (`payscope.shell.health.wait_or_wake`), so the banner's "checking again
  in 1 s" is the first check's and never turns into the second's while the picture is taken;
- the remote sandbox's clock (`frozen_clock`) and its new ids (`seeded_ids`);
- the down service's address (port 1, refused on loopback), and the listener's port on screen
  (the `STABLE` display policy);
- toasts, which leave on a wall-clock timer: each is waited for, then dismissed.
Every wait is for a concrete state (banner text, attempts listed, workers done), never a sleep.
"""

from __future__ import annotations

import asyncio
import socket
import threading
from collections.abc import Awaitable, Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from payscope.app import PayscopeApp, make_app
from payscope.core.display import STABLE
from tests.tui.conftest import frozen_clock
from tests.tui.pilot import LOOKS, until
from tests.waits import HANG, on_screen

# Port 1 (tcpmux) on loopback: never handed out for port 0 and not served on any machine we
# run on, so connecting is refused at once; a fixed number keeps the error text the same.
DOWN_URL = "http://127.0.0.1:1"
# Made-up but well-formed: the down service is never reached, so nothing checks them.
DOWN_PROFILE = {"merchant_id": "merchant_1714564800", "profile_id": "pro_snapshotdown0001"}
DOWN_KEY = "snd_snapshotdownkey0000000000000000000001"
DECLINED_CARD = "4000000000010019"  # UE_1001, insufficient funds


def _no_jitter() -> float:
    return 0.0


def _assert_refused(url: str) -> None:
    host, port = url.removeprefix("http://").split(":")
    with socket.socket() as sock:
        try:
            sock.connect((host, int(port)))
        except ConnectionRefusedError:
            return
    raise AssertionError(f"Something listens on {url}; this snapshot needs it closed.")


async def _frozen_wait(wake: asyncio.Event, seconds: float) -> None:
    # The health loop's clock stands still: only "retry now" (Ctrl+R) moves it on.
    await wake.wait()


def _save_profile(base_url: str, merchant_id: str, profile_id: str, api_key: str) -> None:
    from payscope.core import config, secrets

    profile = config.Profile(
        name="remote",
        base_url=base_url,
        merchant_id=merchant_id,
        profile_id=profile_id,
        listener_port=0,
    )
    config.save_settings(config.add_profile(config.load_settings(), profile))
    secrets.set_secret("remote", api_key)


def _remote_app(dirs: tuple[Path, Path], theme: str) -> PayscopeApp:
    config_dir, data_dir = dirs
    return make_app(
        profile="remote",
        theme=theme,
        config_dir=config_dir,
        data_dir=data_dir,
        display=STABLE,
        retry_rng=_no_jitter,
    )


def _settled(app: Any) -> bool:
    # The health watch runs for as long as the app does; everything else has an end.
    return not [w for w in app.workers if w.group != "health" and w.is_running]


async def _without_toasts(pilot: Any) -> None:
    """Wait for the toast the last step raised, then dismiss it: the picture is the steady
    state, not a toast that leaves after a wall-clock timeout (which would make it racy)."""
    app = pilot.app
    await until(lambda: bool(app.screen.query("Toast")))
    app.clear_notifications()
    await until(lambda: not app.screen.query("Toast"))
    await pilot.pause()


async def _banner_shown(pilot: Any) -> None:
    """Wait until the first health check failed and the banner says so, and the views gave up."""
    from payscope.shell.main import Banner, MainScreen

    app = pilot.app
    await app.runtime.ready.wait()
    main = app.get_screen_main()
    assert isinstance(main, MainScreen)
    banner = main.query_one(Banner)
    await until(lambda: banner.has_class("-shown") and "in 1 s" in str(banner.render()))
    await until(lambda: _settled(app))
    # The Payments view's failed load says so in its header, and raises no toast of its own:
    # the banner is the one place that tells it.
    header = main.query_one("#payments-header")
    await until(lambda: "could not load" in str(header.render()))
    await pilot.pause()
    assert not app.screen.query("Toast"), "a toast repeats what the banner says"


@pytest.mark.parametrize("look", LOOKS)
def test_service_down_banner(
    look: tuple[tuple[int, int], str],
    dirs: tuple[Path, Path],
    snap_compare: Any,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    import payscope.shell.health as health

    monkeypatch.setattr(health, "wait_or_wake", _frozen_wait)
    _assert_refused(DOWN_URL)
    _save_profile(DOWN_URL, **DOWN_PROFILE, api_key=DOWN_KEY)
    size, theme = look
    assert snap_compare(_remote_app(dirs, theme), terminal_size=size, run_before=_banner_shown)


class ThreadedSandbox:
    """The seeded sandbox, served from its own thread and loop: a remote service to the app.

    A thread, because `snap_compare` runs the app in a loop of its own: a sandbox started on the
    test's loop would not answer while that loop waits.
    """

    def __init__(self, data_dir: Path) -> None:
        self.data_dir = data_dir
        self.url = ""
        self.credentials: Any = None
        self._loop: asyncio.AbstractEventLoop | None = None
        self._stop: asyncio.Event | None = None
        self._started = threading.Event()
        self._error: BaseException | None = None
        self._thread = threading.Thread(target=self._run, name="remote-sandbox", daemon=True)

    def _run(self) -> None:
        try:
            asyncio.run(self._serve())
        except BaseException as exc:  # handed to the test thread, which raises it
            self._error = exc
            self._started.set()

    async def _serve(self) -> None:
        from payscope.sandbox.config import SandboxConfig
        from payscope.sandbox.server import Sandbox

        sandbox = Sandbox(SandboxConfig(data_dir=self.data_dir, time_source=frozen_clock))
        self.url = await sandbox.start("127.0.0.1", 0)
        try:
            self.credentials = sandbox.credentials
            self._loop = asyncio.get_running_loop()
            self._stop = asyncio.Event()
            self._started.set()
            await self._stop.wait()
        finally:
            await sandbox.stop()

    def __enter__(self) -> ThreadedSandbox:
        self._thread.start()
        assert self._started.wait(HANG), "the sandbox did not start in 30 s"
        if self._error is not None:
            raise self._error
        return self

    def __exit__(self, *_exc: object) -> None:
        if self._loop is not None and self._stop is not None:
            self._loop.call_soon_threadsafe(self._stop.set)
        self._thread.join(30)
        assert not self._thread.is_alive(), "the sandbox did not stop in 30 s"
        if self._error is not None:
            raise self._error


@pytest.fixture
def remote(dirs: tuple[Path, Path]) -> Iterator[ThreadedSandbox]:
    """The seeded sandbox on a free port, and a `remote` profile (key and webhook secret) for it."""
    from payscope.core import secrets

    with ThreadedSandbox(dirs[1] / "sandbox") as sandbox:
        credentials = sandbox.credentials
        _save_profile(
            sandbox.url,
            merchant_id=credentials.merchant_id,
            profile_id=credentials.profile_id,
            api_key=credentials.api_key,
        )
        secrets.set_secret("remote", credentials.webhook_secret, "webhook")
        yield sandbox


async def _point_webhook(client: Any, url: str) -> None:
    """Register `url` on the service's business profile, as a user does with the listener's."""
    from payscope.api.models.profiles import BusinessProfileUpdate, WebhookDetails

    hook = WebhookDetails(webhook_url=url)
    await client.profiles.update(BusinessProfileUpdate(webhook_details=hook))


async def _events(client: Any, count: int, done: Callable[[Any], Awaitable[bool]]) -> list[Any]:
    """Wait until the service lists `count` events and `done(event)` holds for each; them."""
    from payscope.api.models.events import EventListRequest

    events: list[Any] = []

    async def delivered() -> bool:
        events[:] = (await client.events.list(EventListRequest(limit=100))).events
        return len(events) == count and all([await done(event) for event in events])

    await until(delivered, f"the service to deliver {count} events", detail=lambda: events)
    return events


async def _history(pilot: Any) -> None:
    """Payments whose events reach the listener, one whose first delivery finds nobody and is
    retried by hand; then the delivery history with that event selected."""
    from textual.widgets import DataTable

    from payscope.areas.events.history import ServiceEventsScreen
    from tests.tui.pilot import create_payment

    app = pilot.app
    runtime = app.runtime
    await runtime.ready.wait()
    client = runtime.client
    await _point_webhook(client, runtime.listener.url)
    await create_payment(client, payment_id="pay_snapshot_succeeded")
    await create_payment(client, payment_id="pay_snapshot_declined", card=DECLINED_CARD)
    await create_payment(client, payment_id="pay_snapshot_authorized", capture_method="manual")

    async def delivered(event: Any) -> bool:
        return bool(event.is_delivery_successful)

    await _events(client, 3, delivered)
    await until(lambda: runtime.listener.journal.count() == 3)

    await _point_webhook(client, f"{DOWN_URL}/webhooks")
    await create_payment(client, payment_id="pay_snapshot_missed", amount=1250)

    async def tried(event: Any) -> bool:
        return bool(event.is_delivery_successful or await client.events.attempts(event.event_id))

    events = await _events(client, 4, tried)
    missed = next(e for e in events if e.object_id == "pay_snapshot_missed")
    assert not missed.is_delivery_successful
    await _point_webhook(client, runtime.listener.url)
    await until(lambda: _settled(app))

    await pilot.press("colon", *"events", "enter")
    await pilot.pause()
    await pilot.press("h")
    await until(lambda: on_screen(app, ServiceEventsScreen))
    screen = app.screen
    await until(lambda: missed.event_id in screen.events and _settled(app))
    table: DataTable[Any] = screen.query_one(DataTable)
    table.move_cursor(row=table.get_row_index(missed.event_id))
    await until(lambda: missed.event_id in screen.attempts and _settled(app))
    await pilot.press("r")  # the listener is registered again: this time it answers
    await until(lambda: len(screen.attempts[missed.event_id]) == 2 and _settled(app))
    await until(lambda: runtime.listener.journal.count() == 4)
    await _without_toasts(pilot)  # "Delivery retried"


@pytest.mark.parametrize("look", LOOKS)
def test_service_delivery_history(
    look: tuple[tuple[int, int], str],
    dirs: tuple[Path, Path],
    remote: ThreadedSandbox,
    snap_compare: Any,
    seeded_ids: Callable[[int], None],
) -> None:
    seeded_ids(6)  # the ids of what the service makes (payments, events) repeat
    size, theme = look
    assert snap_compare(_remote_app(dirs, theme), terminal_size=size, run_before=_history)
