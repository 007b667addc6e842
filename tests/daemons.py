"""Waiting for a background sandbox (tui/sandbox/daemon.py) started by a test."""

from __future__ import annotations

import time
from pathlib import Path

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
