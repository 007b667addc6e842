"""The background sandbox (tui/payscope/sandbox/daemon.py) as real processes: it serves, says where,
keeps its keys and port, survives the app that started it, stops on request, and a runtime in
daemon mode attaches to it, gets its webhooks, and leaves nothing behind that was not committed."""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

from payscope.sandbox import daemon
from tests.daemons import wait_ready as _wait_ready
from tests.waits import HANG, REQUEST_TIMEOUT, until, until_sync


@pytest.fixture
def directory(tmp_path: Path) -> Iterator[Path]:
    path = tmp_path / "sandbox"
    yield path
    daemon.stop(path)  # never leave one behind


def test_it_serves_says_where_and_stops(directory: Path) -> None:
    pid = daemon.spawn(directory, seed=20)
    state = _wait_ready(directory)
    assert state.pid == pid and state.total == 20
    creds = daemon.read_credentials(directory)
    assert creds is not None and creds.api_key.startswith("snd_")
    assert creds.api_key not in (directory / daemon.STATE_FILE).read_text()  # no key in it
    assert creds.api_key not in repr(creds)
    listed = httpx.post(
        f"{state.url}/payments/list",
        timeout=REQUEST_TIMEOUT,
        json={"limit": 100},
        headers={"api-key": creds.api_key},
    )
    assert listed.status_code == 200 and listed.json()["total_count"] == 20

    assert daemon.stop(directory)
    assert daemon.read_state(directory) is None
    assert not (directory / daemon.STATE_FILE).exists()
    assert not daemon.alive(pid)
    assert "stopped" in daemon.log_tail(directory)
    assert not daemon.stop(directory)  # nothing left to stop


def test_a_dead_daemon_is_not_taken_for_a_live_one(directory: Path) -> None:
    directory.mkdir(parents=True)
    gone = subprocess.run(
        [sys.executable, "-c", "import os; print(os.getpid())"],
        text=True,
        capture_output=True,
        check=True,
    )
    (directory / daemon.STATE_FILE).write_text(
        f'{{"pid": {gone.stdout.strip()}, "url": "http://127.0.0.1:1", "phase": "ready"}}'
    )
    assert daemon.read_state(directory) is None
    (directory / daemon.STATE_FILE).write_text("{not json")
    assert daemon.read_state(directory) is None


def test_a_taken_port_moves_it_and_says_so(directory: Path) -> None:
    with socket.socket() as holder:
        holder.bind(("127.0.0.1", 0))
        holder.listen(1)
        taken = holder.getsockname()[1]
        daemon.spawn(directory, port=taken)
        state = _wait_ready(directory)
    assert state.port != taken
    assert f"Port {taken} is taken" in state.note


def test_it_stops_by_itself_when_its_state_file_goes(directory: Path) -> None:
    pid = daemon.spawn(directory)
    _wait_ready(directory)
    (directory / daemon.STATE_FILE).unlink()  # e.g. its data dir was deleted
    until_sync(lambda: not daemon.alive(pid), "the daemon to exit")


def test_sigterm_stops_it_cleanly(directory: Path) -> None:
    pid = daemon.spawn(directory)
    _wait_ready(directory)
    _sigterm_stops_cleanly(directory, pid)


def test_sigterm_while_it_starts_stops_it_cleanly(directory: Path) -> None:
    """A stop asked for as soon as the state file shows (here: still "starting") is a clean
    stop, never the default action of SIGTERM, which leaves the state file behind."""
    pid = daemon.spawn(directory)
    until_sync((directory / daemon.STATE_FILE).exists, "the state file")
    _sigterm_stops_cleanly(directory, pid)


def _sigterm_stops_cleanly(directory: Path, pid: int) -> None:
    """SIGTERM `pid`: it exits, its state file gone and its log saying so."""
    os.kill(pid, signal.SIGTERM)
    until_sync(lambda: not daemon.alive(pid), "the daemon to exit on SIGTERM")
    assert not (directory / daemon.STATE_FILE).exists()
    assert "stopped" in daemon.log_tail(directory)


def _cli(*args: str, env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "payscope", "sandbox", *args],
        capture_output=True,
        text=True,
        env={**os.environ, **env},
        timeout=HANG,
    )


def test_status_and_stop_commands(tmp_path: Path) -> None:
    env = {"PAYSCOPE_DATA_DIR": str(tmp_path / "data")}
    directory = tmp_path / "data" / "sandbox"
    try:
        none = _cli("status", env=env)
        assert none.returncode == 3 and "No background sandbox" in none.stdout
        daemon.spawn(directory, seed=5)
        state = _wait_ready(directory)
        shown = _cli("status", env=env)
        assert shown.returncode == 0
        assert state.url in shown.stdout and f"pid              {state.pid}" in shown.stdout
        creds = daemon.read_credentials(directory)
        assert creds is not None and creds.api_key not in shown.stdout  # masked
        # A second sandbox on the same data is refused, with the way out.
        clash = _cli("--port", "0", env=env)
        assert clash.returncode == 1 and "payscope sandbox stop" in clash.stderr
        stopped = _cli("stop", env=env)
        assert stopped.returncode == 0 and f"pid {state.pid}" in stopped.stdout
        assert daemon.read_state(directory) is None
    finally:
        daemon.stop(directory)


def _launch_env(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("PAYSCOPE_CONFIG_DIR", str(tmp_path / "config"))
    monkeypatch.setenv("PAYSCOPE_DATA_DIR", str(tmp_path / "data"))
    return tmp_path / "data" / "sandbox"


def test_a_first_run_starts_the_sandbox_at_launch_and_the_runtime_adopts_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from payscope.app import launch as launch_module
    from payscope.app import runtime as runtime_module

    directory = _launch_env(tmp_path, monkeypatch)
    try:
        launch_module.spawn_at_launch(None, 5)  # what `payscope` does before importing Textual
        assert launch_module._spawned_at_launch is not None
        pid = launch_module._spawned_at_launch[1]
        options = runtime_module.RuntimeOptions.build(
            profile=None,
            seed=5,
            theme=None,
            allow_production=False,
            config_dir=None,
            data_dir=None,
            sandbox_options={},
        )
        options.daemon = True
        # The app gets there once Textual is imported: the sandbox may have written its state
        # by then (here it is even serving), and is adopted all the same, not started twice.
        state = _wait_ready(directory)
        assert state.pid == pid and state.total == 5
        runtime = runtime_module.Runtime(options)
        runtime.spawn_early()
        assert runtime.spawned_daemon == pid and launch_module._spawned_at_launch is None
        launch_module.spawn_at_launch(None, 5)  # a second run finds it serving
        assert launch_module._spawned_at_launch is None
        # ... from its state file alone: the daemon's module is not loaded (6 ms of a warm
        # start's first frame), nor anything started; with no settings file, no TOML parser
        from tests.fresh import modules_loaded

        warm = "from payscope.app import launch\nlaunch.spawn_at_launch(None, 5)\n"
        warm += "assert launch._spawned_at_launch is None"
        assert modules_loaded(
            warm, ("payscope.sandbox.daemon", "payscope.sandbox.files", "tomllib")
        ) == ["payscope.sandbox.files"]
    finally:
        launch_module._spawned_at_launch = None
        daemon.stop(directory)


def test_a_sandbox_started_at_launch_serves_on_the_port_the_settings_set(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import socket

    from payscope.app import launch as launch_module

    directory = _launch_env(tmp_path, monkeypatch)
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        free = probe.getsockname()[1]
    (tmp_path / "config").mkdir()
    (tmp_path / "config" / "profiles.toml").write_text(
        f"[local]\nsandbox_port = {free}\n", encoding="utf-8"
    )
    try:
        launch_module.spawn_at_launch(None, 1)
        assert launch_module._spawned_at_launch is not None
        assert _wait_ready(directory).url.endswith(f":{free}")
    finally:
        launch_module._spawned_at_launch = None
        daemon.stop(directory)


@pytest.mark.parametrize(
    "settings, profile",
    [
        ('default_profile = "staging"\n[profiles.staging]\nbase_url = "https://x.test"\n', None),
        ("", "staging"),  # --profile staging
        ("default_profile = 3\n", None),  # odd settings: left to the validating path
    ],
)
def test_no_sandbox_is_started_at_launch_for_a_remote_profile_or_odd_settings(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, settings: str, profile: str | None
) -> None:
    from payscope.app import launch as launch_module

    directory = _launch_env(tmp_path, monkeypatch)
    (tmp_path / "config").mkdir()
    (tmp_path / "config" / "profiles.toml").write_text(settings, encoding="utf-8")
    try:
        launch_module.spawn_at_launch(profile, None)
        assert launch_module._spawned_at_launch is None
        assert not directory.exists()
    finally:
        launch_module._spawned_at_launch = None
        daemon.stop(directory)


async def test_a_runtime_attaches_gets_webhooks_and_quits_without_losing_anything(
    tmp_path: Path,
) -> None:
    from payscope.api.models.payments import PaymentCreateRequest
    from payscope.app.runtime import Runtime
    from payscope.app.runtime.options import RuntimeOptions

    data = tmp_path / "data"
    directory = data / "sandbox"

    def options() -> RuntimeOptions:
        return RuntimeOptions(
            profile=None,
            seed=10,
            theme=None,
            allow_production=False,
            config_dir=tmp_path / "config",
            data_dir=data,
            user_theme_dir=None,
            daemon=True,
        )

    first = Runtime(options())
    try:
        await first.start()
        assert first.sandbox is None and first.daemon_dir == directory  # not in this process
        state = daemon.read_state(directory)
        assert state is not None and first.base_url == state.url
        assert first.has_local_sandbox and first.credentials.api_key.startswith("snd_")
        body = {
            "amount": 1234,
            "currency": "USD",
            "confirm": True,
            "payment_method": "card",
            "payment_method_type": "credit",
            "payment_method_data": {
                "card": {
                    "card_number": "4242424242424242",
                    "card_exp_month": "12",
                    "card_exp_year": "2031",
                    "card_cvc": "123",
                }
            },
            "billing": {"address": {"line1": "1 Street", "city": "Town", "country": "US"}},
        }
        made = await first.api.payments.create(PaymentCreateRequest.model_validate(body))
        # Its webhook reaches this run's listener, verified, and is journaled at once.
        await until(lambda: first.journal.count() > 0, "the webhook journaled")
        moved = await first.api.sandbox.advance_clock(3600)
        assert moved
        first.forget_clock()
        assert first.now() > time.time() + 3500  # the background sandbox's clock, read back
    finally:
        await first.stop()
    assert daemon.read_state(directory) is not None  # it outlives the run

    again = Runtime(options())
    try:
        await again.start()
        assert again.base_url == first.base_url  # same port, same keys: copied curls still run
        assert (await again.api.payments.retrieve(made.payment_id)).amount == 1234
        assert again.journal.count() >= 1  # what arrived before quitting is still there
    finally:
        await again.stop()
        daemon.stop(directory)


async def test_the_webhook_control_takes_back_only_its_own_url(raw: httpx.AsyncClient) -> None:
    first, second = "http://127.0.0.1:1/webhooks", "http://127.0.0.1:2/webhooks"
    set_first = await raw.post("/_sandbox/webhook", json={"url": first})
    assert set_first.json() == {"url": first, "listeners": []}
    assert (await raw.post("/_sandbox/webhook", json={"url": second})).json()["url"] == second
    # The profile's one URL: taken back only while it is still that one.
    kept = await raw.post("/_sandbox/webhook", json={"url": None, "if_url": first})
    assert kept.json()["url"] == second
    gone = await raw.post("/_sandbox/webhook", json={"url": None, "if_url": second})
    assert gone.json()["url"] is None
    for bad in (
        {"url": "ftp://x"},
        {"url": 5},
        {},
        {"attach": None},
        {"detach": "ftp://x"},
        {"attach": first, "url": "nope"},  # nothing changes when one field is wrong
    ):
        refused = await raw.post("/_sandbox/webhook", json=bad)
        assert refused.status_code == 400, bad
        assert refused.json()["error"]["code"] in ("IR_01", "IR_04")
    assert (await raw.post("/_sandbox/webhook", json={"url": None})).json()["listeners"] == []


async def test_listeners_attach_beside_each_other_and_detach_alone(raw: httpx.AsyncClient) -> None:
    first, second = "http://127.0.0.1:1/webhooks", "http://127.0.0.1:2/webhooks"
    assert (await raw.post("/_sandbox/webhook", json={"attach": first})).json()["listeners"] == [
        first
    ]
    both = await raw.post("/_sandbox/webhook", json={"attach": second})
    assert both.json() == {"url": None, "listeners": [first, second]}
    again = await raw.post("/_sandbox/webhook", json={"attach": first})  # attached once
    assert again.json()["listeners"] == [first, second]
    left = await raw.post("/_sandbox/webhook", json={"detach": first})
    assert left.json()["listeners"] == [second]
    unknown = await raw.post("/_sandbox/webhook", json={"detach": first})
    assert unknown.status_code == 200 and unknown.json()["listeners"] == [second]


def test_the_collector_is_paused_until_it_serves_then_frozen_and_back(tmp_path: Path) -> None:
    # Its imports (FastAPI, pydantic, the models) ran 118 collections over objects that live as
    # long as the process: paused until it serves, then set aside (tui/payscope/core/gc_pause.py).
    code = (
        "import gc, signal, sys\n"
        "from payscope.sandbox import daemon\n"
        "start_on, write = daemon.start_on, daemon._write_state\n"
        "async def watched(sandbox, port):\n"
        "    print('starting, collector on:', gc.isenabled(), flush=True)\n"
        "    return await start_on(sandbox, port)\n"
        "def written(directory, state):\n"
        "    write(directory, state)\n"
        "    if state.phase == 'ready':\n"
        "        print('ready, collector on:', gc.isenabled(), gc.get_freeze_count() > 0,"
        " flush=True)\n"
        "        signal.raise_signal(signal.SIGTERM)\n"
        "daemon.start_on, daemon._write_state = watched, written\n"
        f"sys.exit(daemon.main(['--data', {str(tmp_path / 'sandbox')!r}]))\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=HANG)
    # Stopped by the SIGTERM it sent itself (before or after its handlers are installed).
    assert out.returncode in (0, -signal.SIGTERM), out.stderr
    assert "starting, collector on: False" in out.stdout
    assert "ready, collector on: True True" in out.stdout


def test_the_launch_module_loads_nothing_heavy() -> None:
    # `payscope` spawns a first run's sandbox before any heavier import: whatever
    # payscope.app.launch loads delays the sandbox's start, and so the live page, by as much.
    from tests.fresh import modules_loaded

    heavy = ("asyncio", "textual", "payscope.app.runtime", "payscope.sandbox.daemon", "sqlite3")
    assert modules_loaded("import payscope.app.launch", (*heavy, "pydantic")) == []
