"""The Events area."""

from payscope.views.areas import Area

AREA = Area(
    key="events",
    title="Events",
    description="Webhooks as they arrive, verified",
    place=110,
    view="payscope.areas.events.view:EventsView",
    detail="payscope.areas.events.detail:EventDetailScreen",
    word="evt",
    kind="event",
    grammar="payscope.areas.events.spec:EVENT_GRAMMAR",
    export="payscope.areas.events.spec:export_source",
)
