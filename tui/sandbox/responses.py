"""Small helpers every resource uses to answer: JSON bodies built without FastAPI's encoder
(stored JSON columns are spliced in as they are), and query-string validation."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, TypeVar

from pydantic import BaseModel, ValidationError
from starlette.datastructures import QueryParams
from starlette.responses import Response

from tui.sandbox.db import dumps
from tui.sandbox.errors import from_validation_error

M = TypeVar("M", bound=BaseModel)


def respond(obj: Any, status: int = 200) -> Response:
    """`obj` as a JSON response."""
    return Response(dumps(obj).encode(), status_code=status, media_type="application/json")


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
