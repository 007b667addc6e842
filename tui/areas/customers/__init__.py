"""The Customers area."""

from tui.views.areas import Area

AREA = Area(
    key="customers",
    title="Customers",
    description="Customers and their payments",
    place=20,
    view="tui.areas.customers.view:CustomersView",
    detail="tui.areas.customers.detail:CustomerDetailScreen",
    id_prefix="cus_",
    word="cus",
    kind="customer",
    grammar="tui.areas.customers.spec:customer_grammar",
    export="tui.areas.customers.spec:export_source",
)
