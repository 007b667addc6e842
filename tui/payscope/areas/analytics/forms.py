"""The forms of `:analytics`: a custom range (from, to) and the filters of a domain."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from textual.widgets import Input

from payscope.areas.analytics import data
from payscope.views.forms import Field, FormErrors, FormScreen

DATE_HINT = "A date (2024-04-01) or a date and time (2024-04-01 14:30), UTC."
# The service answers at most this many buckets; a range longer than this many years is refused
# here rather than by the service.
LONGEST_YEARS = 20


def parse_when(text: str, *, end: bool) -> datetime:
    """A typed date (`2024-04-01`) or date-time (`2024-04-01 14:30`, ISO 8601), UTC.

    A date alone as the end means the whole of that day. ValueError says what to type.
    """
    cleaned = text.strip()
    if not cleaned:
        raise ValueError("Enter a date such as 2024-04-01.")
    try:
        moment = datetime.fromisoformat(cleaned.replace("Z", "+00:00"))
    except ValueError:
        raise ValueError(f"{cleaned!r} is not a date: type it as 2024-04-01.") from None
    if moment.tzinfo is None:
        moment = moment.replace(tzinfo=UTC)
    date_only = len(cleaned) <= 10
    if end and date_only:
        moment += timedelta(days=1, milliseconds=-1)
    return moment.astimezone(UTC)


class CustomRangeForm(FormScreen[data.Window, data.Window]):
    """From and to (inclusive, UTC); dismissed with the `Window`."""

    title_text = "Custom range"
    intro = "The numbers are compared with the window of the same length just before it."
    submit_label = "Show"

    def __init__(self, current: data.Window) -> None:
        super().__init__()
        self.current = current

    def fields(self) -> list[Field]:
        start = datetime.fromtimestamp(self.current.start, UTC).strftime("%Y-%m-%d")
        end = datetime.fromtimestamp(self.current.end, UTC).strftime("%Y-%m-%d")
        return [
            Field("start", "From", Input(value=start, id="field-start"), DATE_HINT),
            Field("end", "To (inclusive)", Input(value=end, id="field-end"), DATE_HINT),
        ]

    def submit_text(self) -> str | None:
        window = self._window({})
        if window is None:
            return None
        days = (window.end - window.start) / data.DAY
        return f"Show {days:.0f} days" if days >= 1.5 else "Show"

    def _window(self, errors: dict[str, str]) -> data.Window | None:
        moments: dict[str, datetime] = {}
        for name in ("start", "end"):
            try:
                moments[name] = parse_when(str(self.value(name) or ""), end=name == "end")
            except ValueError as exc:
                errors[name] = str(exc)
        if errors:
            return None
        start, end = moments["start"], moments["end"]
        if end < start:
            errors["end"] = "The end is before the start: nothing would be shown."
            return None
        if end - start > timedelta(days=366 * LONGEST_YEARS):
            errors["start"] = f"At most {LONGEST_YEARS} years at once."
            return None
        return data.Window(start.timestamp(), end.timestamp())

    def build(self) -> data.Window:
        errors: dict[str, str] = {}
        window = self._window(errors)
        if window is None:
            raise FormErrors(errors)
        return window

    async def send(self, request: data.Window) -> data.Window:
        return request


class FilterForm(FormScreen[data.Filters, data.Filters]):
    """One field per dimension of the domain: the values to keep, separated by commas."""

    title_text = "Filters"
    intro = "Keep only these values (separated by commas); a blank field keeps everything."
    submit_label = "Apply"

    def __init__(self, domain: str, filters: data.Filters) -> None:
        super().__init__()
        self.domain = domain
        self.current = dict(filters)

    def fields(self) -> list[Field]:
        hints = {
            "currency": "e.g. USD, EUR",
            "status": "e.g. succeeded, failed",
            "refund_status": "e.g. succeeded, failed, pending",
            "dispute_status": "e.g. dispute_opened, dispute_lost",
            "card_network": "e.g. Visa, Mastercard",
        }
        return [
            Field(
                name,
                data.dimension_label(name),
                Input(value=", ".join(self.current.get(name, ())), id=f"field-{name}"),
                hints.get(name, ""),
            )
            for name in data.dimensions_of(self.domain)
        ]

    def build(self) -> data.Filters:
        errors: dict[str, str] = {}
        filters: list[tuple[str, tuple[str, ...]]] = []
        for name in data.dimensions_of(self.domain):
            raw = str(self.value(name) or "")
            values = tuple(dict.fromkeys(v.strip() for v in raw.split(",") if v.strip()))
            if name == "currency":
                values = tuple(v.upper() for v in values)
                wrong = [v for v in values if not (len(v) == 3 and v.isalpha())]
                if wrong:
                    errors[name] = f"{wrong[0]!r} is not a currency code (three letters: USD)."
                    continue
            if values:
                filters.append((name, values))
        if errors:
            raise FormErrors(errors)
        return tuple(filters)

    async def send(self, request: data.Filters) -> data.Filters:
        return request
