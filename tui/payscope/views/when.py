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


_SPAN_UNITS = (("d", 86400), ("h", 3600), ("m", 60), ("s", 1))


def span_text(span: timedelta | float, *, short: bool = False) -> str:
    """A duration in the one style of the app, its two largest units, the smaller one rounded:
    `6d 23h`, `5h 30m`, `12m`, `45s` (the same letters a span is typed with). `short` (a narrow
    column) keeps one unit from 10 of it: `12d`, `10h`. The sign is dropped."""
    seconds = abs(span.total_seconds() if isinstance(span, timedelta) else float(span))
    total = round(seconds)
    # Rounding to the smaller unit can carry into the larger (23h 59m 50s is 1d): again, then.
    for _ in range(3):
        index = next((i for i, (_, size) in enumerate(_SPAN_UNITS) if total >= size), 3)
        big_name, big = _SPAN_UNITS[index]
        small_name, small = _SPAN_UNITS[min(index + 1, 3)]
        keep_one = short and total // big >= 10
        step = big if keep_one else small
        rounded = round(total / step) * step
        if rounded == total:
            break
        total = rounded
    count, rest = divmod(total, big)
    if keep_one or rest == 0 or small == big:
        return f"{count}{big_name}"
    return f"{count}{big_name} {rest // small}{small_name}"
