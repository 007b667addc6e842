"""Helpers shared by the resources: model validation for bodies read with
`responses.read_object` (and `refused`, for a body model's own answers), and the sandbox's own
root URL (for the links it hands out).

Shared pieces import no resource: what one resource offers the others is in its package
(`payments.engine`, for instance, writes payments on the merchant's behalf).
"""

from __future__ import annotations

from typing import Any, TypeVar

from pydantic import BaseModel, ValidationError
from pydantic_core import PydanticCustomError
from starlette.requests import Request

from payscope.sandbox.errors import SandboxError, from_validation_error
from payscope.sandbox.state import state_of

M = TypeVar("M", bound=BaseModel)


def validate(model: type[M], data: Any) -> M:
    """`model.model_validate(data)` with failures mapped to the envelope (IR_01 / IR_04)."""
    try:
        return model.model_validate(data)
    except ValidationError as exc:
        raise from_validation_error(exc) from None


def refused(error: SandboxError) -> PydanticCustomError:
    """`error` for a body model's validator to raise: `validate` answers it with the same code
    and message. Its message names the field (as `errors.missing` and `errors.invalid` write
    it), so `errors.from_validation_errors` takes it as it is."""
    return PydanticCustomError("missing" if error.code == "IR_01" else "value_error", error.message)


def base_url(request: Request) -> str:
    """The sandbox's own root URL, as configured where it listens: never the request's `Host`
    header, which any caller sets (stored URLs and webhooks would carry the caller's choice).
    Only an app that no server runs (tests on an in-process transport) falls back to the URL
    the request was addressed to."""
    configured = state_of(request).credentials.base_url
    if configured:
        return configured.rstrip("/")
    return str(request.base_url).rstrip("/")
