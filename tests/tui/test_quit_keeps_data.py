"""Quitting right after work keeps it: a payment created just before Ctrl+Q is there on the next
start, and the webhook that arrived just before is in the journal. Run as `payscope` runs: on
the background sandbox kept between runs (started here, stopped at the end)."""

from __future__ import annotations

from pathlib import Path

from payscope.app import make_app
from payscope.sandbox import daemon
from tests.tui.pilot import create_payment, until


async def test_a_payment_and_its_webhook_made_just_before_quitting_are_there_next_time(
    tmp_path: Path,
) -> None:
    config, data = tmp_path / "config", tmp_path / "data"
    config.mkdir(mode=0o700)  # payscope's own: private (else it is made so, and said)
    try:
        app = make_app(config_dir=config, data_dir=data, seed=5, daemon=True)
        async with app.run_test(size=(120, 40)) as pilot:
            await app.runtime.ready.wait()
            assert app.runtime.daemon_dir == data / "sandbox"
            payment = await create_payment(app.runtime.api)
            journal = app.runtime.journal
            await until(lambda: journal.count(object_id=payment.payment_id) > 0)
            await pilot.press("ctrl+q")
        assert not app.is_running

        again = make_app(config_dir=config, data_dir=data, seed=5, daemon=True)
        async with again.run_test(size=(120, 40)):
            await again.runtime.ready.wait()
            assert again.runtime.base_url == app.runtime.base_url  # the same sandbox, same port
            kept = await again.runtime.api.payments.retrieve(payment.payment_id)
            assert kept.status == "succeeded"
            assert again.runtime.journal.count(object_id=payment.payment_id) > 0
    finally:
        daemon.stop(data / "sandbox")


def test_an_app_that_quit_is_not_kept_alive(dirs: tuple[Path, Path]) -> None:
    """Nothing the app started (its embedded sandbox and listener, their uvicorn servers) keeps
    the app once it quit and its loop closed: uvicorn's logging config used to put handlers on
    its loggers bound to the stderr of the moment, Textual's capture of the running app."""
    import asyncio
    import gc
    import weakref

    from tests.tui.snapshot_app import build, ready

    async def run() -> weakref.ref[object]:
        app = build(*dirs)
        async with app.run_test(size=(120, 40)) as pilot:
            await ready(pilot)
            await pilot.press("ctrl+q")
        assert not app.is_running
        return weakref.ref(app)

    gone = asyncio.run(run())
    # The app froze what it had made once its runtime was up (as a user's does): only a
    # reference keeps it once that is let go, as the test's end lets it go.
    gc.unfreeze()
    gc.collect()
    assert gone() is None
