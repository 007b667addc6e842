"""The Links area."""

from payscope.views.areas import Area

AREA = Area(
    key="links",
    title="Links",
    description="Payment links: make, share (QR), follow until paid",
    place=70,
    view="payscope.areas.links.view:LinksView",
    detail="payscope.areas.links.detail:LinkDetailScreen",
    word="plink",
    kind="payment_link",
    grammar="payscope.areas.links.spec:link_grammar",
    export="payscope.areas.links.spec:export_source",
)
