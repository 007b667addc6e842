"""The Refunds area."""

from payscope.views.areas import Area

AREA = Area(
    key="refunds",
    title="Refunds",
    description="Refunds and their status",
    place=30,
    view="payscope.areas.refunds.view:RefundsView",
    detail="payscope.areas.refunds.detail:RefundDetailScreen",
    word="ref",
    kind="refund",
    grammar="payscope.areas.refunds.spec:refund_grammar",
    export="payscope.areas.refunds.spec:export_source",
)
