"""Waiting for a background sandbox (tui/sandbox/daemon.py) started by a test."""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

from tui.sandbox import daemon


def wait_ready(directory: Path, timeout: float = 30.0) -> daemon.DaemonState:
    """The daemon's state once it serves; fails with its log when it does not in `timeout` s."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        state = daemon.read_state(directory)
        if state is not None and state.phase == "ready":
            return state
        time.sleep(0.02)
    raise AssertionError(f"no ready daemon; log:\n{daemon.log_tail(directory)}")


def daemon_runtime(tmp_path: Path, data: Path) -> Any:
    """A runtime of the local profile on the background sandbox of `data`, as `payscope` runs."""
    from tui.runtime import Runtime, RuntimeOptions

    return Runtime(
        RuntimeOptions(
            profile=None,
            seed=0,
            theme=None,
            allow_production=False,
            config_dir=tmp_path / "config",
            data_dir=data,
            user_theme_dir=None,
            daemon=True,
        )
    )
