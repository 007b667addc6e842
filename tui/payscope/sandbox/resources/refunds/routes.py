"""The refunds resource's HTTP face: each route reads its request (a JSON body through its
request model), asks `engine` for the change, and answers the refund as stored. Routes:
create, list (filters in the body), retrieve, update, and the sandbox control that decides a
refund held for review.
"""

from __future__ import annotations

from fastapi import APIRouter, Request
from starlette.responses import Response

from payscope.api.models.refunds import RefundCreateRequest, RefundListRequest, RefundUpdateRequest
from payscope.sandbox.resources._support import validate
from payscope.sandbox.resources.refunds import engine, store
from payscope.sandbox.resources.refunds.bodies import ReviewBody
from payscope.sandbox.responses import (
    json_body,
    read_body,
    read_object,
    respond,
    respond_list,
    schema_body,
)
from payscope.sandbox.state import state_of

router = APIRouter(tags=["refunds"])


@router.post(
    "/refunds",
    summary="Refund a payment (full by default, or partial)",
    openapi_extra=json_body(RefundCreateRequest),
)
async def create_refund(request: Request) -> Response:
    """Create a refund: `succeeded` at once, or `pending` for the asynchronous test cards."""
    body = await read_body(request, RefundCreateRequest)
    return respond(engine.create(state_of(request), body))


@router.post(
    "/refunds/list",
    summary="List refunds (filters in the body), newest first",
    openapi_extra=json_body(RefundListRequest, required=False),
)
async def list_refunds(request: Request) -> Response:
    """Filters: payment_id, refund_id, refund_status[], currency[], created_gte/lte."""
    q = await read_body(request, RefundListRequest, required=False)
    rows, total = store.page(state_of(request).db.conn, q)
    return respond_list(rows, total)


@router.get("/refunds/{refund_id}", summary="Retrieve a refund")
async def retrieve_refund(request: Request, refund_id: str) -> Response:
    """The refund, or 404 IR_05."""
    return respond(store.load(state_of(request).db.conn, refund_id))


@router.post(
    "/refunds/{refund_id}",
    summary="Update a refund's reason or metadata",
    openapi_extra=json_body(RefundUpdateRequest),
)
async def update_refund(request: Request, refund_id: str) -> Response:
    """Only `reason` and `metadata` change."""
    body = await read_body(request, RefundUpdateRequest)
    return respond(engine.update(state_of(request), refund_id, body))


@router.post(
    "/_sandbox/refunds/{refund_id}/review",
    summary="Decide a refund held for review (succeeded or failed)",
    tags=["sandbox controls"],
    openapi_extra=schema_body(
        {
            "type": "object",
            "properties": {"outcome": {"type": "string", "enum": ["succeeded", "failed"]}},
            "required": ["outcome"],
        }
    ),
)
async def review_refund(request: Request, refund_id: str) -> Response:
    """Body `{outcome: succeeded | failed}`: the processor's review of a refund in `review`."""
    body = validate(ReviewBody, await read_object(request, '{"outcome": "succeeded"}'))
    return respond(engine.review(state_of(request), refund_id, str(body.outcome)))
