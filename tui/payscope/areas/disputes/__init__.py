"""The Disputes area."""

from payscope.views.areas import Area

AREA = Area(
    key="disputes",
    title="Disputes",
    description="Disputes, evidence and outcomes",
    place=40,
    view="payscope.areas.disputes.view:DisputesView",
    detail="payscope.areas.disputes.detail:DisputeDetailScreen",
    word="dp",
    kind="dispute",
    grammar="payscope.areas.disputes.spec:dispute_grammar",
    export="payscope.areas.disputes.spec:export_source",
)
