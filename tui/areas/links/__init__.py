"""The Links area."""

from tui.views.areas import Area

AREA = Area(
    key="links",
    title="Links",
    description="Payment links: make, share (QR), follow until paid",
    place=70,
    view="tui.areas.links.view:LinksView",
    detail="tui.areas.links.detail:LinkDetailScreen",
    id_prefix="plink_",
    word="plink",
    kind="payment_link",
    grammar="tui.areas.links.spec:link_grammar",
    export="tui.areas.links.spec:export_source",
)
