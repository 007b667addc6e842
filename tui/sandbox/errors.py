"""The spec's error envelope `{error: {type, code, message}}` and the helpers that raise it.

Handlers raise `SandboxError` (or one of the helpers below); the app turns it into the
envelope. Messages are written for a person: what happened and what to do next.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Sequence
from typing import Any

from pydantic import ValidationError

AUTH = "authentication_error"
INVALID = "invalid_request"
PROCESSING = "processing_error"
RATE_LIMIT = "rate_limit_error"
API = "api_error"
CONNECTOR = "connector_error"


class SandboxError(Exception):
    """An API rejection: HTTP status plus the envelope's type, code and message."""

    def __init__(self, status: int, type_: str, code: str, message: str) -> None:
        super().__init__(message)
        self.status = status
        self.type = type_
        self.code = code
        self.message = message

    def body(self) -> bytes:
        """The envelope as JSON bytes."""
        return envelope(self.type, self.code, self.message)


def envelope(type_: str, code: str, message: str) -> bytes:
    """`{error: {type, code, message}}` as JSON bytes."""
    return json.dumps({"error": {"type": type_, "code": code, "message": message}}).encode()


def missing(field: str, hint: str = "") -> SandboxError:
    """400 IR_01: a required field is absent."""
    extra = f" {hint}" if hint else ""
    return SandboxError(400, INVALID, "IR_01", f"Missing required field: {field}.{extra}")


def invalid(field: str, value: Any, allowed: str) -> SandboxError:
    """400 IR_04: a field has a value the service does not accept."""
    return SandboxError(
        400, INVALID, "IR_04", f"Invalid value for {field}: {value!r}. Allowed: {allowed}."
    )


def not_found(resource: str, ident: str) -> SandboxError:
    """404 IR_05: the named object does not exist."""
    return SandboxError(
        404, INVALID, "IR_05", f"{resource} {ident!r} does not exist in this sandbox."
    )


def bad_state(action: str, resource: str, current: str, expected: Sequence[str]) -> SandboxError:
    """400: the object's state does not allow the action (names current and expected states)."""
    allowed = ", ".join(expected)
    return SandboxError(
        400,
        INVALID,
        "IR_04",
        f"You cannot {action} this {resource} because it is {current}; "
        f"it must be one of: {allowed}.",
    )


def conflict(code: str, message: str) -> SandboxError:
    """409: already exists, or the action conflicts with what already happened."""
    return SandboxError(409, INVALID, code, message)


def forbidden(message: str) -> SandboxError:
    """403: the key is valid but may not do this."""
    return SandboxError(403, AUTH, "AU_03", message)


def _field_name(loc: Iterable[str | int]) -> str:
    parts = [str(p) for p in loc if p not in ("body", "query", "path")]
    out = ""
    for part in parts:
        if part.isdigit():
            out += f"[{part}]"
        else:
            out += f".{part}" if out else part
    return out or "body"


def from_validation_errors(errors: Sequence[Any]) -> SandboxError:
    """Map pydantic errors to the envelope: `missing` -> IR_01, anything else -> IR_04.

    Only the first error is reported (the envelope has one message); the message names the
    field, the value received and what is allowed, in the models' own words.
    """
    if not errors:
        return SandboxError(400, INVALID, "IR_04", "The request body is not valid.")
    first = errors[0]
    loc = tuple(first.get("loc", ()))
    field = _field_name(loc)
    kind = str(first.get("type", ""))
    if kind == "json_invalid":
        detail = (first.get("ctx") or {}).get("error", "not valid JSON")
        return SandboxError(
            400,
            INVALID,
            "IR_04",
            f"The request body is not valid JSON ({detail}). Send a JSON object with "
            "Content-Type: application/json.",
        )
    if kind == "missing" and field == "body":
        return SandboxError(
            400,
            INVALID,
            "IR_01",
            "Missing required field: body. This operation needs a JSON object body "
            "(Content-Type: application/json); see /docs for its fields.",
        )
    if kind == "missing":
        return missing(field)
    if kind in ("json_invalid", "model_attributes_type", "model_type", "dict_type") and not (
        [p for p in loc if p != "body"]
    ):
        return SandboxError(
            400,
            INVALID,
            "IR_04",
            "The request body must be a JSON object (Content-Type: application/json); "
            f"it could not be read: {first.get('msg', 'invalid JSON')}.",
        )
    message = str(first.get("msg", "invalid value")).removeprefix("Value error, ")
    if field.rsplit(".", 1)[-1] not in message:
        message = f"Invalid value for {field}: {message} (got {first.get('input')!r})"
    return SandboxError(400, INVALID, "IR_04", message)


def from_validation_error(exc: ValidationError) -> SandboxError:
    """`from_validation_errors` for a raised pydantic `ValidationError`."""
    return from_validation_errors(exc.errors())
