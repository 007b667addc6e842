"""API keys: `/api_keys/{merchant_id}` create (shown once), list, retrieve, revoke."""

from __future__ import annotations

import sqlite3
from typing import Any

from fastapi import APIRouter, Request
from starlette.responses import Response

from payscope.api.models.api_keys import ApiKeyCreateRequest
from payscope.sandbox import ids, keys
from payscope.sandbox.clock import iso, parse_iso
from payscope.sandbox.errors import not_found
from payscope.sandbox.resource import Resource
from payscope.sandbox.resources._merchant import check_merchant
from payscope.sandbox.responses import json_body, read_body, respond
from payscope.sandbox.state import state_of

router = APIRouter(tags=["api keys"])

_COLUMNS = "key_id, merchant_id, name, description, prefix, created, expiration, revoked_at"


def _view(row: sqlite3.Row | tuple[Any, ...]) -> dict[str, Any]:
    key_id, merchant_id, name, description, prefix, created, expiration, revoked_at = row
    return {
        "key_id": key_id,
        "merchant_id": merchant_id,
        "name": name,
        "description": description,
        "prefix": prefix,
        "created": created,
        "expiration": expiration or "never",
        "revoked": revoked_at is not None,
        "revoked_at": revoked_at,
    }


@router.post(
    "/api_keys/{merchant_id}",
    summary="Create an API key (the key is shown once)",
    openapi_extra=json_body(ApiKeyCreateRequest),
)
async def create_key(request: Request, merchant_id: str) -> Response:
    """Make a new secret key; only its digest is kept."""
    body = await read_body(request, ApiKeyCreateRequest)
    state = state_of(request)
    check_merchant(state, merchant_id)
    secret = ids.secret_key("snd")
    key_id = ids.new_id("dev")
    created = state.clock.now_iso()
    expiration = None if body.expiration == "never" else iso(parse_iso(body.expiration))
    row = (key_id, merchant_id, body.name, body.description, secret[:8], created, expiration, None)
    with state.db.transaction() as conn:
        conn.execute(
            "INSERT INTO api_keys(key_id, merchant_id, digest, prefix, name, description, "
            "created, expiration) VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
            (
                key_id,
                merchant_id,
                keys.digest(secret),
                secret[:8],
                body.name,
                body.description,
                created,
                expiration,
            ),
        )
    state.key_cache.clear()
    return respond({**_view(row), "api_key": secret})


@router.get("/api_keys/{merchant_id}/list", summary="List API keys")
async def list_keys(request: Request, merchant_id: str) -> Response:
    """Every key made through the API (never the keys themselves)."""
    state = state_of(request)
    check_merchant(state, merchant_id)
    rows = state.db.conn.execute(
        f"SELECT {_COLUMNS} FROM api_keys WHERE merchant_id = ? ORDER BY created, key_id",
        (merchant_id,),
    ).fetchall()
    return respond([_view(r) for r in rows])


def _get(state_conn: sqlite3.Connection, merchant_id: str, key_id: str) -> tuple[Any, ...]:
    row = state_conn.execute(
        f"SELECT {_COLUMNS} FROM api_keys WHERE merchant_id = ? AND key_id = ?",
        (merchant_id, key_id),
    ).fetchone()
    if row is None:
        raise not_found("API key", key_id)
    return tuple(row)


@router.get("/api_keys/{merchant_id}/{key_id}", summary="Retrieve an API key")
async def retrieve_key(request: Request, merchant_id: str, key_id: str) -> Response:
    """One key's record."""
    state = state_of(request)
    check_merchant(state, merchant_id)
    return respond(_view(_get(state.db.conn, merchant_id, key_id)))


@router.delete("/api_keys/{merchant_id}/{key_id}", summary="Revoke an API key")
async def revoke_key(request: Request, merchant_id: str, key_id: str) -> Response:
    """Requests with the key are answered 401 AU_02 from now on."""
    state = state_of(request)
    check_merchant(state, merchant_id)
    with state.db.transaction() as conn:
        _get(conn, merchant_id, key_id)
        conn.execute(
            "UPDATE api_keys SET revoked_at = COALESCE(revoked_at, ?) WHERE key_id = ?",
            (state.clock.now_iso(), key_id),
        )
        row = _get(conn, merchant_id, key_id)
    state.key_cache.clear()
    return respond(_view(row))


RESOURCE = Resource(name="api_keys", router=router)
