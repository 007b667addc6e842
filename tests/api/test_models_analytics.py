"""Analytics queries (camelCase on the wire) and responses."""

from __future__ import annotations

from typing import Any

import pytest
from pydantic import ValidationError

from payscope.api.models.analytics import (
    DISPUTE_METRICS,
    AnalyticsQuery,
    AnalyticsResponse,
    Granularity,
    analytics_body,
)

QUERY = {
    "timeRange": {"startTime": "2024-05-01T00:00:00Z", "endTime": "2024-05-31T23:59:59Z"},
    "metrics": ["payment_count", "payment_success_rate", "payment_processed_amount"],
    "source": "BATCH",
    "delta": True,
    "timeSeries": {"granularity": "G_ONE_DAY"},
    "groupByNames": ["currency", "status"],
    "filters": {"currency": ["USD", "EUR"], "payment_method": ["card"]},
}


def test_wire_form_round_trips_in_camel_case() -> None:
    query = AnalyticsQuery.model_validate(QUERY)
    assert query.time_series is not None and query.time_series.granularity is Granularity.G_ONE_DAY
    assert query.group_by_names == ["currency", "status"]
    assert analytics_body([query]) == [QUERY]


def test_python_names_work_too_and_single_filter_value_becomes_a_list() -> None:
    query = AnalyticsQuery.model_validate(
        {
            "time_range": {
                "start_time": "2024-05-01T00:00:00Z",
                "end_time": "2024-05-02T00:00:00Z",
            },
            "metrics": ["refund_count"],
            "source": "LIVE",
            "filters": {"currency": "USD"},
        }
    )
    assert query.to_body() == {
        "timeRange": {"startTime": "2024-05-01T00:00:00Z", "endTime": "2024-05-02T00:00:00Z"},
        "metrics": ["refund_count"],
        "source": "LIVE",
        "delta": False,
        "filters": {"currency": ["USD"]},
    }


@pytest.mark.parametrize("granularity", ["G_ONE_HOUR", "G_ONE_DAY", "G_ONE_WEEK", "G_ONE_MONTH"])
def test_granularities(granularity: str) -> None:
    assert AnalyticsQuery.model_validate(
        {**QUERY, "timeSeries": {"granularity": granularity}}
    ).to_body()["timeSeries"] == {"granularity": granularity}


@pytest.mark.parametrize(
    ("change", "loc", "fragment"),
    [
        ({"metrics": []}, ("metrics",), "at least one metric"),
        ({"source": "CACHE"}, ("source",), "not a source"),
        (
            {"timeSeries": {"granularity": "G_ONE_YEAR"}},
            ("timeSeries", "granularity"),
            "not a granularity",
        ),
        (
            {"timeRange": {"startTime": "2024-05-02T00:00:00Z", "endTime": "2024-05-01T00:00:00Z"}},
            ("timeRange", "endTime"),
            "before startTime",
        ),
        ({"timeRange": {"startTime": "2024-05-02T00:00:00Z"}}, ("timeRange", "endTime"), ""),
        (
            {"timeRange": {"startTime": "May", "endTime": "2024-05-01T00:00:00Z"}},
            ("timeRange", "startTime"),
            "ISO 8601",
        ),
    ],
)
def test_query_constraints(change: dict[str, Any], loc: tuple[str, ...], fragment: str) -> None:
    with pytest.raises(ValidationError) as caught:
        AnalyticsQuery.model_validate({**QUERY, **change})
    errors = caught.value.errors()
    assert [tuple(e["loc"]) for e in errors] == [loc] and fragment in errors[0]["msg"]


def test_source_is_required() -> None:
    with pytest.raises(ValidationError) as caught:
        AnalyticsQuery.model_validate({k: v for k, v in QUERY.items() if k != "source"})
    assert caught.value.errors()[0]["type"] == "missing"


def test_check_resource_names_what_a_resource_lacks() -> None:
    query = AnalyticsQuery.model_validate(QUERY)
    query.check_resource("payments")
    with pytest.raises(ValueError, match="not offered for refunds"):
        query.check_resource("refunds")
    disputes = AnalyticsQuery.model_validate(
        {
            **QUERY,
            "metrics": list(DISPUTE_METRICS),
            "groupByNames": ["dispute_stage"],
            "filters": {"dispute_status": ["dispute_won"]},
        }
    )
    disputes.check_resource("disputes")
    with pytest.raises(ValueError, match="not offered for payments"):
        disputes.check_resource("payments")


def test_response_rows_are_free_form_and_kept() -> None:
    raw = {
        "queryData": [
            {
                "payment_count": 10,
                "payment_success_rate": 80.0,
                "currency": "USD",
                "time_bucket": "2024-05-01 00:00:00",
                "time_range": {
                    "start_time": "2024-05-01T00:00:00Z",
                    "end_time": "2024-05-02T00:00:00Z",
                },
            },
        ],
        "metaData": [
            {"total_payment_processed_amount": 123400, "total_payment_processed_count": 8}
        ],
    }
    response = AnalyticsResponse.model_validate(raw)
    assert response.query_data[0]["currency"] == "USD"
    assert response.meta_data[0]["total_payment_processed_amount"] == 123400
    assert response.model_dump(by_alias=True) == raw
    assert AnalyticsResponse.model_validate({}).query_data == []


@pytest.mark.parametrize(
    ("filters", "loc", "got"),
    [
        ({"currency": {"a": 1}}, ("filters", "currency"), "got an object"),
        ({"currency": ["USD", 2]}, ("filters", "currency"), "got an array holding a number"),
        ({"status": None}, ("filters", "status"), "got null"),
        (["USD"], ("filters",), "got an array"),
    ],
)
def test_filter_values_that_are_not_strings_are_refused_by_path(
    filters: Any, loc: tuple[str, ...], got: str
) -> None:
    with pytest.raises(ValidationError) as caught:
        AnalyticsQuery.model_validate({**QUERY, "filters": filters})
    error = caught.value.errors()[0]
    assert error["loc"] == loc
    assert "array of strings" in error["msg"]
    assert got in error["msg"]
