"""The Subscriptions area's spec: columns, filter grammar, statuses, the labels its forms share.

Imported by its forms and its view; it imports neither.
"""

from __future__ import annotations

import json
import weakref
from dataclasses import dataclass, field, replace
from datetime import UTC, datetime
from typing import TYPE_CHECKING, Any

from rich.text import Text

from payscope.api.errors import ClientError
from payscope.api.export import ListSource
from payscope.api.models.subscriptions import (
    Subscription,
    SubscriptionListRequest,
    SubscriptionStatus,
)
from payscope.views.actions import statuses
from payscope.views.columns import CellContext, Column
from payscope.views.filters import Filter, Grammar, Term, status_term, time_terms
from payscope.views.ids import id_problem
from payscope.views.listing import listed_total
from payscope.widgets.errors import describe_error
from payscope.widgets.format import (
    format_amount,
    format_time,
    status_text,
    theme_colour,
)
from payscope.widgets.text import safe, visible

if TYPE_CHECKING:
    from payscope.api.client import ApiClient
    from payscope.views.live import Change

PAGE_SIZE = 50
# Every subscription status, as the models know them.
SUBSCRIPTION_STATUSES: tuple[str, ...] = tuple(status.value for status in SubscriptionStatus)
# The states each operation takes (the local sandbox's rules; the real service documents none).
UPDATABLE = statuses("active", "trial", "paused", "unpaid")
PAUSABLE = statuses("active", "trial")
RESUMABLE = statuses("paused", "pending", "unpaid")
CANCELLABLE = statuses("active", "trial", "paused", "pending", "unpaid")
# Webhooks naming subscriptions a remote list has not shown yet, gathered into one reload.
REMOTE_RELOAD_DELAY = 0.3
# Seconds the service's clock may have moved on (on the wall, or advanced) before a list shown
# again is read again.
CLOCK_MOVED = 60
# The invoices the detail lists.
HISTORY_SHOWN = 24
PRICE_WIDTH = 20


# -- the plan catalogue ------------------------------------------------------------------------


@dataclass(frozen=True)
class Price:
    """One price of the catalogue, with its plan."""

    plan_id: str
    plan_name: str
    price_id: str
    amount: int | None
    currency: str | None
    interval: str | None
    interval_count: int
    trial_days: int | None

    @property
    def cadence(self) -> str:
        """ "month", "3 months", "year"."""
        unit = (self.interval or "term").lower()
        return unit if self.interval_count == 1 else f"{self.interval_count} {unit}s"

    @property
    def charge(self) -> str:
        """ "29.00 USD / month"."""
        return f"{format_amount(self.amount, self.currency)} / {self.cadence}"

    @property
    def label(self) -> str:
        """ "Pro · 29.00 USD / month · 14-day trial" (the pickers' wording)."""
        trial = f" · {self.trial_days}-day trial" if self.trial_days else ""
        return f"{self.plan_name} · {self.charge}{trial}"


@dataclass(frozen=True)
class Catalogue:
    """The plans and prices the service offers (`problem` says why none could be read)."""

    prices: dict[str, Price] = field(default_factory=dict)
    problem: str = ""

    def price(self, price_id: str | None) -> Price | None:
        return self.prices.get(price_id or "")

    def plans(self) -> dict[str, str]:
        """plan_id -> plan name, in the catalogue's order."""
        return {p.plan_id: p.plan_name for p in self.prices.values()}


_CATALOGUES: weakref.WeakKeyDictionary[Any, Catalogue] = weakref.WeakKeyDictionary()


async def catalogue(api: ApiClient, *, fresh: bool = False) -> Catalogue:
    """The catalogue (read once per client; a failed read is tried again next time)."""
    known = _CATALOGUES.get(api)
    if known is not None and not fresh:
        return known

    try:
        plans = await api.subscriptions.plans()
    except ClientError as exc:
        title, message = describe_error(exc)
        return Catalogue(problem=f"{title}: {message}")
    prices: dict[str, Price] = {}
    for plan in plans.data:
        for p in plan.price_id:
            prices[p.price_id] = Price(
                plan_id=plan.plan_id,
                plan_name=plan.name or plan.plan_id,
                price_id=p.price_id,
                amount=p.amount,
                currency=p.currency,
                interval=p.interval,
                interval_count=p.interval_count or 1,
                trial_days=p.trial_period or None,
            )
    found = Catalogue(prices)
    _CATALOGUES[api] = found
    return found


def price_cell(sub: Any, found: Catalogue | None, variables: Any) -> Text:
    """ "Pro 29.00 USD/month"; the price id when the catalogue does not know it."""
    price = found.price(sub.item_price_id) if found else None
    if price is None:
        text = safe(sub.item_price_id or sub.plan_id)
    else:
        text = Text.assemble(
            (visible(price.plan_name), "bold"),
            " ",
            (format_amount(price.amount, price.currency), theme_colour(variables, "amount")),
            f"/{visible(price.cadence)}",
        )
    text.no_wrap = True
    text.overflow = "ellipsis"
    return text


# -- the list's cells --------------------------------------------------------------------------


@dataclass(frozen=True)
class SubscriptionCells(CellContext):
    """The cell context of the list, with the catalogue (a price's plan name and amount)."""

    catalogue: Catalogue | None = None


def _catalogue_of(context: CellContext) -> Catalogue | None:
    return context.catalogue if isinstance(context, SubscriptionCells) else None


_SCHEDULED_WORDS = {"cancel": "ends", "pause": "pauses", "resume": "resumes"}


def next_cell(sub: Any, context: CellContext) -> Text:
    """The next charge; a change the service will make by itself says so instead."""
    change = sub.scheduled_change or {}
    action = str(change.get("action") or "")
    if action:
        word = _SCHEDULED_WORDS.get(action, visible(action))
        text = Text(f"{word} {_short_time(change.get('at'), context.now)}")
        text.stylize(theme_colour(context.variables, "warning"))
        return text
    if not sub.next_billing_at:
        return Text("-", style="dim")
    return safe(_short_time(sub.next_billing_at, context.now))


def _short_time(value: Any, now: float | None) -> str:
    """ "May 30 06:55" within the service's current year, "2025-04-30" beyond it (a yearly
    price's next charge)."""
    text = str(value)
    if now is not None and text[:4] != datetime.fromtimestamp(now, UTC).strftime("%Y"):
        return text[:10]
    return format_time(text, short=True)


# Ids show whole (prefix + 20 characters). Narrower, the customer and then the next charge give
# way; the id, the status and the price stay. The creation time needs a wide terminal.
COLUMNS: tuple[Column[Subscription], ...] = (
    Column("id", "Subscription", 24, lambda s, c: safe(s.id)),
    Column("status", "Status", 9, lambda s, c: status_text(s.status, c.variables), flex=(9, 10)),
    Column(
        "price",
        "Plan / price",
        PRICE_WIDTH,
        lambda s, c: price_cell(s, _catalogue_of(c), c.variables),
        flex=(PRICE_WIDTH, 30),
    ),
    Column("next", "Next charge", 14, next_cell, 75),
    Column("customer", "Customer", 24, lambda s, c: safe(s.customer_id), 101),
    Column("created", "Created", 12, lambda s, c: safe(format_time(s.created_at, short=True)), 115),
)


# -- the filter ----------------------------------------------------------------------------------


def _ids_of(sub: Any) -> str:
    return " ".join(
        str(v).lower()
        for v in (sub.id, sub.customer_id, sub.plan_id, sub.item_price_id, sub.payment_method_id)
        if v
    )


def subscription_grammar(found: Catalogue | None = None) -> Grammar:
    """`status:active,trial customer:cus_… plan:pro price:price_… from:… to:… sub_…`.

    Status, customer and plan go to the list route; the price, the dates and id fragments are
    matched in the view. A plan may be given by its name when the catalogue is known."""

    def customer(value: str, result: Filter) -> None:
        if problem := id_problem(value, "customer"):
            raise ValueError(f"`{visible(value)}`: {problem}")
        result.server["customer_id"] = value

    def plan(value: str, result: Filter) -> None:
        plans = found.plans() if found else {}
        by_name = {name.lower(): plan_id for plan_id, name in plans.items()}
        chosen = by_name.get(value.lower(), value)
        if plans and chosen not in plans:
            names = ", ".join(f"{name} ({plan_id})" for plan_id, name in plans.items())
            raise ValueError(f"`{visible(value)}` is not a plan of the catalogue: {names}.")
        if problem := id_problem(chosen, "plan"):
            raise ValueError(f"`{visible(value)}`: {problem}")
        result.server["plan_id"] = chosen

    def price(value: str, result: Filter) -> None:
        if found and found.prices and value not in found.prices:
            raise ValueError(
                f"`{visible(value)}` is not a price of the catalogue: {', '.join(found.prices)}."
            )
        result.local.append(lambda s: s.item_price_id == value)

    def bare(word: str, result: Filter) -> None:
        if word.startswith("cus_"):
            customer(word, result)
            return
        if word.startswith("plan_"):
            plan(word, result)
            return
        if len(word) < 4:
            raise ValueError(f"`{visible(word)}`: type at least 4 characters of an id.")
        fragment = word.lower()
        result.local.append(lambda s: fragment in _ids_of(s))

    return Grammar(
        [
            status_term(SUBSCRIPTION_STATUSES, "subscription"),
            Term(("customer", "cus"), "customer:cus_…", customer),
            Term(("plan",), "plan:pro", plan),
            Term(("price",), "price:price_…", price),
            *time_terms(None, None),
        ],
        bare=bare,
        bare_example="sub_… cus_… or part of an id",
    )


# -- following webhooks --------------------------------------------------------------------------


def subscription_in(change: Change) -> str | None:
    """The subscription a webhook is about beyond its own ids: a renewal payment's (its
    `metadata.subscription_id`), so a failed renewal, which sends no `invoice_paid`, is seen."""
    delivery = change.delivery
    body = getattr(delivery, "body", None)
    if not body or b"subscription_id" not in body:
        return None
    try:
        obj = json.loads(body)["content"]["object"]
    except (ValueError, KeyError, TypeError):
        return None
    metadata = obj.get("metadata") if isinstance(obj, dict) else None
    value = metadata.get("subscription_id") if isinstance(metadata, dict) else None
    return value if isinstance(value, str) and value.startswith("sub_") else None


def with_subscription(change: Change) -> Change:
    """`change`, naming the subscription its payment belongs to among its related ids."""
    sub_id = subscription_in(change)
    if sub_id is None or sub_id in change.ids:
        return change
    return replace(change, related=change.related | {sub_id})


async def read_sandbox_page(
    api: ApiClient, filters: dict[str, Any], offset: int, limit: int
) -> tuple[list[Subscription], int]:
    """A page of the local sandbox's list of subscriptions (the service has none) and its
    total: the list and `payscope export` read it so."""
    request = SubscriptionListRequest.model_validate(
        {**filters, "limit": min(limit, 100), "offset": offset}
    )
    found = await api.sandbox.subscriptions(request)
    return list(found.data), listed_total(found.total_count, offset, len(found.data))


def export_source() -> ListSource:
    """How `payscope export subscriptions` reads the local sandbox's list (the real service
    has none; this area's `AREA.export`)."""
    return ListSource(read_sandbox_page, lambda r: str(r.id))
