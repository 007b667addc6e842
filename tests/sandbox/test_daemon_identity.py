"""Who the background sandbox is (tui/payscope/sandbox/files.py, tui/payscope/sandbox/daemon.py),
as real
processes: a pid read from `daemon.json` is never signalled unless that process proves it is
this data dir's daemon; a lying or malformed state file is reported and ignored; and one daemon
serves a data dir, however many payscopes start at once (issue 30, sections 1 and 2)."""

from __future__ import annotations

import asyncio
import fcntl
import json
import os
import subprocess
import sys
import textwrap
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from payscope.sandbox import daemon, files
from tests.daemons import wait_ready
from tests.waits import HANG, until_sync


@pytest.fixture
def directory(tmp_path: Path) -> Iterator[Path]:
    path = tmp_path / "data" / "sandbox"
    path.mkdir(parents=True)
    yield path
    daemon.stop(path)  # never leave one behind


@pytest.fixture
def bystander() -> Iterator[subprocess.Popen[bytes]]:
    """An unrelated process of this user: it must never receive a signal from payscope."""
    process = subprocess.Popen(["sleep", "600"])
    yield process
    process.kill()
    process.wait()


def _cli(directory: Path, action: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "payscope", "sandbox", action],
        capture_output=True,
        text=True,
        env={**os.environ, "PAYSCOPE_DATA_DIR": str(directory.parent)},
        timeout=HANG,
    )


def _write(directory: Path, text: str) -> None:
    (directory / files.STATE_FILE).write_text(text, encoding="utf-8")


def _survives(process: subprocess.Popen[bytes]) -> bool:
    time.sleep(0.2)
    return process.poll() is None


def test_stop_never_signals_a_process_a_stale_state_file_names(
    directory: Path, bystander: subprocess.Popen[bytes]
) -> None:
    # The reproduction: a file left by a kill -9 or a reboot, its pid now another's.
    _write(
        directory,
        json.dumps({"pid": bystander.pid, "url": "http://127.0.0.1:1", "phase": "ready"}),
    )
    stopped = _cli(directory, "stop")
    assert stopped.returncode == 0, stopped.stderr
    assert "No background sandbox is running" in stopped.stdout
    assert f"names pid {bystander.pid}" not in stopped.stderr  # no "started": malformed
    assert 'it has no "started"' in stopped.stderr and "nothing was signalled" in stopped.stderr
    assert _survives(bystander)
    # Even with its real start time and the lock held by someone: it is not the daemon.
    started = files.start_time(bystander.pid)
    assert started is not None
    _write(
        directory,
        json.dumps({"pid": bystander.pid, "url": "", "phase": "ready", "started": started}),
    )
    unlocked = _cli(directory, "stop")
    assert "no sandbox daemon holds its lock" in unlocked.stderr
    lock = files.take_lock(directory)
    assert lock is not None
    try:
        assert daemon.read_state(directory) is None
        locked = _cli(directory, "stop")
        assert f"names pid {bystander.pid}" in locked.stderr
        assert "not a payscope sandbox daemon of this directory (it runs sleep 600)" in (
            locked.stderr
        )
        assert "nothing was signalled" in locked.stderr
        assert not daemon.stop(directory)
    finally:
        os.close(lock)
    assert _survives(bystander)


@pytest.mark.parametrize("pid", [-1, 0, 1])
def test_a_pid_of_one_or_less_is_refused(directory: Path, pid: int) -> None:
    # -1 would address every process of this user, 0 the caller's own group, 1 init. Only the
    # checks are run with them here: a regression must not take the machine down with it.
    _write(directory, json.dumps({"pid": pid, "url": "", "phase": "ready", "started": "1"}))
    lock = files.take_lock(directory)  # the lock alone proves nothing either
    assert lock is not None
    try:
        found, problem = daemon.check(directory)
        assert found is None
        assert f'"pid" is {pid}: a sandbox daemon never has a pid of 1 or less' in problem
        assert files.identity_problem(pid, directory, "1") == "is 1 or less"
        assert not files.alive(pid)
        assert files.serving_pid(directory) is None
        if pid == 0:
            # `payscope sandbox stop` in a session of its own: had it signalled its own group,
            # it would have died of it (and nothing else would have).
            stopped = subprocess.run(
                [sys.executable, "-m", "payscope", "sandbox", "stop"],
                capture_output=True,
                text=True,
                env={**os.environ, "PAYSCOPE_DATA_DIR": str(directory.parent)},
                timeout=HANG,
                start_new_session=True,
            )
            assert stopped.returncode == 0 and "nothing was signalled" in stopped.stderr
            assert "Traceback" not in stopped.stderr
    finally:
        os.close(lock)


@pytest.mark.parametrize(
    "text, said",
    [
        ('{"pid":"abc","url":5,"phase":"ready"}', '"pid" is str, not int'),
        ('{"pid": 4242, "url": 5, "phase": "ready", "started": "1"}', '"url" is int, not str'),
        ('{"pid": 4242, "url": "", "phase": "serving", "started": "1"}', '"phase" is'),
        (
            '{"pid": 4242, "url": "http://evil.test:1", "phase": "ready", "started": "1"}',
            "loopback",
        ),
        ("{not json", "is not valid JSON"),
        ("[4242]", "is not a JSON object"),
        ("", "is not valid JSON"),
    ],
)
def test_a_malformed_state_file_is_reported_with_its_path_never_a_traceback(
    directory: Path, text: str, said: str
) -> None:
    _write(directory, text)
    for action, code in (("status", 3), ("stop", 0)):
        done = _cli(directory, action)
        assert done.returncode == code, done.stderr
        assert "Traceback" not in done.stderr
        assert f"ignoring {directory / files.STATE_FILE}" in done.stderr and said in done.stderr
    assert daemon.check(directory)[0] is None


def test_a_live_daemon_is_not_taken_for_another_data_dirs(directory: Path, tmp_path: Path) -> None:
    """A state file naming a real daemon of another data dir, with its true start time, is
    refused: the daemon's command line names its own data dir."""
    pid = daemon.spawn(directory, seed=2)
    state = wait_ready(directory)
    other = tmp_path / "other" / "sandbox"
    other.mkdir(parents=True)
    (other / files.STATE_FILE).write_text((directory / files.STATE_FILE).read_text())
    lock = files.take_lock(other)
    assert lock is not None
    try:
        found, problem = daemon.check(other)
        assert found is None and "not a payscope sandbox daemon of this directory" in problem
        assert not daemon.stop(other)
        # ... nor a file whose start time is not the process's (a pid reused since).
        data = json.loads((directory / files.STATE_FILE).read_text())
        (other / files.STATE_FILE).write_text(json.dumps({**data, "started": "1"}))
        assert not daemon.stop(other)
    finally:
        os.close(lock)
    assert files.alive(pid) and daemon.read_state(directory) == state
    # Its own data dir's stop does stop it, and removes its file.
    assert daemon.stop(directory)
    assert not files.alive(pid) and not (directory / files.STATE_FILE).exists()
    assert not files.lock_held(directory)


def test_a_daemon_killed_hard_leaves_a_file_that_is_ignored(directory: Path) -> None:
    pid = daemon.spawn(directory, seed=1)
    wait_ready(directory)
    os.kill(pid, 9)
    until_sync(lambda: not files.alive(pid), "the killed daemon gone")
    assert (directory / files.STATE_FILE).exists()  # left behind, as after a kill -9
    found, problem = daemon.check(directory)
    # Ignored either way: its lock is free, or (caught while the kernel lets go of it) its pid
    # runs nothing.
    assert found is None
    assert "no sandbox daemon holds its lock" in problem or "is not running" in problem
    # The next start takes the data dir over.
    again = daemon.spawn(directory)
    assert wait_ready(directory).pid == again


def test_a_second_daemon_on_the_same_data_leaves_and_the_first_keeps_serving(
    directory: Path,
) -> None:
    first = daemon.spawn(directory, seed=1)
    state = wait_ready(directory)
    second = subprocess.run(
        [sys.executable, "-m", "payscope.sandbox.daemon", "--data", str(directory)],
        capture_output=True,
        text=True,
        timeout=HANG,
    )
    assert second.returncode == 0
    assert "another daemon holds" in second.stdout and "this one leaves" in second.stdout
    assert daemon.read_state(directory) == state and files.alive(first)


def test_a_lock_file_removed_under_a_daemon_stops_it(directory: Path) -> None:
    """Its lock file gone (its data dir deleted, say), another daemon could take a new one:
    so it stops, rather than serve beside it."""
    pid = daemon.spawn(directory)
    wait_ready(directory)
    (directory / files.LOCK_FILE).unlink()
    until_sync(lambda: not files.alive(pid), "the daemon to exit")
    assert "its state or lock file went" in daemon.log_tail(directory)


async def test_waiting_for_a_seeding_daemon_has_a_deadline_that_does_not_reset(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from payscope.app.runtime import startup

    directory = tmp_path / "sandbox"
    pid = daemon.spawn(directory, seed=100_000)  # seeds for far longer than the limit
    monkeypatch.setattr(startup, "START_LIMIT", 1.0)
    monkeypatch.setattr(startup, "SEED_LIMIT_EACH", 0.00002)  # 2 s for 100,000
    seen: list[str] = []
    try:
        while (state := daemon.read_state(directory)) is None or state.phase != "seeding":
            assert files.alive(pid), daemon.log_tail(directory)
            await asyncio.sleep(0.02)
        began = time.monotonic()
        with pytest.raises(RuntimeError, match="did not get ready within") as failed:
            await startup.wait_ready(directory, lambda text, _f: seen.append(text), pid)
        waited = time.monotonic() - began
        assert any("seeding demo data" in text for text in seen)  # progress was seen...
        assert 2.5 < waited < 8  # ... and did not push the deadline of 1 + 2 s on
        assert "payscope sandbox stop" in str(failed.value)
    finally:
        daemon.stop(directory)


# -- many payscopes at once -------------------------------------------------------------------

PAYSCOPE = textwrap.dedent(
    """
    import asyncio, json, sys
    from pathlib import Path
    from payscope.app import launch
    from payscope.app.runtime import Runtime
    from payscope.app.runtime.options import RuntimeOptions

    data = Path(sys.argv[1])

    async def main():
        launch.spawn_at_launch(None, 20)  # what `payscope` does before importing Textual
        options = RuntimeOptions.build(
            profile=None, seed=20, theme=None, allow_production=False,
            config_dir=None, data_dir=None, sandbox_options={},
        )
        options.daemon = True
        runtime = Runtime(options)
        runtime.spawn_early()
        await runtime.start()
        try:
            page = await runtime.api.payments.list()
            print(json.dumps({"url": runtime.base_url, "total": page.total_count}), flush=True)
        finally:
            await runtime.stop()

    asyncio.run(main())
    """
)


def _payscopes_at_once(tmp_path: Path, count: int) -> list[dict[str, object]]:
    env = {
        **os.environ,
        "PAYSCOPE_DATA_DIR": str(tmp_path / "data"),
        "PAYSCOPE_CONFIG_DIR": str(tmp_path / "config"),
    }
    runs = [
        subprocess.Popen(
            [sys.executable, "-c", PAYSCOPE, str(tmp_path / "data")],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            env=env,
        )
        for _ in range(count)
    ]
    said = []
    for run in runs:
        out, err = run.communicate(timeout=HANG)
        assert run.returncode == 0, err
        said.append(json.loads(out.strip().splitlines()[-1]))
    return said


@pytest.mark.slow
@pytest.mark.parametrize("count", [2, 3, 5])
def test_payscopes_started_together_share_one_daemon_cold_and_warm(
    tmp_path: Path, count: int
) -> None:
    directory = tmp_path / "data" / "sandbox"
    try:
        cold = _payscopes_at_once(tmp_path, count)
        state = daemon.read_state(directory)
        assert state is not None
        assert all(run == {"url": state.url, "total": 20} for run in cold), cold
        warm = _payscopes_at_once(tmp_path, count)  # the daemon serves: all attach to it
        assert daemon.read_state(directory) == state
        assert all(run == {"url": state.url, "total": 20} for run in warm), warm
        # Stopped, then started together again: the remembered port is kept.
        assert daemon.stop(directory)
        again = _payscopes_at_once(tmp_path, count)
        restarted = daemon.read_state(directory)
        assert restarted is not None and restarted.url == state.url
        assert all(run == {"url": state.url, "total": 20} for run in again), again
        # One daemon served each time (cold, then restarted); every other one started at once
        # took no data dir and left.
        log = daemon.log_tail(directory, 10_000)
        assert log.count(" serving http://") == 2, log
    finally:
        daemon.stop(directory)


def test_check_state_on_an_unreadable_lock_dir_says_nothing_is_held(tmp_path: Path) -> None:
    assert not files.lock_held(tmp_path / "missing")
    assert files.check_state(tmp_path / "missing") == files.StateCheck(None)
    fd = os.open(tmp_path / files.LOCK_FILE, os.O_CREAT | os.O_RDWR, 0o600)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX)
        assert files.lock_held(tmp_path)
        assert files.take_lock(tmp_path) is None
    finally:
        os.close(fd)
    assert not files.lock_held(tmp_path)
