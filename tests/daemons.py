"""Waiting for a background sandbox (tui/payscope/sandbox/daemon.py) started by a test."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from payscope.sandbox import daemon
from tests.waits import until_sync


def wait_ready(directory: Path) -> daemon.DaemonState:
    """The daemon's state once it serves; fails with its log when it hangs."""

    def ready() -> daemon.DaemonState | None:
        state = daemon.read_state(directory)
        return state if state is not None and state.phase == "ready" else None

    found: daemon.DaemonState = until_sync(
        ready, "a ready daemon", detail=lambda: f"log:\n{daemon.log_tail(directory)}"
    )
    return found


def daemon_runtime(tmp_path: Path, data: Path) -> Any:
    """A runtime of the local profile on the background sandbox of `data`, as `payscope` runs."""
    from payscope.app.runtime import Runtime
    from payscope.app.runtime.options import RuntimeOptions

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
