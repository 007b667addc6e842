"""The Analytics area."""

from tui.views.areas import Area

AREA = Area(
    key="analytics",
    title="Analytics",
    description="Payment, refund and dispute metrics",
    place=80,
    view="tui.areas.analytics.view:AnalyticsView",
)
