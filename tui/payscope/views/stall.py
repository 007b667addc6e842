"""A read the service does not answer: said on the screen that waits for it (issue 38).

A sandbox that hangs (stopped with SIGSTOP, a debugger, a full swap) or a remote that accepts
connections and never answers leaves every read waiting. The client gives up on an attempt
after its timeout, and retries reads, so a screen could say "loading…" for minutes. Lists and
detail screens (tui/payscope/views/listing.py, tui/payscope/views/detail.py), forms
(tui/payscope/views/forms.py) and the
service's delivery history read through one `StallWatch` each:
once a read has waited the client's own timeout, the screen says so, with how to retry; the
note goes as soon as that read ends (answered, failed or replaced by a retry).
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Iterator
from typing import Any


def stall_text(seconds: float, local: bool, then: str) -> str:
    """What a screen says of a read with no answer for `seconds`; `then`: how to retry."""
    who = "the local sandbox" if local else "the service"
    return f"no answer from {who} in {seconds:.0f} s (stopped or hung?) · {then}"


class StallWatch:
    """Arms a timer for each read; calls `said(text)` when the read outlives the client's
    timeout, and `said(None)` when a read that was said to stall ends."""

    def __init__(self, node: Any, said: Callable[[str | None], None], then: str) -> None:
        self.node = node  # a Textual node: its `set_timer` and the app's runtime
        self.said = said
        self.then = then  # how to retry, as the screen's keys say it
        self.stalled = False
        self._timer: Any = None
        self._reads = 0

    def begin(self) -> int:
        """A read starts; returns its number (for `end`)."""
        self._reads += 1
        self._stop_timer()
        runtime = self.node.app.runtime
        client = getattr(runtime, "client", None)
        if client is not None:
            seconds = float(client.timeout)
            local = bool(runtime.options.is_local)
            text = stall_text(seconds, local, self.then)
            self._timer = self.node.set_timer(seconds, lambda: self._stall(text))
        return self._reads

    def end(self, read: int) -> None:
        """Read number `read` ended; only the latest one's end clears the note."""
        if read != self._reads:
            return
        self._stop_timer()
        if self.stalled:
            self.stalled = False
            self.said(None)

    @contextlib.contextmanager
    def watching(self) -> Iterator[None]:
        """`begin` and `end` around one read."""
        read = self.begin()
        try:
            yield
        finally:
            self.end(read)

    def _stall(self, text: str) -> None:
        self._timer = None
        self.stalled = True
        self.said(text)

    def _stop_timer(self) -> None:
        if self._timer is not None:
            self._timer.stop()
            self._timer = None
