"""The Users area."""

from payscope.views.areas import Area

AREA = Area(
    key="users",
    title="Users",
    description="Team users and roles",
    place=90,
    view="payscope.areas.users.view:UsersView",
    grammar="payscope.areas.users.spec:user_grammar",
    export="payscope.areas.users.actions:export_source",
)
