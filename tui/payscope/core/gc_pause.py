"""The cyclic garbage collector paused from launch until the app is up (standard library only).

Until the client is up nearly every object made lives as long as the app: modules, styles,
widgets, then the client's and the listener's modules, imported in a thread after the first
frame. The collector's passes over them find no garbage, yet they delay the first paint and the
client's start (most passes run while Textual and asyncio import; the start-up figures are
`bench/startup.py`'s, in `bench/results/startup.json`). `payscope`
pauses it first thing (`payscope.cli`), before those imports; the app resumes it, frozen
(`gc.freeze`), once its runtime is up, or 3 s after the first frame while a first run's
seeding goes on. Textual pauses it during smooth scrolling for the same reason.

The background sandbox (`payscope.sandbox.daemon`), `payscope sandbox` and `payscope listen` do the
same from their launch until they serve: the sandbox's imports (FastAPI, pydantic and the
models) would otherwise run the collector again and again in a first run's start.
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


def resume(*, freeze: bool = False) -> None:
    """Start the collector again if `pause` stopped it. With `freeze`, what was made so far is
    set aside for good first (`gc.freeze`): a long-running process's modules and set-up are
    never garbage, and full collections then skip them."""
    global _paused
    if _paused:
        _paused = False
        if freeze:
            gc.freeze()
        gc.enable()
