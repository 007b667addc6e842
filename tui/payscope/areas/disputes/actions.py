"""The Disputes area's actions, declared once for its list and its detail (each opens its
form from `forms`).
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING, Any

from payscope.api.models.disputes import Dispute
from payscope.areas.disputes import forms as dispute_forms
from payscope.areas.disputes.spec import (
    CHALLENGED,
    DISPUTE_STATUSES,
    OPENED,
    normal,
)
from payscope.views.actions import Action, statuses, with_known
from payscope.views.payment import goto_payment

if TYPE_CHECKING:
    from payscope.views.actions import ActionHost


# -- actions (the list and the detail share them) ------------------------------------------------


# A screen maker `make(app, dispute)` (a coroutine: it may read more), and an action's `run`.
Make = Callable[[Any, Any], Awaitable[Any]]
Run = Callable[["ActionHost", str | None, Any], None]


def _with_dispute(make: Make) -> Run:
    """Run an action whose screen `make(app, dispute)` builds (a coroutine: it may read more)."""

    def run(host: ActionHost, dispute_id: str | None, dispute: Any) -> None:
        app = host.app

        async def go() -> None:
            current = dispute
            if current is None:
                current = normal(await app.runtime.api.disputes.retrieve(str(dispute_id)))
            await app.push_screen(await make(app, current), host.acted)

        host.run_worker(go(), group="dispute-action", exit_on_error=False, description="Dispute")

    return run


def _form(form: Callable[..., Awaitable[Any]], *args: Any) -> Make:
    """The screen maker of a form of `forms`, given `args` after the app and the dispute."""

    async def make(app: Any, dispute: Any) -> Any:
        return await form(app, dispute, *args)

    return make


_ANSWERABLE = statuses(OPENED)
_UNDECIDED = statuses(OPENED, CHALLENGED)

DISPUTE_ACTIONS: tuple[Action[Dispute], ...] = with_known(
    (
        goto_payment("Open the disputed payment", "Open the disputed payment"),
        Action(
            "accept",
            "a",
            "Accept",
            "Accept (concede): the cardholder keeps the amount",
            _with_dispute(_form(dispute_forms.accept_form)),
            _ANSWERABLE,
            palette="Accept this dispute",
        ),
        Action(
            "challenge",
            "c",
            "Challenge",
            "Challenge with evidence, by category",
            _with_dispute(_form(dispute_forms.evidence_form, False)),
            _ANSWERABLE,
            palette="Challenge with evidence",
        ),
        Action(
            "evidence",
            "e",
            "Evidence",
            "Replace the evidence sent (until the network decides)",
            _with_dispute(_form(dispute_forms.evidence_form, True)),
            statuses(CHALLENGED),
            palette="Replace the evidence",
        ),
        Action(
            "won",
            "w",
            "Resolve won",
            "Act as the card network: decide for the merchant (local sandbox)",
            _with_dispute(_form(dispute_forms.resolve_form, "won")),
            _UNDECIDED,
            local_only=True,
            palette="Resolve as won (sandbox network)",
        ),
        Action(
            "lost",
            "l",
            "Resolve lost",
            "Act as the card network: decide for the cardholder (local sandbox)",
            _with_dispute(_form(dispute_forms.resolve_form, "lost")),
            _UNDECIDED,
            local_only=True,
            palette="Resolve as lost (sandbox network)",
        ),
    ),
    DISPUTE_STATUSES,
)
