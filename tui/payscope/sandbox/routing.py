"""How the sandbox serves its routes: request-only handlers as plain Starlette routes.

The sandbox's handlers take the `Request` (plus string path parameters) and return a
`Response`; they read and validate bodies themselves (`responses.read_body`). For them,
FastAPI's per-request dependency solving, exit stacks and response checks are pure overhead
(`bench/routing.py` measures it). So the app serves `served(router.routes)`: every `APIRoute`
whose handler fits that shape becomes a `starlette.routing.Route` for the same path, methods and
name, in the same place; any other handler keeps FastAPI's own handling. The OpenAPI document
is still generated from the routers' `APIRoute`s (`app.py` hands them to FastAPI's
`get_openapi`), so it is the same either way.

The sandbox takes no HEAD. Starlette adds HEAD to a GET route's methods, so a direct handler
answers HEAD with the 405 a FastAPI route gives (`Allow` naming its own methods), and the app's
405 answer leaves HEAD out of `Allow` (`without_head`).
"""

from __future__ import annotations

import inspect
from collections.abc import Awaitable, Callable, Sequence

from fastapi.routing import APIRoute
from starlette.exceptions import HTTPException
from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import BaseRoute, Route

Handler = Callable[[Request], Awaitable[Response]]


def served(routes: Sequence[BaseRoute]) -> list[BaseRoute]:
    """`routes` as the app serves them: a request-only `APIRoute` as a plain `Route`."""
    out: list[BaseRoute] = []
    for route in routes:
        handler = direct_handler(route) if isinstance(route, APIRoute) else None
        if handler is None:
            out.append(route)
            continue
        assert isinstance(route, APIRoute)
        out.append(
            Route(
                route.path,
                endpoint=handler,
                methods=sorted(route.methods or ()),
                name=route.name,
                include_in_schema=False,
            )
        )
    return out


def without_head(allow: str) -> str:
    """An `Allow` header's methods without HEAD (which the sandbox never serves)."""
    return ", ".join(m for m in allow.split(", ") if m and m != "HEAD")


def direct_handler(route: APIRoute) -> Handler | None:
    """The handler as `f(request) -> Response`, or None when it needs FastAPI's machinery."""
    dependant = route.dependant
    endpoint = route.endpoint
    if (
        not inspect.iscoroutinefunction(endpoint)
        or dependant.dependencies
        or dependant.query_params
        or dependant.header_params
        or dependant.cookie_params
        or dependant.body_params
        or dependant.background_tasks_param_name
        or dependant.response_param_name
        or dependant.websocket_param_name
        or dependant.http_connection_param_name
        or dependant.security_scopes_param_name
        or route.response_model is not None
        or route.status_code is not None
        or getattr(route, "max_body_size", None) is not None
        or any(p.field_info.annotation is not str for p in dependant.path_params)
    ):
        return None
    names = tuple(p.name for p in dependant.path_params)
    wants_request = dependant.request_param_name is not None
    if wants_request and dependant.request_param_name != "request":
        return None
    # What FastAPI's route answers a HEAD with (its methods never include HEAD).
    methods = route.methods or set()
    allow = {"Allow": ", ".join(methods)}

    async def handler(request: Request) -> Response:
        if request.method == "HEAD" and "HEAD" not in methods:
            raise HTTPException(405, headers=allow)
        params = request.path_params
        args = {name: params[name] for name in names}
        if wants_request:
            args["request"] = request
        response: Response = await endpoint(**args)
        return response

    return handler
