"""The Refunds area's actions, declared once for its list and its detail (each opens its
form from `forms`).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from payscope.areas.refunds.forms import RefundUpdateForm
from payscope.areas.refunds.spec import REFUND_STATUSES
from payscope.views.actions import Action, with_known
from payscope.views.listing import new_record_action
from payscope.views.live import announce
from payscope.views.payment import goto_payment

if TYPE_CHECKING:
    from payscope.api.models.refunds import Refund
    from payscope.views.actions import ActionHost


# -- actions (the list and the detail share them) ------------------------------------------------


def _update(host: ActionHost, _refund_id: str | None, refund: Any) -> None:
    def done(result: Any) -> None:
        # No webhook reports an update: announced, so the list row and the detail follow.
        if result is not None:
            announce(host.app, result.refund_id, "refund_updated", result.status)
        host.acted(result)

    host.app.push_screen(RefundUpdateForm(refund), done)


# The service changes a refund's reason and metadata in every status.
ROW_ACTIONS: tuple[Action[Refund], ...] = with_known(
    (
        goto_payment("Open the payment it refunds", "Open the refunded payment"),
        Action(
            "update",
            "e",
            "Update",
            "Change the reason or the metadata",
            _update,
            palette="Update this refund",
        ),
    ),
    REFUND_STATUSES,
)


NEW_REFUND: Action[Any] = new_record_action("New refund", "Refund a payment", "New refund")
