"""The command line's twins of Stripe's (issue 42) run as users run them: `payscope ...` in a
subprocess, on the embedded sandbox (the background one, started by the first command) and on a
remote profile, "box": another `payscope sandbox` on loopback, started here."""

from __future__ import annotations

import os
import re
import signal
import subprocess
import sys
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

from payscope.core import config, paths
from tests.sandbox.conftest import API_KEY
from tests.waits import HANG

ROOT = Path(__file__).resolve().parents[2]
MERCHANT = "merchant_box"
PROFILE_ID = "pro_box"


def payscope(
    *args: str, stdin: str | None = None, env: dict[str, str] | None = None, timeout: float = HANG
) -> subprocess.CompletedProcess[str]:
    """`payscope ARGS` run to its end (its output decoded)."""
    return subprocess.run(
        [sys.executable, "-m", "payscope", *args],
        cwd=ROOT,
        input=stdin,
        capture_output=True,
        text=True,
        timeout=timeout,
        check=False,
        env={**os.environ, **(env or {})},
    )


def spawn(*args: str, env: dict[str, str] | None = None) -> subprocess.Popen[str]:
    """A long-running `payscope ARGS` (the caller stops it)."""
    return subprocess.Popen(
        [sys.executable, "-m", "payscope", *args],
        cwd=ROOT,
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env={**os.environ, "PYTHONUNBUFFERED": "1", **(env or {})},
    )


def stop(proc: subprocess.Popen[str]) -> None:
    """Stop a process this test started (by its own handle), however it is doing."""
    if proc.poll() is None:
        proc.send_signal(signal.SIGINT)
        try:
            proc.wait(20)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait(HANG)


@dataclass
class Remote:
    url: str
    proc: subprocess.Popen[str]
    publishable_key: str


@pytest.fixture
def remote(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Remote]:
    """`payscope sandbox` on a free loopback port, and the profile "box" that names it (its
    key in PAYSCOPE_API_KEY: the commands' subprocesses inherit both)."""
    proc = spawn(
        "sandbox",
        "--port",
        "0",
        "--data",
        str(tmp_path / "remote"),
        "--merchant-id",
        MERCHANT,
        "--profile-id",
        PROFILE_ID,
        env={"PAYSCOPE_SANDBOX_API_KEY": API_KEY},
    )
    try:
        assert proc.stdout is not None
        banner = ""
        for line in proc.stdout:
            banner += line
            if "Ctrl+C" in line:
                break
        found = re.search(r"listening on (http://\S+)", banner)
        publishable = re.search(r"publishable key\s+(\S+)", banner)
        assert found and publishable, (
            f"no sandbox: {banner}{proc.stderr.read() if proc.stderr else ''}"
        )
        url = found.group(1)
        settings = config.add_profile(
            config.load_settings(),
            config.Profile(
                name="box",
                base_url=url,
                merchant_id=MERCHANT,
                profile_id=PROFILE_ID,
                contract="spec",
            ),
        )
        config.save_settings(settings)
        monkeypatch.setenv("PAYSCOPE_API_KEY", API_KEY)
        yield Remote(url, proc, publishable.group(1))
    finally:
        stop(proc)


@pytest.fixture
def embedded() -> Iterator[Path]:
    """The data directory of the embedded sandbox the commands start in the background (seeded
    with nothing: `--seed 0`); it is stopped afterwards."""
    from payscope.sandbox import daemon

    data = paths.data_dir()
    try:
        yield data
    finally:
        daemon.stop(data / "sandbox")


def no_traceback(done: subprocess.CompletedProcess[str]) -> None:
    assert "Traceback" not in done.stderr and "Traceback" not in done.stdout, done.stderr
