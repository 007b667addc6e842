"""The sandbox clock: real time plus an offset that `/_sandbox/clock/advance` grows.

Every timestamp the sandbox writes comes from here, so advancing the clock makes
authorisations expire, refunds settle and webhook retries fall due exactly as if the time had
passed. The offset lives in the database, so it survives a restart.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from datetime import UTC, datetime

_last_second: list[object] = [None, ""]

# The latest moment the sandbox clock may reach: far enough from year 9999 (the last one ISO
# text can hold) that expiries and renewals computed from it still fit.
LATEST = datetime(9000, 1, 1, tzinfo=UTC).timestamp()


def iso(ts: float) -> str:
    """ISO 8601 with milliseconds and `Z`; fixed width, so strings sort like the times."""
    second = int(ts // 1)
    micros = round((ts - second) * 1_000_000)  # rounded like datetime.fromtimestamp
    if micros >= 1_000_000:
        second, micros = second + 1, micros - 1_000_000
    millis = micros // 1000
    # Requests arrive many per second: format the date-time part once per second.
    if _last_second[0] != second:
        prefix = datetime.fromtimestamp(second, UTC).strftime("%Y-%m-%dT%H:%M:%S.")
        _last_second[0], _last_second[1] = second, prefix
    return f"{_last_second[1]}{millis:03d}Z"


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
