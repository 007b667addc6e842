"""Analytics: the metrics query (camelCase on the wire) and its rows.

The body of POST /analytics/v1/merchant/metrics/{resource} is an array of queries; use
`analytics_body([query])`. Fields take their snake_case names in Python and their camelCase
aliases on the wire (both are read).
"""

from __future__ import annotations

from collections.abc import Iterable
from enum import StrEnum
from typing import Annotated, Any, Final

from pydantic import BeforeValidator, Field, model_validator
from pydantic_core import PydanticCustomError

from payscope.api.models._base import RequestModel, ResponseModel, field_error, raise_field_errors
from payscope.api.models.common import Timestamp, choice, created_range_errors

__all__ = [
    "DIMENSIONS",
    "DISPUTE_DIMENSIONS",
    "DISPUTE_METRICS",
    "METRICS",
    "PAYMENT_DIMENSIONS",
    "PAYMENT_METRICS",
    "REFUND_DIMENSIONS",
    "REFUND_METRICS",
    "AnalyticsQuery",
    "AnalyticsResource",
    "AnalyticsResponse",
    "AnalyticsSource",
    "AnalyticsTimeRange",
    "Granularity",
    "TimeSeries",
    "analytics_body",
]


class AnalyticsResource(StrEnum):
    """What the metrics are about (the last path segment)."""

    PAYMENTS = "payments"
    REFUNDS = "refunds"
    DISPUTES = "disputes"


class AnalyticsSource(StrEnum):
    """Where the numbers come from: the warehouse (cheaper) or live data."""

    BATCH = "BATCH"
    LIVE = "LIVE"


class Granularity(StrEnum):
    """Time-series bucket size."""

    G_ONE_HOUR = "G_ONE_HOUR"
    G_ONE_DAY = "G_ONE_DAY"
    G_ONE_WEEK = "G_ONE_WEEK"
    G_ONE_MONTH = "G_ONE_MONTH"


PAYMENT_METRICS: Final[tuple[str, ...]] = (
    "payment_count",
    "payment_success_count",
    "payment_success_rate",
    "payment_processed_amount",
    "avg_ticket_size",
)
PAYMENT_DIMENSIONS: Final[tuple[str, ...]] = (
    "currency",
    "payment_method",
    "payment_method_type",
    "status",
    "authentication_type",
    "profile_id",
    "card_network",
)
REFUND_METRICS: Final[tuple[str, ...]] = (
    "refund_count",
    "refund_success_count",
    "refund_success_rate",
    "refund_processed_amount",
)
REFUND_DIMENSIONS: Final[tuple[str, ...]] = (
    "currency",
    "refund_status",
    "refund_type",
    "profile_id",
    "refund_reason",
)
DISPUTE_METRICS: Final[tuple[str, ...]] = (
    "dispute_status_metric",
    "total_amount_disputed",
    "total_dispute_lost_amount",
)
DISPUTE_DIMENSIONS: Final[tuple[str, ...]] = (
    "dispute_status",
    "dispute_stage",
    "currency",
    "profile_id",
)
METRICS: Final[dict[AnalyticsResource, tuple[str, ...]]] = {
    AnalyticsResource.PAYMENTS: PAYMENT_METRICS,
    AnalyticsResource.REFUNDS: REFUND_METRICS,
    AnalyticsResource.DISPUTES: DISPUTE_METRICS,
}
DIMENSIONS: Final[dict[AnalyticsResource, tuple[str, ...]]] = {
    AnalyticsResource.PAYMENTS: PAYMENT_DIMENSIONS,
    AnalyticsResource.REFUNDS: REFUND_DIMENSIONS,
    AnalyticsResource.DISPUTES: DISPUTE_DIMENSIONS,
}


class AnalyticsTimeRange(RequestModel):
    """`timeRange`: both bounds inclusive."""

    start_time: Timestamp = Field(alias="startTime")
    end_time: Timestamp = Field(alias="endTime")

    @model_validator(mode="after")
    def _ordered(self) -> AnalyticsTimeRange:
        raise_field_errors(
            type(self),
            created_range_errors(
                self.start_time, self.end_time, start_name="startTime", end_name="endTime"
            ),
        )
        return self


class TimeSeries(RequestModel):
    """`timeSeries`: ask for one row per time bucket."""

    granularity: Annotated[Granularity, BeforeValidator(choice(Granularity, "granularity"))]


def _json_kind(value: Any) -> str:
    if isinstance(value, dict):
        return "an object"
    if isinstance(value, list | tuple):
        return "an array"
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "a boolean"
    if isinstance(value, str):
        return "a string"
    return "a number" if isinstance(value, int | float) else type(value).__name__


def _filter_values(value: Any) -> Any:
    """Each filter value as a list of strings; anything else is refused naming its path.

    A single string is a one-element list of allowed values. Every dimension holds text, so a
    number, object or null could never match: left through, it gave an empty result instead
    of telling the caller the filter was malformed.
    """
    if value is None:
        return value
    if not isinstance(value, dict):
        raise PydanticCustomError(
            "filters_type",
            "filters must be an object mapping a dimension to an array of strings, e.g. "
            '{"currency": ["USD"]}; got ' + _json_kind(value),
        )
    out: dict[str, list[str]] = {}
    problems = []
    for key, item in value.items():
        values = [item] if isinstance(item, str) else item
        if isinstance(values, list) and all(isinstance(v, str) for v in values):
            out[key] = values
            continue
        bad = (
            item if not isinstance(item, list) else next(v for v in item if not isinstance(v, str))
        )
        got = _json_kind(bad) if item is bad else f"an array holding {_json_kind(bad)}"
        problems.append(
            field_error(
                key,  # pydantic puts the field's own name in front
                "filter_values",
                f"filters.{key} must be an array of strings (the allowed values, e.g. "
                f'["USD", "EUR"]); got {got}',
            )
        )
    raise_field_errors(AnalyticsQuery, problems)
    return out


def _some_metrics(value: Any) -> Any:
    if value is None or (isinstance(value, list | tuple) and not value):
        raise PydanticCustomError(
            "missing",
            "metrics must name at least one metric, e.g. payment_count or refund_count",
        )
    return value


class AnalyticsQuery(RequestModel):
    """One slice of an analytics request."""

    time_range: AnalyticsTimeRange = Field(alias="timeRange")
    metrics: Annotated[list[str], BeforeValidator(_some_metrics)]
    source: Annotated[AnalyticsSource, BeforeValidator(choice(AnalyticsSource, "source"))]
    delta: bool = False
    time_series: TimeSeries | None = Field(default=None, alias="timeSeries")
    group_by_names: list[str] | None = Field(default=None, alias="groupByNames")
    filters: Annotated[dict[str, list[str]] | None, BeforeValidator(_filter_values)] = None

    @model_validator(mode="after")
    def _metrics_named(self) -> AnalyticsQuery:
        if any(not name.strip() for name in self.metrics):
            raise_field_errors(
                type(self),
                [field_error("metrics", "metrics", "metrics may not contain an empty name")],
            )
        return self

    def check_resource(self, resource: AnalyticsResource | str) -> None:
        """Raise `ValueError` naming the metrics, group-bys or filters `resource` lacks."""
        kind = AnalyticsResource(resource)
        problems: list[str] = []
        unknown = [name for name in self.metrics if name not in METRICS[kind]]
        if unknown:
            problems.append(
                f"metrics {unknown} are not offered for {kind}; use {list(METRICS[kind])}"
            )
        dimensions = [*(self.group_by_names or []), *(self.filters or {})]
        unknown = [name for name in dimensions if name not in DIMENSIONS[kind]]
        if unknown:
            problems.append(
                f"dimensions {unknown} are not offered for {kind}; use {list(DIMENSIONS[kind])}"
            )
        if problems:
            raise ValueError("; ".join(problems))


def analytics_body(queries: Iterable[AnalyticsQuery]) -> list[dict[str, Any]]:
    """The JSON array the metrics route takes: one camelCase object per query."""
    return [query.to_body() for query in queries]


class AnalyticsResponse(ResponseModel):
    """`queryData` (one row per group-by combination) and `metaData` (totals)."""

    query_data: list[dict[str, Any]] = Field(default_factory=list, alias="queryData")
    meta_data: list[dict[str, Any]] = Field(default_factory=list, alias="metaData")
