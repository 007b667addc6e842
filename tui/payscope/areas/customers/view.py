"""Customers: the list (newest first, filtered in the view), the customer detail with the
customer's payments, and create, edit and delete.

`GET /customers/list` takes only `limit` and `offset`, so the `/` filter (a name, an e-mail, an
id or part of one, a date range) is matched here over the newest pages; a whole id is read
directly. The service sends no webhooks about customers: what payscope changes itself is
announced on the app's change signal (`payscope.views.live.announce`), so the list row and an open
detail follow an edit, and a deleted customer leaves the list.

The actions are in `actions`, the customer detail in `detail`, the forms in `forms`.
"""

from __future__ import annotations

from typing import Any

from payscope.api.errors import NotFoundError
from payscope.api.models.customers import Customer, CustomerListRequest
from payscope.areas.customers.actions import NEW_CUSTOMER, ROW_ACTIONS
from payscope.areas.customers.detail import CustomerDetailScreen
from payscope.areas.customers.forms import NewCustomerForm
from payscope.areas.customers.spec import (
    COLUMNS,
    ID_PREFIX,
    PAGE_SIZE,
    customer_grammar,
)
from payscope.views.filters import Grammar
from payscope.views.listing import ResourceListView, listed_total


class CustomersView(ResourceListView["Customer"]):
    """The Customers area."""

    title = "Customers"
    noun = "customers"
    scope = "customers"
    id_prefix = ID_PREFIX
    columns = COLUMNS
    page_size = PAGE_SIZE
    empty_hint = "Press [b]n[/b] to create one."
    actions = (NEW_CUSTOMER, *(a.hidden() for a in ROW_ACTIONS))

    def key_of(self, record: Customer) -> str:
        return str(record.customer_id)

    def order(self, record: Customer) -> Any:
        return record.created_time or ""  # `created` here, `created_at` on the real service

    def filter_grammar(self) -> Grammar:
        return customer_grammar()

    async def fetch_page(
        self, filters: dict[str, Any], offset: int, limit: int
    ) -> tuple[list[Customer], int]:
        client = self.runtime.api
        wanted = filters.get("customer_id")
        if wanted is not None:
            # The list route cannot filter: a whole id is read on its own.
            try:
                return [await client.customers.retrieve(wanted)], 1
            except NotFoundError:
                return [], 0
        page = await client.customers.list(CustomerListRequest(limit=limit, offset=offset))
        total = listed_total(page.total_count, offset, len(page.data))
        return list(page.data), total

    async def fetch_one(self, record_id: str) -> Customer:
        return await self.runtime.api.customers.retrieve(record_id)

    def detail(self, record_id: str) -> CustomerDetailScreen:
        return CustomerDetailScreen(record_id)

    def acted(self, result: Any) -> None:
        """The change is announced (`announce`): the row follows it from there."""

    # -- a new customer ---------------------------------------------------------------------------

    def new_record(self) -> None:
        """Open the new-customer form; the customer created opens on its detail."""
        if self.starting(self.new_record):
            return

        self.app.push_screen(NewCustomerForm(), self._created)

    def _created(self, customer: Any) -> None:
        if customer is None:
            return
        self.notify(f"{customer.customer_id} created.", title="Customer created", markup=False)
        # Back from the detail, the new customer is on top of the first page (unfiltered, so
        # that it shows), under the cursor.
        self.show_created(customer.customer_id, first_page=True)
