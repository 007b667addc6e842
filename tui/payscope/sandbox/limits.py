"""Rate limits (fixed one-minute windows per key, real time) and seeded fault injection.

Windows are kept for the sandbox's real keys only, plus `FAILED_AUTH`, one window shared by
every request whose key was missing or refused: a client presenting endless made-up keys
neither grows this table nor gets a fresh window per key.
"""

from __future__ import annotations

import random
import time
from collections.abc import Callable

UNLIMITED_HEADER = 1_000_000_000

# "drop": the connection is closed before the request is processed; "lost": the request is
# processed and committed, then the connection is closed before a byte of the answer is sent.
FAULT_KINDS = ("500", "502", "503", "429", "drop", "lost")

# The window shared by failed authentications (no key of the sandbox is spelled so).
FAILED_AUTH = "failed authentication"


class RateLimiter:
    """`hit(key)` -> (allowed, limit, remaining, reset unix time). `limit` 0 = unlimited."""

    def __init__(self, limit: int, source: Callable[[], float] = time.time) -> None:
        self.limit = limit
        self._source = source
        self._windows: dict[str, tuple[int, int]] = {}

    def __len__(self) -> int:
        """How many windows are held (one per real key seen this minute, plus failures)."""
        return len(self._windows)

    def hit(self, key: str) -> tuple[bool, int, int, int]:
        """Count one request for `key` in the current minute."""
        now = self._source()
        window = int(now // 60)
        reset = (window + 1) * 60
        if self.limit <= 0:
            return True, UNLIMITED_HEADER, UNLIMITED_HEADER, reset
        seen_window, count = self._windows.get(key, (window, 0))
        if seen_window != window:
            count = 0
            if len(self._windows) > 10_000:
                self._windows.clear()
        if count >= self.limit:
            return False, self.limit, 0, reset
        count += 1
        self._windows[key] = (window, count)
        return True, self.limit, self.limit - count, reset

    def retry_after(self, reset: int) -> int:
        """Whole seconds from now until `reset` (a `hit`'s reset time), at least 1: the
        `Retry-After` of a 429, never later than the reset it goes with."""
        return max(1, reset - int(self._source()))


class Faults:
    """Decides, request by request, whether to inject a fault. Same seed, same sequence."""

    def __init__(self, rate: float, seed: int) -> None:
        self.rate = rate
        self._rng = random.Random(seed)

    def draw(self) -> str | None:
        """None (answer normally) or one of `FAULT_KINDS`."""
        if self.rate <= 0.0:
            return None
        if self._rng.random() >= self.rate:
            return None
        return self._rng.choice(FAULT_KINDS)
