"""The Requests area."""

from payscope.views.areas import Area

AREA = Area(
    key="requests",
    title="Requests",
    description="Every API call, copyable as curl",
    place=120,
    view="payscope.areas.requests.view:RequestsView",
    detail="payscope.areas.requests.view:RequestDetailScreen",
)
