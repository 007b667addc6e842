"""The Customers area's spec: columns, filter grammar, statuses, the labels its forms share.

Imported by its forms and its view; it imports neither.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from rich.text import Text

from payscope.api.errors import NotFoundError
from payscope.api.export import ListSource
from payscope.api.models.customers import Customer, CustomerListRequest
from payscope.areas.customers import AREA
from payscope.views.areas import registry
from payscope.views.columns import Column
from payscope.views.filters import Filter, Grammar, Term, time_terms
from payscope.widgets.format import format_time
from payscope.widgets.text import safe

if TYPE_CHECKING:
    from payscope.api.client import ApiClient

PAGE_SIZE = 100
ID_PREFIX = AREA.id_prefix or ""
ID_LENGTH = 20  # characters after the prefix in the service's own ids
# The newest payments the detail lists; `P` shows them all in Payments.
PAYMENTS_SHOWN = 20
# Refund and dispute counts are asked for this many payments at a time.
COUNT_CONCURRENCY = 6
# Payments that took money: the only ones that can have refunds or disputes.
CHARGED = frozenset({"succeeded", "partially_captured", "partially_captured_and_capturable"})


def phone_of(customer: Any) -> str | None:
    """The phone number with its country code ("+44 20 7946 0958"), or None."""
    phone = customer.phone
    code = customer.phone_country_code
    if not phone:
        return None
    if not code:
        return str(phone)
    code = str(code)
    return f"{code if code.startswith('+') else '+' + code} {phone}"


def _cut(value: Any) -> Text:
    """A cell that ends in "…" when it is cut (the detail shows it whole)."""
    text = safe(value)
    text.overflow = "ellipsis"
    return text


# At 120 columns everything shows; narrower, the id goes first (the detail and `/` find it),
# then the phone. Spare cells go to the e-mail once a name has 18 (people quote their e-mail);
# a cut cell ends in "…".
COLUMNS: tuple[Column[Customer], ...] = (
    Column("customer_id", "Customer", 24, lambda c, x: safe(c.customer_id), 100),
    Column("name", "Name", 16, lambda c, x: _cut(c.name), flex=(12, 18)),
    Column("email", "Email", 26, lambda c, x: _cut(c.email), flex=(18, 40)),
    Column("phone", "Phone", 14, lambda c, x: _cut(phone_of(c)), 78),
    Column("created", "Created", 12, lambda c, x: safe(format_time(c.created_time, short=True))),
)


# -- the filter ------------------------------------------------------------------------------------


def _folded(value: Any) -> str:
    return str(value or "").casefold()


def _by_name(text: str, result: Filter) -> None:
    if len(text) < 2:
        raise ValueError(f"`{text}`: type at least 2 letters of a name.")
    wanted = text.casefold()
    result.local.append(lambda c: wanted in _folded(c.name))


def _by_email(text: str, result: Filter) -> None:
    if len(text.replace("@", "")) < 2:
        raise ValueError(
            f"`{text}`: type more of the e-mail address, such as ada@example.com or @example.com."
        )
    wanted = text.casefold()
    result.local.append(lambda c: wanted in _folded(c.email))


def _by_id(text: str, result: Filter) -> None:
    rest = text[len(ID_PREFIX) :] if text.startswith(ID_PREFIX) else text
    if text.startswith(ID_PREFIX) and len(rest) >= ID_LENGTH:
        result.server["customer_id"] = text  # a whole id: read directly, however old
        return
    if len(rest) < 4:
        raise ValueError(f"`{text}`: type at least 4 characters of the id after {ID_PREFIX}.")
    wanted = text.casefold()
    result.local.append(lambda c: wanted in _folded(c.customer_id))


def _bare(word: str, result: Filter) -> None:
    """`cus_…` is an id or part of one, a word with `@` an e-mail, any other word a name."""
    if word.lower().startswith(ID_PREFIX):
        _by_id(word, result)
        return
    other = registry().for_id(word)
    if other is not None and other.key != "customers":
        command = other.word or other.key
        raise ValueError(
            f"`{word}` is an id of {other.title}: this filter finds customers by name, e-mail "
            f"or cus_… id. :{command} <id> opens it."
        )
    if "@" in word:
        _by_email(word, result)
    else:
        _by_name(word, result)


def customer_grammar() -> Grammar:
    """`ada  ada@example.com  @example.com  cus_…  name:…  email:…  id:…  from:…  to:…`."""
    return Grammar(
        [
            Term(("name", "n"), "name:ada", _by_name),
            Term(("email", "mail", "e"), "email:@example.com", _by_email),
            Term(("id", "customer", "cus"), "id:cus_…", _by_id),
            *time_terms(None, None),
        ],
        bare=_bare,
        bare_example="ada, ada@example.com or cus_…",
    )


async def export_page(client: ApiClient, filters: dict[str, Any], offset: int, limit: int) -> Any:
    """A page of the customers list and its total, for `payscope export`."""
    wanted = filters.get("customer_id")
    if wanted is not None:  # the list route cannot filter: a whole id is read on its own
        if offset:
            return [], 1
        try:
            return [await client.customers.retrieve(wanted)], 1
        except NotFoundError:
            return [], 0
    page = await client.customers.list(CustomerListRequest(limit=limit, offset=offset))
    return list(page.data), page.total_count


def export_source() -> ListSource:
    """How `payscope export customers` reads the list (this area's `AREA.export`)."""
    return ListSource(export_page, lambda r: str(r.customer_id))
