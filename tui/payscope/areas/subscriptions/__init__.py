"""The Subscriptions area."""

from payscope.views.areas import Area

AREA = Area(
    key="subscriptions",
    title="Subscriptions",
    description="Subscriptions, plans and invoices",
    place=50,
    view="payscope.areas.subscriptions.view:SubscriptionsView",
    detail="payscope.areas.subscriptions.detail:SubscriptionDetailScreen",
    word="sub",
    kind="subscription",
    grammar="payscope.areas.subscriptions.spec:subscription_grammar",
    export="payscope.areas.subscriptions.spec:export_source",
)
