"""The app as snapshot and pilot tests build it: through `make_app`, with a test config."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from payscope.app import PayscopeApp, make_app
from payscope.core import gc_pause
from payscope.core.display import STABLE
from tests.tui.conftest import frozen_clock


def build(
    config_dir: Path, data_dir: Path, theme: str = "payscope-dark", **options: Any
) -> PayscopeApp:
    """A local-profile app on the copied sandbox, clock frozen, nothing that moves on screen.

    The garbage collector is paused first, as `payscope` pauses it at launch: the app resumes
    it once its runtime is up, with what was made so far frozen (tui/payscope/core/gc_pause.py),
    as a user's app does; the test's end lets that go (`collector_resumed`)."""
    gc_pause.pause()
    return make_app(
        theme=theme,
        config_dir=config_dir,
        data_dir=data_dir,
        display=STABLE,
        time_source=frozen_clock,
        **options,
    )


async def ready(pilot: Any) -> None:
    """Wait until start-up finished and the first page is on screen."""
    app = pilot.app
    await app.runtime.ready.wait()
    await app.workers.wait_for_complete()
    await pilot.pause()
