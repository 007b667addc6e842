"""What `:analytics` asks the service and how its answer becomes charts, a table and totals.

No Textual here: the view (tui/payscope/areas/analytics/view.py) and the benchmark
(bench/analytics_chart.py)
share it, and tests read it directly.

- A `Choice` is what the controls say: domain (payments, refunds, disputes), metric, range
  preset (or a custom range), granularity, group-by and filters.
- `Window` is the time range: presets end at the service's `now` (the sandbox clock on local
  profiles) and start at the start of a day (or an hour), so every bucket but the current one
  is whole. The previous window is as long and ends just before it: totals are compared with it.
- `fetch` runs two queries: the window by time bucket, and the previous window as a whole, both
  grouped by the chosen dimension and by currency and asking for every metric of the domain at
  once. So a new metric redraws from the answer already there, and every figure shown (a rate
  across days, an average ticket) is computed from the counts and sums, never averaged.
- Amounts are never added across currencies: an amount metric is shown in one currency at a time
  (the one filtered on, else the busiest; `u` moves to the next).
"""

from __future__ import annotations

import asyncio
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from datetime import UTC, datetime, timedelta
from typing import TYPE_CHECKING, Any, Final, Literal

from payscope.api.models.analytics import DIMENSIONS, AnalyticsQuery, AnalyticsResponse

if TYPE_CHECKING:
    from payscope.api.client import ApiClient

Kind = Literal["count", "amount", "rate", "average"]
HOUR: Final = 3600.0
DAY: Final = 86400.0
# A chart this many buckets wide says nothing more than a coarser one: a granularity that would
# give more is coarsened (90 days by hour becomes by day).
MAX_BUCKETS: Final = 400
# The time series stacks this many groups; the rest are drawn together as "other".
TOP_GROUPS: Final = 6
# The group that stands for every group not drawn on its own (no service value looks like it).
OTHER: Final = "\x00other"
NONE_LABEL: Final = "(none)"
# Every group at once (a rate over time is drawn for all of them: per group it is noise).
ALL: Final = "\x00all"

DOMAINS: Final[tuple[tuple[str, str], ...]] = (
    ("payments", "Payments"),
    ("refunds", "Refunds"),
    ("disputes", "Disputes"),
)


@dataclass(frozen=True)
class Metric:
    """One metric of the service's list, computed from the sums of a row.

    `part` (and for a rate or an average, `whole`) name sums (`Sums`); a rate is part/whole in
    percent, an average part/whole. Amounts and averages are in one currency's minor units.
    """

    key: str
    label: str
    kind: Kind
    part: str
    whole: str | None = None

    @property
    def per_currency(self) -> bool:
        """Amounts (and averages of amounts) mean something in one currency only."""
        return self.kind in ("amount", "average")

    @property
    def additive(self) -> bool:
        """Counts and amounts add up across buckets and groups (stacked bars); rates do not."""
        return self.kind in ("count", "amount")

    def value(self, sums: Mapping[str, float]) -> float | None:
        part = float(sums.get(self.part, 0) or 0)
        if self.whole is None:
            return part
        whole = float(sums.get(self.whole, 0) or 0)
        if not whole:
            return None
        return part * 100.0 / whole if self.kind == "rate" else part / whole


METRICS: Final[dict[str, tuple[Metric, ...]]] = {
    "payments": (
        Metric("payment_count", "Payment count", "count", "n"),
        Metric("payment_success_count", "Succeeded", "count", "ok"),
        Metric("payment_success_rate", "Success rate", "rate", "ok", "n"),
        Metric("payment_processed_amount", "Processed amount", "amount", "amount"),
        Metric("avg_ticket_size", "Average ticket", "average", "amount", "ok"),
    ),
    "refunds": (
        Metric("refund_count", "Refund count", "count", "n"),
        Metric("refund_success_count", "Succeeded", "count", "ok"),
        Metric("refund_success_rate", "Success rate", "rate", "ok", "n"),
        Metric("refund_processed_amount", "Refunded amount", "amount", "amount"),
    ),
    "disputes": (
        Metric("dispute_status_metric", "Dispute count", "count", "n"),
        Metric("disputes_won", "Won", "count", "won"),
        Metric("disputes_lost", "Lost", "count", "lost"),
        Metric("total_amount_disputed", "Disputed amount", "amount", "amount"),
        Metric("total_dispute_lost_amount", "Lost amount", "amount", "lost_amount"),
    ),
}

# What each domain asks the service for (every metric at once) and where each sum is read.
SERVICE_METRICS: Final[dict[str, tuple[str, ...]]] = {
    "payments": ("payment_count", "payment_success_count", "payment_processed_amount"),
    "refunds": ("refund_count", "refund_success_count", "refund_processed_amount"),
    "disputes": ("dispute_status_metric", "total_amount_disputed", "total_dispute_lost_amount"),
}
SUMS: Final[dict[str, dict[str, tuple[str, ...]]]] = {
    "payments": {
        "n": ("payment_count",),
        "ok": ("payment_success_count",),
        "amount": ("payment_processed_amount",),
    },
    "refunds": {
        "n": ("refund_count",),
        "ok": ("refund_success_count",),
        "amount": ("refund_processed_amount",),
    },
    "disputes": {
        "n": ("total_dispute",),
        "won": ("disputes_won",),
        "lost": ("disputes_lost",),
        "amount": ("total_amount_disputed", "disputed_amount"),
        "lost_amount": ("total_dispute_lost_amount", "dispute_lost_amount"),
    },
}

DIMENSION_LABELS: Final[dict[str, str]] = {
    "currency": "Currency",
    "status": "Status",
    "payment_method": "Payment method",
    "payment_method_type": "Method type",
    "authentication_type": "Authentication",
    "profile_id": "Profile",
    "card_network": "Card network",
    "refund_status": "Status",
    "refund_type": "Refund type",
    "refund_reason": "Reason",
    "dispute_status": "Status",
    "dispute_stage": "Stage",
}
# Dimensions whose values are statuses (coloured as statuses are everywhere else).
STATUS_DIMENSIONS: Final = frozenset({"status", "refund_status", "dispute_status"})

GRANULARITIES: Final[tuple[tuple[str, str], ...]] = (
    ("G_ONE_HOUR", "hour"),
    ("G_ONE_DAY", "day"),
    ("G_ONE_WEEK", "week"),
    ("G_ONE_MONTH", "month"),
)
GRANULARITY_LABEL: Final = dict(GRANULARITIES)
_APPROX_SECONDS: Final = {
    "G_ONE_HOUR": HOUR,
    "G_ONE_DAY": DAY,
    "G_ONE_WEEK": 7 * DAY,
    "G_ONE_MONTH": 30 * DAY,
}


@dataclass(frozen=True)
class Preset:
    """A range preset: the last `hours` hours or `days` days, and its usual granularity."""

    key: str
    label: str
    days: int = 0
    hours: int = 0
    granularity: str = "G_ONE_DAY"


PRESETS: Final[tuple[Preset, ...]] = (
    Preset("24h", "Last 24 hours", hours=24, granularity="G_ONE_HOUR"),
    Preset("7d", "Last 7 days", days=7),
    Preset("30d", "Last 30 days", days=30),
    Preset("90d", "Last 90 days", days=90),
)
PRESET_BY_KEY: Final = {p.key: p for p in PRESETS}
CUSTOM: Final = "custom"


def metrics_of(domain: str) -> tuple[Metric, ...]:
    return METRICS[domain]


def metric_of(domain: str, key: str) -> Metric:
    return next((m for m in METRICS[domain] if m.key == key), METRICS[domain][0])


def dimensions_of(domain: str) -> tuple[str, ...]:
    return DIMENSIONS[domain]  # type: ignore[index]


def dimension_label(name: str) -> str:
    return DIMENSION_LABELS.get(name, name.replace("_", " ").capitalize())


# -- time ----------------------------------------------------------------------------------------


def _dt(ts: float) -> datetime:
    return datetime.fromtimestamp(ts, UTC)


def iso(ts: float) -> str:
    """The service's timestamp format: `2024-05-01T12:00:00.000Z`."""
    moment = _dt(ts)
    return moment.strftime("%Y-%m-%dT%H:%M:%S.") + f"{moment.microsecond // 1000:03d}Z"


def parse_time(text: Any) -> datetime | None:
    """A bucket time as the service writes it (`2024-05-01T00:00:00.000Z`, `2024-05-01
    00:00:00`); None for anything else."""
    if not isinstance(text, str) or not text.strip():
        return None
    cleaned = text.strip().replace(" ", "T").replace("Z", "+00:00").replace("z", "+00:00")
    try:
        moment = datetime.fromisoformat(cleaned)
    except ValueError:
        return None
    return moment if moment.tzinfo else moment.replace(tzinfo=UTC)


def bucket_start(moment: datetime, granularity: str) -> datetime:
    """The start of the bucket holding `moment` (weeks start on Monday, months on the 1st)."""
    moment = moment.astimezone(UTC)
    if granularity == "G_ONE_HOUR":
        return moment.replace(minute=0, second=0, microsecond=0)
    day = moment.replace(hour=0, minute=0, second=0, microsecond=0)
    if granularity == "G_ONE_WEEK":
        return day - timedelta(days=day.weekday())
    if granularity == "G_ONE_MONTH":
        return day.replace(day=1)
    return day


def _next_bucket(start: datetime, granularity: str) -> datetime:
    if granularity == "G_ONE_HOUR":
        return start + timedelta(hours=1)
    if granularity == "G_ONE_DAY":
        return start + timedelta(days=1)
    if granularity == "G_ONE_WEEK":
        return start + timedelta(days=7)
    return start.replace(year=start.year + start.month // 12, month=start.month % 12 + 1)


@dataclass(frozen=True)
class Window:
    """A time range, both ends inclusive (seconds since the epoch, UTC)."""

    start: float
    end: float

    @property
    def seconds(self) -> float:
        return self.end - self.start

    def previous(self) -> Window:
        """As long as this one, ending just before it starts."""
        return Window(self.start - self.seconds - 0.001, self.start - 0.001)

    def buckets(self, granularity: str) -> list[datetime]:
        """Every bucket start from the one holding `start` to the one holding `end`."""
        current = bucket_start(_dt(self.start), granularity)
        last = _dt(self.end)
        out: list[datetime] = []
        while current <= last and len(out) <= 100_000:
            out.append(current)
            current = _next_bucket(current, granularity)
        return out

    def text(self) -> str:
        """`2024-04-02 → 2024-05-01 12:00 UTC`: to the minute, a midnight as its date alone (an
        end at 23:59:59.999 names its day)."""
        start, end = round(self.start), round(self.end)
        first = _dt(start).strftime("%Y-%m-%d" if start % DAY == 0 else "%Y-%m-%d %H:%M")
        if end % DAY == 0 and end > start:
            last = _dt(end - 1).strftime("%Y-%m-%d")
        else:
            last = _dt(end).strftime("%Y-%m-%d %H:%M")
        return f"{first} → {last} UTC"


def preset_window(key: str, now: float) -> Window:
    """The window of a preset ending at `now`: whole days (or hours) and the current one."""
    preset = PRESET_BY_KEY[key]
    current = _dt(now)
    if preset.hours:
        start = bucket_start(current, "G_ONE_HOUR") - timedelta(hours=preset.hours - 1)
    else:
        start = bucket_start(current, "G_ONE_DAY") - timedelta(days=preset.days - 1)
    return Window(start.timestamp(), now)


def bucket_count(window: Window, granularity: str) -> int:
    return int(window.seconds // _APPROX_SECONDS[granularity]) + 1


def fit_granularity(window: Window, wanted: str) -> str:
    """`wanted`, or the next coarser one when it would draw more than MAX_BUCKETS buckets."""
    names = [g for g, _ in GRANULARITIES]
    for name in names[names.index(wanted) :]:
        if bucket_count(window, name) <= MAX_BUCKETS:
            return name
    return names[-1]


def usual_granularity(window: Window) -> str:
    """The granularity a range of this length is best seen in."""
    if window.seconds <= 2 * DAY:
        return "G_ONE_HOUR"
    if window.seconds <= 120 * DAY:
        return "G_ONE_DAY"
    if window.seconds <= 2 * 366 * DAY:
        return "G_ONE_WEEK"
    return "G_ONE_MONTH"


def bucket_label(moment: datetime, granularity: str, *, first: bool = False) -> str:
    """How an axis names a bucket: `14:00` (a date at midnight and first), `Apr 02`, `Apr 2024`."""
    if granularity == "G_ONE_HOUR":
        if moment.hour == 0 or first:
            return moment.strftime("%b %d")
        return moment.strftime("%H:00")
    if granularity == "G_ONE_MONTH":
        return moment.strftime("%b %Y")
    return moment.strftime("%b %d")


# -- the choice and its queries ----------------------------------------------------------------


Filters = tuple[tuple[str, tuple[str, ...]], ...]


@dataclass(frozen=True)
class Choice:
    """What the controls say."""

    domain: str = "payments"
    metric: str = "payment_count"
    range: str = "30d"
    granularity: str = "G_ONE_DAY"
    group: str | None = "currency"
    filters: Filters = ()
    custom: Window | None = None
    # The currency an amount metric is shown in (None: the busiest one).
    currency: str | None = None

    def window(self, now: float) -> Window:
        if self.range == CUSTOM and self.custom is not None:
            return self.custom
        return preset_window(self.range if self.range in PRESET_BY_KEY else "30d", now)

    @property
    def query_key(self) -> tuple[Any, ...]:
        """What needs a new answer from the service when it changes (not metric nor currency)."""
        return (self.domain, self.range, self.granularity, self.group, self.filters, self.custom)

    def with_domain(self, domain: str) -> Choice:
        """Another domain: its first metric, the same group-by where it has one, no filters
        it does not know."""
        dims = dimensions_of(domain)
        group = self.group
        if group in STATUS_DIMENSIONS:  # each domain names its status its own way
            group = next(d for d in dims if d in STATUS_DIMENSIONS)
        elif group is not None and group not in dims:
            group = "currency"
        metric = METRICS[domain][0].key
        filters = tuple((k, v) for k, v in self.filters if k in dims)
        return replace(self, domain=domain, metric=metric, group=group, filters=filters)

    def filter_dict(self) -> dict[str, list[str]]:
        return {name: list(values) for name, values in self.filters if values}

    def filter_text(self) -> str:
        """`currency USD, EUR · status failed` ("" with none)."""
        return " · ".join(f"{name} {', '.join(values)}" for name, values in self.filters)


def group_by(choice: Choice) -> list[str]:
    """The dimensions asked for: the chosen one, and currency (amounts are per currency)."""
    dims = dimensions_of(choice.domain)
    names = [choice.group] if choice.group else []
    if "currency" in dims and "currency" not in names:
        names.append("currency")
    return names


def queries(choice: Choice, window: Window, granularity: str) -> tuple[AnalyticsQuery, ...]:
    """The window by bucket, and the previous window whole."""
    base: dict[str, Any] = {
        "metrics": list(SERVICE_METRICS[choice.domain]),
        "source": "BATCH",
        "groupByNames": group_by(choice) or None,
        "filters": choice.filter_dict() or None,
    }
    before = window.previous()
    return (
        AnalyticsQuery.model_validate(
            {
                **base,
                "timeRange": {"startTime": iso(window.start), "endTime": iso(window.end)},
                "timeSeries": {"granularity": granularity},
            }
        ),
        AnalyticsQuery.model_validate(
            {**base, "timeRange": {"startTime": iso(before.start), "endTime": iso(before.end)}}
        ),
    )


# -- the answer ---------------------------------------------------------------------------------

Sums = dict[str, float]
GroupKey = str | None


def _number(value: Any) -> float:
    if isinstance(value, bool) or value is None:
        return 0.0
    if isinstance(value, int | float):
        return float(value)
    try:
        return float(str(value))
    except ValueError:
        return 0.0


def row_sums(domain: str, row: Mapping[str, Any]) -> Sums:
    """The sums a row holds, read leniently (a field the service leaves out counts 0)."""
    sums: Sums = {}
    for name, keys in SUMS[domain].items():
        sums[name] = next((_number(row[k]) for k in keys if row.get(k) is not None), 0.0)
    if domain == "disputes" and not sums["n"]:
        statuses = row.get("dispute_status_metric")
        if isinstance(statuses, Mapping):
            sums["n"] = sum(_number(v) for v in statuses.values())
            sums["won"] = sums["won"] or _number(statuses.get("dispute_won"))
            sums["lost"] = sums["lost"] or _number(statuses.get("dispute_lost"))
    return sums


def _add(into: Sums, sums: Mapping[str, float]) -> None:
    for name, value in sums.items():
        into[name] = into.get(name, 0.0) + value


def _group_value(value: Any) -> GroupKey:
    if value is None or value == "":
        return None
    return str(value)


@dataclass
class Answer:
    """The service's answer to one `Choice` (both windows), ready to be looked at."""

    choice: Choice
    window: Window
    granularity: str
    buckets: list[datetime]
    # (bucket index, group, currency) -> sums, this window
    cells: dict[tuple[int, GroupKey, GroupKey], Sums] = field(default_factory=dict)
    # (group, currency) -> sums, the previous window
    before: dict[tuple[GroupKey, GroupKey], Sums] = field(default_factory=dict)
    # The currency amounts are wanted in (None: the busiest); the view sets it (`u`).
    currency: str | None = None

    @property
    def previous(self) -> Window:
        return self.window.previous()

    @property
    def empty(self) -> bool:
        return not any(s.get("n") for s in self.cells.values())

    def currencies(self) -> list[str]:
        """Currencies seen, the busiest first (this window, then the previous one)."""
        weight: dict[str, tuple[float, float]] = {}
        for (_, _, currency), sums in self.cells.items():
            if currency is not None:
                now, before = weight.get(currency, (0.0, 0.0))
                weight[currency] = (now + sums.get("n", 0.0), before)
        for (_, currency), sums in self.before.items():
            if currency is not None:
                now, before = weight.get(currency, (0.0, 0.0))
                weight[currency] = (now, before + sums.get("n", 0.0))
        return sorted(weight, key=lambda c: (-weight[c][0], -weight[c][1], c))

    def shown_currency(self) -> str | None:
        """The currency amounts are shown in: the chosen one if seen, else the busiest."""
        seen = self.currencies()
        if self.currency in seen:
            return self.currency
        return seen[0] if seen else None

    @staticmethod
    def _keep(metric: Metric, currency: GroupKey, shown: str | None, each: bool) -> bool:
        """Whether a row counts: an amount only in the currency shown, unless `each` (grouped
        by currency, every group is its own currency: the table lists each)."""
        return not metric.per_currency or each or currency == shown

    def group_sums(
        self, metric: Metric, *, each_currency: bool = False
    ) -> tuple[dict[GroupKey, Sums], dict[GroupKey, Sums]]:
        """Per group: the sums of this window and of the previous one."""
        shown = self.shown_currency()
        now: dict[GroupKey, Sums] = {}
        before: dict[GroupKey, Sums] = {}
        grouped = self.choice.group is not None
        for (_, group, currency), sums in self.cells.items():
            if self._keep(metric, currency, shown, each_currency):
                _add(now.setdefault(group if grouped else None, {}), sums)
        for (group, currency), sums in self.before.items():
            if self._keep(metric, currency, shown, each_currency):
                _add(before.setdefault(group if grouped else None, {}), sums)
        return now, before

    def groups(self, metric: Metric, *, each_currency: bool = False) -> list[GroupKey]:
        """Groups, the largest by `metric` first (those only seen before come last)."""
        now, before = self.group_sums(metric, each_currency=each_currency)

        def size(group: GroupKey) -> tuple[float, float, str]:
            value = metric.value(now.get(group, {}))
            count = now.get(group, {}).get("n", 0.0)
            return (-(value or 0.0), -count, group or "")

        return sorted(now, key=size) + sorted(set(before) - set(now), key=lambda g: g or "")

    def totals(self, metric: Metric) -> tuple[float | None, float | None]:
        """The metric over the whole window, and over the previous one (one currency for an
        amount)."""
        shown = self.shown_currency()
        now: Sums = {}
        before: Sums = {}
        for (_, _, currency), sums in self.cells.items():
            if not metric.per_currency or currency == shown:
                _add(now, sums)
        for (_, currency), sums in self.before.items():
            if not metric.per_currency or currency == shown:
                _add(before, sums)
        return metric.value(now), metric.value(before)

    def series(self, metric: Metric, groups: Sequence[GroupKey]) -> list[list[float | None]]:
        """Per group in `groups` (OTHER: every other group; ALL: every row), the metric in each
        bucket."""
        shown = self.shown_currency()
        named = set(groups) - {OTHER}
        index = {g: i for i, g in enumerate(groups)}
        cells: list[list[Sums]] = [[{} for _ in self.buckets] for _ in groups]
        grouped = self.choice.group is not None
        for (bucket, group, currency), sums in self.cells.items():
            if not self._keep(metric, currency, shown, False):
                continue
            key = group if grouped else None
            if ALL in index:
                key = ALL
            elif key not in named:
                if OTHER not in index:
                    continue
                key = OTHER
            _add(cells[index[key]][bucket], sums)
        return [
            [metric.value(c) if c else (0.0 if metric.additive else None) for c in row]
            for row in cells
        ]


def shape(
    choice: Choice,
    window: Window,
    granularity: str,
    series: AnalyticsResponse,
    previous: AnalyticsResponse,
) -> Answer:
    """The two answers as one `Answer` (rows of a bucket outside the window are ignored)."""
    buckets = window.buckets(granularity)
    position = {b: i for i, b in enumerate(buckets)}
    answer = Answer(choice, window, granularity, buckets)
    domain = choice.domain
    for row in series.query_data:
        moment = parse_time(row.get("time_bucket"))
        if moment is None:
            time_range = row.get("time_range")
            if isinstance(time_range, Mapping):
                moment = parse_time(time_range.get("start_time"))
        index = position.get(bucket_start(moment, granularity)) if moment else None
        if index is None:
            continue
        key = (
            index,
            _group_value(row.get(choice.group)) if choice.group else None,
            _group_value(row.get("currency")),
        )
        _add(answer.cells.setdefault(key, {}), row_sums(domain, row))
    for row in previous.query_data:
        key2 = (
            _group_value(row.get(choice.group)) if choice.group else None,
            _group_value(row.get("currency")),
        )
        _add(answer.before.setdefault(key2, {}), row_sums(domain, row))
    return answer


async def fetch(client: ApiClient, choice: Choice, now: float) -> Answer:
    """Ask the service for `choice` (both windows at once) and shape the answer."""
    window = choice.window(now)
    granularity = fit_granularity(window, choice.granularity)
    current, before = queries(choice, window, granularity)
    series, previous = await asyncio.gather(
        client.analytics.metrics(choice.domain, current),
        client.analytics.metrics(choice.domain, before),
    )
    return shape(choice, window, granularity, series, previous)


# -- numbers as people read them ----------------------------------------------------------------


def change(metric: Metric, now: float | None, before: float | None) -> tuple[str, int]:
    """The change from the previous window as shown (`+12%`, `-3.1 pt`, `new`) and its sign."""
    if now is None and before is None:
        return "-", 0
    if metric.kind == "rate":
        if now is None or before is None:
            return "-", 0
        diff = now - before
        if abs(diff) < 0.05:
            return "±0 pt", 0
        return f"{diff:+.1f} pt", 1 if diff > 0 else -1
    now_v, before_v = now or 0.0, before or 0.0
    if not before_v:
        return ("new", 1) if now_v else ("-", 0)
    pct = (now_v - before_v) * 100.0 / before_v
    if abs(pct) < 0.5:
        return "±0%", 0
    if now_v >= 10 * before_v:
        return f"x{now_v / before_v:.0f}", 1  # "+2900%" says less than "x30"
    return f"{pct:+.0f}%", 1 if pct > 0 else -1


def share(now: float | None, total: float | None) -> str:
    if not now or not total:
        return ""
    return f"{now * 100.0 / total:.0f}%"


def group_names(groups: Iterable[GroupKey]) -> list[str]:
    """Groups as labels: `(none)` for rows without a value, `other`, `all`."""
    special = {OTHER: "other", ALL: "all"}
    return [special.get(g, g) if g is not None else NONE_LABEL for g in groups]
