"""One background sandbox, one webhook URL: when another payscope (or a curl) takes the
webhooks, this one says so once, and Ctrl+R takes them back. A real background sandbox."""

from __future__ import annotations

from pathlib import Path

import httpx

from tests.tui.pilot import until
from tui.app import make_app
from tui.sandbox import daemon


async def test_webhooks_taken_elsewhere_are_said_and_taken_back(tmp_path: Path) -> None:
    config, data = tmp_path / "config", tmp_path / "data"
    config.mkdir()
    try:
        app = make_app(config_dir=config, data_dir=data, seed=3, daemon=True)
        async with app.run_test(size=(120, 40)) as pilot:
            runtime = app.runtime
            await runtime.ready.wait()
            await until(lambda: runtime._hooking is not None and runtime._hooking.done(), 10)
            ours = daemon.read_webhook_url(data / "sandbox")
            assert ours is not None and ours.startswith(runtime.listener_url.rsplit("/", 1)[0])
            said = lambda: [n.message for n in app.told]  # noqa: E731
            await pilot.pause(1.2)
            assert not any("live updates here have stopped" in m for m in said())

            # What a second payscope does when it starts (its own listener's URL).
            other = "http://127.0.0.1:9/webhooks"
            credentials = runtime.credentials
            async with httpx.AsyncClient(base_url=runtime.base_url) as http:
                answer = await http.post(
                    "/_sandbox/webhook",
                    json={"url": other},
                    headers={"api-key": credentials.api_key},
                )
            assert answer.status_code == 200, answer.text
            await until(lambda: any(other in m and "stopped" in m for m in said()), 10)
            told = len([m for m in said() if "stopped" in m])

            await pilot.press("ctrl+r")
            await until(lambda: any("come here again" in m for m in said()), 10)
            assert daemon.read_webhook_url(data / "sandbox") == ours
            await pilot.pause(2.5)  # polled again: no second warning for the same change
            assert len([m for m in said() if "stopped" in m]) == told
    finally:
        daemon.stop(data / "sandbox")
