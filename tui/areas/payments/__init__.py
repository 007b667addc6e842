"""The Payments area."""

from tui.views.areas import Area

AREA = Area(
    key="payments",
    title="Payments",
    description="Payments: create, confirm, capture, refund",
    place=10,
    view="tui.areas.payments.view:PaymentsView",
    detail="tui.areas.payments.detail:PaymentDetailScreen",
    id_prefix="pay_",
    word="pay",
    kind="payment",
    grammar="tui.areas.payments.spec:payment_grammar",
    export="tui.areas.payments.spec:export_source",
)
