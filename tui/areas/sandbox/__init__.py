"""The Sandbox area."""

from tui.views.areas import Area

AREA = Area(
    key="sandbox",
    title="Sandbox",
    description="The local sandbox: keys, clock, Trigger",
    place=130,
    view="tui.areas.sandbox.view:SandboxView",
)
