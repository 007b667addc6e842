"""The events API: list what was sent, each attempt's request and response, manual retry."""

from __future__ import annotations

import json

from fastapi import APIRouter, Request
from starlette.responses import Response

from payscope.api.models.events import EventListRequest
from payscope.sandbox.clock import iso
from payscope.sandbox.errors import not_found
from payscope.sandbox.filters import Where
from payscope.sandbox.outbox import attempt_record
from payscope.sandbox.resource import Resource
from payscope.sandbox.resources._merchant import check_merchant
from payscope.sandbox.responses import json_body, read_body, respond
from payscope.sandbox.state import SandboxState, state_of

router = APIRouter(tags=["events"])


@router.post(
    "/events/{merchant_id}",
    summary="List webhook events, newest first",
    openapi_extra=json_body(EventListRequest, required=False),
)
async def list_events(request: Request, merchant_id: str) -> Response:
    """Filters: created_after, created_before, object_id, event_types[], is_delivered."""
    q = await read_body(request, EventListRequest, required=False)
    state = state_of(request)
    check_merchant(state, merchant_id)
    where = Where()
    where.created(q.created_after, q.created_before)
    where.equal("object_id", q.object_id)
    where.among("event_type", q.event_types)
    if q.is_delivered is not None:
        where.terms.append("delivered = ?")
        where.args.append(int(q.is_delivered))
    clause, args = where.sql(), where.args
    conn = state.db.conn
    rows = conn.execute(
        "SELECT event_id, event_type, event_class, object_id, delivered, created, retries, "
        f"next_attempt_at FROM events{clause} ORDER BY event_id DESC LIMIT ? OFFSET ?",
        (*args, q.limit, q.offset),
    ).fetchall()
    total = int(conn.execute(f"SELECT COUNT(*) FROM events{clause}", args).fetchone()[0])
    profile_id = state.credentials.profile_id
    # The real service's item also names the profile and the first delivery attempt, whose
    # id is the event's own.
    events = [
        {
            "event_id": r[0],
            "merchant_id": merchant_id,
            "profile_id": profile_id,
            "initial_attempt_id": r[0],
            "event_type": r[1],
            "event_class": r[2],
            "object_id": r[3],
            "is_delivery_successful": bool(r[4]),
            "created": r[5],
            "retries": r[6],
            "next_attempt_at": iso(r[7]) if r[7] is not None else None,
        }
        for r in rows
    ]
    return respond({"events": events, "total_count": total})


def _check_event(state: SandboxState, event_id: str) -> None:
    found = state.db.conn.execute("SELECT 1 FROM events WHERE event_id = ?", (event_id,))
    if found.fetchone() is None:
        raise not_found("Event", event_id)


@router.get("/events/{merchant_id}/{event_id}/attempts", summary="Delivery attempts of an event")
async def event_attempts(request: Request, merchant_id: str, event_id: str) -> Response:
    """Each attempt's request (headers, exact body) and response (status, body)."""
    state = state_of(request)
    check_merchant(state, merchant_id)
    _check_event(state, event_id)
    rows = state.db.conn.execute(
        "SELECT seq, created, delivery_attempt, request_headers, request_body, response_status, "
        "response_body, error, delivered, url FROM event_attempts WHERE event_id = ? ORDER BY seq",
        (event_id,),
    ).fetchall()
    return respond(
        [
            attempt_record(
                event_id,
                r[0],
                r[1],
                r[2],
                json.loads(r[3]),
                r[4],
                r[5],
                r[6],
                r[7],
                bool(r[8]),
                r[9],
            )
            for r in rows
        ]
    )


@router.post("/events/{merchant_id}/{event_id}/retry", summary="Deliver an event again now")
async def retry_event(request: Request, merchant_id: str, event_id: str) -> Response:
    """A manual attempt, recorded like the automatic ones. The answer waits at most
    `MANUAL_RETRY_WAIT` (0.25 s) for the endpoint: past that it is the attempt as sent, with
    `attempt_id` and `response.status_code` null, and the attempt is listed once it ends."""
    state = state_of(request)
    check_merchant(state, merchant_id)
    _check_event(state, event_id)
    return respond(await state.outbox.retry(event_id))


RESOURCE = Resource(name="events", router=router)
