"""Subscriptions' HTTP side: the routes, their headers, queries and bodies (each JSON body a
request model from `payscope.api.models.subscriptions`). The state changes are in `engine.py`."""

from __future__ import annotations

from collections.abc import Sequence

from fastapi import APIRouter, Request
from starlette.convertors import StringConvertor, register_url_convertor
from starlette.responses import Response

from payscope.api.models.subscriptions import (
    InvoiceListRequest,
    SubscriptionCancelRequest,
    SubscriptionConfirmRequest,
    SubscriptionCreateOnlyRequest,
    SubscriptionCreateRequest,
    SubscriptionEstimateRequest,
    SubscriptionItemsRequest,
    SubscriptionListRequest,
    SubscriptionPauseRequest,
    SubscriptionResumeRequest,
    SubscriptionUpdateRequest,
)
from payscope.sandbox.errors import missing, not_found
from payscope.sandbox.resources._support import validate
from payscope.sandbox.resources.subscriptions import engine, store
from payscope.sandbox.resources.subscriptions.engine import CANCELLABLE, PAUSABLE, PLANS
from payscope.sandbox.responses import (
    json_body,
    read_body,
    read_object,
    respond,
    respond_list,
    validate_query,
)
from payscope.sandbox.state import state_of


class SubscriptionIdConvertor(StringConvertor):
    """A path segment that can be a subscription id (`sub_...`). Any other word after
    `/subscriptions/` is a route of its own (`items`, `estimate`, `create`, `plans`) or no route
    at all (404 IR_02, like any unknown path), never a subscription to look up."""

    regex = "sub_[^/]+"


register_url_convertor("sub_id", SubscriptionIdConvertor())

router = APIRouter(tags=["subscriptions"])


# -- profile header, storage ----------------------------------------------------------------


def _profile(request: Request) -> str:
    """The X-Profile-Id header, which must name this sandbox's business profile."""
    value = request.headers.get("x-profile-id")
    expected = state_of(request).credentials.profile_id
    if not value:
        raise missing(
            "X-Profile-Id",
            f"Subscription calls need the X-Profile-Id header: this sandbox's profile is "
            f"{expected}.",
        )
    if value != expected:
        raise not_found("Business profile", value)
    return value


# -- routes -----------------------------------------------------------------------------------


@router.get("/subscriptions/plans", summary="The plan catalogue and its prices")
async def list_plans(request: Request) -> Response:
    """Plans with `price_id[]` (amount, currency, interval, interval_count, trial_period days)."""
    _profile(request)
    return respond({"count": len(PLANS), "total_count": len(PLANS), "data": list(PLANS)})


@router.get("/subscriptions/items", summary="The plan catalogue as the real service names it")
async def list_items(request: Request) -> Response:
    """Query `item_type` (plan or addon, required), `limit`, `offset`, `product_id` (the item of
    that id): a bare array of `{item_id, name, description, price_id[]}`, each price naming
    its `item_id` and `trial_period_unit` (Day) when it has a trial."""
    _profile(request)
    q = validate_query(SubscriptionItemsRequest, request.query_params)
    plans = PLANS if q.item_type.value == "plan" else ()
    if q.product_id is not None:
        plans = tuple(p for p in plans if p["plan_id"] == q.product_id)
    start = q.offset or 0
    end = None if q.limit is None else start + q.limit
    return respond([engine.item(plan) for plan in plans[start:end]])


@router.get("/subscriptions/estimate", summary="What a subscription to a plan costs at its start")
async def estimate(request: Request) -> Response:
    """Query `plan_id` (a plan, priced at its first price, or one of its prices; required),
    `customer_id` (must exist), `coupon_id` (recorded: the sandbox has no coupons, so no
    discount), `trial_days` (overrides the price's trial). A trial makes the first charge 0."""
    _profile(request)
    q = validate_query(SubscriptionEstimateRequest, request.query_params)
    return respond(engine.estimate(state_of(request).db.conn, q))


@router.post("/subscriptions", summary="Create and confirm a subscription")
async def create_subscription(request: Request, body: SubscriptionCreateRequest) -> Response:
    """Charges the first term now (or starts the trial); answers with `payment` and `invoice`."""
    profile_id = _profile(request)
    state = state_of(request)
    return respond(store.view(engine.create(state, profile_id, body, state.clock.now())))


@router.post(
    "/subscriptions/create",
    summary="Create a subscription, to confirm later",
    openapi_extra=json_body(SubscriptionCreateOnlyRequest),
)
async def create_only(request: Request) -> Response:
    """The real service's first step: the subscription in `created` with its 15-minute
    `client_secret`, no payment and no invoice yet. `POST /subscriptions/{id}/confirm` with
    the card then charges the first term (or starts the trial)."""
    profile_id = _profile(request)
    body = await read_body(request, SubscriptionCreateOnlyRequest)
    state = state_of(request)
    return respond(store.view(engine.create_only(state, profile_id, body, state.clock.now())))


@router.post(
    "/subscriptions/{subscription_id:sub_id}/confirm",
    summary="Confirm a subscription made by POST /subscriptions/create",
    openapi_extra=json_body(SubscriptionConfirmRequest),
)
async def confirm_subscription(request: Request, subscription_id: str) -> Response:
    """Body `{client_secret?, payment_details: {payment_method, payment_method_data: {card},
    customer_acceptance, billing, shipping, ...}}`; answers as create-and-confirm does. Only
    a `created` subscription can be confirmed (409 otherwise)."""
    profile_id = _profile(request)
    body = await read_body(request, SubscriptionConfirmRequest)
    state = state_of(request)
    now = state.clock.now()
    return respond(store.view(engine.confirm(state, profile_id, subscription_id, body, now)))


@router.get("/subscriptions/{subscription_id:sub_id}", summary="Retrieve a subscription")
async def retrieve_subscription(request: Request, subscription_id: str) -> Response:
    """The subscription with its latest `payment` and `invoice`."""
    profile_id = _profile(request)
    return respond(store.view(store.load(state_of(request).db.conn, subscription_id, profile_id)))


# -- sandbox controls: the lists the real service's dashboard has (its API has none) ----------


def _control_profile(request: Request) -> str:
    """The key's business profile; an X-Profile-Id, when sent, must name it."""
    expected = state_of(request).credentials.profile_id
    value = request.headers.get("x-profile-id")
    if value and value != expected:
        raise not_found("Business profile", value)
    return expected


@router.get(
    "/_sandbox/subscriptions",
    tags=["sandbox controls"],
    summary="List subscriptions, newest first (the service has no such route)",
)
async def list_subscriptions(request: Request) -> Response:
    """Query `status` (repeatable or a comma list), `customer_id`, `plan_id`, `limit` (1-100,
    default 20), `offset`: `{count, total_count, data}`, each as GET /subscriptions/{id}."""
    q = validate_query(SubscriptionListRequest, request.query_params, many=("status",))
    profile_id = _control_profile(request)
    shown, total = store.list_page(
        state_of(request).db.conn,
        profile_id,
        [s.value for s in q.status or ()],
        q.customer_id,
        q.plan_id,
        q.limit,
        q.offset,
    )
    return respond_list(shown, total)


@router.get(
    "/_sandbox/subscriptions/{subscription_id}/invoices",
    tags=["sandbox controls"],
    summary="A subscription's invoices, newest first (its renewal history)",
)
async def list_invoices(request: Request, subscription_id: str) -> Response:
    """Query `limit` (1-100, default 20), `offset`: `{count, total_count, data}`; each invoice
    carries its `payment` (`payment_id, status, amount, currency, unified_code,
    unified_message`) when it was charged here (seeded history has none)."""
    q = validate_query(InvoiceListRequest, request.query_params)
    conn = state_of(request).db.conn
    store.load(conn, subscription_id, _control_profile(request))
    shown, total = store.invoice_page(conn, subscription_id, q.limit, q.offset)
    return respond_list(shown, total)


@router.put(
    "/subscriptions/{subscription_id:sub_id}/update",
    summary="Change a subscription's plan",
    openapi_extra=json_body(SubscriptionUpdateRequest),
)
async def update_subscription(request: Request, subscription_id: str) -> Response:
    """Body `{plan_id, item_price_id}`; see the module docstring for the resulting status."""
    profile_id = _profile(request)
    raw = await read_object(
        request, '{"plan_id": "plan_pro", "item_price_id": "price_pro_monthly"}'
    )
    body = validate(SubscriptionUpdateRequest, raw)
    state = state_of(request)
    now = state.clock.now()
    return respond(store.view(engine.update(state, profile_id, subscription_id, body, now)))


@router.post(
    "/subscriptions/{subscription_id:sub_id}/pause",
    summary="Pause a subscription",
    openapi_extra=json_body(SubscriptionPauseRequest, required=False),
)
async def pause_subscription(request: Request, subscription_id: str) -> Response:
    """`pause_option`: immediately (default), end_of_term, or specific_date with `pause_at`."""
    return await _stop(request, subscription_id, "pause", SubscriptionPauseRequest, PAUSABLE)


@router.post(
    "/subscriptions/{subscription_id:sub_id}/resume",
    summary="Resume a subscription",
    openapi_extra=json_body(SubscriptionResumeRequest, required=False),
)
async def resume_subscription(request: Request, subscription_id: str) -> Response:
    """`resume_option` immediately (default) or specific_date with `resume_date`;
    `charges_handling` and `unpaid_invoices_handling` as in the spec."""
    profile_id = _profile(request)
    body = validate(
        SubscriptionResumeRequest, await read_object(request, '{"resume_option": "immediately"}')
    )
    state = state_of(request)
    now = state.clock.now()
    return respond(store.view(engine.resume(state, profile_id, subscription_id, body, now)))


@router.post(
    "/subscriptions/{subscription_id:sub_id}/cancel",
    summary="Cancel a subscription",
    openapi_extra=json_body(SubscriptionCancelRequest, required=False),
)
async def cancel_subscription(request: Request, subscription_id: str) -> Response:
    """`cancel_option`: immediately (default), end_of_term, or specific_date with `cancel_at`."""
    return await _stop(request, subscription_id, "cancel", SubscriptionCancelRequest, CANCELLABLE)


async def _stop(
    request: Request,
    subscription_id: str,
    action: str,
    model: type[SubscriptionPauseRequest | SubscriptionCancelRequest],
    allowed: Sequence[str],
) -> Response:
    """Pause or cancel (`action`) now, at the end of the term, or on `{action}_at`: both
    bodies name their fields after the action (`pause_option`/`pause_at`, `cancel_...`)."""
    profile_id = _profile(request)
    body = validate(model, await read_object(request, f'{{"{action}_option": "immediately"}}'))
    chosen = getattr(body, f"{action}_option")
    at: str | None = getattr(body, f"{action}_at")
    option = chosen.value if chosen else "immediately"
    state = state_of(request)
    now = state.clock.now()
    sub = engine.stop(state, profile_id, subscription_id, action, option, at, allowed, now)
    return respond(store.view(sub))
