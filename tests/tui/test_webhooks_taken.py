"""One background sandbox, every payscope's listener attached: another payscope starting takes
nothing from this one (no warning), a detach from outside is said once, and Ctrl+R attaches the
listener again. A real background sandbox."""

from __future__ import annotations

from pathlib import Path

import httpx

from payscope.app import make_app
from payscope.sandbox import daemon
from tests.tui.pilot import until
from tests.waits import REQUEST_TIMEOUT


async def test_a_detached_listener_is_said_and_attached_again(tmp_path: Path) -> None:
    config, data = tmp_path / "config", tmp_path / "data"
    config.mkdir(mode=0o700)  # payscope's own: private (else it is made so, and said)
    try:
        app = make_app(config_dir=config, data_dir=data, seed=3, daemon=True)
        async with app.run_test(size=(120, 40)) as pilot:
            runtime = app.runtime
            await runtime.ready.wait()
            await until(lambda: runtime._hooking is not None and runtime._hooking.done())
            ours = runtime.listener_url
            assert ours in (daemon.read_webhook_listeners(data / "sandbox") or [])
            said = lambda: [n.message for n in app.told]  # noqa: E731
            credentials = runtime.credentials

            async def control(body: dict[str, str]) -> None:
                async with httpx.AsyncClient(
                    timeout=REQUEST_TIMEOUT, base_url=runtime.base_url
                ) as http:
                    answer = await http.post(
                        "/_sandbox/webhook", json=body, headers={"api-key": credentials.api_key}
                    )
                assert answer.status_code == 200, answer.text

            # What a second payscope does when it starts: attach its own listener. Nothing is
            # taken from this one, so nothing is said.
            await control({"attach": "http://127.0.0.1:9/webhooks"})
            await pilot.pause(2.5)  # the status bar polls every second; the database every 2 s
            assert not any("live updates here have stopped" in m for m in said())
            assert ours in (daemon.read_webhook_listeners(data / "sandbox") or [])

            # Detached from outside (a curl): said once.
            await control({"detach": ours})
            await until(lambda: any("no longer attached" in m for m in said()))
            told = len([m for m in said() if "stopped" in m])

            await pilot.press("ctrl+r")
            await until(lambda: any("come here again" in m for m in said()))
            assert ours in (daemon.read_webhook_listeners(data / "sandbox") or [])
            await pilot.pause(2.5)  # polled again: no second warning for the same change
            assert len([m for m in said() if "stopped" in m]) == told
    finally:
        daemon.stop(data / "sandbox")
