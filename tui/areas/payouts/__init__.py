"""The Payouts area."""

from tui.views.areas import Area

AREA = Area(
    key="payouts",
    title="Payouts",
    description="Payouts and their methods",
    place=60,
    view="tui.areas.payouts.view:PayoutsView",
    detail="tui.areas.payouts.detail:PayoutDetailScreen",
    id_prefix="payout_",
    word="payout",
    kind="payout",
    grammar="tui.areas.payouts.spec:payout_grammar",
    export="tui.areas.payouts.spec:export_source",
)
