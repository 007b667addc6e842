"""The service's rate-limit window, as its `X-RateLimit-*` headers say it."""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass


@dataclass(frozen=True)
class RateLimit:
    """The service's rate-limit window as of the last answer (None: not said yet).

    `limit` is requests per minute, `remaining` what is left in the window, `reset` the Unix
    time the window resets.
    """

    limit: int | None = None
    remaining: int | None = None
    reset: float | None = None


def float_header(value: str | None) -> float | None:
    """A header's number; None when absent or not a finite number (`nan`, `inf`, `1e999`)."""
    if value is None:
        return None
    try:
        number = float(value)
    except ValueError:
        return None
    return number if math.isfinite(number) else None


def int_header(value: str | None) -> int | None:
    number = float_header(value)
    return int(number) if number is not None and math.isfinite(number) else None


def rate_limit_of(headers: Mapping[str, str]) -> RateLimit | None:
    """The window an answer's headers say (lower-case names); None when they say nothing."""
    limit = headers.get("x-ratelimit-limit")
    remaining = headers.get("x-ratelimit-remaining")
    reset = headers.get("x-ratelimit-reset")
    if limit is None and remaining is None and reset is None:
        return None
    return RateLimit(int_header(limit), int_header(remaining), float_header(reset))
