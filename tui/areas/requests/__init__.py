"""The Requests area."""

from tui.views.areas import Area

AREA = Area(
    key="requests",
    title="Requests",
    description="Every API call, copyable as curl",
    place=120,
    view="tui.areas.requests.view:RequestsView",
    detail="tui.areas.requests.view:RequestDetailScreen",
)
