"""A record's story as one timeline, in time order: every request payscope made that touched it
(the request journal), every status change it went through, every webhook it caused with each
delivery and the answer it got. A payment's story holds its refunds' and disputes' too.

Shared by any detail (a payment's today): `gather` reads the story, `TIMELINE_COLUMNS` draw it
in a `RelatedSection`, whose rows open what they name (a request its detail in Requests, a
webhook and its deliveries the event in Events, a refund's or dispute's status that record).

Times are the service's: the local sandbox's clock can be moved, and a request's time is noted
on that clock when it is journaled (`Runtime.request_time`). Where two lines share a moment, a
request comes before the status it brought, and a status before the webhook that told it.
"""

from __future__ import annotations

import json
import time
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any, NamedTuple

from rich.text import Text

from payscope.api.errors import ClientError
from payscope.api.models.events import EventListRequest
from payscope.core.display import hidden_time
from payscope.views.columns import CellContext, Column
from payscope.views.related import RelatedRow
from payscope.widgets.errors import describe_error
from payscope.widgets.format import status_text, theme_colour
from payscope.widgets.text import safe

# Ranks of what shares one moment: the cause first.
REQUEST, STATUS, WEBHOOK = 0, 1, 2
# The most events of one object read from the service's delivery history.
EVENTS_PER_OBJECT = 100
# Reads are left out (a detail reads its record on every webhook): only what acted.
READS = frozenset({"GET", "HEAD", "OPTIONS"})
LIST_ENDINGS = ("/list", "/search")


class Subject(NamedTuple):
    """An object whose story is told: its kind ("payment"), id and area (where it opens)."""

    kind: str
    object_id: str
    area: str


@dataclass(frozen=True)
class Line:
    """One line of a story: when (the service's time), what happened, what Enter opens."""

    key: str  # unique in the story (one event has a line per delivery)
    when: float
    kind: str  # "request", "status", "webhook", "delivery"
    what: str  # "POST /refunds", "refund ref_… succeeded", "refund_succeeded"
    detail: str = ""  # the answer: "200", "HTTP 500 · no answer", an event id
    ok: bool | None = None  # the answer was a success (None: nothing to judge)
    status: str | None = None  # a status line's new status (drawn in its colour)
    area: str | None = None  # where Enter opens it (an area of `payscope.views.areas`)
    record_id: str | None = None
    moving: bool = False  # a wall-clock time (hidden in a stable display)
    order: tuple[float, int, int, int] = (0.0, 0, 0, 0)


# A status seen: when, in what order, of what, which, and whether at a request's time (the
# wall clock's, hidden in a stable display) rather than an event's.
Seen = tuple[float, int, Subject, str, bool]


@dataclass(frozen=True)
class Story:
    """The lines in order, and what could not be read (said under them)."""

    lines: list[Line]
    problems: list[str]
    reads: int  # requests that only read the objects (in Requests, not here)


def _iso_seconds(value: str | None) -> float | None:
    if not value:
        return None
    try:
        moment = datetime.fromisoformat(value.strip().replace("Z", "+00:00"))
    except ValueError:
        return None
    return (moment if moment.tzinfo else moment.replace(tzinfo=UTC)).timestamp()


def _json(body: str | None) -> Any:
    if not body or body[:1] not in "{[":
        return None
    try:
        return json.loads(body)
    except ValueError:
        return None


_STATUS_FIELDS = ("status", "refund_status", "dispute_status")
_ID_FIELDS = {"payment": "payment_id", "refund": "refund_id", "dispute": "dispute_id"}


def _status_in(body: Any, subject: Subject) -> str | None:
    """The subject's status in an answer that is the subject itself (a payment's JSON)."""
    if not isinstance(body, dict) or body.get(_ID_FIELDS.get(subject.kind, "id")) != (
        subject.object_id
    ):
        return None
    if subject.kind == "payment" and ("refund_id" in body or "dispute_id" in body):
        return None  # a refund's or a dispute's answer names its payment too
    for name in (f"{subject.kind}_status", *_STATUS_FIELDS):
        value = body.get(name)
        if isinstance(value, str):
            return value
    return None


def _short_path(path: str) -> str:
    return path.split("?", 1)[0]


def request_lines(
    entries: Iterable[Any], subjects: Sequence[Subject], when: Any
) -> tuple[list[Line], list[Seen], int]:
    """The journal's requests that acted on a subject (its id in the path, the request or the
    answer), the statuses their answers showed, and how many only read one."""
    ids = [s.object_id for s in subjects]
    lines: list[Line] = []
    seen: list[Seen] = []
    reads = 0
    for entry in entries:
        path = _short_path(entry.path)
        if path.startswith("/events/"):
            continue  # the delivery history this story is read from
        texts = (entry.path, entry.request_body or "", entry.response_body or "")
        if not any(i in text for i in ids for text in texts):
            continue
        if entry.method in READS or path.endswith(LIST_ENDINGS):
            reads += 1  # a list sent as a POST (`/payments/list`) reads too
            continue
        at = float(when(entry))
        answer = str(entry.status) if entry.status is not None else "no answer"
        lines.append(
            Line(
                key=f"request-{entry.id}",
                when=at,
                kind="request",
                what=f"{entry.method} {path}",
                detail=answer if entry.status is not None else (entry.error or answer),
                ok=entry.ok,
                area="requests",
                record_id=str(entry.id),
                moving=True,
                order=(at, REQUEST, entry.id, 0),
            )
        )
        body = _json(entry.response_body) if entry.ok else None
        for subject in subjects:
            status = _status_in(body, subject)
            if status is not None:
                seen.append((at, entry.id, subject, status, True))
    return lines, seen, reads


def webhook_lines(
    subject: Subject,
    events: Sequence[Any],
    attempts: Mapping[str, Sequence[Any]],
    statuses: Mapping[str, str | None],
    shown_url: Any,
) -> tuple[list[Line], list[Seen]]:
    """The service's events about `subject` (oldest first), each followed by its deliveries
    and their answers; and the statuses the events told."""
    lines: list[Line] = []
    seen: list[Seen] = []
    for number, event in enumerate(events):
        at = _iso_seconds(getattr(event, "created", None)) or 0.0
        event_id = str(event.event_id)
        delivered = getattr(event, "is_delivery_successful", None)
        lines.append(
            Line(
                key=f"event-{event_id}",
                when=at,
                kind="webhook",
                what=str(event.event_type or "?"),
                detail=event_id,
                ok=delivered,
                area="events",
                record_id=event_id,
                order=(at, WEBHOOK, number, 0),
            )
        )
        status = statuses.get(event_id)
        if status:
            seen.append((at, number, subject, status, False))
        for index, attempt in enumerate(attempts.get(event_id, ()), 1):
            moment = _iso_seconds(getattr(attempt, "created", None)) or at
            response = attempt.response
            ok = bool(attempt.is_delivery_successful or attempt.delivered)
            answer = f"HTTP {response.status_code}" if response.status_code else "no answer"
            body = " ".join((response.body or "").split())[:60]
            where = shown_url(attempt.request.url or "").split("://", 1)[-1]
            lines.append(
                Line(
                    key=f"delivery-{event_id}-{index}",
                    when=moment,
                    kind="delivery",
                    what=f"↳ {index}. {where}" if where else f"↳ delivery {index}",
                    detail=f"{answer} {body}".strip(),
                    ok=ok,
                    area="events",
                    record_id=event_id,
                    order=(max(moment, at), WEBHOOK, number, index),
                )
            )
    return lines, seen


def status_lines(seen: Iterable[Seen]) -> list[Line]:
    """A line each time a subject's status was seen to change, in time order."""
    lines: list[Line] = []
    last: dict[str, str] = {}
    for at, sequence, subject, status, moving in sorted(seen, key=lambda s: (s[0], s[1])):
        if last.get(subject.object_id) == status:
            continue
        before = last.get(subject.object_id)
        last[subject.object_id] = status
        name = subject.kind if subject.kind == "payment" else f"{subject.kind} {subject.object_id}"
        lines.append(
            Line(
                key=f"status-{subject.object_id}-{len(lines)}",
                when=at,
                kind="status",
                what=name,
                detail=f"{before} → {status}" if before else status,
                status=status,
                area=None if subject.kind == "payment" else subject.area,
                record_id=subject.object_id,
                moving=moving,
                order=(at, STATUS, sequence, 0),
            )
        )
    return lines


async def gather(runtime: Any, subjects: Sequence[Subject]) -> Story:
    """Read the story of `subjects` (the first is the one shown): the request journal, the
    service's delivery history (its events and their attempts), the listener's journal for
    the statuses the events told (and in place of the history when it cannot be read)."""
    client = runtime.api
    lines, seen, reads = request_lines(client.journal.entries(), subjects, runtime.request_time)
    problems: list[str] = []
    listener = runtime.listener
    for subject in subjects:
        received = (
            listener.journal.recent(EVENTS_PER_OBJECT, 0, None, subject.object_id)
            if listener is not None
            else []
        )
        statuses = {e.event_id: e.object_status for e in received}
        try:
            answer = await client.events.list(
                EventListRequest(object_id=subject.object_id, limit=EVENTS_PER_OBJECT)
            )
            events = sorted(reversed(answer.events), key=lambda e: _iso_seconds(e.created) or 0.0)
            attempts = {e.event_id: await client.events.attempts(e.event_id) for e in events}
        except (ClientError, LookupError) as exc:
            title = describe_error(exc)[0] if isinstance(exc, ClientError) else str(exc)
            problems.append(f"The service's delivery history could not be read ({title}).")
            events, attempts = _received_as_events(runtime, received), {}
        more, told = webhook_lines(subject, events, attempts, statuses, runtime.shown_url)
        lines += more
        seen += told
    lines += status_lines(seen)
    lines.sort(key=lambda line: line.order)
    return Story(lines, sorted(set(problems)), reads)


class _Received(NamedTuple):
    event_id: str
    event_type: str | None
    created: str
    is_delivery_successful: bool | None = True


def _received_as_events(runtime: Any, received: Sequence[Any]) -> list[_Received]:
    """The listener's events in the history's stead (a profile without the events API): their
    receive times put on the service's clock, oldest first."""
    offset = runtime.now() - time.time()
    return [
        _Received(
            e.event_id,
            e.event_type,
            datetime.fromtimestamp(e.first_seen + offset, UTC).isoformat(),
        )
        for e in reversed(received)
    ]


def story_rows(story: Story) -> list[RelatedRow]:
    """The story's lines as rows of a `RelatedSection` (Enter opens what a line names)."""
    return [
        RelatedRow(line.area or "", line.record_id or "", line, line.key) for line in story.lines
    ]


# -- drawing -----------------------------------------------------------------------------------

KIND_LABELS = {"request": "request", "status": "status", "webhook": "webhook", "delivery": ""}


def _when(row: RelatedRow, context: CellContext) -> Text:
    line: Line = row.record
    if line.kind == "delivery":
        return Text("")
    fmt = "%m-%d %H:%M:%S"
    if line.moving:  # a time of this run's (a request's), not the service's
        shown = context.display.wall_time(line.when, fmt)
        return Text(hidden_time(fmt) if shown is None else shown, style="dim")
    return Text(datetime.fromtimestamp(line.when, UTC).strftime(fmt), style="dim")


def _kind(row: RelatedRow, context: CellContext) -> Text:
    line: Line = row.record
    return Text(KIND_LABELS.get(line.kind, line.kind), style="bold" if line.kind else "")


def _what(row: RelatedRow, context: CellContext) -> Text:
    line: Line = row.record
    return safe(line.what, "dim" if line.kind == "delivery" else "")


def _answer(row: RelatedRow, context: CellContext) -> Text:
    line: Line = row.record
    variables = context.variables
    if line.kind == "status":
        before, arrow, after = line.detail.rpartition(" → ")
        if not arrow:
            return status_text(line.status, variables)
        # A no-break space: the cell drops an ordinary one after a styled word.
        return Text.assemble(status_text(after, variables), "\u00a0(was ", safe(before), ")")
    if line.ok is None:
        return safe(line.detail, "dim")
    mark = ("✓ ", theme_colour(variables, "event-verified"))
    if not line.ok:
        mark = ("✗ ", f"bold {theme_colour(variables, 'event-rejected')}")
    return Text.assemble(mark, safe(line.detail))


TIMELINE_COLUMNS: tuple[Column[RelatedRow], ...] = (
    Column("when", "When", 14, _when),
    Column("kind", "", 7, _kind),
    # What happened gives way last: the answer's end (a delivery's body) matters least.
    Column("what", "What", 31, _what, flex=(20, 48)),
    Column("answer", "Answer", 20, _answer, flex=(12, 80)),
)


def story_note(story: Story) -> Text:
    """What a story's section says above its lines: how to use it, what is left out."""
    if not story.lines:
        text = "Nothing yet: no request of payscope's, no webhook about it."
    else:
        text = "Enter opens a line's request, event or record. Tab reaches the rows."
    if story.reads:  # how many would move from run to run (a reload per webhook)
        text += " Its reads are in Requests, not here."
    for problem in story.problems:
        text += f" {problem}"
    return Text(text, style="dim")
