"""Two payscopes at once both get the webhooks (issue 34), end to end: two real apps on one
background sandbox, a payment made with a key in one, the same webhook arriving verified in
both apps' Events; a third payscope (a real process) killed without detaching holds neither
of them back and is detached by the sandbox."""

from __future__ import annotations

import asyncio
import contextvars
import os
import signal
import subprocess
import sys
from pathlib import Path
from typing import Any

from payscope.app import make_app
from payscope.areas.events.view import EventsView
from payscope.areas.payments.detail import PaymentDetailScreen
from payscope.areas.payments.view import PaymentsView
from payscope.areas.sandbox.view import SandboxView
from payscope.sandbox import daemon
from tests.tui.pilot import run_command, until
from tests.waits import awaited

# A payscope's runtime in a process of its own, on the same background sandbox: it prints its
# listener's URL once attached, then waits to be killed (it never detaches).
_THIRD = """
import asyncio, sys
from pathlib import Path
from payscope.app.runtime import Runtime
from payscope.app.runtime.options import RuntimeOptions

async def main():
    runtime = Runtime(RuntimeOptions(
        profile=None, seed=0, theme=None, allow_production=False,
        config_dir=Path(sys.argv[1]), data_dir=Path(sys.argv[2]), user_theme_dir=None,
        daemon=True))
    await runtime.start()
    await runtime._hooking
    print(runtime.listener_url, flush=True)
    await asyncio.Event().wait()

asyncio.run(main())
"""


def _events_of(app: Any, payment_id: str) -> list[Any]:
    view = app.screen.query_one(EventsView)
    return [r for r in view.rows.values() if r.object_id == payment_id]


async def test_two_apps_both_show_the_same_webhook_and_a_dead_one_holds_nothing_back(
    tmp_path: Path,
) -> None:
    config, data = tmp_path / "config", tmp_path / "data"
    config.mkdir(mode=0o700)  # payscope's own: private (else it is made so, and said)
    third: subprocess.Popen[str] | None = None
    first = make_app(config_dir=config, data_dir=data, seed=3, daemon=True)
    second = make_app(config_dir=config, data_dir=data, seed=3, daemon=True)
    steps = {name: asyncio.Event() for name in ("up", "watching", "paid", "seen", "done")}
    made: list[str] = []

    async def attached(pilot: Any) -> None:
        await pilot.app.runtime.ready.wait()
        view = pilot.app.screen.query_one(PaymentsView)
        await until(lambda: view.loaded)
        hooking = pilot.app.runtime._hooking
        await until(lambda: hooking is not None and hooking.done())

    async def one(pilot: Any) -> None:  # the first payscope: makes a payment with a key
        await attached(pilot)
        steps["up"].set()
        await run_command(pilot, "sandbox")  # its keys make payments in each flow
        await until(lambda: first.screen.query(SandboxView))
        await steps["watching"].wait()
        await pilot.press("1")  # a payment in one step, opened
        await until(lambda: isinstance(first.screen, PaymentDetailScreen))
        detail = first.screen
        await until(lambda: getattr(detail, "payment", None) is not None)
        made.append(detail.payment.payment_id)
        steps["paid"].set()
        await pilot.press("escape")
        await run_command(pilot, "events")
        await until(lambda: first.screen.query(EventsView))
        await until(lambda: _events_of(first, made[0]))
        await steps["done"].wait()

    async def two(pilot: Any) -> None:  # the second: watches its Events
        await attached(pilot)
        await steps["up"].wait()
        await run_command(pilot, "events")
        await until(lambda: second.screen.query(EventsView))
        steps["watching"].set()
        await steps["paid"].wait()
        await until(lambda: _events_of(second, made[0]))  # live, verified
        steps["seen"].set()
        await steps["done"].wait()

    async def run(app: Any, script: Any) -> None:
        async with app.run_test(size=(120, 40)) as pilot:
            await script(pilot)

    try:
        # Each app in a task of its own context (Textual keeps the running app in one).
        tasks = [
            asyncio.create_task(run(app, script), context=contextvars.Context())
            for app, script in ((first, one), (second, two))
        ]
        await awaited(steps["up"].wait())
        await until(lambda: second.runtime.ready.is_set())
        await until(lambda: second.runtime._hooking is not None)
        await awaited(asyncio.shield(second.runtime._hooking))
        assert first.runtime.base_url == second.runtime.base_url  # one background sandbox
        hooks = {first.runtime.listener_url, second.runtime.listener_url}
        assert len(hooks) == 2
        assert first.runtime.listener_dir != second.runtime.listener_dir  # own journals

        # A third payscope attaches, then dies without detaching (SIGKILL).
        third = subprocess.Popen(
            [sys.executable, "-c", _THIRD, str(config), str(data)],
            stdout=subprocess.PIPE,
            text=True,
        )
        assert third.stdout is not None
        dead = await asyncio.to_thread(third.stdout.readline)
        dead = dead.strip()
        assert dead.startswith("http://127.0.0.1:"), dead
        assert hooks | {dead} <= set(daemon.read_webhook_listeners(data / "sandbox") or [])
        os.kill(third.pid, signal.SIGKILL)  # the process this test started (its Popen)
        await asyncio.to_thread(third.wait, 10)

        await awaited(steps["seen"].wait())
        await until(lambda: first.screen.query(EventsView) and _events_of(first, made[0]))
        same = {r.event_id for r in _events_of(first, made[0])} & {
            r.event_id for r in _events_of(second, made[0])
        }
        assert same, "no event arrived in both"
        for app in (first, second):
            for event_id in same:
                delivery = app.runtime.journal.get(event_id)
                assert delivery is not None and delivery.verified, (app, delivery)

        # The dead one was detached when its delivery failed; the living stay attached.
        await until(lambda: dead not in (daemon.read_webhook_listeners(data / "sandbox") or []))
        assert hooks <= set(daemon.read_webhook_listeners(data / "sandbox") or [])
        assert not first.runtime.webhooks_detached()
        assert not second.runtime.webhooks_detached()
        steps["done"].set()
        for task in tasks:
            await awaited(task)
    finally:
        steps["done"].set()
        if third is not None and third.poll() is None:
            third.kill()
            third.wait()
        daemon.stop(data / "sandbox")
