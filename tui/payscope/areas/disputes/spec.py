"""The Disputes area's spec: columns, filter grammar, statuses, the labels its forms share.

Imported by its forms and its view; it imports neither.
"""

from __future__ import annotations

from datetime import UTC, datetime
from typing import TYPE_CHECKING, Any

from rich.text import Text

from payscope.api.export import ListSource
from payscope.api.models.disputes import (
    Dispute,
    DisputeListRequest,
    DisputeStage,
    DisputeStatus,
    canonical_dispute_status,
)
from payscope.views.columns import Column
from payscope.views.filters import (
    Filter,
    Grammar,
    Term,
    amount_term,
    currency_term,
    id_word,
    server_term,
    status_term,
    time_terms,
)
from payscope.views.when import span_text
from payscope.widgets.format import amount_text, format_time, status_text, theme_colour
from payscope.widgets.text import safe, visible

if TYPE_CHECKING:
    from payscope.api.client import ApiClient

PAGE_SIZE = 100  # the most GET /disputes/list returns at once
# Every dispute status and stage, as the models know them.
DISPUTE_STATUSES: tuple[str, ...] = tuple(status.value for status in DisputeStatus)
DISPUTE_STAGES: tuple[str, ...] = tuple(stage.value for stage in DisputeStage)
OPENED = DisputeStatus.OPENED.value
CHALLENGED = DisputeStatus.CHALLENGED.value
# A deadline this close (seconds) is shown in the warning colour; a passed one in the error's.
SOON = 3 * 86400
# The amount column fits amounts up to 9,999.99 (wider ones end in "…"; the detail has them).
AMOUNT_WIDTH = 12

# The evidence categories in the order the form and the detail show them.
CATEGORY_TITLES = {
    "customer_information": "Customer",
    "product_information": "Product",
    "shipping_information": "Shipping",
    "refund_policy_information": "Refund policy",
    "cancellation_policy_information": "Cancellation policy",
    "uncategorized_information": "Uncategorized",
}
# Evidence fields that take the id of a file uploaded to the service, not text.
FILE_FIELDS = frozenset(
    {
        "customer_signature",
        "customer_communication",
        "receipt",
        "service_documentation",
        "invoice_showing_distinct_transactions",
        "recurring_transaction_agreement",
        "shipping_documentation",
        "refund_policy",
        "cancellation_policy",
        "uncategorized_file",
    }
)
_WORDS = {"ip": "IP"}


def field_label(name: str) -> str:
    """An evidence field as people read it: `customer_purchase_ip` -> Customer purchase IP."""
    words = [_WORDS.get(w, w) for w in name.split("_")]
    return " ".join(words)[:1].upper() + " ".join(words)[1:]


def category_title(category: str) -> str:
    """An evidence category's heading (one the service adds later reads from its name)."""
    return CATEGORY_TITLES.get(category) or field_label(category.removesuffix("_information"))


# -- status and deadline -------------------------------------------------------------------------


def normal(dispute: Dispute) -> Dispute:
    """The dispute with `status` in the service's long spelling (`won` -> `dispute_won`),
    taken from `dispute_status` when the record has only that: the actions decide by it."""
    raw = dispute.status or dispute.dispute_status
    if not raw:
        return dispute
    status = canonical_dispute_status(raw)
    return dispute if status == dispute.status else dispute.model_copy(update={"status": status})


def short_status(status: str | None) -> str:
    """`dispute_won` -> `won`: the area says "dispute" already."""
    return (status or "").removeprefix("dispute_")


def status_cell(status: str | None, variables: Any) -> Text:
    """A dispute status in its theme colour, in its short form."""
    if not status:
        return Text("-")
    coloured = status_text(status, variables)
    return Text(
        visible(short_status(status)), style=coloured.style, no_wrap=True, overflow="ellipsis"
    )


def due_at(dispute: Any) -> float | None:
    """`challenge_required_by` in seconds since the epoch (None when absent or unreadable)."""
    text = getattr(dispute, "challenge_required_by", None)
    if not text:
        return None
    try:
        moment = datetime.fromisoformat(str(text).replace("Z", "+00:00"))
    except ValueError:
        return None
    return (moment if moment.tzinfo else moment.replace(tzinfo=UTC)).timestamp()


def urgency(dispute: Any, now: float) -> str | None:
    """How pressing the answer is: "overdue", "soon" (within 3 days), "open", or None when no
    answer is due (answered, decided, or no deadline known)."""
    due = due_at(dispute)
    if due is None or dispute.status != OPENED:
        return None
    left = due - now
    if left <= 0:
        return "overdue"
    return "soon" if left <= SOON else "open"


def urgent_style(level: str | None, variables: Any) -> str:
    if level == "overdue":
        return f"bold {theme_colour(variables, 'error')}"
    if level == "soon":
        return f"bold {theme_colour(variables, 'warning')}"
    return ""


def deadline_cell(dispute: Any, now: float, variables: Any) -> Text:
    """The list's deadline: time left (warning within 3 days), `overdue`, or the muted date
    once no answer is due."""
    due = due_at(dispute)
    if due is None:
        return Text("-", style="dim")
    level = urgency(dispute, now)
    if level is None:
        day = format_time(datetime.fromtimestamp(due, UTC), short=True).rsplit(" ", 1)[0]
        return Text(day, style=theme_colour(variables, "muted"), no_wrap=True)
    if level == "overdue":
        late = int((now - due) // 86400)
        text = f"overdue {late}d" if 0 < late < 10 else "overdue"
    else:
        text = f"in {span_text(due - now)}"
    return Text(text, style=urgent_style(level, variables), no_wrap=True, overflow="ellipsis")


def deadline_long(dispute: Any, now: float, variables: Any) -> Text:
    """The detail's deadline: the moment, then how long is left, how late, or why none is."""
    due = due_at(dispute)
    if due is None:
        return Text("not given by the service", style="dim")
    moment = format_time(datetime.fromtimestamp(due, UTC)) + " UTC"
    level = urgency(dispute, now)
    if level is None:
        return Text.assemble(moment, (f"  no answer due ({short_status(dispute.status)})", "dim"))
    if level == "overdue":
        note = f"  overdue by {span_text(now - due)}"
    else:
        note = f"  {span_text(due - now)} left to accept or challenge"
    return Text.assemble(
        (moment, urgent_style(level, variables)), (note, urgent_style(level, variables))
    )


# -- the list --------------------------------------------------------------------------------------


# Ids are shown whole (prefix + 20 characters). Dispute, status and deadline always stay; then
# come the amount (80 columns), the payment, the stage, the reason and when it was opened.
COLUMNS: tuple[Column[Dispute], ...] = (
    Column("dispute_id", "Dispute", 23, lambda d, c: safe(d.dispute_id)),
    Column("status", "Status", 10, lambda d, c: status_cell(d.status, c.variables), flex=(10, 16)),
    Column("deadline", "Deadline", 10, lambda d, c: deadline_cell(d, c.service_now(), c.variables)),
    Column(
        "amount",
        "Amount",
        AMOUNT_WIDTH,
        lambda d, c: amount_text(d.amount, d.currency, c.variables, width=AMOUNT_WIDTH),
        63,
        flex=(AMOUNT_WIDTH, 15),
    ),
    Column("payment_id", "Payment", 24, lambda d, c: safe(d.payment_id), 89),
    Column("stage", "Stage", 15, lambda d, c: safe(d.dispute_stage, empty=""), 106),
    Column("reason", "Reason", 20, lambda d, c: safe(d.reason, empty=""), 128),
    Column(
        "created",
        "Opened",
        12,
        lambda d, c: safe(format_time(d.created or d.created_at, short=True)),
        142,
    ),
)


def _stage(value: str, result: Filter) -> None:
    stage = value.strip().lower().replace("-", "_")
    if stage not in DISPUTE_STAGES:
        close = [s for s in DISPUTE_STAGES if stage in s]
        hint = f" Did you mean {', '.join(close[:3])}?" if close else ""
        raise ValueError(
            f"`{value}` is not a dispute stage.{hint} Stages: {', '.join(DISPUTE_STAGES)}."
        )
    result.server["dispute_stage"] = stage


def dispute_grammar() -> Grammar:
    """`status:won stage:pre_arbitration payment:pay_… from:… to:… amount:10-50 currency:EUR`,
    and a bare `pay_…` (whole: the service filters) or `dp_…`/part of an id (matched here)."""
    return Grammar(
        [
            # The service filters on one status; `won` is read as `dispute_won`.
            status_term(
                DISPUTE_STATUSES, "dispute", many=False, normalise=canonical_dispute_status
            ),
            Term(("stage",), "stage:pre_arbitration", _stage),
            server_term(("payment", "pay"), "payment_id", "payment:pay_…"),
            *time_terms(),
            # The list route filters on neither: matched over the newest disputes.
            amount_term(None),
            currency_term(None),
        ],
        # Whole payment ids go to the service; a dispute id or any part of an id (a payment's
        # too) is matched in the ids of the newest disputes.
        bare=id_word({"pay_": "payment_id"}, 20, own="pay_"),
        bare_example="pay_…, dp_… or part of an id",
    )


async def export_page(client: ApiClient, filters: dict[str, Any], offset: int, limit: int) -> Any:
    """A page of the disputes list and its total, for `payscope export`."""
    page = await client.disputes.list(DisputeListRequest(limit=limit, offset=offset, **filters))
    return list(page.data), page.total_count


def export_source() -> ListSource:
    """How `payscope export disputes` reads the list (this area's `AREA.export`)."""
    return ListSource(export_page, lambda r: str(r.dispute_id))
