"""Two payscopes on one background sandbox both get every webhook (issue 34): the sandbox
delivers each event to every attached listener, each listener verifies and journals it, the
sandbox's delivery history names every endpoint, and a payscope that quits detaches only its
own. Real processes: one background sandbox, two runtimes with their own listeners."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from payscope.sandbox import daemon
from payscope.views.live import change_of
from tests.daemons import daemon_runtime
from tests.tui.pilot import create_payment
from tests.waits import until


async def test_two_payscopes_both_get_every_webhook_live(tmp_path: Path) -> None:
    data = tmp_path / "data"
    directory = data / "sandbox"

    first, second = daemon_runtime(tmp_path, data), daemon_runtime(tmp_path, data)
    got: dict[str, list[Any]] = {"first": [], "second": []}
    try:
        await first.start()
        await second.start()  # started last: it used to take the webhooks from the first
        assert first.base_url == second.base_url  # one background sandbox
        for runtime in (first, second):
            assert runtime._hooking is not None
            await runtime._hooking
        assert first.listener is not None and second.listener is not None
        first.listener.add_subscriber(got["first"].append)
        second.listener.add_subscriber(got["second"].append)
        hooks = [first.listener_url, second.listener_url]
        assert hooks[0] != hooks[1]
        attached = daemon.read_webhook_listeners(directory)
        assert attached is not None and set(hooks) <= set(attached)

        made = await create_payment(first.api)

        def live(name: str) -> list[Any]:
            return [
                d for d in got[name] if d.object_id == made.payment_id and change_of(d) is not None
            ]

        await until(lambda: live("first") and live("second"), "a listener got no webhook")
        for name in ("first", "second"):
            delivery = live(name)[0]
            assert delivery.verified and delivery.status == 200, (name, delivery)
        # The same event reached both, signed with the sandbox's secret (verified above).
        assert {d.event_id for d in live("first")} & {d.event_id for d in live("second")}
        assert first.journal.get(live("first")[0].event_id) is not None

        # The sandbox's delivery history names every endpoint, each attempt delivered.
        event_id = live("first")[0].event_id
        attempts: list[Any] = []

        async def every_endpoint_delivered() -> bool:
            attempts[:] = await second.api.events.attempts(event_id)
            return {a.request.url for a in attempts if a.delivered} >= set(hooks)

        await until(every_endpoint_delivered, "every endpoint delivered", detail=lambda: attempts)
        assert all(a.delivery_attempt == "initial_attempt" for a in attempts)

        # The second quits: only its own listener is detached; the first keeps its webhooks.
        await second.stop()
        attached = daemon.read_webhook_listeners(directory)
        assert attached is not None
        assert first.listener_url in attached and second.listener_url not in attached
        assert not first.webhooks_detached()
        before = len(got["first"])
        again = await create_payment(first.api)
        await until(
            lambda: any(
                d.object_id == again.payment_id and d.verified for d in got["first"][before:]
            ),
            "the first stopped getting webhooks when the second quit",
        )
    finally:
        await second.stop()
        await first.stop()
        daemon.stop(directory)
