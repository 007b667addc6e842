"""Customers: create, list (limit/offset), retrieve, update, delete.

A customer carries `created` (the spec's name) and `created_at` (the real service's), the
same time.
"""

from __future__ import annotations

import json
import sqlite3
from typing import Any

from fastapi import APIRouter, Request
from starlette.responses import Response

from payscope.api.models.customers import (
    CustomerCreateRequest,
    CustomerListRequest,
    CustomerUpdateRequest,
)
from payscope.sandbox import ids
from payscope.sandbox.clock import iso
from payscope.sandbox.db import dumps
from payscope.sandbox.errors import conflict, not_found
from payscope.sandbox.resource import Resource, SeedContext
from payscope.sandbox.resources._saved_methods import forget_customer
from payscope.sandbox.responses import json_body, read_body, respond, respond_list, validate_query
from payscope.sandbox.state import state_of

SCHEMA = """
CREATE TABLE IF NOT EXISTS customers (
    customer_id TEXT PRIMARY KEY,
    created TEXT NOT NULL,
    data TEXT NOT NULL
);
CREATE INDEX IF NOT EXISTS customers_created ON customers(created);
"""

FIELDS = ("email", "name", "phone", "phone_country_code", "description", "address", "metadata")

router = APIRouter(tags=["customers"])


def _load(conn: sqlite3.Connection, customer_id: str) -> dict[str, Any]:
    row = conn.execute("SELECT data FROM customers WHERE customer_id = ?", (customer_id,))
    found = row.fetchone()
    if found is None:
        raise not_found("Customer", customer_id)
    data: dict[str, Any] = json.loads(found[0])
    return data


@router.post(
    "/customers", summary="Create a customer", openapi_extra=json_body(CustomerCreateRequest)
)
async def create_customer(request: Request) -> Response:
    """Create a customer; its `customer_id` is what later payments send."""
    body = await read_body(request, CustomerCreateRequest)
    state = state_of(request)
    now = state.clock.now_iso()
    customer_id = body.customer_id or ids.new_id("cus")
    sent = body.to_body()
    data: dict[str, Any] = {"customer_id": customer_id}
    data.update({key: sent.get(key) for key in FIELDS})
    data.update({"created": now, "created_at": now, "modified_at": now})
    with state.db.transaction() as conn:
        if conn.execute("SELECT 1 FROM customers WHERE customer_id = ?", (customer_id,)).fetchone():
            raise conflict(
                "HE_01",
                f"A customer with customer_id {customer_id!r} already exists: "
                f"read it with GET /customers/{customer_id}.",
            )
        conn.execute(
            "INSERT INTO customers(customer_id, created, data) VALUES (?, ?, ?)",
            (customer_id, now, dumps(data)),
        )
    return respond(data)


@router.get("/customers/list", summary="List customers, newest first")
async def list_customers(request: Request) -> Response:
    """`?limit=` (1-100, default 10) and `?offset=`."""
    q = validate_query(CustomerListRequest, request.query_params)
    conn = state_of(request).db.conn
    rows = conn.execute(
        "SELECT data FROM customers ORDER BY created DESC, rowid DESC LIMIT ? OFFSET ?",
        (q.limit, q.offset),
    ).fetchall()
    total = int(conn.execute("SELECT COUNT(*) FROM customers").fetchone()[0])
    return respond_list([r[0] for r in rows], total)


@router.get("/customers/{customer_id}", summary="Retrieve a customer")
async def retrieve_customer(request: Request, customer_id: str) -> Response:
    """The customer, or 404 IR_05."""
    return respond(_load(state_of(request).db.conn, customer_id))


@router.post(
    "/customers/{customer_id}",
    summary="Update a customer",
    openapi_extra=json_body(CustomerUpdateRequest),
)
async def update_customer(request: Request, customer_id: str) -> Response:
    """Change the fields sent; the others stay."""
    body = await read_body(request, CustomerUpdateRequest)
    state = state_of(request)
    with state.db.transaction() as conn:
        data = _load(conn, customer_id)
        sent = body.to_body()
        data.update({key: sent[key] for key in FIELDS if key in sent})
        data["modified_at"] = state.clock.now_iso()
        conn.execute(
            "UPDATE customers SET data = ? WHERE customer_id = ?", (dumps(data), customer_id)
        )
    return respond(data)


@router.delete("/customers/{customer_id}", summary="Delete a customer")
async def delete_customer(request: Request, customer_id: str) -> Response:
    """Remove the customer (its saved methods go, its mandates are revoked); its past
    payments keep their `customer_id`."""
    state = state_of(request)
    with state.db.transaction() as conn:
        _load(conn, customer_id)
        conn.execute("DELETE FROM customers WHERE customer_id = ?", (customer_id,))
        forget_customer(conn, state, customer_id)
    return respond(
        {
            "customer_id": customer_id,
            "customer_deleted": True,
            "address_deleted": True,
            "payment_methods_deleted": True,
        }
    )


FIRST_NAMES = ("Ada", "Grace", "Alan", "Linus", "Margaret", "Ken", "Barbara", "Dennis", "Frances")
LAST_NAMES = ("Lovelace", "Hopper", "Turing", "Torvalds", "Hamilton", "Thompson", "Liskov")


def seed_customers(ctx: SeedContext) -> None:
    """One customer per eight payments; their ids go to `ctx.shared["customers"]`."""
    rng = ctx.rng
    made: list[str] = []
    rows: list[tuple[str, str, str]] = []
    for _ in range(ctx.n // 8 + 1):
        customer_id = ids.new_id("cus", rng)
        first, last = rng.choice(FIRST_NAMES), rng.choice(LAST_NAMES)
        created = iso(ctx.now - rng.random() * 120 * 86400)
        data = {
            "customer_id": customer_id,
            "email": f"{first}.{last}{rng.randint(1, 999)}@example.com".lower(),
            "name": f"{first} {last}",
            "phone": f"{rng.randint(200, 999)}555{rng.randint(1000, 9999)}",
            "phone_country_code": "+1",
            "description": "demo customer",
            "address": None,
            "metadata": None,
            "created": created,
            "created_at": created,
            "modified_at": created,
        }
        rows.append((customer_id, created, dumps(data)))
        made.append(customer_id)
    ctx.conn.executemany(
        "INSERT OR IGNORE INTO customers(customer_id, created, data) VALUES (?, ?, ?)", rows
    )
    ctx.shared["customers"] = made


RESOURCE = Resource(name="customers", router=router, schema=SCHEMA, seed=seed_customers)
