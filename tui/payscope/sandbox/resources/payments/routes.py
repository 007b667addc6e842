"""The payments resource's HTTP face: each route reads its request (a JSON body through its
request model, `responses.read_body`, so bad input gets the sandbox's error envelope), asks
`engine` for the change, and answers. Routes: create, update, confirm, retrieve, list (POST
with the filters in the body, GET with them in the query), capture, cancel, approve, reject,
the browser SDK's session tokens, and the sandbox controls that play the customer's part in a
3-D Secure challenge or a method's page.
"""

from __future__ import annotations

import asyncio
from typing import Any

from fastapi import APIRouter, Request
from starlette.responses import Response

from payscope.api.models._iso import format_minor_units
from payscope.api.models.payments import (
    PaymentCancelRequest,
    PaymentCaptureRequest,
    PaymentConfirmRequest,
    PaymentCreateRequest,
    PaymentListRequest,
    PaymentUpdateRequest,
)
from payscope.sandbox.errors import forbidden, invalid
from payscope.sandbox.keys import PUBLISHABLE
from payscope.sandbox.resources._support import base_url, validate
from payscope.sandbox.resources.payments import engine, store
from payscope.sandbox.resources.payments.bodies import ChallengeBody, SessionTokensBody
from payscope.sandbox.resources.payments.engine import THREE_DS_RESULTS
from payscope.sandbox.resources.payments.store import Row, load
from payscope.sandbox.responses import (
    json_body,
    read_body,
    read_object,
    respond,
    respond_json,
    respond_list,
    schema_body,
    validate_query,
)
from payscope.sandbox.state import SandboxState, principal_of, state_of

router = APIRouter(tags=["payments"])


async def _latency(state: SandboxState) -> None:
    if state.config.latency_ms:
        await asyncio.sleep(state.config.latency_ms / 1000)


def _secret_only(request: Request) -> None:
    if principal_of(request).kind == PUBLISHABLE:
        raise forbidden("A publishable key may only retrieve or confirm its own payment.")


def _publishable(request: Request) -> bool:
    return principal_of(request).kind == PUBLISHABLE


def check_client_secret(request: Request, row: Row, presented: str | None) -> None:
    """403 unless `presented` is the payment's client_secret, with the publishable key."""
    if _publishable(request):
        engine.check_secret(row, presented)


@router.post(
    "/payments",
    summary="Create a payment (confirm: true for one-step)",
    openapi_extra=json_body(PaymentCreateRequest),
)
async def create_payment(request: Request) -> Response:
    """Create a payment; with `confirm: true` it is confirmed in the same request."""
    body = await read_body(request, PaymentCreateRequest)
    _secret_only(request)
    state = state_of(request)
    if body.confirm:
        await _latency(state)
    row = engine.create(state, body, base_url(request))
    return respond_json(row.json)


@router.post(
    "/payments/list",
    summary="List payments (filters in the body), newest first",
    openapi_extra=json_body(PaymentListRequest, required=False),
)
async def list_payments_post(request: Request) -> Response:
    """POST /payments/list with the filter body."""
    body = await read_body(request, PaymentListRequest, required=False)
    return _list(state_of(request), body)


SESSION_WALLETS = ("google_pay", "apple_pay", "paypal", "klarna")


def _session_token(wallet: str, payment: dict[str, Any]) -> dict[str, Any]:
    """A wallet's SDK session for this payment (the real `SessionToken` shapes, trimmed)."""
    amount = format_minor_units(int(payment["amount"]), str(payment["currency"])).split()[0]
    common = {
        "wallet_name": wallet,
        "connector": "sandbox",
        "delayed_session_token": False,
        "sdk_next_action": {"next_action": "confirm"},
    }
    if wallet == "google_pay":
        return {
            **common,
            "merchant_info": {"merchant_name": "payscope sandbox"},
            "shipping_address_required": False,
            "email_required": False,
            "allowed_payment_methods": [
                {
                    "type": "CARD",
                    "parameters": {
                        "allowed_auth_methods": ["PAN_ONLY", "CRYPTOGRAM_3DS"],
                        "allowed_card_networks": ["VISA", "MASTERCARD", "AMEX", "DISCOVER"],
                    },
                    "tokenization_specification": {
                        "type": "PAYMENT_GATEWAY",
                        "parameters": {"gateway": "payscope", "gateway_merchant_id": "sandbox"},
                    },
                }
            ],
            "transaction_info": {
                "country_code": "US",
                "currency_code": payment["currency"],
                "total_price_status": "Final",
                "total_price": amount,
            },
        }
    if wallet == "apple_pay":
        return {
            **common,
            "session_token_data": {"epoch_timestamp": 0, "merchant_identifier": "sandbox"},
            "payment_request_data": {
                "country_code": "US",
                "currency_code": payment["currency"],
                "total": {"label": "payscope sandbox", "type": "final", "amount": amount},
                "merchant_capabilities": ["supports3DS"],
                "supported_networks": ["visa", "masterCard", "amex", "discover"],
                "merchant_identifier": "sandbox",
            },
        }
    return {**common, "session_token": f"sandbox-{wallet}-session"}


@router.post(
    "/payments/session_tokens",
    summary="Session tokens for the browser SDK's wallets (publishable key and client_secret)",
    openapi_extra=schema_body(
        {
            "type": "object",
            "required": ["payment_id"],
            "properties": {
                "payment_id": {"type": "string"},
                "client_secret": {"type": "string"},
                "wallets": {"type": "array", "items": {"type": "string"}},
            },
        }
    ),
)
async def session_tokens(request: Request) -> Response:
    """`{payment_id, client_secret, session_token: [...]}`: one entry per wallet asked for that
    the sandbox takes (its wallets need no provider session, so each says to confirm)."""
    body = validate(
        SessionTokensBody,
        await read_object(request, '{"payment_id": "pay_...", "wallets": []}'),
    )
    payment_id, wallets = body.payment_id, body.wallets
    row = load(state_of(request).db.conn, payment_id)
    check_client_secret(request, row, body.client_secret)
    unknown = [w for w in wallets if w not in SESSION_WALLETS]
    if unknown:
        raise invalid(
            "wallets",
            ", ".join(unknown),
            f"wallets with an SDK session: {', '.join(SESSION_WALLETS)}",
        )
    # No wallets named: every wallet the merchant takes (all of the sandbox's), as the real
    # service answers with the merchant's configured ones.
    tokens = [_session_token(w, row.data) for w in (wallets or SESSION_WALLETS)]
    return respond(
        {
            "payment_id": payment_id,
            "client_secret": row.data["client_secret"],
            "session_token": tokens,
        }
    )


@router.get("/payments/list", summary="List payments (filters in the query string)")
async def list_payments_get(request: Request) -> Response:
    """GET /payments/list?limit=&offset=&status=&currency=&customer_id=&created_gte=..."""
    query = validate_query(
        PaymentListRequest, request.query_params, many=("status", "currency", "payment_method")
    )
    return _list(state_of(request), query)


def _list(state: SandboxState, q: PaymentListRequest) -> Response:
    rows, total = store.page(state.db.conn, q)
    return respond_list(rows, total)


@router.get("/payments/{payment_id}", summary="Retrieve a payment with attempts and refunds")
async def retrieve_payment(request: Request, payment_id: str) -> Response:
    """The payment with its `attempts`, `refunds` and `disputes`."""
    conn = state_of(request).db.conn
    row = load(conn, payment_id)
    check_client_secret(request, row, request.query_params.get("client_secret"))
    row.data.update(store.related(conn, payment_id))
    return respond(row.data)


@router.post(
    "/payments/{payment_id}",
    summary="Update a payment before confirmation",
    openapi_extra=json_body(PaymentUpdateRequest),
)
async def update_payment(request: Request, payment_id: str) -> Response:
    """Change amount, currency, customer, card, ... while the payment is not yet confirmed."""
    body = await read_body(request, PaymentUpdateRequest)
    _secret_only(request)
    row = engine.update(state_of(request), payment_id, body)
    return respond(row.data)


@router.post(
    "/payments/{payment_id}/confirm",
    summary="Confirm a payment (two-step or SDK)",
    openapi_extra=json_body(PaymentConfirmRequest, required=False),
)
async def confirm_payment(request: Request, payment_id: str) -> Response:
    """Authorise with the card given here (or earlier). A publishable key sends client_secret."""
    body = await read_body(request, PaymentConfirmRequest, required=False)
    state = state_of(request)
    await _latency(state)
    row = engine.confirm(
        state, payment_id, body, base_url(request), publishable=_publishable(request)
    )
    return respond_json(row.json)


@router.post(
    "/payments/{payment_id}/capture",
    summary="Capture an authorised payment",
    openapi_extra=json_body(PaymentCaptureRequest, required=False),
)
async def capture_payment(request: Request, payment_id: str) -> Response:
    """Take all (default) or part of the authorised amount."""
    body = await read_body(request, PaymentCaptureRequest, required=False)
    state = state_of(request)
    await _latency(state)
    row = engine.capture(state, payment_id, body)
    return respond_json(row.json)


@router.post(
    "/payments/{payment_id}/cancel",
    summary="Cancel (void) a payment",
    openapi_extra=json_body(PaymentCancelRequest, required=False),
)
async def cancel_payment(request: Request, payment_id: str) -> Response:
    """Void the payment: nothing is (or will be) charged."""
    body = await read_body(request, PaymentCancelRequest, required=False)
    row = engine.cancel(state_of(request), payment_id, body)
    return respond(row.data)


@router.post("/payments/{payment_id}/approve", summary="Approve a payment held for review")
async def approve_payment(request: Request, payment_id: str) -> Response:
    """requires_merchant_action -> succeeded (or requires_capture with manual capture)."""
    row = engine.approve(state_of(request), payment_id)
    return respond_json(row.json)


@router.post("/payments/{payment_id}/reject", summary="Reject a payment held for review")
async def reject_payment(request: Request, payment_id: str) -> Response:
    """requires_merchant_action -> failed with error_code manual_review_rejected."""
    row = engine.reject(state_of(request), payment_id)
    return respond(row.data)


# The body of the secret-key controls that play the customer's part.
_RESULT_BODY = schema_body(
    {
        "type": "object",
        "properties": {
            "result": {"type": "string", "enum": list(THREE_DS_RESULTS), "default": "authorize"}
        },
    },
    required=False,
)


@router.post(
    "/_sandbox/payments/{payment_id}/3ds",
    summary="Complete a 3-D Secure challenge (authorize, fail or abandon)",
    tags=["sandbox controls"],
    openapi_extra=_RESULT_BODY,
)
async def complete_three_ds(request: Request, payment_id: str) -> Response:
    """Body `{result: authorize | fail | abandon}` (default authorize). Needs the secret key;
    a browser uses the challenge page (GET on this path) instead."""
    _secret_only(request)
    body = validate(ChallengeBody, await read_object(request, '{"result": "authorize"}'))
    row = engine.complete_challenge(state_of(request), payment_id, body.result)
    return respond_json(row.json)


@router.post(
    "/_sandbox/payments/{payment_id}/redirect",
    summary="Finish a non-card method's customer step (authorize, fail or abandon)",
    tags=["sandbox controls"],
    openapi_extra=_RESULT_BODY,
)
async def complete_redirect(request: Request, payment_id: str) -> Response:
    """Body `{result}` (default authorize): what the customer does on the method's page (the
    redirect, QR code, transfer, voucher or collect request). Needs the secret key; a browser
    uses the page (GET on this path) instead."""
    _secret_only(request)
    body = await read_object(request, '{"result": "authorize"}')
    result = body.get("result", "authorize")
    row = engine.complete_redirect(state_of(request), payment_id, result)
    return respond_json(row.json)
