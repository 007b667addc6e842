"""The Customers area."""

from payscope.views.areas import Area

AREA = Area(
    key="customers",
    title="Customers",
    description="Customers and their payments",
    place=20,
    view="payscope.areas.customers.view:CustomersView",
    detail="payscope.areas.customers.detail:CustomerDetailScreen",
    word="cus",
    kind="customer",
    grammar="payscope.areas.customers.spec:customer_grammar",
    export="payscope.areas.customers.spec:export_source",
)
