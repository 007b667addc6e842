"""The cyclic garbage collector paused from launch to the first frame (standard library only).

Until the first frame nearly every object made lives as long as the app: modules, styles,
widgets. The collector's passes over them find no garbage, yet they cost the first paint about
25 ms (76 collections, measured 2026-11-26, most of them while Textual and asyncio import).
`payscope` pauses it first thing (`tui.cli`), before those imports; the app resumes it once the
shell is on screen. Textual pauses it during smooth scrolling for the same reason.
"""

from __future__ import annotations

import gc

_paused = False


def pause() -> None:
    """Stop the collector until `resume` (nothing happens if it was off already)."""
    global _paused
    if gc.isenabled():
        gc.disable()
        _paused = True


def resume() -> None:
    """Start the collector again if `pause` stopped it."""
    global _paused
    if _paused:
        _paused = False
        gc.enable()
