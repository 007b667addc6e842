"""Small helpers every resource uses to answer: JSON bodies built without FastAPI's encoder
(stored JSON columns are spliced in as they are), and query-string validation."""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any, TypeVar

import pydantic_core
from pydantic import BaseModel, ValidationError
from starlette.datastructures import QueryParams
from starlette.requests import Request
from starlette.responses import Response

from payscope.sandbox.db import dumps
from payscope.sandbox.errors import (
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
DOC_MODELS: dict[str, type[BaseModel]] = {}


def json_body(
    model: type[BaseModel], required: bool = True, *, many: bool = False
) -> dict[str, Any]:
    """`openapi_extra` for a route whose body is validated with `model` (`many`: an array of
    them, as the analytics and invite routes take)."""
    DOC_MODELS[model.__name__] = model
    ref: dict[str, Any] = {"$ref": f"#/components/schemas/{model.__name__}"}
    if many:
        ref = {"type": "array", "items": ref, "minItems": 1}
    return schema_body(ref, required)


def doc_schemas() -> dict[str, Any]:
    """The JSON schemas of the bodies `json_body` declared, and of the models they use. Built
    when the OpenAPI document is first asked for: building them as the routes are declared
    cost every start of the sandbox about a third of its time (0.2-0.3 s)."""
    schemas: dict[str, Any] = {}
    for name, model in DOC_MODELS.items():
        schema = model.model_json_schema(ref_template="#/components/schemas/{model}")
        schemas.update(schema.pop("$defs", {}))
        schemas[name] = schema
    return schemas


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
    else:
        check_json_type(request)
        refuse_duplicate_keys(raw)
    try:
        return model.model_validate_json(raw)
    except ValidationError as exc:
        if exc.errors()[0]["type"] == "json_invalid":
            raise lone_surrogate_error(raw) or from_validation_error(exc) from None
        raise from_validation_error(exc) from None


async def read_json(request: Request, example: str) -> Any:
    """The request body as JSON (None when empty); bad JSON is a 400 naming `example`.

    Parsed by the same parser, with the same nesting limit, as the bodies `read_body` reads:
    JSON nested too deeply is a 400 here too (the standard library's parser raised
    RecursionError, a 500), at a depth the JSON writer can still store.
    NaN and the infinities are read as numbers, as `json` did: the routes refuse them by name.
    """
    raw = await request.body()
    if not raw.strip():
        return None
    check_json_type(request)
    try:
        parsed = pydantic_core.from_json(raw)
    except ValueError as exc:
        raise lone_surrogate_error(raw) or SandboxError(
            400,
            INVALID,
            "IR_04",
            f"The request body is not valid JSON ({exc}). Send a JSON object such as "
            f"{example}, with Content-Type: application/json.",
        ) from None
    refuse_duplicate_keys(raw)
    return parsed


def _unique_pairs(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    obj = dict(pairs)
    if len(obj) != len(pairs):
        seen: set[str] = set()
        for key, _ in pairs:
            if key in seen:
                raise _DuplicateKey(key)
            seen.add(key)
    return obj


class _DuplicateKey(Exception):
    def __init__(self, key: str) -> None:
        super().__init__(key)
        self.key = key


def refuse_duplicate_keys(raw: bytes) -> None:
    """400 IR_04 when one JSON object in `raw` names a field twice.

    Parsers disagree on which of the two counts (the first, the last, or an error as the real
    service's serde does), so a body a proxy or log reads one way could be processed another:
    the sandbox takes neither. A body that is not JSON passes here, for the parser to name
    its fault (a few microseconds a request: the standard library's C scanner with a hook).
    """
    try:
        json.loads(raw, object_pairs_hook=_unique_pairs)
    except _DuplicateKey as exc:
        shown = exc.key if len(exc.key) <= 60 else exc.key[:60] + "..."
        raise SandboxError(
            400,
            INVALID,
            "IR_04",
            f"Invalid value for body: the field {shown!r} appears twice in one object. Send "
            "each field once.",
        ) from None
    except (ValueError, RecursionError):
        return


# What a JSON body may be labelled: application/json, or a structured `+json` type such as
# application/merge-patch+json; parameters (charset) are ignored.
_JSON_TYPES = ("application/json",)


def check_json_type(request: Request) -> None:
    """400 IR_04 unless the request labels its (non-empty) body as JSON.

    The spec says every request carries `Content-Type: application/json`; the real service
    (actix-web's JSON extractor with `content_type_required`) answers 400 to a body sent as
    text/plain, a form or XML, or with no Content-Type at all. Bodies are only ever parsed as
    JSON here, so the sandbox says so instead of taking a form or XML body for JSON.
    """
    labels = request.headers.getlist("content-type")
    given = ", ".join(labels)  # two labels ("text/plain" and "application/json") are not JSON
    media = given.split(";", 1)[0].strip().lower()
    if len(labels) == 1 and (
        media in _JSON_TYPES or (media.startswith("application/") and media.endswith("+json"))
    ):
        return
    shown = repr(given[:80]) if given else "none"
    raise SandboxError(
        400,
        INVALID,
        "IR_04",
        f"Invalid value for Content-Type: {shown}. This operation reads a JSON body: send it "
        "with Content-Type: application/json (a form, XML or text body is not read).",
    )


async def read_object(request: Request, example: str) -> dict[str, Any]:
    """The request body as a JSON object ({} when empty)."""
    parsed = await read_json(request, example)
    if parsed is None:
        return {}
    if not isinstance(parsed, dict):
        raise invalid("body", parsed, f"a JSON object such as {example}")
    return parsed
