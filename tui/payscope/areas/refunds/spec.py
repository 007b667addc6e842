"""The Refunds area's spec: columns, filter grammar, statuses, the labels its forms share.

Imported by its forms and its view; it imports neither.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from payscope.api.export import ListSource
from payscope.api.models.refunds import Refund, RefundListRequest, RefundStatus
from payscope.views.columns import Column
from payscope.views.filters import (
    Filter,
    Grammar,
    amount_term,
    currency_term,
    id_word,
    status_term,
    time_terms,
)
from payscope.views.ids import check_id, id_term
from payscope.widgets.format import amount_text, format_time, status_text
from payscope.widgets.text import safe

if TYPE_CHECKING:
    from payscope.api.client import ApiClient

PAGE_SIZE = 100
AMOUNT_WIDTH = 15
# Every refund status, as the models know them.
REFUND_STATUSES: tuple[str, ...] = tuple(status.value for status in RefundStatus)

# Ids are shown whole (prefix + 20 characters); the status column takes spare width first.
# Narrower, the created time and then the payment give way: refund, status and amount stay.
# The reason needs a wide terminal (the detail shows it whole).
COLUMNS: tuple[Column[Refund], ...] = (
    Column("refund_id", "Refund", 24, lambda r, c: safe(r.refund_id)),
    Column("status", "Status", 9, lambda r, c: status_text(r.status, c.variables), flex=(9, 12)),
    Column(
        "amount",
        "Amount",
        AMOUNT_WIDTH,
        lambda r, c: amount_text(r.amount, r.currency, c.variables, width=AMOUNT_WIDTH),
    ),
    Column("payment_id", "Payment", 24, lambda r, c: safe(r.payment_id), 94),
    Column(
        "created", "Created", 12, lambda r, c: safe(format_time(r.created_time, short=True)), 68
    ),
    Column("reason", "Reason", 12, lambda r, c: safe(r.reason, empty=""), 108, flex=(12, 40)),
)


# -- the filter ------------------------------------------------------------------------------------


_bare_id = id_word({"pay_": "payment_id", "ref_": "refund_id"}, 20, own="ref_")


def _bare(word: str, result: Filter) -> None:
    # A whole id goes to the service as it is: a character it refuses is said here instead.
    if word.startswith("pay_"):
        check_id(word, "payment")
    elif word.startswith("ref_"):
        check_id(word, "refund")
    _bare_id(word, result)


def refund_grammar() -> Grammar:
    """`status:failed currency:EUR amount:10-50 payment:pay_… from:… to:… ref_…`.

    The amount is matched in the view (the list route has no amount filter); the rest is the
    service's `POST /refunds/list` filter body."""
    return Grammar(
        [
            status_term(REFUND_STATUSES, "refund", "refund_status"),
            currency_term(),
            amount_term(None),
            id_term(("payment", "pay"), "payment_id", "payment", "pay_…"),
            *time_terms(),
            id_term(("id", "refund"), "refund_id", "refund", "ref_…"),
        ],
        bare=_bare,
        bare_example="ref_… pay_… or part of an id",
    )


async def export_page(client: ApiClient, filters: dict[str, Any], offset: int, limit: int) -> Any:
    """A page of the refunds list and its total, for `payscope export`."""
    page = await client.refunds.list(RefundListRequest(limit=limit, offset=offset, **filters))
    return list(page.data), page.total_count


def export_source() -> ListSource:
    """How `payscope export refunds` reads the list (this area's `AREA.export`)."""
    return ListSource(export_page, lambda r: str(r.refund_id))
