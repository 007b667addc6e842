"""The Disputes area."""

from tui.views.areas import Area

AREA = Area(
    key="disputes",
    title="Disputes",
    description="Disputes, evidence and outcomes",
    place=40,
    view="tui.areas.disputes.view:DisputesView",
    detail="tui.areas.disputes.detail:DisputeDetailScreen",
    id_prefix="dp_",
    word="dp",
    kind="dispute",
    grammar="tui.areas.disputes.spec:dispute_grammar",
    export="tui.areas.disputes.spec:export_source",
)
