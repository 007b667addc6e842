"""The business profile: `webhook_details.webhook_url` and `payment_response_hash_key`."""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter, Request
from starlette.responses import Response

from payscope.api.models.profiles import BusinessProfileUpdate
from payscope.sandbox.errors import not_found
from payscope.sandbox.resource import Resource
from payscope.sandbox.resources._merchant import check_merchant
from payscope.sandbox.responses import json_body, read_body, respond
from payscope.sandbox.state import SandboxState, state_of

router = APIRouter(tags=["business profile"])


def _view(state: SandboxState, profile_id: str) -> dict[str, Any]:
    row = state.db.conn.execute(
        "SELECT profile_id, merchant_id, profile_name, webhook_url, payment_response_hash_key, "
        "return_url, created, modified_at FROM business_profiles WHERE profile_id = ?",
        (profile_id,),
    ).fetchone()
    if row is None:
        raise not_found("Business profile", profile_id)
    return {
        "profile_id": row[0],
        "merchant_id": row[1],
        "profile_name": row[2],
        "webhook_details": {"webhook_url": row[3], "webhook_version": "1.0.0"},
        "payment_response_hash_key": row[4],
        "enable_payment_response_hash": True,
        "return_url": row[5],
        "created_at": row[6],
        "modified_at": row[7],
    }


@router.get(
    "/account/{merchant_id}/business_profile/{profile_id}", summary="Retrieve the business profile"
)
async def retrieve_profile(request: Request, merchant_id: str, profile_id: str) -> Response:
    """Where webhooks go and the key that signs them."""
    state = state_of(request)
    check_merchant(state, merchant_id)
    return respond(_view(state, profile_id))


@router.post(
    "/account/{merchant_id}/business_profile/{profile_id}",
    summary="Update the business profile",
    openapi_extra=json_body(BusinessProfileUpdate),
)
async def update_profile(request: Request, merchant_id: str, profile_id: str) -> Response:
    """Set `webhook_details.webhook_url`, `payment_response_hash_key`, name or return URL."""
    body = await read_body(request, BusinessProfileUpdate)
    state = state_of(request)
    check_merchant(state, merchant_id)
    _view(state, profile_id)
    sets: list[str] = []
    args: list[Any] = []
    fields = body.model_fields_set
    if body.profile_name is not None:
        sets.append("profile_name = ?")
        args.append(body.profile_name)
    if "return_url" in fields:
        sets.append("return_url = ?")
        args.append(body.return_url)
    if body.webhook_details is not None and "webhook_url" in body.webhook_details.model_fields_set:
        sets.append("webhook_url = ?")
        args.append(body.webhook_details.webhook_url)
    if body.payment_response_hash_key is not None:
        sets.append("payment_response_hash_key = ?")
        args.append(body.payment_response_hash_key)
    sets.append("modified_at = ?")
    args.append(state.clock.now_iso())
    with state.db.transaction() as conn:
        conn.execute(
            f"UPDATE business_profiles SET {', '.join(sets)} WHERE profile_id = ?",
            (*args, profile_id),
        )
    if profile_id == state.credentials.profile_id:
        state.refresh_webhook_secret()
        state.outbox.wake()
    return respond(_view(state, profile_id))


RESOURCE = Resource(name="profiles", router=router)
