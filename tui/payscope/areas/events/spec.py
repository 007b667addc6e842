"""The Events area's spec: columns, filter grammar and what the list says with no events.

Imported by its forms and its view; it imports neither.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from rich.text import Text

from payscope.api.export import ListSource
from payscope.api.ids import ID_PREFIX
from payscope.core.display import DisplayPolicy, hidden_time
from payscope.views.columns import CellContext, Column
from payscope.views.filters import Filter, Grammar, Term
from payscope.widgets.format import status_text, theme_colour
from payscope.widgets.text import safe, safe_markup

if TYPE_CHECKING:
    from payscope.app.runtime import Runtime
    from payscope.webhooks.journal import Journal
    from payscope.webhooks.records import EventRecord

BATCH = 200
REJECTED_SHOWN = 5  # the newest refusals: enough to see what is wrong, not a second feed
# Object ids the filter takes as bare words: an event is about an object of a kind find knows
# (not another event), or about an invoice, which find does not list.
OBJECT_PREFIXES = (
    *(prefix for kind, prefix in ID_PREFIX.items() if kind != "event"),
    "inv_",
)


def clock(timestamp: float, display: DisplayPolicy) -> Text:
    """A receive time as HH:MM:SS (the wall clock's: shown as the display policy says)."""
    shown = display.wall_time(timestamp)
    if shown is None:
        return Text(hidden_time(), style="dim")
    return Text(shown)


def _verified(record: EventRecord, context: CellContext) -> Text:
    return Text("✓", style=theme_colour(context.variables, "event-verified"))


# At 80 columns every column shows: the event type gives up cells first (down to 12), then the
# status (down to 12); an id of 24 characters shows whole. Narrower, the receive time goes
# first, then the object's status, which the event type mostly implies and the detail shows.
COLUMNS: tuple[Column[EventRecord], ...] = (
    Column("time", "Time", 8, lambda r, c: clock(r.first_seen, c.display), 70),
    Column("event_type", "Event", 22, lambda r, c: safe(r.event_type, empty="?"), flex=(12, 22)),
    Column("object_id", "Object", 24, lambda r, c: safe(r.object_id)),
    Column(
        "status",
        "Status",
        18,
        lambda r, c: status_text(r.object_status, c.variables),
        60,
        flex=(12, 18),
    ),
    Column("verified", "Sig", 3, _verified),
    Column("dups", "Dup", 3, lambda r, c: Text(str(r.duplicates) if r.duplicates else "")),
)


def _type(value: str, result: Filter) -> None:
    result.server["event_type"] = value


def _object(value: str, result: Filter) -> None:
    result.server["object_id"] = value


def _bare(word: str, result: Filter) -> None:
    (_object if word.startswith(OBJECT_PREFIXES) else _type)(word, result)


EVENT_GRAMMAR = Grammar(
    [
        Term(("type", "event", "t"), "type:payment_failed", _type),
        Term(("object", "obj", "id"), "object:pay_…", _object),
    ],
    bare=_bare,
    bare_example="pay_…",
)


def parse_event_filter(text: str) -> tuple[str | None, str | None]:
    """`type:payment_failed pay_123` -> (event type, object id); ValueError says what is wrong."""
    parsed = EVENT_GRAMMAR.parse(text)
    return parsed.server.get("event_type"), parsed.server.get("object_id")


def remote_empty_text(runtime: Runtime) -> str:
    """The empty Events area on a remote profile: webhooks only come once the service is told
    where to send them, which payscope cannot do for a service on another machine."""
    elsewhere = getattr(runtime, "listener_elsewhere", "")
    if elsewhere:  # another payscope listens for this profile: said, with the way out
        return "[b]No listener here[/b]\n\n" + safe_markup(elsewhere)
    url = safe_markup(runtime.listener_url or "this machine's listener")
    return (
        "[b]No webhooks yet[/b]\n\n"
        f"This listener is at {url}.\n"
        "The service sends webhooks to its business profile's webhook_url: point it here\n"
        "(through a tunnel when the service runs elsewhere), and give the listener the\n"
        "profile's signing key:  "
        f"[b]payscope keys set --profile {safe_markup(runtime.profile_name)} --kind webhook[/b]"
        "\n\n[b]h[/b] shows what the service says it sent, with manual retry."
    )


def journal_page(
    journal: Journal, filters: dict[str, Any], offset: int, limit: int
) -> tuple[list[EventRecord], int]:
    """A page of the events the listener journaled, newest first, and how many match: the
    list and `payscope export` read them so."""
    kind, obj = filters.get("event_type"), filters.get("object_id")
    return journal.recent(limit, offset, kind, obj), journal.count(kind, obj)


def export_source() -> ListSource:
    """How `payscope export events` reads this profile's webhook journal, not the service
    (this area's `AREA.export`)."""

    async def read(
        journal: Journal, filters: dict[str, Any], offset: int, limit: int
    ) -> tuple[list[EventRecord], int]:
        return journal_page(journal, filters, offset, limit)

    return ListSource(read, lambda r: str(r.event_id), journal=True)
