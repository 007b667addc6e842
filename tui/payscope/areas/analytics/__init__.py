"""The Analytics area."""

from payscope.views.areas import Area

AREA = Area(
    key="analytics",
    title="Analytics",
    description="Payment, refund and dispute metrics",
    place=80,
    view="payscope.areas.analytics.view:AnalyticsView",
)
