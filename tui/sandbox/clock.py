"""The sandbox clock: real time plus an offset that `/_sandbox/clock/advance` grows.

Every timestamp the sandbox writes comes from here, so advancing the clock makes
authorisations expire, refunds settle and webhook retries fall due exactly as if the time had
passed. The offset lives in the database, so it survives a restart.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from datetime import UTC, datetime


def iso(ts: float) -> str:
    """ISO 8601 with milliseconds and `Z`; fixed width, so strings sort like the times."""
    dt = datetime.fromtimestamp(ts, UTC)
    return dt.strftime("%Y-%m-%dT%H:%M:%S.") + f"{dt.microsecond // 1000:03d}Z"


def parse_iso(text: str) -> float:
    """Seconds since the epoch for an ISO 8601 string (naive means UTC)."""
    dt = datetime.fromisoformat(text.replace("Z", "+00:00").replace("z", "+00:00"))
    if dt.tzinfo is None:
        dt = dt.replace(tzinfo=UTC)
    return dt.timestamp()


def iso_of(dt: datetime) -> str:
    """`iso()` for a datetime (naive means UTC)."""
    if dt.tzinfo is None:
        dt = dt.replace(tzinfo=UTC)
    return iso(dt.timestamp())


class Clock:
    """`now()` = the real clock (injectable for tests) + `offset` seconds."""

    def __init__(self, offset: float = 0.0, source: Callable[[], float] | None = None) -> None:
        self.offset = offset
        self._source = source or time.time

    def now(self) -> float:
        """Sandbox time, seconds since the epoch."""
        return self._source() + self.offset

    def now_iso(self) -> str:
        """Sandbox time as an ISO 8601 string."""
        return iso(self.now())
