"""The Payouts area's actions, declared once for its list and its detail (each opens its
form from `forms`).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from payscope.api.models.payouts import Payout
from payscope.areas.payouts.forms.flow import cancel_form, confirm_form, fulfill_form, reverse_form
from payscope.areas.payouts.forms.payout import PayoutUpdateForm
from payscope.areas.payouts.spec import (
    OPEN,
    PAYOUT_STATUSES,
    UPDATABLE,
    customer_of,
)
from payscope.views.actions import Action, statuses, with_known
from payscope.views.listing import new_record_action

if TYPE_CHECKING:
    from textual.screen import Screen

    from payscope.views.actions import ActionHost


# -- actions (the list and the detail share them) ------------------------------------------------


def _with_payout(
    make: Callable[[Payout], Screen[Any]],
) -> Callable[[ActionHost, str | None, Any], None]:
    """Run an action whose form `make(payout)` needs the whole payout (fetched when only the id
    is known)."""

    def run(host: ActionHost, payout_id: str | None, payout: Any) -> None:
        app = host.app

        async def go() -> None:

            current = payout or await app.runtime.api.payouts.retrieve(str(payout_id))
            await app.push_screen(make(current), host.acted)

        host.run_worker(go(), group="payout-action", exit_on_error=False, description="Payout")

    return run


def _customer_jump(host: ActionHost, _payout_id: str | None, payout: Any) -> None:
    customer = customer_of(payout)
    if customer:
        host.app.goto("customers", customer)


ROW_ACTIONS: tuple[Action[Payout], ...] = with_known(
    (
        Action(
            "update",
            "e",
            "Update",
            "Change the method, type, amount or details (before confirmation)",
            _with_payout(PayoutUpdateForm),
            UPDATABLE,
            palette="Update this payout",
        ),
        Action(
            "confirm",
            "o",
            "Confirm",
            "Confirm the payout (with auto-fulfil it is sent at once)",
            _with_payout(confirm_form),
            statuses("requires_confirmation"),
            palette="Confirm this payout",
        ),
        Action(
            "fulfill",
            "f",
            "Fulfill",
            "Send the confirmed payout to the recipient",
            _with_payout(fulfill_form),
            statuses("requires_fulfillment"),
            palette="Fulfill this payout",
        ),
        Action(
            "cancel",
            "x",
            "Cancel",
            "Cancel the payout (any state that is not final)",
            _with_payout(cancel_form),
            OPEN,
            palette="Cancel this payout",
        ),
        Action(
            "reverse",
            "R",
            "Reverse",
            "Act as the recipient's bank: send a paid-out payout back (local sandbox)",
            _with_payout(reverse_form),
            statuses("success"),
            local_only=True,
            palette="Reverse this payout (sandbox bank)",
        ),
        Action(
            "customer",
            "g",
            "Customer",
            "Open the customer it pays",
            _customer_jump,
            when=lambda p: bool(customer_of(p)),
            palette="Open the payout's customer",
            writes=False,
        ),
    ),
    PAYOUT_STATUSES,
)


NEW_PAYOUT: Action[Any] = new_record_action("New payout", "Pay money out", "New payout")
