"""The Codes area."""

from payscope.views.areas import Area

AREA = Area(
    key="codes",
    title="Codes",
    description="Decline codes: meaning, retry advice, test cards",
    place=100,
    view="payscope.areas.codes.view:CodesView",
    grammar="payscope.areas.codes.view:code_grammar",
    export="payscope.areas.codes.view:export_source",
)
