"""payscope.app.runtime: each profile's listener journals on its own, so its Events are only its
own.

A remote host cannot be real here: the remote profiles point at the embedded sandbox of a local
runtime started beside them, on the same data dir, as a user switching profiles would have.
"""

from __future__ import annotations

import hashlib
import hmac
import json
import subprocess
import sys
from pathlib import Path

import httpx
import pytest

from payscope.app.runtime import Runtime
from payscope.app.runtime.listener_dirs import listener_dir_for
from payscope.app.runtime.options import RuntimeOptions
from payscope.core import config, paths, secrets
from tests.waits import HANG, REQUEST_TIMEOUT

WEBHOOK_SECRET = "whsec_remote_profile_0123456789abcdefghijklmnopqrstuv"


def _runtime_options(profile: str | None, data: Path) -> RuntimeOptions:
    return RuntimeOptions(
        profile=profile,
        seed=0,  # no demo data: these tests are about the listener
        theme=None,
        allow_production=False,
        config_dir=None,
        data_dir=data,
        user_theme_dir=None,
    )


async def _post_signed(url: str, event_id: str, secret: str) -> None:
    body = json.dumps({"event_id": event_id, "event_type": "payment_succeeded"}).encode()
    signature = hmac.new(secret.encode(), body, hashlib.sha512).hexdigest()
    headers = {"Content-Type": "application/json", "X-Webhook-Signature-512": signature}
    async with httpx.AsyncClient(timeout=REQUEST_TIMEOUT) as client:
        answer = await client.post(url, content=body, headers=headers)
    assert answer.status_code == 200, answer.text


def _journaled(runtime: Runtime) -> set[str]:
    return {record.event_id for record in runtime.listener.journal.recent(100)}


def test_the_local_profile_keeps_its_listener_dir_and_remote_ones_get_their_own(
    tmp_path: Path,
) -> None:
    assert listener_dir_for(tmp_path, None) == tmp_path / "listener"  # existing data stays
    assert listener_dir_for(tmp_path, "staging") == tmp_path / "listeners" / "staging"
    assert Runtime(_runtime_options(None, tmp_path)).listener_dir == tmp_path / "listener"
    assert (
        Runtime(_runtime_options("eu-1", tmp_path)).listener_dir == tmp_path / "listeners" / "eu-1"
    )
    # A remote profile named like the local one still does not share its journal.
    assert listener_dir_for(tmp_path, "local") != listener_dir_for(tmp_path, None)


@pytest.mark.parametrize("name", ["../../etc", "a/b", "a b", "..", "c:\\x"])
def test_remote_listener_dirs_are_file_safe(tmp_path: Path, name: str) -> None:
    where = listener_dir_for(tmp_path, name)
    assert where.parent == tmp_path / "listeners"
    assert where.name not in ("", ".", "..")
    assert "/" not in where.name and "\\" not in where.name


async def test_a_remote_profile_sees_only_its_own_events() -> None:
    data = paths.data_dir()
    local = Runtime(_runtime_options(None, data))
    await local.start()
    remotes: list[Runtime] = []
    try:
        # An event journaled under the local profile, as the embedded sandbox's would be.
        await _post_signed(
            local.listener_url, "evt_local_only", local.sandbox.credentials.webhook_secret
        )
        assert _journaled(local) == {"evt_local_only"}
        assert local.listener.journal.path.parent == data / "listener"

        settings = config.load_settings()
        for name in ("remote", "other"):
            profile = config.Profile(
                name=name,
                base_url=local.base_url,
                merchant_id=local.merchant_id,
                profile_id=local.business_profile_id,
                listener_port=0,
            )
            settings = config.add_profile(settings, profile)
            secrets.set_secret(name, local.sandbox.credentials.api_key)
            secrets.set_secret(name, WEBHOOK_SECRET, "webhook")
        config.save_settings(settings)

        for name in ("remote", "other"):
            remote = Runtime(_runtime_options(name, data))
            await remote.start()
            remotes.append(remote)
            # Nothing of the local profile's: the Events screen and the status bar count.
            assert remote.listener.journal.get("evt_local_only") is None
            assert remote.listener.journal.count() == 0
            assert remote.listener.data_dir == remote.listener_dir == data / "listeners" / name

        remote, other = remotes
        await _post_signed(remote.listener_url, "evt_remote_only", WEBHOOK_SECRET)
        assert _journaled(remote) == {"evt_remote_only"}
        assert _journaled(other) == set()
        assert _journaled(local) == {"evt_local_only"}
    finally:
        for runtime in (*remotes, local):
            await runtime.stop()

    # Started again, each profile finds its own history where it left it.
    again = Runtime(_runtime_options("remote", data))
    await again.start()
    try:
        assert _journaled(again) == {"evt_remote_only"}
    finally:
        await again.stop()


async def test_the_sandbox_keeps_its_port_between_runs_and_says_when_it_is_taken(
    tmp_path: Path,
) -> None:
    import socket

    data = tmp_path / "data"
    first = Runtime(_runtime_options(None, data))
    await first.start()
    port = int(first.base_url.rsplit(":", 1)[1])
    await first.stop()
    assert first.notices == []
    assert (data / "sandbox" / "last-port").read_text().strip() == str(port)

    again = Runtime(_runtime_options(None, data))
    await again.start()
    try:
        assert again.base_url == f"http://127.0.0.1:{port}"  # a copied curl still runs
        assert again.notices == []
    finally:
        await again.stop()

    # Someone else holds the port now: a free one, and a notice naming both.
    with socket.socket() as holder:
        holder.bind(("127.0.0.1", port))
        holder.listen(1)
        third = Runtime(_runtime_options(None, data))
        await third.start()
        try:
            moved = int(third.base_url.rsplit(":", 1)[1])
            assert moved != port
            (notice,) = third.notices
            assert f"Port {port} (used last time) is taken" in notice
            assert f"runs on port {moved} this time" in notice
            async with httpx.AsyncClient(timeout=REQUEST_TIMEOUT) as http:
                health = await http.get(
                    f"{third.base_url}/health",
                    headers={"api-key": third.sandbox.credentials.api_key},
                )
            assert health.status_code == 200
        finally:
            await third.stop()


async def test_the_sandbox_port_can_be_set_in_the_settings(tmp_path: Path) -> None:
    import socket

    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        free = probe.getsockname()[1]
    settings = config.load_settings()
    settings.local.sandbox_port = free
    config.save_settings(settings)
    assert "sandbox_port = " + str(free) in (paths.config_dir() / paths.CONFIG_FILE).read_text()
    # Built as the app builds them: the start peeks at the file, the settings are validated
    # only once the runtime is up.
    options = RuntimeOptions.build(
        profile=None,
        seed=0,
        theme=None,
        allow_production=False,
        config_dir=None,
        data_dir=tmp_path / "data",
        sandbox_options={},
    )
    assert options.settings is None and options.peeked_sandbox_port == free
    runtime = Runtime(options)
    await runtime.start()
    try:
        assert runtime.base_url == f"http://127.0.0.1:{free}"
    finally:
        await runtime.stop()
    with pytest.raises(ValueError, match="sandbox_port"):
        settings.local.sandbox_port = 70000


def test_attaching_imports_nothing_heavy_on_the_loop(tmp_path: Path) -> None:
    # Once the sandbox is ready, the app starts its listener (a process of its own: uvicorn
    # loads there, never here), builds the client and reads the
    # first page on its loop: whatever those import there holds the live page back (a first
    # run waits on it right after the seeding). The stacks `client_stack` and `listener_stack`
    # load in a thread before; this runs the same steps in a fresh interpreter against a real
    # sandbox.
    from payscope.sandbox import daemon
    from tests.daemons import wait_ready

    directory = tmp_path / "sandbox"
    daemon.spawn(directory, seed=3)
    try:
        state = wait_ready(directory)
        credentials = daemon.read_credentials(directory)
        assert credentials is not None
        code = f"""
import asyncio, sys
from pathlib import Path
from payscope.app.runtime.stacks import client_stack, listener_stack
client_stack(first_calls=True)
listener_stack(first_calls=True)
from payscope.api.client import ApiClient
from payscope.api.models.payments import PaymentListRequest
from payscope.webhooks.process import ListenerProcess
before = set(sys.modules)

async def main():
    listener = ListenerProcess(
        Path({str(tmp_path / "listener")!r}), secrets=["whsec_test"], max_age=None
    )
    await listener.start("127.0.0.1", 0)
    async with ApiClient({state.url!r}, {credentials.api_key!r}) as client:
        page = await client.payments.list(PaymentListRequest(limit=5))
        assert page.total_count == 3, page
    await listener.stop()

asyncio.run(main())
heavy = ("uvicorn", "httptools", "httpcore", "h11", "anyio", "multiprocessing", "pydantic")
print(sorted(m for m in set(sys.modules) - before if m.split(".")[0] in heavy))
"""
        out = subprocess.run(
            [sys.executable, "-c", code], capture_output=True, text=True, timeout=HANG
        )
        assert out.returncode == 0, out.stderr
        assert out.stdout.strip() == "[]"
    finally:
        daemon.stop(directory)


async def test_a_damaged_webhook_journal_is_moved_aside_and_payments_still_work(
    tmp_path: Path,
) -> None:
    """A journal of random bytes took the whole TUI offline: now it is moved aside, a fresh
    one is started, the user is told where the old one is, and the rest works."""
    import os

    from payscope.api.models.payments import PaymentListRequest

    data = tmp_path / "data"
    data.mkdir(mode=0o700)  # private, as payscope makes it (a readable one is said too)
    journal_dir = listener_dir_for(data, None)
    journal_dir.mkdir(parents=True)
    junk = os.urandom(49152)
    (journal_dir / "journal.sqlite3").write_bytes(junk)
    runtime = Runtime(_runtime_options(None, data))
    await runtime.start()
    try:
        moved = runtime.listener.journal.moved_aside
        assert moved is not None and moved.read_bytes() == junk
        (notice,) = runtime.notices
        assert "webhook journal was damaged" in notice and str(moved) in notice
        assert "--data" not in notice
        listed = await runtime.api.payments.list(PaymentListRequest(limit=5))
        assert listed.total_count == 0  # the sandbox answers (seed=0)
        await _post_signed(
            runtime.listener_url, "evt_after", runtime.sandbox.credentials.webhook_secret
        )
        assert _journaled(runtime) == {"evt_after"}
    finally:
        await runtime.stop()
