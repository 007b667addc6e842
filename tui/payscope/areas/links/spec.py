"""The Links area's spec: columns, filter grammar, statuses, the labels its forms share.

Imported by its forms and its view; it imports neither.
"""

from __future__ import annotations

from collections.abc import Mapping
from datetime import UTC, datetime
from typing import TYPE_CHECKING, Any

from rich.text import Text

from payscope.api.export import ListSource
from payscope.api.models.links import LINK_STATES, PaymentLink, PaymentLinkListRequest
from payscope.views.columns import Column
from payscope.views.filters import (
    Filter,
    Grammar,
    Term,
    amount_term,
    currency_term,
    status_term,
    time_terms,
)
from payscope.views.ids import id_problem
from payscope.views.listing import listed_total
from payscope.views.when import span_text
from payscope.widgets.format import amount_text, format_time, theme_colour
from payscope.widgets.text import safe, visible

if TYPE_CHECKING:
    from payscope.api.client import ApiClient

PAGE_SIZE = 100
AMOUNT_WIDTH = 13
# The theme colour of each state: waiting (blue), paid (green), expired (grey).
STATE_COLOURS = {
    "active": "status-processing",
    "paid": "status-succeeded",
    "expired": "status-expired",
}
# An active link this close to its expiry (seconds) has its time left in the warning colour.
SOON = 3600
# How often the list and the detail look whether a shown link's expiry has passed (seconds).
EXPIRY_CHECK = 1.0


# -- state and expiry ------------------------------------------------------------------------------


def link_state(link: Any) -> str | None:
    """What the link is now: `paid`, or the service's status (`active`, `expired`, ...)."""
    state = getattr(link, "state", None)
    return str(state) if state else getattr(link, "status", None)


def state_text(state: str | None, variables: Mapping[str, str]) -> Text:
    """A link's state in its theme colour (an unknown one in the colour of other statuses)."""
    if not state:
        return Text("-")
    style = theme_colour(variables, STATE_COLOURS.get(state, "status-other"))
    extra = variables.get("status-text-style", "none")
    if extra and extra != "none":
        style = f"{extra} {style}"
    return Text(visible(state), style=style, no_wrap=True, overflow="ellipsis")


def expires_at(link: Any) -> float | None:
    """The link's expiry in seconds since the epoch (None when absent or unreadable)."""
    text = getattr(link, "expiry", None)
    if not text:
        return None
    try:
        moment = datetime.fromisoformat(str(text).replace("Z", "+00:00"))
    except ValueError:
        return None
    return (moment if moment.tzinfo else moment.replace(tzinfo=UTC)).timestamp()


def short_span(seconds: float) -> str:
    """A time left in at most 9 characters' worth: 29d, 3d 4h, 5h 30m, 23h, 12m."""
    return span_text(max(seconds, 0), short=True)


def waiting(link: Any) -> bool:
    """True while the link can still be paid: active and not paid."""
    return link_state(link) == "active"


def expiry_cell(link: Any, now: float, variables: Mapping[str, str]) -> Text:
    """The list's expiry: how long an active link has left (warning within the hour), or the
    day a paid or expired link ran out, muted."""
    due = expires_at(link)
    if due is None:
        return Text("never" if waiting(link) else "-", style="dim")
    if waiting(link) and due > now:
        style = f"bold {theme_colour(variables, 'warning')}" if due - now <= SOON else ""
        return Text(f"in {short_span(due - now)}", style=style, no_wrap=True)
    day = format_time(datetime.fromtimestamp(due, UTC), short=True).rsplit(" ", 1)[0]
    return Text(day, style=theme_colour(variables, "muted"), no_wrap=True)


def expiry_long(link: Any, now: float, variables: Mapping[str, str]) -> Text:
    """The detail's expiry: the moment, then how long is left or how long ago it passed."""
    due = expires_at(link)
    if due is None:
        return Text("none given by the service", style="dim")
    moment = format_time(datetime.fromtimestamp(due, UTC)) + " UTC"
    if due > now:
        if link_state(link) == "paid":
            note = f"  {span_text(due - now)} from now; paid, so it no longer matters"
            return Text.assemble(moment, (note, "dim"))
        soon = due - now <= SOON
        style = f"bold {theme_colour(variables, 'warning')}" if soon else ""
        return Text.assemble(moment, (f"  {span_text(due - now)} left", style))
    return Text.assemble(moment, (f"  passed {span_text(now - due)} ago", "dim"))


# Ids are shown whole (plink_ + 20 characters). Link, status, amount and expiry stay at 80
# columns; then come the description and when the link was made.
COLUMNS: tuple[Column[PaymentLink], ...] = (
    Column("payment_link_id", "Link", 26, lambda r, c: safe(r.payment_link_id)),
    Column("status", "Status", 7, lambda r, c: state_text(link_state(r), c.variables), flex=(7, 9)),
    Column(
        "amount",
        "Amount",
        AMOUNT_WIDTH,
        lambda r, c: amount_text(r.amount, r.currency, c.variables, width=AMOUNT_WIDTH),
    ),
    Column("expiry", "Expires", 9, lambda r, c: expiry_cell(r, c.service_now(), c.variables)),
    Column(
        "description",
        "Description",
        12,
        lambda r, c: safe(r.description, empty=""),
        77,
        flex=(12, 48),
    ),
    Column("created", "Created", 12, lambda r, c: safe(format_time(r.created_at, short=True)), 91),
)


# -- the filter ------------------------------------------------------------------------------------


def _local_term(keys: tuple[str, ...], field: str, example: str, prefix: str, noun: str) -> Term:
    """`customer:cus_…`, `payment:pay_…`: matched in the view (the list route has no such
    filter)."""

    def apply(value: str, result: Filter) -> None:

        if problem := id_problem(value, noun):
            raise ValueError(f"`{visible(value)}`: {problem}")
        if not value.startswith(prefix):
            raise ValueError(f"`{visible(value)}`: a {noun} id starts with {prefix}.")
        result.local.append(lambda r: getattr(r, field, None) == value)

    return Term(keys, example, apply)


def _bare(word: str, result: Filter) -> None:
    """A word matched in the view: in the link's ids (whole or part) or its description."""
    if len(word) < 3:
        raise ValueError(
            f"`{visible(word)}`: type at least 3 characters of an id or a description."
        )
    fragment = word.lower()

    def matches(link: Any) -> bool:
        ids = (link.payment_link_id, link.payment_id, link.customer_id)
        text = " ".join(str(v) for v in (*ids, link.description) if v).lower()
        return fragment in text

    result.local.append(matches)


def link_grammar() -> Grammar:
    """`status:paid currency:EUR amount:10-50 customer:cus_… payment:pay_… from:… to:…` and
    words (part of an id or the description).

    The time window is the service's (`created_gte`/`created_lte` of `POST /payment_link/list`);
    the rest is matched in the view over the newest links (the route filters on nothing else)."""
    return Grammar(
        [
            status_term(LINK_STATES, "link", None, read=link_state),
            currency_term(None),
            amount_term(None),
            _local_term(("customer", "cus"), "customer_id", "customer:cus_…", "cus_", "customer"),
            _local_term(("payment", "pay"), "payment_id", "payment:pay_…", "pay_", "payment"),
            *time_terms(),
        ],
        bare=_bare,
        bare_example="plink_… or words of the description",
    )


async def read_page(
    api: ApiClient, filters: Mapping[str, Any], offset: int, limit: int
) -> tuple[list[PaymentLink], int]:
    """A page of the links list and its total (the list and `payscope export` read it so).
    The real service answers a bare array: no total, count what came."""
    request = PaymentLinkListRequest(limit=limit, offset=offset, **filters)
    page = await api.payment_links.list(request)
    return list(page.data), listed_total(page.total_count, offset, len(page.data))


def export_source() -> ListSource:
    """How `payscope export links` reads the list (this area's `AREA.export`)."""
    return ListSource(read_page, lambda r: str(r.payment_link_id))
