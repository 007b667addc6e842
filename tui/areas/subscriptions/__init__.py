"""The Subscriptions area."""

from tui.views.areas import Area

AREA = Area(
    key="subscriptions",
    title="Subscriptions",
    description="Subscriptions, plans and invoices",
    place=50,
    view="tui.areas.subscriptions.view:SubscriptionsView",
    detail="tui.areas.subscriptions.detail:SubscriptionDetailScreen",
    id_prefix="sub_",
    word="sub",
    kind="subscription",
    grammar="tui.areas.subscriptions.spec:subscription_grammar",
    export="tui.areas.subscriptions.spec:export_source",
)
