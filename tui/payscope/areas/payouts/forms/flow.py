"""The payout flow's confirmations: confirm (the service checks the method), fulfil (the payout
is sent), cancel, and the local sandbox's bank reversing a paid-out payout."""

from __future__ import annotations

from typing import Any

from payscope.api.models.payouts import Payout
from payscope.areas.payouts.spec import method_text
from payscope.views.forms import ConfirmScreen
from payscope.views.live import announce
from payscope.widgets.format import format_amount


def _what(p: Payout) -> str:
    method = method_text(p) if p.payout_method_data else "no method"
    return f"{p.payout_id}: {format_amount(p.amount, p.currency)} to {method}"


def confirm_form(payout: Payout) -> ConfirmScreen:
    """Confirm: the service checks the method; with auto-fulfil it is sent at once."""

    async def do() -> Any:
        app = form.app
        result = await form.runtime.api.payouts.confirm(payout.payout_id)
        announce(app, result.payout_id, "payout_confirmed", result.status)
        return result

    then = (
        "Auto-fulfil is on: it is sent to the recipient at once."
        if payout.auto_fulfill
        else "It then waits for Fulfill (f) to be sent."
    )
    form = ConfirmScreen(
        "Confirm payout",
        f"Confirm {_what(payout)}? {then}",
        "Confirm and send" if payout.auto_fulfill else "Confirm payout",
        do,
    )
    return form


def fulfill_form(payout: Payout) -> ConfirmScreen:
    """Fulfil: the payout is sent; it settles by itself and a webhook says how."""

    async def do() -> Any:
        return await form.runtime.api.payouts.fulfill(payout.payout_id)

    form = ConfirmScreen(
        "Fulfill payout",
        f"Send {_what(payout)}? It settles by itself; a payout_success or payout_failed "
        "webhook says how.",
        f"Send {format_amount(payout.amount, payout.currency)}",
        do,
    )
    return form


def cancel_form(payout: Payout) -> ConfirmScreen:
    """Cancel a payout that is not final."""

    async def do() -> Any:
        return await form.runtime.api.payouts.cancel(payout.payout_id)

    form = ConfirmScreen(
        "Cancel payout",
        f"Cancel {_what(payout)}? Nothing more is sent; this cannot be undone.",
        "Cancel payout",
        do,
        variant="error",
    )
    return form


def reverse_form(payout: Payout) -> ConfirmScreen:
    """The local sandbox's bank sends a paid-out payout back (success -> reversed)."""

    async def do() -> Any:
        return await form.runtime.api.sandbox.reverse_payout(payout.payout_id)

    form = ConfirmScreen(
        "Reverse payout (sandbox bank)",
        f"Act as the recipient's bank and send back {_what(payout)}? The payout becomes "
        "reversed and a payout_reversed webhook is sent.",
        "Reverse payout",
        do,
        variant="warning",
    )
    return form
