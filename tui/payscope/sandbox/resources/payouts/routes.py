"""The payouts resource's HTTP face: each route reads its request (a JSON body through its
request model), asks `engine` for the change, and answers the payout as the real service
shows it (`engine.public`). Routes: create, retrieve, update (PUT and POST), confirm, fulfill,
cancel, list (GET with the filters in the query, POST with them in the body), and the sandbox
controls (reverse a paid-out payout, the test accounts).
"""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter, Request
from starlette.responses import Response

from payscope.api.models.payouts import PayoutCreateRequest, PayoutListRequest, PayoutUpdateRequest
from payscope.sandbox.db import dumps
from payscope.sandbox.resources._support import validate
from payscope.sandbox.resources.payouts import engine, store
from payscope.sandbox.resources.payouts.engine import TEST_ACCOUNTS, public
from payscope.sandbox.responses import json_body, read_object, respond
from payscope.sandbox.state import SandboxState, state_of

router = APIRouter(tags=["payouts"])


@router.post("/payouts/create", summary="Create a payout (confirm: true to confirm at once)")
async def create_payout(request: Request, body: PayoutCreateRequest) -> Response:
    """Only amount and currency are mandatory; see the module docstring for the flow."""
    return respond(public(engine.create(state_of(request), body)))


@router.get("/payouts/list", summary="List payouts (filters in the query string), newest first")
async def list_payouts_get(request: Request) -> Response:
    """`?limit&offset&payout_id&customer_id&status&currency&payout_method&entity_type`,
    `start_time`/`end_time` for the created-time range."""
    params = request.query_params
    data: dict[str, Any] = {}
    for key in params:
        base = key.removesuffix("[]")
        if base in ("status", "currency", "payout_method"):
            data[base] = [v for v in params.getlist(key) for v in v.split(",") if v]
        elif base in ("start_time", "end_time"):
            data.setdefault("time_range", {})[base] = params[key]
        else:
            data[base] = params[key]
    return _list(state_of(request), validate(PayoutListRequest, data))


@router.post(
    "/payouts/list",
    summary="List payouts (filters in the body), newest first",
    openapi_extra=json_body(PayoutListRequest, required=False),
)
async def list_payouts_post(request: Request) -> Response:
    """Filters: payout_id, customer_id, status[], currency[], payout_method[], entity_type,
    time_range {start_time, end_time}, limit, offset."""
    body = await read_object(request, '{"limit": 10, "status": ["success"]}')
    return _list(state_of(request), validate(PayoutListRequest, body))


def _list(state: SandboxState, q: PayoutListRequest) -> Response:
    rows, total = store.page(state.db.conn, q)
    return _respond_list([dumps(public(data)) for data in rows], total)


def _respond_list(rows: list[str], total: int) -> Response:
    """The spec's `{count, total_count, data[]}`, with the real service's `size` (the
    payouts on this page) too."""
    body = (
        f'{{"size":{len(rows)},"count":{len(rows)},"total_count":{total},'
        f'"data":[{",".join(rows)}]}}'
    )
    return Response(body.encode(), media_type="application/json")


@router.get("/payouts/{payout_id}", summary="Retrieve a payout")
async def retrieve_payout(request: Request, payout_id: str) -> Response:
    """The payout, or 404 IR_05."""
    return respond(public(store.load(state_of(request).db.conn, payout_id)[0]))


async def _update(request: Request, payout_id: str) -> Response:
    raw = await read_object(request, '{"payout_type": "bank", "payout_method_data": {...}}')
    body = validate(PayoutUpdateRequest, raw)
    return respond(public(engine.update(state_of(request), payout_id, body)))


@router.put(
    "/payouts/{payout_id}",
    summary="Update a payout before confirmation",
    openapi_extra=json_body(PayoutUpdateRequest),
)
async def update_payout_put(request: Request, payout_id: str) -> Response:
    """Change any creation field except payout_link; `confirm: true` confirms too."""
    return await _update(request, payout_id)


@router.post(
    "/payouts/{payout_id}",
    summary="Update a payout (POST form)",
    openapi_extra=json_body(PayoutUpdateRequest),
)
async def update_payout_post(request: Request, payout_id: str) -> Response:
    """The same as PUT /payouts/{payout_id}."""
    return await _update(request, payout_id)


@router.post(
    "/payouts/{payout_id}/confirm",
    summary="Confirm a payout",
    openapi_extra=json_body(PayoutUpdateRequest, required=False),
)
async def confirm_payout(request: Request, payout_id: str) -> Response:
    """Needs payout_type and a method; with auto_fulfill it is fulfilled at once."""
    raw = await read_object(request, "{}")
    body = validate(PayoutUpdateRequest, raw) if raw else None
    return respond(public(engine.confirm(state_of(request), payout_id, body)))


@router.post("/payouts/{payout_id}/fulfill", summary="Fulfill a confirmed payout")
async def fulfill_payout(request: Request, payout_id: str) -> Response:
    """requires_fulfillment -> initiated; it settles on the sandbox clock."""
    return respond(public(engine.fulfill(state_of(request), payout_id)))


@router.post("/payouts/{payout_id}/cancel", summary="Cancel a payout")
async def cancel_payout(request: Request, payout_id: str) -> Response:
    """Any non-terminal payout -> cancelled."""
    return respond(public(engine.cancel(state_of(request), payout_id)))


@router.post(
    "/_sandbox/payouts/{payout_id}/reverse",
    summary="The bank returns a paid-out payout (success -> reversed)",
    tags=["sandbox controls"],
)
async def reverse_payout(request: Request, payout_id: str) -> Response:
    """success -> reversed."""
    return respond(public(engine.reverse(state_of(request), payout_id)))


@router.get(
    "/_sandbox/payout-test-accounts",
    summary="Payout test accounts and what they do",
    tags=["sandbox controls"],
)
async def payout_test_accounts() -> Response:
    """The rules that make a payout fail or be ineligible."""
    return respond({"data": list(TEST_ACCOUNTS)})
