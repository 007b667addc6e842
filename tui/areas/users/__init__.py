"""The Users area."""

from tui.views.areas import Area

AREA = Area(
    key="users",
    title="Users",
    description="Team users and roles",
    place=90,
    view="tui.areas.users.view:UsersView",
    grammar="tui.areas.users.spec:user_grammar",
    export="tui.areas.users.actions:export_source",
)
