"""The Payments area's spec: its columns, filter grammar and statuses (`payscope.api.vocabulary`).

Imported by its actions, its view and its detail; it imports none of them.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from payscope.api.vocabulary import PAYMENT_STATUSES
from payscope.views.columns import Column
from payscope.views.filters import (
    Grammar,
    Term,
    amount_term,
    currency_term,
    id_word,
    server_term,
    status_term,
    time_terms,
    word_or,
)
from payscope.widgets.format import amount_text, format_time, status_text
from payscope.widgets.text import safe

if TYPE_CHECKING:
    from payscope.api.client import ApiClient
    from payscope.api.export import ListSource
    from payscope.api.models.payments import Payment
    from payscope.areas.payments.cache import CachedPayment
    from payscope.views.filters import Filter

    # A row: a live payment, or the start-up cache's copy of what the table showed.
    Row = Payment | CachedPayment

AMOUNT_WIDTH = 15
# Widths fit whole ids (prefix + 20 characters), the longest common status and amounts up to
# 999,999.99. Spare width goes to the status column first, up to the longest status but one
# (`partially_captured_and_capturable` stays cut); narrower, it gives way so the amount stays.
COLUMNS: tuple[Column[Any], ...] = (
    Column("payment_id", "Payment", 24, lambda p, c: safe(p.payment_id)),
    Column("status", "Status", 18, lambda p, c: status_text(p.status, c.variables), flex=(12, 24)),
    Column(
        "amount",
        "Amount",
        AMOUNT_WIDTH,
        lambda p, c: amount_text(p.amount, p.currency, c.variables, width=AMOUNT_WIDTH),
    ),
    Column("created", "Created", 12, lambda p, c: safe(format_time(p.created, short=True)), 77),
    Column("customer", "Customer", 24, lambda p, c: safe(p.customer_id), 103),
)


def payment_grammar(*, real: bool = False) -> Grammar:
    """`status:failed currency:EUR amount:10-50 customer:cus_… from:… to:… pay_…`.

    `real`: the real service's list filters by customer and created time only, so status,
    currency and amount are matched in the view over the newest payments (the header says how
    many it looked at); a whole payment id is read by id (`payscope.api.resources.payments`).
    """
    status = status_term(PAYMENT_STATUSES, "payment", None if real else "status")
    currency = currency_term(None if real else "currency")
    return Grammar(
        [
            status,
            currency,
            amount_term(None if real else "amount_filter"),
            server_term(("customer", "cus"), "customer_id", "customer:cus_…"),
            method_term(real=real),
            *time_terms(),
            server_term(("id", "payment"), "payment_id", "id:pay_…"),
        ],
        # `failed` as the Status column reads, `usd` as the amounts do.
        bare=word_or(
            id_word({"pay_": "payment_id", "cus_": "customer_id"}, 20, own="pay_"),
            statuses=PAYMENT_STATUSES,
            status=status,
            currency=currency,
        ),
        bare_example="failed · usd · pay_… or part of an id",
    )


def method_term(*, real: bool = False) -> Term:
    """`method:wallet` (a family: asked of the service, except the real one's list, which has
    no such filter) or `method:ideal` (a type: matched in the view), several with commas."""
    from payscope.api.models.methods import FAMILIES, KINDS

    families = {"card", *FAMILIES}
    types = {"credit", "debit", *(k.type for k in KINDS)}

    def apply(value: str, result: Filter) -> None:
        wanted = [v.strip().lower() for v in value.split(",") if v.strip()]
        for word in wanted:
            if word not in families and word not in types:
                close = sorted(w for w in families | types if word in w or w in word)
                hint = f" Did you mean {', '.join(close[:3])}?" if close else ""
                raise ValueError(
                    f"`{word}` is not a payment method.{hint} Families: "
                    f"{', '.join(sorted(families))}; or a type such as ideal, apple_pay, sepa."
                )
        if all(w in families for w in wanted) and not real:
            result.server["payment_method"] = wanted
            return
        chosen = set(wanted)
        result.local.append(
            lambda p: (
                getattr(p, "payment_method", None) in chosen
                or getattr(p, "payment_method_type", None) in chosen
            )
        )

    return Term(("method", "m"), "method:wallet", apply)


async def export_page(client: ApiClient, filters: dict[str, Any], offset: int, limit: int) -> Any:
    """A page of the payments list and its total, for `payscope export`."""
    from payscope.api.models.payments import PaymentListRequest

    page = await client.payments.list(PaymentListRequest(limit=limit, offset=offset, **filters))
    return list(page.data), page.total_count


def export_source() -> ListSource:
    """How `payscope export payments` reads the list (this area's `AREA.export`)."""
    from payscope.api.export import ListSource

    return ListSource(export_page, lambda r: str(r.payment_id))
