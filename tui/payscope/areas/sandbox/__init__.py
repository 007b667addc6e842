"""The Sandbox area."""

from payscope.views.areas import Area

AREA = Area(
    key="sandbox",
    title="Sandbox",
    description="The local sandbox: keys, clock, Trigger",
    place=130,
    view="payscope.areas.sandbox.view:SandboxView",
)
