"""The Customers area's actions, declared once for its list and its detail (each opens its
form from `forms`).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from payscope.api.models.customers import Customer
from payscope.areas.customers.forms import EditCustomerForm, delete_confirmation
from payscope.views.actions import Action
from payscope.views.listing import new_record_action
from payscope.views.live import announce

if TYPE_CHECKING:
    from payscope.views.actions import ActionHost


# -- actions (the list and the detail share them) --------------------------------------------------


@dataclass(frozen=True)
class Deleted:
    """What the delete confirmation returns: the customer that is gone."""

    customer_id: str


def _with_customer(
    then: Callable[[ActionHost, Any], None],
) -> Callable[[ActionHost, str | None, Any], None]:
    """Run an action on the whole customer (read first when only its id is known)."""

    def run(host: ActionHost, customer_id: str | None, customer: Any) -> None:
        app = host.app

        async def go() -> None:
            current = customer
            if current is None:
                current = await app.runtime.api.customers.retrieve(str(customer_id))
            then(host, current)

        host.run_worker(go(), group="customer-action", exit_on_error=False, description="Customer")

    return run


def _edit(host: ActionHost, customer: Any) -> None:
    def done(result: Any) -> None:
        if result is not None:
            host.app.notify(f"{result.customer_id} saved.", title="Customer updated", markup=False)
            # No webhook tells of it: the list row and the open detail read it again.
            announce(host.app, result.customer_id, "customer_updated")
        host.acted(result)

    host.app.push_screen(EditCustomerForm(customer), done)


def _delete(host: ActionHost, customer: Any) -> None:
    def done(result: Any) -> None:
        if isinstance(result, Deleted):
            who = customer.name or customer.email or result.customer_id
            host.app.notify(
                f"{who} ({result.customer_id}) deleted.", title="Customer deleted", markup=False
            )
            host.acted(result)
            announce(host.app, result.customer_id, "customer_deleted", "deleted")

    async def delete() -> Deleted:
        await host.app.runtime.api.customers.delete(customer.customer_id)
        return Deleted(customer.customer_id)

    host.app.push_screen(delete_confirmation(customer, delete), done)


NEW_CUSTOMER: Action[Any] = new_record_action("New", "Create a customer", "New customer")
ROW_ACTIONS: tuple[Action[Customer], ...] = (
    Action(
        "edit",
        "e",
        "Edit",
        "Change name, e-mail, phone, description, address or metadata",
        _with_customer(_edit),
        palette="Edit this customer",
    ),
    Action(
        "delete",
        "D",
        "Delete",
        "Delete this customer (its payments keep their customer_id)",
        _with_customer(_delete),
        palette="Delete this customer",
    ),
)
