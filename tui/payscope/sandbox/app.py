"""`create_app(state)`: the FastAPI application of one sandbox.

Every error leaves as the spec's envelope `{error: {type, code, message}}`: handler errors,
validation failures (missing field IR_01, bad value IR_04), bad JSON, unknown routes (IR_02),
wrong methods (IR_03) and crashes (500). `/docs` serves Swagger UI from the installed
`swagger_ui_bundle` package, so it works offline.
"""

from __future__ import annotations

import logging
import sqlite3
from pathlib import Path
from typing import Any

from fastapi import FastAPI
from fastapi.exceptions import RequestValidationError
from fastapi.openapi.docs import get_swagger_ui_html
from fastapi.openapi.utils import get_openapi
from fastapi.responses import HTMLResponse
from starlette.exceptions import HTTPException as StarletteHTTPException
from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import BaseRoute
from starlette.staticfiles import StaticFiles

from payscope.core.disk import is_disk_full
from payscope.core.host_guard import LoopbackHostGuard
from payscope.sandbox.errors import API, INVALID, SandboxError, from_validation_errors
from payscope.sandbox.middleware import SandboxMiddleware, not_stored
from payscope.sandbox.public import is_public
from payscope.sandbox.responses import doc_schemas
from payscope.sandbox.routing import served, without_head
from payscope.sandbox.state import SandboxState

try:
    import swagger_ui_bundle

    SWAGGER_UI_PATH: Path | None = swagger_ui_bundle.swagger_ui_path
except ImportError:  # pragma: no cover - a dependency; /docs says so if it is missing
    SWAGGER_UI_PATH = None

log = logging.getLogger("payscope.sandbox")

DESCRIPTION = """\
A local, stateful sandbox of the payment service (payscope). Every route needs the `api-key`
header (the sandbox prints its keys at start). Routes under `/_sandbox/` are the sandbox's own
controls: the test-card table, the clock, 3-D Secure completion.
"""


def _error_response(exc: SandboxError) -> Response:
    return Response(exc.body(), status_code=exc.status, media_type="application/json")


async def _on_sandbox_error(request: Request, exc: Exception) -> Response:
    assert isinstance(exc, SandboxError)
    return _error_response(exc)


async def _on_validation_error(request: Request, exc: Exception) -> Response:
    assert isinstance(exc, RequestValidationError)
    return _error_response(from_validation_errors(list(exc.errors())))


async def _on_http_error(request: Request, exc: Exception) -> Response:
    assert isinstance(exc, StarletteHTTPException)
    if exc.status_code == 404:
        err = SandboxError(
            404,
            INVALID,
            "IR_02",
            f"Unrecognized request URL: {request.method} {request.url.path} is not a route of "
            "this service. See /docs for the list.",
        )
    elif exc.status_code == 405:
        allowed = without_head((exc.headers or {}).get("Allow", ""))
        err = SandboxError(
            405,
            INVALID,
            "IR_03",
            f"The HTTP method {request.method} is not allowed on {request.url.path}. "
            f"It takes: {allowed or 'see /docs'}.",
        )
    else:
        err = SandboxError(exc.status_code, INVALID, "IR_04", str(exc.detail))
    response = _error_response(err)
    if exc.headers:
        # RFC 9110: a 405 names the methods the resource does take.
        response.headers.update(exc.headers)
        if "Allow" in exc.headers:
            response.headers["Allow"] = without_head(exc.headers["Allow"])
    return response


async def _on_storage_error(request: Request, exc: Exception) -> Response:
    """A write the disk refused (full): 503 with Retry-After, said once in the log (db.py);
    any other database or file error is a crash, as below."""
    state: SandboxState = request.app.state.sandbox
    if is_disk_full(exc) or state.db.disk_full is not None:
        response = _error_response(not_stored(state, exc))
        response.headers["Retry-After"] = "30"
        return response
    return await _on_crash(request, exc)


async def _on_crash(request: Request, exc: Exception) -> Response:
    log.error("unhandled error on %s %s", request.method, request.url.path, exc_info=exc)
    return _error_response(
        SandboxError(
            500,
            API,
            "HE_00",
            "Something went wrong inside the sandbox. The request may not have been applied; "
            "retrieve the object to see its state.",
        )
    )


def create_app(state: SandboxState) -> FastAPI:
    """Build the ASGI app serving `state` (wrapped in the auth/limits/faults middleware)."""
    app = FastAPI(
        title="payscope local sandbox",
        version="1",
        description=DESCRIPTION,
        docs_url=None,
        redoc_url=None,
        # Nothing here exports OpenTelemetry data; left on, FastAPI asks the global providers
        # whether it should, on every request.
        telemetry={"tracing": False, "metrics": False, "logs": False},
    )
    app.state.sandbox = state
    documented: list[BaseRoute] = []
    for resource in state.resources:
        if resource.router is not None:
            # Routes go straight onto the app: matching through nested routers costs a
            # scope lookup per router per request.
            app.router.routes.extend(served(resource.router.routes))
            documented.extend(resource.router.routes)
    _add_docs(app)
    _merge_body_schemas(app, documented)
    app.add_exception_handler(SandboxError, _on_sandbox_error)
    app.add_exception_handler(RequestValidationError, _on_validation_error)
    app.add_exception_handler(StarletteHTTPException, _on_http_error)
    # Handled inside the app (no traceback per request); a crash of any other kind is not.
    app.add_exception_handler(sqlite3.Error, _on_storage_error)
    app.add_exception_handler(OSError, _on_storage_error)
    app.add_exception_handler(Exception, _on_crash)
    app.add_middleware(SandboxMiddleware, state=state)
    # Outermost: bound to loopback, only loopback names in Host (DNS rebinding; host_guard.py).
    app.add_middleware(LoopbackHostGuard, what="local sandbox")
    return app


_ERROR_SCHEMA: dict[str, Any] = {
    "title": "Error",
    "type": "object",
    "required": ["error"],
    "properties": {
        "error": {
            "type": "object",
            "required": ["type", "code", "message"],
            "properties": {
                "type": {"type": "string"},
                "code": {"type": "string"},
                "message": {"type": "string"},
            },
        }
    },
}
_ERRORS = {
    "400": "Missing field (IR_01) or invalid value (IR_04)",
    "401": "Missing, invalid or revoked api-key (AU_01, AU_02)",
    "403": "The key may not do this",
    "404": "Not found (IR_05), or not a route (IR_02)",
    "405": "Wrong method (IR_03); the Allow header lists the right ones",
    "409": "Conflict: already exists or already done",
    "429": "Rate limit exceeded (RL_01)",
    "default": "Any other error (5xx, injected faults), in the same envelope",
}
_PROFILE_HEADER = {
    "name": "X-Profile-Id",
    "in": "header",
    "required": True,
    "description": "This sandbox's business profile id (printed at start)",
    "schema": {"type": "string"},
}
_ERROR_REF = {"$ref": "#/components/schemas/Error"}
_METHODS = ("get", "put", "post", "delete", "patch", "head", "options", "trace")


def _document_errors(schema: dict[str, Any]) -> None:
    """Declare what every operation really answers on failure: the envelope, never FastAPI's
    422 (the sandbox turns validation errors into 400), and the `api-key` header it needs."""
    components = schema.setdefault("components", {})
    schemas = components.setdefault("schemas", {})
    schemas["Error"] = _ERROR_SCHEMA
    schemas.pop("HTTPValidationError", None)
    schemas.pop("ValidationError", None)
    components.setdefault("securitySchemes", {})["api-key"] = {
        "type": "apiKey",
        "in": "header",
        "name": "api-key",
    }
    schema["security"] = [{"api-key": []}]
    errors = {
        status: {"description": text, "content": {"application/json": {"schema": _ERROR_REF}}}
        for status, text in _ERRORS.items()
    }
    for path, item in schema.get("paths", {}).items():
        for method, operation in item.items():
            if method not in _METHODS:
                continue
            responses = operation.setdefault("responses", {})
            responses.pop("422", None)
            for status, response in errors.items():
                responses.setdefault(status, response)
            if is_public(method.upper(), path):
                operation["security"] = []
            if path.startswith("/subscriptions"):
                params = operation.setdefault("parameters", [])
                if not any(p.get("name") == "X-Profile-Id" for p in params):
                    params.append(_PROFILE_HEADER)


def _merge_body_schemas(app: FastAPI, documented: list[BaseRoute]) -> None:
    # Bodies are validated by `read_body`, so FastAPI does not see their models: add the
    # schemas of the models `json_body()` named to the generated document.

    def build() -> dict[str, Any]:
        # What `FastAPI.openapi` generates, from the routers' own routes: the app serves the
        # request-only ones as plain Starlette routes (`routing.served`), which it skips.
        return get_openapi(
            title=app.title,
            version=app.version,
            openapi_version=app.openapi_version,
            summary=app.summary,
            description=app.description,
            terms_of_service=app.terms_of_service,
            contact=app.contact,
            license_info=app.license_info,
            routes=documented,
            webhooks=app.webhooks.routes,
            tags=app.openapi_tags,
            servers=app.servers,
            separate_input_output_schemas=app.separate_input_output_schemas,
            external_docs=app.openapi_external_docs,
        )

    def openapi() -> dict[str, Any]:
        if app.openapi_schema is None:
            schema = build()
            schema.setdefault("components", {}).setdefault("schemas", {}).update(doc_schemas())
            _document_errors(schema)
            app.openapi_schema = schema
        return app.openapi_schema

    app.openapi = openapi  # type: ignore[method-assign]


def _add_docs(app: FastAPI) -> None:
    if SWAGGER_UI_PATH is not None:
        app.mount(
            "/_sandbox/assets",
            StaticFiles(directory=SWAGGER_UI_PATH),
            name="swagger-assets",
        )

    @app.get("/docs", include_in_schema=False)
    async def docs() -> Any:
        if SWAGGER_UI_PATH is None:  # pragma: no cover
            return HTMLResponse("swagger-ui-bundle is not installed", status_code=500)
        return get_swagger_ui_html(
            openapi_url="/openapi.json",
            title="payscope sandbox - API docs",
            swagger_js_url="/_sandbox/assets/swagger-ui-bundle.js",
            swagger_css_url="/_sandbox/assets/swagger-ui.css",
            swagger_favicon_url="/_sandbox/assets/favicon-32x32.png",
        )
