"""The Payouts area."""

from payscope.views.areas import Area

AREA = Area(
    key="payouts",
    title="Payouts",
    description="Payouts and their methods",
    place=60,
    view="payscope.areas.payouts.view:PayoutsView",
    detail="payscope.areas.payouts.detail:PayoutDetailScreen",
    word="payout",
    kind="payout",
    grammar="payscope.areas.payouts.spec:payout_grammar",
    export="payscope.areas.payouts.spec:export_source",
)
