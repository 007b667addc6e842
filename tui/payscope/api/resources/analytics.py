"""`client.analytics`: payment, refund and dispute metrics of the key's merchant."""

from __future__ import annotations

from collections.abc import Iterable

from payscope.api.models.analytics import AnalyticsQuery, AnalyticsResponse, analytics_body
from payscope.api.models.analytics import AnalyticsResource as MetricsOf
from payscope.api.resources._base import Resource, seg
from payscope.api.retry import Replay


class AnalyticsResource(Resource):
    """POST /analytics/v1/merchant/metrics/{payments|refunds|disputes} with an array body."""

    async def metrics(
        self, resource: MetricsOf | str, queries: AnalyticsQuery | Iterable[AnalyticsQuery]
    ) -> AnalyticsResponse:
        """Run one or more query slices against `resource`; rows in `query_data`, totals in
        `meta_data`."""
        kind = MetricsOf(resource)
        batch = [queries] if isinstance(queries, AnalyticsQuery) else list(queries)
        return await self._client.call(
            "POST",
            f"/analytics/v1/merchant/metrics/{seg(kind.value)}",
            AnalyticsResponse,
            body=analytics_body(batch),
            replay=Replay.SAFE,
        )

    async def payments(
        self, queries: AnalyticsQuery | Iterable[AnalyticsQuery]
    ) -> AnalyticsResponse:
        """Payment metrics (payment_count, payment_success_rate, ...)."""
        return await self.metrics(MetricsOf.PAYMENTS, queries)

    async def refunds(
        self, queries: AnalyticsQuery | Iterable[AnalyticsQuery]
    ) -> AnalyticsResponse:
        """Refund metrics (refund_count, refund_success_rate, ...)."""
        return await self.metrics(MetricsOf.REFUNDS, queries)

    async def disputes(
        self, queries: AnalyticsQuery | Iterable[AnalyticsQuery]
    ) -> AnalyticsResponse:
        """Dispute metrics (dispute_status_metric, total_amount_disputed, ...)."""
        return await self.metrics(MetricsOf.DISPUTES, queries)
