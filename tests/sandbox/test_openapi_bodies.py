"""Every operation that reads a request body declares it in /openapi.json, so /docs shows its
fields and can send one (routes read their own bodies, which FastAPI cannot see)."""

from __future__ import annotations

import inspect
import re
import sys
from collections.abc import Callable
from typing import Any

import httpx
from fastapi.routing import APIRoute

from payscope.sandbox.server import Sandbox

# What a handler (or a helper it calls) does when it reads the body.
READS_BODY = re.compile(
    r"\b(read_body|read_json|read_object)\(|request\.(body|json|form|stream)\(\)"
)
CALL = re.compile(r"\b([A-Za-z_]\w*)\(")


def _reads_body(func: Callable[..., Any], seen: set[str] | None = None) -> bool:
    """True when `func`, or a function of the sandbox it calls (followed by name), reads it."""
    seen = set() if seen is None else seen
    source = inspect.getsource(func)
    if READS_BODY.search(source):
        return True
    module = sys.modules[func.__module__]
    for name in CALL.findall(source):
        helper = getattr(module, name, None)
        if (
            inspect.isfunction(helper)
            and helper.__module__.startswith("payscope.sandbox")
            and f"{helper.__module__}.{name}" not in seen
        ):
            seen.add(f"{helper.__module__}.{name}")
            if _reads_body(helper, seen):
                return True
    return False


def _body_routes(box: Sandbox) -> list[tuple[str, str]]:
    out = []
    # The routers' own routes: the document is generated from them (the app serves the
    # request-only ones as plain Starlette routes, `payscope.sandbox.routing.served`).
    documented = [r for res in box.state.resources if res.router for r in res.router.routes]
    for route in documented:
        if not isinstance(route, APIRoute) or not route.include_in_schema:
            continue
        # a body parameter FastAPI reads itself, or a read in the handler's own code
        if route.body_field is not None or _reads_body(route.endpoint):
            out += [(method, route.path_format) for method in sorted(route.methods)]
    return out


async def test_every_operation_that_reads_a_body_declares_it(
    raw: httpx.AsyncClient, sandbox: Sandbox
) -> None:
    doc = (await raw.get("/openapi.json")).json()
    routes = _body_routes(sandbox)
    assert ("POST", "/payments") in routes
    assert ("POST", "/subscriptions") in routes  # a FastAPI body parameter
    assert ("POST", "/subscriptions/{subscription_id}/pause") in routes  # read in a helper
    undeclared = []
    for method, path in routes:
        if method not in ("POST", "PUT", "PATCH", "DELETE"):
            continue
        operation = doc["paths"][path][method.lower()]
        body = operation.get("requestBody")
        if body is None:
            undeclared.append(f"{method} {path}")
            continue
        schema = body["content"]["application/json"]["schema"]
        ref = schema.get("$ref") or schema.get("items", {}).get("$ref")
        if ref is not None:  # a referenced schema must exist, or /docs shows an error
            assert ref.rsplit("/", 1)[-1] in doc["components"]["schemas"], (method, path, ref)
    assert undeclared == []


async def test_operations_without_a_body_read_do_not_declare_one(
    raw: httpx.AsyncClient, sandbox: Sandbox
) -> None:
    doc = (await raw.get("/openapi.json")).json()
    reading = set(_body_routes(sandbox))
    declared = {
        (method.upper(), path)
        for path, item in doc["paths"].items()
        for method, operation in item.items()
        if isinstance(operation, dict) and "requestBody" in operation
    }
    assert declared - reading == set()
