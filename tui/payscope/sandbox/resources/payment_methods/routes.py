"""Saved payment methods' and mandates' HTTP side (see the package docstring)."""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter, Request
from starlette.responses import Response

from payscope.api.models.payment_methods import (
    PaymentMethodCreateRequest,
    PaymentMethodUpdateRequest,
)
from payscope.sandbox import ids, method_types, methods
from payscope.sandbox.errors import INVALID, SandboxError
from payscope.sandbox.keys import PUBLISHABLE
from payscope.sandbox.resources._cards import (
    card_rule,
    card_view,
    refuse_expired,
    refuse_expired_expiry,
    this_month,
)
from payscope.sandbox.resources._saved_methods import (
    REVOKED,
    customer_mandates,
    customer_methods,
    customer_must_exist,
    delete_method,
    load_mandate,
    load_method,
    not_theirs,
    revoke_if_live,
    save_method,
    set_default,
    update_method,
)
from payscope.sandbox.resources._support import validate
from payscope.sandbox.resources.payment_methods.bodies import EphemeralKeyBody
from payscope.sandbox.resources.payment_methods.engine import payment_by_secret
from payscope.sandbox.responses import json_body, read_body, read_object, respond, schema_body
from payscope.sandbox.state import principal_of, state_of

router = APIRouter(tags=["payment methods"])


@router.post(
    "/payment_methods",
    summary="Save a payment method for a customer",
    openapi_extra=json_body(PaymentMethodCreateRequest),
)
async def create_payment_method(request: Request) -> Response:
    """A card (`card`) or another family's data, saved for `customer_id`."""
    body = await read_body(request, PaymentMethodCreateRequest)
    state = state_of(request)

    card_view_: dict[str, Any] | None = None
    rule: dict[str, Any] | None = None
    if body.card is not None:
        card = body.card.as_card()
        refuse_expired(state, card)
        card_view_ = card_view(card)
        card_view_["nick_name"] = body.card.nick_name
        rule = card_rule(state, card)
    details = {
        k: v
        for k, v in {"wallet": body.wallet, "bank_transfer": body.bank_transfer}.items()
        if v is not None
    }
    if body.wallet is not None:
        # A wallet in the payment's shape ({"google_pay": {...}}): charged by its test value.

        chosen = methods.choose(
            body.payment_method, body.payment_method_type, {"wallet": body.wallet}
        )
        rule = methods.rule_for(chosen, "", this_month(state))
        details = methods.shown(chosen)
    with state.db.transaction() as conn:
        if body.customer_id is not None:
            customer_must_exist(conn, body.customer_id)
        data = save_method(
            conn,
            state,
            customer_id=body.customer_id,
            payment_method=body.payment_method,
            payment_method_type=body.payment_method_type,
            card=card_view_,
            details=details or None,
            rule=rule,
            metadata=body.metadata,
            billing=body.billing.to_body() if body.billing else None,
        )
    return respond(data)


@router.get("/payment_methods/{payment_method_id}", summary="Retrieve a saved payment method")
async def retrieve_payment_method(request: Request, payment_method_id: str) -> Response:
    """The saved method, or 404 IR_05."""
    data, _rule, _token, _default = load_method(state_of(request).db.conn, payment_method_id)
    return respond(data)


@router.post(
    "/payment_methods/{payment_method_id}/update",
    summary="Update a saved card (expiry, holder, nickname)",
    openapi_extra=json_body(PaymentMethodUpdateRequest),
)
async def update_payment_method(request: Request, payment_method_id: str) -> Response:
    """Change what may change on a saved card; the number never changes (save a new one)."""
    body = await read_body(request, PaymentMethodUpdateRequest)
    state = state_of(request)

    with state.db.transaction() as conn:
        data, _rule, _token, _default = load_method(conn, payment_method_id)
        if body.card is not None:
            card = data.get("card")
            if not card:
                raise SandboxError(
                    400,
                    INVALID,
                    "IR_04",
                    f"card was sent, but {payment_method_id} is not a saved card: only a "
                    "card's expiry, holder and nickname can be updated.",
                )
            sent = body.card.model_dump(exclude_none=True)
            for field, key in (
                ("card_exp_month", "expiry_month"),
                ("card_exp_year", "expiry_year"),
                ("card_holder_name", "card_holder_name"),
                ("nick_name", "nick_name"),
            ):
                if field in sent:
                    card[key] = sent[field]
            refuse_expired_expiry(
                state,
                card.get("expiry_month"),
                card.get("expiry_year"),
                f"the saved card {payment_method_id} (not changed)",
            )
        if body.wallet is not None:
            data.setdefault("payment_method_data", {})["wallet"] = body.wallet
        update_method(conn, payment_method_id, data)
    return respond(data)


@router.delete("/payment_methods/{payment_method_id}", summary="Delete a saved payment method")
async def delete_payment_method(request: Request, payment_method_id: str) -> Response:
    """Delete it; the mandates made on it are revoked (events `mandate_revoked`)."""
    state = state_of(request)
    with state.db.transaction() as conn:
        load_method(conn, payment_method_id)
        delete_method(conn, state, payment_method_id)
    return respond({"payment_method_id": payment_method_id, "deleted": True})


@router.get(
    "/customers/{customer_id}/payment_methods",
    summary="List a customer's saved payment methods (with payment tokens)",
)
async def list_customer_payment_methods(request: Request, customer_id: str) -> Response:
    """`{customer_payment_methods: [...], is_guest_customer}`, newest first."""
    conn = state_of(request).db.conn
    customer_must_exist(conn, customer_id)
    items = customer_methods(conn, customer_id)
    return respond({"customer_payment_methods": items, "is_guest_customer": False})


@router.post(
    "/{customer_id}/payment_methods/{payment_method_id}/default",
    summary="Set a customer's default payment method",
)
async def set_default_payment_method(
    request: Request, customer_id: str, payment_method_id: str
) -> Response:
    """The method must be one this customer saved."""
    state = state_of(request)
    with state.db.transaction() as conn:
        customer_must_exist(conn, customer_id)
        data, _rule, _token, _default = load_method(conn, payment_method_id)
        if data.get("customer_id") != customer_id:
            raise not_theirs(
                payment_method_id,
                customer_id,
                "a customer's default must be one of its own saved methods.",
            )
        set_default(conn, customer_id, payment_method_id)
    return respond(
        {
            "default_payment_method_id": payment_method_id,
            "customer_id": customer_id,
            "payment_method": data["payment_method"],
            "payment_method_type": data.get("payment_method_type"),
        }
    )


@router.get(
    "/account/payment_methods",
    summary="The payment methods a payment may use (the browser SDK's list)",
)
async def merchant_payment_methods(request: Request) -> Response:
    """Every family and type the sandbox takes; with `?client_secret=` (required with the
    publishable key) it is the list for that payment, in its currency."""

    state = state_of(request)
    secret = request.query_params.get("client_secret")
    currency = None
    redirect_url = None
    customer_id = None
    if secret is not None or principal_of(request).kind == PUBLISHABLE:
        payment = payment_by_secret(state, secret)
        currency = payment.get("currency")
        redirect_url = payment.get("return_url")
        customer_id = payment.get("customer_id")
    grouped: dict[str, list[dict[str, Any]]] = {"card": []}
    for net in ("credit", "debit"):
        grouped["card"].append(
            {
                "payment_method_type": net,
                "payment_experience": None,
                "card_networks": [
                    {
                        "card_network": n,
                        "surcharge_details": None,
                        "eligible_connectors": ["sandbox"],
                    }
                    for n in ("Visa", "Mastercard", "AmericanExpress", "Discover")
                ],
                "bank_names": None,
                "bank_debits": None,
                "bank_transfers": None,
                "required_fields": None,
                "surcharge_details": None,
                "pm_auth_connector": None,
            }
        )
    for method in method_types.TYPES:
        types = grouped.setdefault(method.family, [])
        if any(t["payment_method_type"] == method.type for t in types):
            continue
        types.append(
            {
                "payment_method_type": method.type,
                "payment_experience": [
                    {
                        "payment_experience_type": "redirect_to_url",
                        "eligible_connectors": ["sandbox"],
                    }
                ]
                if method.flow in (method_types.REDIRECT, method_types.QR)
                else None,
                "card_networks": None,
                "bank_names": None,
                "bank_debits": None,
                "bank_transfers": None,
                "required_fields": None,
                "surcharge_details": None,
                "pm_auth_connector": None,
            }
        )
    return respond(
        {
            "redirect_url": redirect_url,
            "currency": currency,
            "payment_methods": [
                {"payment_method": family, "payment_method_types": types}
                for family, types in grouped.items()
            ],
            "mandate_payment": None,
            "merchant_name": state.credentials.merchant_id,
            "show_surcharge_breakup_screen": False,
            "payment_type": "normal" if secret else None,
            "request_external_three_ds_authentication": False,
            "collect_shipping_details_from_wallets": False,
            "collect_billing_details_from_wallets": False,
            "is_tax_calculation_enabled": False,
            "sdk_next_action": {"next_action": "confirm"},
            "is_guest_customer": customer_id is None,
        }
    )


@router.post(
    "/ephemeral_keys",
    summary="An ephemeral key for a customer (the browser SDK's)",
    openapi_extra=schema_body(
        {
            "type": "object",
            "required": ["customer_id"],
            "properties": {"customer_id": {"type": "string"}},
        }
    ),
)
async def create_ephemeral_key(request: Request) -> Response:
    """`{customer_id}` -> a key the SDK uses for that customer's saved methods, valid an hour."""
    body = validate(EphemeralKeyBody, await read_object(request, '{"customer_id": "cus_..."}'))
    customer_id = body.customer_id
    state = state_of(request)
    customer_must_exist(state.db.conn, customer_id)
    now = int(state.clock.now())
    return respond(
        {
            "id": ids.new_id("eki"),
            "merchant_id": state.credentials.merchant_id,
            "customer_id": customer_id,
            "created_at": now,
            "expires": now + 3600,
            "secret": ids.new_id("epk"),
        }
    )


@router.get("/mandates/{mandate_id}", summary="Retrieve a mandate")
async def retrieve_mandate(request: Request, mandate_id: str) -> Response:
    """The mandate, or 404 IR_05."""
    data, _owner, _terms = load_mandate(state_of(request).db.conn, mandate_id)
    return respond(data)


@router.post("/mandates/revoke/{mandate_id}", summary="Revoke a mandate")
async def revoke_mandate(request: Request, mandate_id: str) -> Response:
    """`active` (or used up) -> `revoked`; revoking twice is refused."""
    state = state_of(request)
    with state.db.transaction() as conn:
        data, _owner, _terms = load_mandate(conn, mandate_id)
        if data["status"] == REVOKED:
            raise SandboxError(
                400,
                INVALID,
                "IR_04",
                f"Mandate {mandate_id} is already revoked: there is nothing left to revoke.",
            )
        revoke_if_live(conn, state, mandate_id)
    return respond(
        {"mandate_id": mandate_id, "status": REVOKED, "error_code": None, "error_message": None}
    )


@router.get("/customers/{customer_id}/mandates", summary="List a customer's mandates")
async def list_customer_mandates(request: Request, customer_id: str) -> Response:
    """A bare array, newest first (as the real service answers)."""
    conn = state_of(request).db.conn
    customer_must_exist(conn, customer_id)
    return respond(customer_mandates(conn, customer_id))
