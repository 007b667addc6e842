"""Analytics: POST /analytics/v1/merchant/metrics/{payments|refunds|disputes}.

Every figure is computed by SQLite (`GROUP BY` over a covering index on the created time), never
by looping over rows in Python: the time range picks an index range, the group-by dimensions
and the time bucket are the `GROUP BY` keys, the metrics are `COUNT`/`SUM` columns. Weeks
(from Monday) and calendar months are folded from day buckets by an outer query, so the inner
one groups on a plain prefix of the ISO timestamp.

- Both ends of `timeRange` are inclusive (an end without fractional seconds covers that whole
  second).
- Payments: a success is a `succeeded` payment; the processed amount is the amount of those.
  Refunds: a success is a `succeeded` refund.
- `delta: true` adds `<metric>_delta` (this window minus the previous window of equal length,
  per group; with a time series, bucket i against the previous window's bucket i) and the
  same for the metaData totals.
- `source` BATCH and LIVE read the same local data (a sandbox has no warehouse lag).
"""

from __future__ import annotations

import sqlite3
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import Any, Final

from fastapi import APIRouter, Request
from starlette.responses import Response

from payscope.api.models.analytics import (
    DIMENSIONS,
    METRICS,
    AnalyticsQuery,
    AnalyticsResource,
)
from payscope.api.models.disputes import canonical_dispute_status
from payscope.sandbox.clock import iso, parse_iso
from payscope.sandbox.errors import SandboxError, forbidden, invalid
from payscope.sandbox.resource import Resource
from payscope.sandbox.resources._support import validate
from payscope.sandbox.responses import json_body, read_json, respond_exact
from payscope.sandbox.state import state_of

# Covering indexes led by the hour of creation and the common dimensions: a query reads an
# index range in the order its GROUP BY wants, so SQLite aggregates as it scans (no sort, no
# table lookups) and the hours are rolled up into days, weeks or months afterwards.
SCHEMA = """
CREATE INDEX IF NOT EXISTS payments_hourly
    ON payments(substr(created, 1, 13), currency, status, created, amount);
CREATE INDEX IF NOT EXISTS refunds_hourly
    ON refunds(substr(created, 1, 13), currency, status, created, amount);
CREATE INDEX IF NOT EXISTS disputes_hourly
    ON disputes(substr(created, 1, 13), currency, status, stage, created, amount);
"""
HOUR = "substr(created, 1, 13)"

DISPUTE_STATUSES: Final = (
    "dispute_opened",
    "dispute_expired",
    "dispute_accepted",
    "dispute_cancelled",
    "dispute_challenged",
    "dispute_won",
    "dispute_lost",
)


@dataclass(frozen=True)
class Source:
    """How one resource maps onto SQL: its table, dimension expressions and sums."""

    table: str
    dimensions: dict[str, str]
    sums: dict[str, str]
    # columns after the hour in the analytics index: always grouped on in the inner query
    base: tuple[str, ...] = ("currency", "status")
    # dimension -> how it is shown (applied to the few rolled-up rows)
    shown: tuple[tuple[str, str], ...] = ()


def _when(status: str, column: str) -> str:
    return f"SUM(CASE WHEN {{st}} = '{status}' THEN {column} ELSE 0 END)"


# Sums are written over the inner rows (`n` rows and `total` amount per hour and status), with
# `{st}` standing for the status column: per stored row SQLite only counts and adds.
SOURCES: Final[dict[str, Source]] = {
    "payments": Source(
        "payments",
        {
            "currency": "currency",
            "status": "status",
            "payment_method": "payment_method",
            "payment_method_type": "json_extract(data, '$.payment_method_type')",
            "authentication_type": "json_extract(data, '$.authentication_type')",
            "profile_id": "json_extract(data, '$.profile_id')",
            "card_network": "json_extract(data, '$.payment_method_data.card.brand')",
        },
        {"n": "SUM(n)", "ok": _when("succeeded", "n"), "amount": _when("succeeded", "total")},
        shown=(
            (
                "status",
                "CASE {} WHEN 'requires_customer_action' THEN 'requires_action' ELSE {} END",
            ),
        ),
    ),
    "refunds": Source(
        "refunds",
        {
            "currency": "currency",
            "refund_status": "status",
            "refund_type": "json_extract(data, '$.refund_type')",
            "profile_id": "json_extract(data, '$.profile_id')",
            "refund_reason": "json_extract(data, '$.reason')",
        },
        {"n": "SUM(n)", "ok": _when("succeeded", "n"), "amount": _when("succeeded", "total")},
    ),
    "disputes": Source(
        "disputes",
        {
            "dispute_status": "status",
            "dispute_stage": "stage",
            "currency": "currency",
            "profile_id": "profile_id",
        },
        {
            "n": "SUM(n)",
            "amount": "SUM(total)",
            "lost_amount": _when("dispute_lost", "total"),
            **{f"s_{s}": _when(s, "n") for s in DISPUTE_STATUSES},
        },
        base=("currency", "status", "stage"),
    ),
}

# granularity -> the bucket start, from the hour `h` ("YYYY-MM-DDTHH") of the inner query
BUCKETS: Final[dict[str, str]] = {
    "G_ONE_HOUR": "h || ':00:00'",
    "G_ONE_DAY": "substr(h, 1, 10) || 'T00:00:00'",
    "G_ONE_WEEK": "date(substr(h, 1, 10), '-6 days', 'weekday 1') || 'T00:00:00'",
    "G_ONE_MONTH": "substr(h, 1, 7) || '-01T00:00:00'",
}

router = APIRouter(tags=["analytics"])


# -- the query ---------------------------------------------------------------------------------


@dataclass(frozen=True)
class Window:
    """An inclusive time window, as ISO strings the created column compares with."""

    start: float
    end: float

    @property
    def bounds(self) -> tuple[str, str]:
        return iso(self.start), iso(self.end)

    def previous(self) -> Window:
        length = self.end - self.start + 0.001
        return Window(self.start - length, self.start - 0.001)


def _window(start: str, end: str) -> Window:
    end_ts = parse_iso(end)
    if "." not in end.split("T")[-1]:
        end_ts += 0.999  # a whole-second end covers that second
    return Window(parse_iso(start), end_ts)


# Amounts go up to 2**53 - 1, so about a thousand of them overflow SQLite's 64-bit SUM (which
# raises; TOTAL would round to a float). Then the query is run again summing the amounts' high
# and low 32 bits apart (neither sum can overflow below 2**31 rows) and Python, whose ints have
# no limit, joins them: exact figures, and the usual query pays nothing for it.
_SPLIT: Final = 32
_LOW_BITS: Final = (1 << _SPLIT) - 1


def _aggregate(
    conn: Any,
    source: Source,
    window: Window,
    groups: Sequence[str],
    filters: dict[str, list[Any]],
    granularity: str | None,
) -> list[dict[str, Any]]:
    """One dict per (bucket, group) with the raw sums, computed in SQLite.

    The inner query groups by hour and the index's base columns (plus any other dimension
    asked for), in index order; the outer one rolls those rows up to the buckets and groups
    requested.
    """
    try:
        return _aggregate_sql(conn, source, window, groups, filters, granularity, split=False)
    except sqlite3.OperationalError as exc:
        if "overflow" not in str(exc):
            raise
    return _aggregate_sql(conn, source, window, groups, filters, granularity, split=True)


def _aggregate_sql(
    conn: Any,
    source: Source,
    window: Window,
    groups: Sequence[str],
    filters: dict[str, list[Any]],
    granularity: str | None,
    *,
    split: bool,
) -> list[dict[str, Any]]:
    """`_aggregate`'s query; `split` sums amounts as high and low halves (see `_SPLIT`)."""
    start, end = window.bounds
    # Whole hours are summed from the index alone (no per-row time check); the rows of the
    # first and last hour that fall outside the window are then taken off again (`sign` -1).
    parts = [
        ("1", f"{HOUR} BETWEEN ? AND ?", [start[:13], end[:13]]),
        ("-1", f"{HOUR} = ? AND created < ?", [start[:13], start]),
        ("-1", f"{HOUR} = ? AND created > ?", [end[:13], end]),
    ]
    where: list[str] = []
    filter_args: list[Any] = []
    for name, values in filters.items():
        where.append(f"{source.dimensions[name]} IN ({','.join('?' * len(values))})")
        filter_args.extend(values)
    inner_dims = list(source.base)
    for name in groups:
        expr = source.dimensions[name]
        if expr not in inner_dims:
            inner_dims.append(expr)
    alias = {expr: f"k{i}" for i, expr in enumerate(inner_dims)}
    selects: list[str] = []
    args: list[Any] = []
    for sign, condition, bounds in parts:
        columns = [
            f"{HOUR} AS h",
            *(f"{expr} AS {alias[expr]}" for expr in inner_dims),
            f"{sign} * COUNT(*) AS n",
            *(
                (
                    f"{sign} * SUM(amount >> {_SPLIT}) AS total_hi",
                    f"{sign} * SUM(amount & {_LOW_BITS}) AS total_lo",
                )
                if split
                else (f"{sign} * SUM(amount) AS total",)
            ),
        ]
        selects.append(
            f"SELECT {', '.join(columns)} FROM {source.table} "
            f"WHERE {' AND '.join([condition, *where])} "
            f"GROUP BY {', '.join([HOUR, *inner_dims])}"
        )
        args += bounds + filter_args
    inner = " UNION ALL ".join(selects)
    shown = dict(source.shown)
    outer_dims = []
    for i, name in enumerate(groups):
        column = alias[source.dimensions[name]]
        template = shown.get(name)
        outer_dims.append((template.format(column, column) if template else column, f"d{i}"))
    bucket = BUCKETS[granularity] if granularity else "NULL"
    select = [f"{bucket} AS bucket", *(f"{expr} AS {name}" for expr, name in outer_dims)]
    status = alias["status"]
    halves: list[str] = []
    for name, expr in source.sums.items():
        sql_expr = expr.format(st=status)
        if split and "total" in sql_expr:
            halves.append(name)
            select.append(f"{sql_expr.replace('total', 'total_hi')} AS {name}__hi")
            select.append(f"{sql_expr.replace('total', 'total_lo')} AS {name}__lo")
        else:
            select.append(f"{sql_expr} AS {name}")
    keys = ["bucket", *(name for _, name in outer_dims)]
    sql = f"SELECT {', '.join(select)} FROM ({inner}) GROUP BY {', '.join(keys)} ORDER BY bucket"
    cursor = conn.execute(sql, args)
    names = [c[0] for c in cursor.description]
    rows = []
    for found in cursor.fetchall():
        row = dict(zip(names, found, strict=True))
        for name in halves:
            row[name] = (int(row.pop(f"{name}__hi") or 0) << _SPLIT) + int(
                row.pop(f"{name}__lo") or 0
            )
        if row["n"]:
            rows.append(row)
    return rows


def _rate(part: int, whole: int) -> float | None:
    return None if not whole else part * 100.0 / whole


def _metrics(resource: str, raw: dict[str, Any], wanted: Sequence[str]) -> dict[str, Any]:
    """The requested metrics of one aggregated row, in the reference's field names."""
    n = int(raw["n"])
    out: dict[str, Any] = {}
    if resource == "payments":
        ok, amount = int(raw["ok"] or 0), int(raw["amount"] or 0)
        values: dict[str, Any] = {
            "payment_count": n,
            "payment_success_count": ok,
            "payment_success_rate": _rate(ok, n),
            "payment_processed_amount": amount,
            "avg_ticket_size": amount / ok if ok else None,
        }
        return {m: values[m] for m in wanted}
    if resource == "refunds":
        ok, amount = int(raw["ok"] or 0), int(raw["amount"] or 0)
        values = {
            "refund_count": n,
            "refund_success_count": ok,
            "refund_success_rate": _rate(ok, n),
            "refund_processed_amount": amount,
        }
        return {m: values[m] for m in wanted}
    statuses = {s: int(raw[f"s_{s}"] or 0) for s in DISPUTE_STATUSES}
    if "dispute_status_metric" in wanted:
        out["dispute_status_metric"] = statuses
        out["disputes_challenged"] = statuses["dispute_challenged"]
        out["disputes_won"] = statuses["dispute_won"]
        out["disputes_lost"] = statuses["dispute_lost"]
        out["total_dispute"] = n
    if "total_amount_disputed" in wanted:
        out["total_amount_disputed"] = out["disputed_amount"] = int(raw["amount"] or 0)
    if "total_dispute_lost_amount" in wanted:
        out["total_dispute_lost_amount"] = out["dispute_lost_amount"] = int(raw["lost_amount"] or 0)
    return out


def _totals(resource: str, raws: list[dict[str, Any]]) -> dict[str, Any]:
    """metaData: totals across every row (summed in SQL already; added across groups here)."""

    def total(key: str) -> int:
        return sum(int(r[key] or 0) for r in raws)

    n = total("n")
    if resource == "payments":
        return {
            "total_payment_processed_amount": total("amount"),
            "total_payment_processed_count": total("ok"),
            "total_payment_count": n,
        }
    if resource == "refunds":
        return {
            "total_refund_success_rate": _rate(total("ok"), n),
            "total_refund_processed_amount": total("amount"),
            "total_refund_processed_count": total("ok"),
            "total_refund_count": n,
        }
    return {
        "total_amount_disputed_overall": total("amount"),
        "total_dispute_lost_amount_overall": total("lost_amount"),
        "total_dispute_count": n,
    }


def _bucket_starts(window: Window, granularity: str) -> list[str]:
    """Every bucket start of the window, in order (bucket i of two windows are compared)."""
    start = datetime.fromtimestamp(window.start, UTC)
    if granularity == "G_ONE_HOUR":
        cur = start.replace(minute=0, second=0, microsecond=0)
    elif granularity == "G_ONE_MONTH":
        cur = start.replace(day=1, hour=0, minute=0, second=0, microsecond=0)
    else:
        cur = start.replace(hour=0, minute=0, second=0, microsecond=0)
        if granularity == "G_ONE_WEEK":
            cur -= timedelta(days=cur.weekday())
    out: list[str] = []
    end = datetime.fromtimestamp(window.end, UTC)
    while cur <= end:
        out.append(cur.strftime("%Y-%m-%dT%H:%M:%S"))
        if granularity == "G_ONE_HOUR":
            cur += timedelta(hours=1)
        elif granularity == "G_ONE_DAY":
            cur += timedelta(days=1)
        elif granularity == "G_ONE_WEEK":
            cur += timedelta(days=7)
        else:
            cur = cur.replace(year=cur.year + cur.month // 12, month=cur.month % 12 + 1)
    return out


def _bucket_range(bucket: str, starts: list[str], window: Window) -> dict[str, str]:
    """`time_range` of a bucket, clipped to the query window (both ends inclusive)."""
    i = starts.index(bucket)
    begin = max(parse_iso(bucket + "Z"), window.start)
    end = parse_iso(starts[i + 1] + "Z") - 0.001 if i + 1 < len(starts) else window.end
    return {"start_time": iso(begin), "end_time": iso(min(end, window.end))}


def _subtract(now: Any, before: Any) -> Any:
    if isinstance(now, dict):
        return {k: _subtract(v, (before or {}).get(k)) for k, v in now.items()}
    if now is None:
        return None
    return now - (before or 0)


# A time series longer than this is refused before any bucket is made: a year of hours fits,
# and an hourly series over centuries would hold the sandbox for minutes.
MAX_BUCKETS: Final = 10_000
_BUCKET_SECONDS: Final = {
    "G_ONE_HOUR": 3600,
    "G_ONE_DAY": 86400,
    "G_ONE_WEEK": 7 * 86400,
    "G_ONE_MONTH": 28 * 86400,
}
# The earliest instant a timestamp can name (0001-01-01T00:00:00Z).
_EARLIEST: Final = datetime(1, 1, 1, tzinfo=UTC).timestamp()


def _check_window(window: Window, granularity: str | None, delta: bool) -> None:
    """400 for a window whose time series or previous window cannot be computed."""
    if granularity:
        count = int((window.end - window.start) // _BUCKET_SECONDS[granularity]) + 1
        if count > MAX_BUCKETS:
            raise invalid(
                "timeSeries.granularity",
                granularity,
                f"at most {MAX_BUCKETS} buckets per query (this timeRange holds about "
                f"{count}): use a coarser granularity (G_ONE_HOUR, G_ONE_DAY, G_ONE_WEEK, "
                "G_ONE_MONTH) or a shorter timeRange",
            )
    if delta and window.previous().start < _EARLIEST:
        raise invalid(
            "delta",
            delta,
            "false for a timeRange this long: the previous window of the same length would "
            "start before the year 1",
        )


def run_query(conn: Any, resource: str, query: AnalyticsQuery) -> dict[str, Any]:
    """The `queryData` rows and `metaData` totals of one query."""
    source = SOURCES[resource]
    window = _window(query.time_range.start_time, query.time_range.end_time)
    groups = list(query.group_by_names or [])
    filters = _filters(resource, query.filters or {})
    granularity = query.time_series.granularity.value if query.time_series else None
    _check_window(window, granularity, bool(query.delta))
    raws = _aggregate(conn, source, window, groups, filters, granularity)
    starts = _bucket_starts(window, granularity) if granularity else []
    rows: list[dict[str, Any]] = []
    keys: list[tuple[Any, ...]] = []
    for raw in raws:
        row: dict[str, Any] = {g: raw[f"d{i}"] for i, g in enumerate(groups)}
        row.update(_metrics(resource, raw, query.metrics))
        if granularity:
            row["time_bucket"] = raw["bucket"] + ".000Z"
            row["time_range"] = _bucket_range(raw["bucket"], starts, window)
        rows.append(row)
        index = starts.index(raw["bucket"]) if granularity else None
        keys.append((index, *(raw[f"d{i}"] for i in range(len(groups)))))
    meta = _totals(resource, raws)
    if query.delta:
        before = window.previous()
        old_raws = _aggregate(conn, source, before, groups, filters, granularity)
        old_starts = _bucket_starts(before, granularity) if granularity else []
        old: dict[tuple[Any, ...], dict[str, Any]] = {}
        for raw in old_raws:
            index = old_starts.index(raw["bucket"]) if granularity else None
            key = (index, *(raw[f"d{i}"] for i in range(len(groups))))
            old[key] = _metrics(resource, raw, query.metrics)
        for row, key in zip(rows, keys, strict=True):
            metrics = _metrics_of(row, groups)
            previous = old.get(key, {})
            for name, value in metrics.items():
                row[f"{name}_delta"] = _subtract(value, previous.get(name))
        old_meta = _totals(resource, old_raws)
        meta.update({f"{k}_delta": _subtract(v, old_meta.get(k)) for k, v in meta.items()})
        meta["previous_time_range"] = {
            "start_time": iso(before.start),
            "end_time": iso(before.end),
        }
    meta["time_range"] = {"start_time": iso(window.start), "end_time": iso(window.end)}
    meta["source"] = query.source.value
    return {"queryData": rows, "metaData": [meta]}


def _metrics_of(row: dict[str, Any], groups: Sequence[str]) -> dict[str, Any]:
    skip = {*groups, "time_bucket", "time_range"}
    return {k: v for k, v in row.items() if k not in skip}


def _filters(resource: str, filters: dict[str, list[Any]]) -> dict[str, list[Any]]:
    out: dict[str, list[Any]] = {}
    for name, values in filters.items():
        if not values:
            raise invalid(f"filters.{name}", values, "a non-empty array of values")
        cleaned = [str(v) for v in values]
        if name == "dispute_status":
            cleaned = [canonical_dispute_status(v) for v in cleaned]
        if resource == "payments" and name == "status":
            cleaned = ["requires_customer_action" if v == "requires_action" else v for v in cleaned]
        out[name] = cleaned
    return out


# -- the route ---------------------------------------------------------------------------------


@router.post(
    "/analytics/v1/{scope}/metrics/{resource}",
    summary="Aggregated metrics over payments, refunds or disputes",
    openapi_extra=json_body(AnalyticsQuery, many=True),
)
async def metrics(request: Request, scope: str, resource: str) -> Response:
    """Body: an array of queries (timeRange, metrics, source, delta, timeSeries, groupByNames,
    filters) -> `{queryData, metaData}`."""
    if scope != "merchant":
        raise forbidden(
            f"Analytics scope {scope!r} is not open to a merchant API key: use "
            "/analytics/v1/merchant/metrics/{payments|refunds|disputes}."
        )
    allowed = [r.value for r in AnalyticsResource]
    if resource not in allowed:
        raise invalid("resource", resource, ", ".join(allowed))
    body = await read_json(
        request,
        '[{"timeRange": {"startTime": "...", "endTime": "..."}, "metrics": ["payment_count"], '
        '"source": "BATCH"}]',
    )
    items = body if isinstance(body, list) else [body]
    if not items or items == [None]:
        raise SandboxError(
            400,
            "invalid_request",
            "IR_01",
            "Missing required field: the body must be an array with at least one query object "
            "(timeRange, metrics, source).",
        )
    queries = [validate(AnalyticsQuery, item) for item in items]
    kind = AnalyticsResource(resource)
    for query in queries:
        _check(kind, query)
    conn = state_of(request).db.conn
    results = [run_query(conn, resource, q) for q in queries]
    return respond_exact(
        {
            "queryData": [row for r in results for row in r["queryData"]],
            "metaData": [meta for r in results for meta in r["metaData"]],
        }
    )


def _check(kind: AnalyticsResource, query: AnalyticsQuery) -> None:
    """400 IR_04 naming the allowed metrics or dimensions of `kind`."""
    unknown = [m for m in query.metrics if m not in METRICS[kind]]
    if unknown:
        raise invalid("metrics", unknown[0], f"for {kind.value}: {', '.join(METRICS[kind])}")
    for where, names in (
        ("groupByNames", query.group_by_names or []),
        ("filters", list(query.filters or {})),
    ):
        bad = [n for n in names if n not in DIMENSIONS[kind]]
        if bad:
            raise invalid(where, bad[0], f"for {kind.value}: {', '.join(DIMENSIONS[kind])}")


RESOURCE = Resource(name="analytics", router=router, schema=SCHEMA)
