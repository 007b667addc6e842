"""`DirectRoute`: an `APIRoute` that calls its handler without FastAPI's parameter machinery.

The sandbox's handlers take the `Request` (plus string path parameters) and return a
`Response`; they read and validate bodies themselves (`responses.read_body`). For them,
FastAPI's per-request dependency solving, exit stacks and response checks are pure overhead
(about a third of a small request's cost in the framework). A route whose handler fits that
shape is served as a plain Starlette endpoint; it still appears in the OpenAPI document
exactly as before. Any other handler falls back to FastAPI's own handling.

It also turns away a request whose path cannot match before running the route's regex.
Use it per router: `APIRouter(route_class=DirectRoute)`.
"""

from __future__ import annotations

import inspect
from collections.abc import Awaitable, Callable
from typing import Any

from fastapi.routing import APIRoute
from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Match, request_response
from starlette.types import Scope

Handler = Callable[[Request], Awaitable[Response]]


class DirectRoute(APIRoute):
    """See the module docstring."""

    def __init__(self, path: str, endpoint: Callable[..., Any], **kwargs: Any) -> None:
        super().__init__(path, endpoint, **kwargs)
        handler = _direct_handler(self)
        if handler is not None:
            self.app = request_response(handler)
        # The literal text before the first parameter: a path that does not start with it
        # cannot match, so most routes turn a request away without running their regex.
        self._prefix = path.split("{", 1)[0]
        self._static = "{" not in path

    def matches(self, scope: Scope) -> tuple[Match, Scope]:
        """Starlette's matching, with a cheap early "no" for paths that cannot match."""
        if scope["type"] == "http" and not scope.get("root_path"):
            path: str = scope["path"]
            if (path != self._prefix) if self._static else not path.startswith(self._prefix):
                return Match.NONE, {}
        return super().matches(scope)


def _direct_handler(route: APIRoute) -> Handler | None:
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
    if wants_request and not names:
        direct: Handler = endpoint
        return direct

    async def handler(request: Request) -> Response:
        params = request.path_params
        args = {name: params[name] for name in names}
        if wants_request:
            args["request"] = request
        response: Response = await endpoint(**args)
        return response

    return handler
