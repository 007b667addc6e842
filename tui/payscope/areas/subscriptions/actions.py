"""The Subscriptions area's actions, declared once for its list and its detail (each opens its
form from `forms`).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from datetime import UTC, datetime
from typing import TYPE_CHECKING, Any

from payscope.api.models.subscriptions import Subscription
from payscope.areas.subscriptions import forms as subscription_forms
from payscope.areas.subscriptions.spec import (
    CANCELLABLE,
    PAUSABLE,
    RESUMABLE,
    SUBSCRIPTION_STATUSES,
    UPDATABLE,
    catalogue,
)
from payscope.views.actions import Action, with_known
from payscope.views.clock import ClockScreen
from payscope.views.detail import DetailScreen
from payscope.views.listing import ResourceListView, new_record_action
from payscope.views.live import announce

if TYPE_CHECKING:
    from collections.abc import Awaitable

    from textual.screen import Screen

    from payscope.areas.subscriptions.spec import Catalogue
    from payscope.views.actions import ActionHost

    # Builds an action's screen from the app and the subscription (it may read the catalogue).
    Make = Callable[[Any, Subscription], Awaitable[Screen[Any]]]


# -- actions (the list and the detail share them) ------------------------------------------------


def _with_subscription(make: Make) -> Callable[[ActionHost, str | None, Any], None]:
    """Run an action whose screen `make(app, subscription)` builds (a coroutine: it may read
    the catalogue); what its form returns is announced, as no webhook reports it."""

    def run(host: ActionHost, sub_id: str | None, sub: Any) -> None:
        app = host.app

        async def go() -> None:
            current = sub
            if current is None:
                current = await app.runtime.api.subscriptions.retrieve(str(sub_id))

            def done(result: Any) -> None:
                if result is not None:
                    announce(app, result.id, "subscription_changed", result.status)
                host.acted(result)

            await app.push_screen(await make(app, current), done)

        host.run_worker(go(), group="subscription-action", exit_on_error=False, description="Form")

    return run


def _form(form: Callable[[Subscription, Catalogue], Screen[Any]]) -> Make:
    """The screen maker of a form of `forms`, given the subscription and the catalogue."""

    async def make(app: Any, sub: Subscription) -> Screen[Any]:
        found = await catalogue(app.runtime.api)
        return form(sub, found)

    return make


def _goto(area: str, id_of: Callable[[Any], str | None]) -> Callable[..., None]:
    def run(host: ActionHost, _sub_id: str | None, sub: Any) -> None:
        target = id_of(sub) if sub is not None else None
        if target:
            host.app.goto(area, target)

    return run


def _payment_id(sub: Any) -> str | None:
    return sub.payment.payment_id if getattr(sub, "payment", None) else None


ROW_ACTIONS: tuple[Action[Subscription], ...] = with_known(
    (
        Action(
            "update",
            "e",
            "Plan",
            "Change plan: move to another plan or price",
            _with_subscription(_form(subscription_forms.UpdatePlanForm)),
            UPDATABLE,
            palette="Change this subscription's plan",
        ),
        Action(
            "pause",
            "p",
            "Pause",
            "Pause now, at the end of the term or on a date",
            _with_subscription(_form(subscription_forms.PauseForm)),
            PAUSABLE,
            palette="Pause this subscription",
        ),
        Action(
            "resume",
            "u",
            "Resume",
            "Resume now or on a date",
            _with_subscription(_form(subscription_forms.ResumeForm)),
            RESUMABLE,
            palette="Resume this subscription",
        ),
        Action(
            "cancel",
            "x",
            "Cancel",
            "Cancel now, at the end of the term or on a date",
            _with_subscription(_form(subscription_forms.CancelForm)),
            CANCELLABLE,
            palette="Cancel this subscription",
        ),
        Action(
            "payment",
            "g",
            "Payment",
            "Open its latest payment",
            _goto("payments", _payment_id),
            when=lambda sub: bool(_payment_id(sub)),
            palette="Open the latest payment",
            writes=False,
        ),
        Action(
            "customer",
            "c",
            "Customer",
            "Open its customer",
            _goto("customers", lambda sub: sub.customer_id),
            when=lambda sub: bool(getattr(sub, "customer_id", None)),
            palette="Open the customer",
            writes=False,
        ),
    ),
    SUBSCRIPTION_STATUSES,
)


def _soonest_renewal(subs: Sequence[Subscription], now: float) -> datetime | None:
    """The soonest next charge after `now` among `subs` (a datetime), or None."""
    due = []
    for sub in subs:
        try:
            moment = datetime.fromisoformat(str(sub.next_billing_at).replace("Z", "+00:00"))
        except ValueError:
            continue
        moment = moment if moment.tzinfo else moment.replace(tzinfo=UTC)
        if moment.timestamp() > now:
            due.append(moment)
    return min(due, default=None)


def _clock(host: ActionHost, _sub_id: str | None, sub: Any) -> None:
    """The sandbox clock: in a detail "to the next renewal" is this subscription's, in the list
    the soonest of the page's. What the clock set off reloads the list and open details."""
    app = host.app
    now = app.runtime.now()
    if sub is not None:
        renewal = _soonest_renewal([sub], now)
    else:
        rows = getattr(host, "rows", {})
        renewal = _soonest_renewal(list(rows.values()), now)

    def done(moved: Any) -> None:
        if moved is not None:
            after_clock(app)

    app.push_screen(ClockScreen(renewal), done)


def after_clock(app: Any) -> None:
    """The clock moved: scheduled pauses and cancellations took effect (no webhook says so):
    the list's page and every open subscription detail are read again."""
    main = app.get_screen_main()
    if main is not None:
        for view in main.query(ResourceListView):
            if view.id == "subscriptions" and view.loaded:
                view.load()
    for screen in app.screen_stack:
        if isinstance(screen, DetailScreen) and screen.scope == "subscription":
            screen.load(now=True)


CLOCK: Action[Any] = Action(
    "clock",
    "t",
    "Clock",
    "Move the sandbox clock on (1 hour, 1 day, 1 month, to the next renewal): renewals run",
    _clock,
    needs_record=False,
    local_only=True,
    palette="Advance the sandbox clock",
)


NEW_SUBSCRIPTION: Action[Any] = new_record_action(
    "New", "Subscribe a customer to a plan", "New subscription"
)


# -- the list ------------------------------------------------------------------------------------
