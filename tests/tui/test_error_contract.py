"""An error's code explained by the contract the profile speaks: a remote profile against a
service answering in the real service's error shapes explains `IR_01` as the real service's
invalid key (never the spec's missing field); the local sandbox still explains the spec's.

The remote service is a small stub on a real loopback port (the real service cannot run here):
`/health` answers, every other route refuses the key the way the real service does.
"""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest

from payscope.app import make_app
from payscope.core.asgi_server import EmbeddedServer
from payscope.core.display import STABLE
from tests.tui.pilot import until
from tests.tui.test_remote_snapshots import _save_profile

Dirs = tuple[Path, Path]
REAL_KEY_REFUSED = {
    "error": {
        "type": "invalid_request",
        "message": "API key not provided or invalid API key used",
        "code": "IR_01",
    }
}


async def _real_service(scope: Any, receive: Any, send: Any) -> None:
    """The real service's answer to a key it does not know: 401 `IR_01`."""
    if scope["type"] == "lifespan":
        while True:
            message = await receive()
            if message["type"] == "lifespan.startup":
                await send({"type": "lifespan.startup.complete"})
            elif message["type"] == "lifespan.shutdown":
                await send({"type": "lifespan.shutdown.complete"})
                return
    while (await receive()).get("more_body"):
        pass
    status, body = (
        (200, {"status": "ok"}) if scope["path"] == "/health" else (401, REAL_KEY_REFUSED)
    )
    await send(
        {
            "type": "http.response.start",
            "status": status,
            "headers": [(b"content-type", b"application/json")],
        }
    )
    await send({"type": "http.response.body", "body": json.dumps(body).encode()})


@pytest.fixture
async def real_service() -> AsyncIterator[str]:
    server = EmbeddedServer(_real_service, "127.0.0.1", 0)
    url = await server.start()
    try:
        yield url
    finally:
        await server.stop()


def _messages(app: Any) -> list[str]:
    return [f"{n.title}\n{n.message}" for n in app.told]


async def test_a_remote_profile_explains_ir_01_as_the_real_services_invalid_key(
    dirs: Dirs, real_service: str
) -> None:
    config_dir, data_dir = dirs
    _save_profile(real_service, "merchant_1", "pro_abcdefghij0123456789", "snd_Wrong7Kq2VbN4xLr9Pz")
    app = make_app(profile="remote", config_dir=config_dir, data_dir=data_dir, display=STABLE)
    async with app.run_test(size=(120, 40)):
        await app.runtime.ready.wait()
        assert app.runtime.api.contract_setting == "auto"  # unset in profiles.toml
        await until(lambda: any("IR_01" in m for m in _messages(app)))
        shown = next(m for m in _messages(app) if "IR_01" in m)
        assert app.runtime.api.detected_contract == "real"
        assert "Key refused" in shown
        assert "API key not provided or invalid API key used" in shown  # the service's words
        assert "IR_01 on the real service: Invalid API key" in shown
        assert "Missing required field" not in shown  # never the local sandbox's table


async def test_a_profile_set_to_the_spec_reads_the_code_by_the_spec(
    dirs: Dirs, real_service: str
) -> None:
    from payscope.core import config

    config_dir, data_dir = dirs
    _save_profile(real_service, "merchant_1", "pro_abcdefghij0123456789", "snd_Wrong7Kq2VbN4xLr9Pz")
    settings = config.load_settings()
    settings.profiles["remote"].contract = "spec"
    config.save_settings(settings)
    app = make_app(profile="remote", config_dir=config_dir, data_dir=data_dir, display=STABLE)
    async with app.run_test(size=(120, 40)):
        await app.runtime.ready.wait()
        assert app.runtime.api.contract == "spec"
        await until(lambda: any("IR_01" in m for m in _messages(app)))
        shown = next(m for m in _messages(app) if "IR_01" in m)
        assert "IR_01 on the spec (local sandbox): Missing required field" in shown


async def test_the_local_sandbox_explains_the_specs_meaning(dirs: Dirs) -> None:
    from payscope.api import errors
    from payscope.widgets.errors import describe_error

    config_dir, data_dir = dirs
    app = make_app(config_dir=config_dir, data_dir=data_dir, display=STABLE)
    async with app.run_test(size=(120, 40)):
        await app.runtime.ready.wait()
        api = app.runtime.api
        assert api.contract == "spec"
        with pytest.raises(errors.ApiError) as caught:
            await api.call_json("POST", "/payments", body={"currency": "USD"})
        assert caught.value.code == "IR_01" and caught.value.contract == "spec"
        _title, message = describe_error(caught.value)
        assert "IR_01 on the spec (local sandbox): Missing required field" in message
        assert "Invalid API key" not in message


def test_an_error_payscope_made_itself_names_no_contract() -> None:
    from payscope.api.errors import NotFoundError
    from payscope.widgets.errors import describe_error

    error = NotFoundError(404, "invalid_request", "IR_05", "No user has the e-mail a@b.c.")
    _title, message = describe_error(error)
    assert "IR_05: Resource not found" in message
    assert "local sandbox" not in message and "real service" not in message
