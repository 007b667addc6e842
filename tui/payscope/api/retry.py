"""When the client may send a request again, and how long it waits first.

The rule, by how safe a request is to repeat (`Replay`):

- `SAFE`: reads (GET, and the POST routes that only filter lists or compute analytics). Retried
  on 429, 500, 502, 503, connect errors, timeouts and dropped connections.
- `KEYED`: creations that carry the merchant's own id (a payment with `payment_id`, a refund with
  `refund_id`). The service recognises a repeat of the same id (`HE_01`), so they are retried
  like reads, and a repeat answered "duplicate" is resolved by reading the object (the caller
  sees exactly one payment or refund).
- `UNSAFE`: every other request that changes state (a payment created without `payment_id`,
  capture, confirm, cancel, approve, reject, payouts, updates, deletes...). Retried only when the
  service cannot have acted on it: the connection was never made (connect error or connect
  timeout, so the request was not sent), or the service answered 429 or 503, which it does
  before processing. A 500, 502, read timeout or dropped connection may hide a processed request,
  so those are raised to the caller, who should read the object before trying again.

Backoff is exponential with full jitter: before retry `n` (0-based) the client sleeps
`rng() * min(cap, base * 2**n)` seconds. An answer carrying `Retry-After` (seconds or an HTTP
date; the service puts it on every 429 and 503) waits that long instead: it is the service's
own word on when to come back, and may be much sooner than the window's reset (a throttle or
an outage of one second within a minute's window). A 429 without it but with
`X-RateLimit-Reset` waits until that Unix time. Attempts are bounded by `max_attempts`, and a
retry is not started when its wait would end after `max_retry_time` seconds from the first
attempt.
"""

from __future__ import annotations

import enum
import math
from collections.abc import Callable
from dataclasses import dataclass
from email.utils import parsedate_to_datetime

import httpx

RETRYABLE_STATUSES = frozenset({429, 500, 502, 503})
# Answers the service gives before it processes anything: safe to repeat any request.
UNPROCESSED_STATUSES = frozenset({429, 503})
# The methods that never change the service.
SAFE_METHODS = frozenset({"GET", "HEAD", "OPTIONS"})


class Replay(enum.Enum):
    """How safe a request is to send again (see the module docstring)."""

    SAFE = "safe"
    KEYED = "keyed"
    UNSAFE = "unsafe"


def writes(method: str, replay: Replay | None = None) -> bool:
    """Whether a call changes the service: any method but GET, HEAD and OPTIONS, unless the
    caller declared it a read (`Replay.SAFE`: the searches sent as POST, e.g. /payments/list)."""
    if method.upper() in SAFE_METHODS:
        return False
    return replay is not Replay.SAFE


def _never_sent(exc: httpx.TransportError) -> bool:
    # A connect error or connect/pool timeout means no byte of the request left this machine.
    return isinstance(exc, httpx.ConnectError | httpx.ConnectTimeout | httpx.PoolTimeout)


def _transient(exc: httpx.TransportError) -> bool:
    return isinstance(exc, httpx.NetworkError | httpx.TimeoutException | httpx.RemoteProtocolError)


def retry_after_seconds(value: str | None, now: float) -> float | None:
    """The wait a `Retry-After` header asks for, from `now` (a Unix time): delta-seconds or an
    HTTP date. None when absent or unreadable; a date in the past is 0."""
    if value is None:
        return None
    text = value.strip()
    if text.isdigit():
        return float(text)
    try:
        when = parsedate_to_datetime(text)
    except (TypeError, ValueError, IndexError):
        return None
    if when.tzinfo is None:  # an HTTP date is always GMT
        return None
    return max(0.0, when.timestamp() - now)


def may_retry_status(status: int, replay: Replay) -> bool:
    """Whether an answer with this HTTP status may be retried for a request of this kind."""
    if replay is Replay.UNSAFE:
        return status in UNPROCESSED_STATUSES
    return status in RETRYABLE_STATUSES


def may_retry_error(exc: httpx.TransportError, replay: Replay) -> bool:
    """Whether a transport failure may be retried for a request of this kind."""
    if replay is Replay.UNSAFE:
        return _never_sent(exc)
    return _transient(exc)


@dataclass(frozen=True)
class RetryPolicy:
    """Bounds and shape of the backoff (seconds)."""

    max_attempts: int = 4
    max_retry_time: float = 30.0
    base: float = 0.5
    cap: float = 8.0

    def __post_init__(self) -> None:
        if self.max_attempts < 1:
            raise ValueError(f"max_attempts must be 1 or more, got {self.max_attempts}")
        if self.max_retry_time < 0:
            raise ValueError(f"max_retry_time must be 0 or more, got {self.max_retry_time}")

    def backoff(self, retry: int, rng: Callable[[], float]) -> float:
        """Full-jitter delay before retry number `retry` (0 for the first retry)."""
        return rng() * min(self.cap, math.ldexp(self.base, retry))

    def rate_limit_wait(
        self,
        reset: float | None,
        now: float,
        retry: int,
        rng: Callable[[], float],
        retry_after: float | None = None,
    ) -> float:
        """Delay after a 429: `retry_after` (seconds, the `Retry-After` header) when given, else
        until `reset` (a Unix time) when known, else the usual backoff."""
        if retry_after is not None:
            return retry_after
        if reset is None:
            return self.backoff(retry, rng)
        return max(0.0, reset - now)
