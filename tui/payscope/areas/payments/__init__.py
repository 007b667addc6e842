"""The Payments area."""

from payscope.views.areas import Area

AREA = Area(
    key="payments",
    title="Payments",
    description="Payments: create, confirm, capture, refund",
    place=10,
    view="payscope.areas.payments.view:PaymentsView",
    detail="payscope.areas.payments.detail:PaymentDetailScreen",
    word="pay",
    kind="payment",
    grammar="payscope.areas.payments.spec:payment_grammar",
    export="payscope.areas.payments.spec:export_source",
)
