"""Small helpers every resource uses to answer: JSON bodies built without FastAPI's encoder
(stored JSON columns are spliced in as they are), and query-string validation."""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any, TypeVar

from pydantic import BaseModel, ValidationError
from starlette.datastructures import QueryParams
from starlette.requests import Request
from starlette.responses import Response

from tui.sandbox.db import dumps
from tui.sandbox.errors import (
    INVALID,
    SandboxError,
    from_validation_error,
    invalid,
    lone_surrogate_error,
)

M = TypeVar("M", bound=BaseModel)


def respond(obj: Any, status: int = 200) -> Response:
    """`obj` as a JSON response."""
    return Response(dumps(obj).encode(), status_code=status, media_type="application/json")


def respond_exact(obj: Any) -> Response:
    """`respond` for figures that may pass 64 bits (analytics sums over many large amounts).

    orjson cannot write such integers; the standard library writes any int exactly, and is
    only used when orjson has refused the body.
    """
    try:
        return respond(obj)
    except SandboxError:
        text = json.dumps(obj, separators=(",", ":"), ensure_ascii=False)
        return Response(text.encode(), media_type="application/json")


def respond_json(text: str, status: int = 200) -> Response:
    """A body that is already JSON text."""
    return Response(text.encode(), status_code=status, media_type="application/json")


def respond_list(rows: Sequence[str], total: int) -> Response:
    """`{count, total_count, data[]}` from rows that are already JSON text."""
    body = f'{{"count":{len(rows)},"total_count":{total},"data":[{",".join(rows)}]}}'
    return Response(body.encode(), media_type="application/json")


def validate_query(model: type[M], params: QueryParams, many: Sequence[str] = ()) -> M:
    """Validate a query string with a request model (`many` names repeatable parameters)."""
    data: dict[str, Any] = {}
    for key in params:
        base = key.removesuffix("[]")
        if base in many:
            data[base] = [v for v in params.getlist(key) for v in v.split(",") if v]
        else:
            data[base] = params[key]
    try:
        return model.model_validate(data)
    except ValidationError as exc:
        raise from_validation_error(exc) from None


# Request bodies are read and validated here rather than by FastAPI's parameter machinery:
# pydantic-core parses and validates the JSON in one pass, about twice as fast on the hot
# paths. `json_body(Model)` keeps the model in the OpenAPI document (and so in /docs).
DOC_SCHEMAS: dict[str, Any] = {}


def json_body(
    model: type[BaseModel], required: bool = True, *, many: bool = False
) -> dict[str, Any]:
    """`openapi_extra` for a route whose body is validated with `model` (`many`: an array of
    them, as the analytics and invite routes take)."""
    schema = model.model_json_schema(ref_template="#/components/schemas/{model}")
    DOC_SCHEMAS.update(schema.pop("$defs", {}))
    DOC_SCHEMAS[model.__name__] = schema
    ref: dict[str, Any] = {"$ref": f"#/components/schemas/{model.__name__}"}
    if many:
        ref = {"type": "array", "items": ref, "minItems": 1}
    return schema_body(ref, required)


def schema_body(schema: dict[str, Any], required: bool = True) -> dict[str, Any]:
    """`openapi_extra` declaring a JSON body of `schema`, for routes that check their fields
    by hand (the sandbox's own controls) rather than with a model."""
    return {
        "requestBody": {"required": required, "content": {"application/json": {"schema": schema}}}
    }


async def read_body(request: Request, model: type[M], required: bool = True) -> M:
    """The request's JSON body validated with `model` (errors become IR_01 / IR_04).

    An empty body is `model()` when not `required`, and 400 IR_01 when it is.
    """
    raw = await request.body()
    if not raw.strip():
        if required:
            raise SandboxError(
                400,
                INVALID,
                "IR_01",
                "Missing required field: body. This operation needs a JSON object body "
                "(Content-Type: application/json); see /docs for its fields.",
            )
        raw = b"{}"
    try:
        return model.model_validate_json(raw)
    except ValidationError as exc:
        if exc.errors()[0]["type"] == "json_invalid":
            raise lone_surrogate_error(raw) or from_validation_error(exc) from None
        raise from_validation_error(exc) from None


async def read_json(request: Request, example: str) -> Any:
    """The request body as JSON (None when empty); bad JSON is a 400 naming `example`."""
    raw = await request.body()
    if not raw.strip():
        return None
    try:
        parsed = json.loads(raw)
    except ValueError:
        raise SandboxError(
            400,
            INVALID,
            "IR_04",
            f"The request body is not valid JSON. Send a JSON object such as {example}.",
        ) from None
    # `json` takes a lone surrogate escape; the string would then fail in SQLite (a 500)
    surrogate = lone_surrogate_error(raw, parsed)
    if surrogate is not None:
        raise surrogate
    return parsed


async def read_object(request: Request, example: str) -> dict[str, Any]:
    """The request body as a JSON object ({} when empty)."""
    parsed = await read_json(request, example)
    if parsed is None:
        return {}
    if not isinstance(parsed, dict):
        raise invalid("body", parsed, f"a JSON object such as {example}")
    return parsed
