"""Times people type: spans (`90m`, `2h`, `1d12h`, `2w`), moments (an ISO date or time, or a
span from now), and calendar months. Errors are ValueErrors written for a person."""

from __future__ import annotations

import calendar
import re
from datetime import UTC, datetime, timedelta

_UNITS = {"s": 1, "m": 60, "h": 3600, "d": 86400, "w": 7 * 86400}
_SPAN = re.compile(r"(\d+)\s*([smhdw])")
SPAN_EXAMPLES = "90m, 2h, 1d12h or 2w"


def parse_span(text: str) -> timedelta:
    """`90m`, `2h`, `1d12h`, `2w` (s, m, h, d, w) as a timedelta; a leading `+` is allowed."""
    cleaned = text.strip().lower().removeprefix("+").replace(" ", "")
    if not cleaned or _SPAN.sub("", cleaned):
        raise ValueError(f"`{text.strip()}` is not a span of time: type it as {SPAN_EXAMPLES}.")
    seconds = sum(int(n) * _UNITS[unit] for n, unit in _SPAN.findall(cleaned))
    if seconds <= 0:
        raise ValueError("a span of time must be longer than zero.")
    return timedelta(seconds=seconds)


def parse_moment(text: str, now: datetime) -> datetime:
    """A moment typed as an ISO date or time (UTC unless it says otherwise; a bare date is its
    midnight) or as a span from `now` (`+2h`, `3d`)."""
    value = text.strip()
    if not value:
        raise ValueError("type a time, e.g. 2024-06-01T09:00 or a span such as 3d.")
    if not _SPAN.sub("", value.lower().removeprefix("+").replace(" ", "")):
        return now + parse_span(value)
    try:
        moment = datetime.fromisoformat(value.replace("Z", "+00:00").replace("z", "+00:00"))
    except ValueError:
        raise ValueError(
            f"`{value}` is not a time: type 2024-06-01, 2024-06-01T09:00 or a span such as "
            f"{SPAN_EXAMPLES}."
        ) from None
    return moment if moment.tzinfo else moment.replace(tzinfo=UTC)


def add_months(moment: datetime, months: int) -> datetime:
    """The same day and time `months` calendar months on (the 31st becomes the month's last)."""
    index = moment.month - 1 + months
    year, month = moment.year + index // 12, index % 12 + 1
    day = min(moment.day, calendar.monthrange(year, month)[1])
    return moment.replace(year=year, month=month, day=day)


def span_text(delta: timedelta) -> str:
    """`1 d 2 h`, `45 min`, `30 s`: the two largest units of a span."""
    seconds = int(delta.total_seconds())
    if seconds < 60:
        return f"{seconds} s"
    parts: list[str] = []
    for unit, size in (("d", 86400), ("h", 3600), ("min", 60)):
        count, seconds = divmod(seconds, size)
        if count:
            parts.append(f"{count} {unit}")
    return " ".join(parts[:2])
