"""The Events area."""

from tui.views.areas import Area

AREA = Area(
    key="events",
    title="Events",
    description="Webhooks as they arrive, verified",
    place=110,
    view="tui.areas.events.view:EventsView",
    detail="tui.areas.events.detail:EventDetailScreen",
    id_prefix="evt_",
    word="evt",
    kind="event",
    grammar="tui.areas.events.spec:EVENT_GRAMMAR",
    export="tui.areas.events.spec:export_source",
)
