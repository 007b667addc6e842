"""The Settings area."""

from payscope.views.areas import Area

AREA = Area(
    key="settings",
    title="Settings",
    description="Profiles, keys, listener, theme",
    place=140,
    view="payscope.areas.settings.view:SettingsView",
)
