"""The Settings area."""

from tui.views.areas import Area

AREA = Area(
    key="settings",
    title="Settings",
    description="Profiles, keys, listener, theme",
    place=140,
    view="tui.areas.settings.view:SettingsView",
)
