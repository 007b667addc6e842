"""The TUI and what starts it: the App (`payscope.app.app`), its runtime (`runtime`: the client,
the sandbox and the listener, with no Textual), the launch that starts a first run's background
sandbox before the heavier imports (`launch`) and the guard in front of `payscope serve`
(`serve_guard`).

Light on purpose: `launch` and `runtime` import no Textual, so neither does this package. The
App's names are here for `from payscope.app import PayscopeApp, make_app`, imported when first
asked for.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from payscope.app.app import PayscopeApp, exit_now, make_app, run_tui

__all__ = ["PayscopeApp", "exit_now", "make_app", "run_tui"]


def __getattr__(name: str) -> Any:
    if name in __all__:
        return getattr(importlib.import_module("payscope.app.app"), name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
