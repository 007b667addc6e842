"""Broken files in the sandbox's data dir (issue 30, section 4): one clear message with the
path and what to do, never a traceback; and a sandbox that starts afresh says so and why."""

from __future__ import annotations

import os
import shlex
import subprocess
import sys
from pathlib import Path

import pytest

from payscope.sandbox import daemon
from payscope.sandbox.files import DB_FILE
from tests.daemons import daemon_runtime
from tests.waits import HANG


def _sound_database(directory: Path) -> bytes:
    """The bytes of a real sandbox database with its keys (made by a real sandbox)."""
    from payscope.sandbox.config import SandboxConfig
    from payscope.sandbox.server import Sandbox

    sandbox = Sandbox(SandboxConfig(data_dir=directory))
    sandbox.state.db.conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    sandbox.state.db.conn.close()
    return (directory / DB_FILE).read_bytes()


@pytest.fixture(params=["random", "truncated"])
def damaged(request: pytest.FixtureRequest, tmp_path: Path) -> Path:
    directory = tmp_path / "sandbox"
    if request.param == "random":
        directory.mkdir()
        (directory / DB_FILE).write_bytes(os.urandom(49152))
    else:
        whole = _sound_database(tmp_path / "made")
        directory.mkdir()
        (directory / DB_FILE).write_bytes(whole[: len(whole) // 2])
    return directory


def test_payscope_sandbox_on_a_damaged_database_says_where_and_what_to_do(damaged: Path) -> None:
    before = (damaged / DB_FILE).read_bytes()
    done = subprocess.run(
        [sys.executable, "-m", "payscope", "sandbox", "--data", str(damaged), "--port", "0"],
        capture_output=True,
        text=True,
        timeout=HANG,
    )
    assert done.returncode == 1
    assert "Traceback" not in done.stderr
    path = damaged / DB_FILE
    assert f"The sandbox's database {path} is damaged" in done.stderr
    assert f"mv {shlex.quote(str(path))} {shlex.quote(f'{path}.damaged')}" in done.stderr
    assert path.read_bytes() == before  # nothing was changed or lost


async def test_the_tui_says_why_its_sandbox_did_not_start(damaged: Path, tmp_path: Path) -> None:
    from payscope.app.runtime.connection import StartupError
    from payscope.widgets.errors import describe_error

    data = damaged.parent
    runtime = daemon_runtime(tmp_path, data)
    try:
        with pytest.raises(StartupError) as failed:
            await runtime.start()
    finally:
        await runtime.stop()
        daemon.stop(damaged)
    title, message = describe_error(failed.value)
    assert title == "Could not start"
    assert message.startswith("The local sandbox did not start: The sandbox's database")
    assert "is damaged" in message and "Move it aside" in message
    assert "try again" not in message and "request log" not in message  # advice that fits


async def test_an_empty_database_starts_afresh_and_says_so(tmp_path: Path) -> None:

    data = tmp_path / "data"
    (data / "sandbox").mkdir(parents=True)
    (data / "sandbox" / DB_FILE).write_bytes(b"")
    runtime = daemon_runtime(tmp_path, data)
    try:
        await runtime.start()
        merchant = runtime.credentials.merchant_id
        (said,) = [n for n in runtime.notices if "was empty (0 bytes)" in n]
        assert str(data / "sandbox" / DB_FILE) in said and merchant in said
        assert "curl commands copied before no longer work" in said
    finally:
        await runtime.stop()
    # The next start is an ordinary one: nothing to say.
    again = daemon_runtime(tmp_path, data)
    try:
        daemon.stop(data / "sandbox")
        await again.start()
        assert again.credentials.merchant_id == merchant
        assert not [n for n in again.notices if "0 bytes" in n]
    finally:
        await again.stop()
        daemon.stop(data / "sandbox")


def test_the_foreground_sandbox_says_it_started_afresh(tmp_path: Path) -> None:
    (tmp_path / DB_FILE).write_bytes(b"")
    process = subprocess.Popen(
        [sys.executable, "-m", "payscope", "sandbox", "--data", str(tmp_path), "--port", "0"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        assert process.stderr is not None
        line = process.stderr.readline()
        assert line.startswith("note: The sandbox's database") and "was empty (0 bytes)" in line
    finally:
        process.terminate()
        process.communicate(timeout=HANG)
