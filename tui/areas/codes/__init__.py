"""The Codes area."""

from tui.views.areas import Area

AREA = Area(
    key="codes",
    title="Codes",
    description="Decline codes: meaning, retry advice, test cards",
    place=100,
    view="tui.areas.codes.view:CodesView",
    grammar="tui.areas.codes.view:code_grammar",
    export="tui.areas.codes.view:export_source",
)
