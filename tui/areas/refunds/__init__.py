"""The Refunds area."""

from tui.views.areas import Area

AREA = Area(
    key="refunds",
    title="Refunds",
    description="Refunds and their status",
    place=30,
    view="tui.areas.refunds.view:RefundsView",
    detail="tui.areas.refunds.detail:RefundDetailScreen",
    id_prefix="ref_",
    word="ref",
    kind="refund",
    grammar="tui.areas.refunds.spec:refund_grammar",
    export="tui.areas.refunds.spec:export_source",
)
