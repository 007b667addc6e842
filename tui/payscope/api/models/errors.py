"""The error envelope `{error: {type, code, message}}` of every API rejection."""

from __future__ import annotations

from enum import StrEnum

from payscope.api.models._base import ResponseModel

__all__ = ["ErrorBody", "ErrorEnvelope", "ErrorType"]


class ErrorType(StrEnum):
    """The `error.type` values of the spec (responses may carry others)."""

    AUTHENTICATION_ERROR = "authentication_error"
    INVALID_REQUEST = "invalid_request"
    PROCESSING_ERROR = "processing_error"
    RATE_LIMIT_ERROR = "rate_limit_error"
    API_ERROR = "api_error"
    CONNECTOR_ERROR = "connector_error"


class ErrorBody(ResponseModel):
    """What went wrong: `type` (e.g. invalid_request), `code` (e.g. IR_05) and a message."""

    type: str
    code: str
    message: str


class ErrorEnvelope(ResponseModel):
    """An API rejection. No payment is attempted when one is returned."""

    error: ErrorBody
