"""The spec's error envelope `{error: {type, code, message}}` and the helpers that raise it.

Handlers raise `SandboxError` (or one of the helpers below); the app turns it into the
envelope. Messages are written for a person: what happened and what to do next.
"""

from __future__ import annotations

import json
import re
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


# Fields whose values are card data, bank accounts or credentials: an error message (which is
# logged, shown in the TUI and kept in request journals) never repeats what was sent in them.
SENSITIVE_FIELDS = frozenset(
    {
        "card_number",
        "card_cvc",
        "cvc",
        "dpan",
        "application_primary_account_number",
        "network_token",
        "psp_token",
        "iban",
        "bank_account_number",
        "account_number",
        "pix_key",
        "emv",
        "password",
        "totp",
        "api_key",
        "client_secret",
        "payment_response_hash_key",
        "webhook_secret",
    }
)
# pydantic's own text for an absent field; any other text on a `missing` error was written by
# a model for this case and says more than the generic sandbox sentence
_PYDANTIC_MISSING = "Field required"
_DIGIT_RUN = re.compile(r"\d{9,}")
_MAX_ECHO = 60


def is_sensitive(field: str) -> bool:
    """True when `field` (a dotted path or a bare name) holds a value never to be echoed."""
    leaf = field.rsplit(".", 1)[-1].split("[", 1)[0]
    return leaf.lower() in SENSITIVE_FIELDS


def echo(field: str, value: Any) -> str | None:
    """`value` as it may appear in a message about `field`, or None when it must not appear.

    Sensitive fields and whole objects or arrays (which may contain sensitive fields) are never
    repeated; long digit runs (card or account numbers in an unexpected place) are masked.
    """
    if is_sensitive(field) or isinstance(value, dict | list | tuple):
        return None
    text = repr(value)
    text = _DIGIT_RUN.sub(lambda m: "*" * (len(m.group()) - 4) + m.group()[-4:], text)
    if len(text) > _MAX_ECHO:
        text = text[: _MAX_ECHO - 1] + "…"
    return text


def missing(field: str, hint: str = "") -> SandboxError:
    """400 IR_01: a required field is absent."""
    extra = f" {hint}" if hint else ""
    return SandboxError(400, INVALID, "IR_01", f"Missing required field: {field}.{extra}")


def invalid(field: str, value: Any, allowed: str) -> SandboxError:
    """400 IR_04: a field has a value the service does not accept."""
    shown = echo(field, value)
    got = f": {shown}" if shown is not None else " (the value is not repeated here)"
    return SandboxError(
        400, INVALID, "IR_04", f"Invalid value for {field}{got}. Allowed: {allowed}."
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


def _real_wording(kind: str, value: Any) -> str | None:
    """The real service's own words for a card field it checks itself (its payments helpers'
    card validation), where the spec gives none: a CVC that is not 3 or 4 characters long (an
    empty one too), and a month of digits but not 1 to 12. Other mistakes in those fields (a
    CVC of letters, a month written out) keep the models' more detailed words."""
    if isinstance(value, bool) or not isinstance(value, str | int):
        return None
    text = str(value).strip()
    if kind == "card_cvc" and not 3 <= len(text) <= 4:
        return "Invalid card_cvc length"
    if kind == "card_exp_month" and text.isascii() and text.isdigit():
        return "Invalid Expiry Month"
    return None


def from_validation_errors(errors: Sequence[Any]) -> SandboxError:
    """Map pydantic errors to the envelope: `missing` -> IR_01, anything else -> IR_04.

    Only the first error is reported (the envelope has one message); the message names the
    field and what is allowed, in the models' own words, and the value received unless that
    value is card data, an account number or a credential (see `echo`).
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
        own = str(first.get("msg") or "").strip()
        if not own or own == _PYDANTIC_MISSING:
            return missing(field)
        if field.rsplit(".", 1)[-1] in own:
            return SandboxError(400, INVALID, "IR_01", own)
        return missing(field, own)
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
    real = _real_wording(kind, first.get("input"))
    if real is not None:
        return SandboxError(400, INVALID, "IR_04", real)
    message = str(first.get("msg", "invalid value")).removeprefix("Value error, ")
    if field.rsplit(".", 1)[-1] not in message:
        message = f"Invalid value for {field}: {message}"
        shown = echo(field, first.get("input"))
        if shown is not None:
            message += f" (got {shown})"
    return SandboxError(400, INVALID, "IR_04", message)


# A JSON \\u escape of a UTF-16 surrogate half (D800-DFFF): paired, two of them spell one
# character beyond U+FFFF; alone, they spell nothing.
_SURROGATE_ESCAPE = re.compile(rb"\\u[dD][89a-fA-F][0-9a-fA-F]{2}")


def _has_surrogate(text: str) -> bool:
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return True
    return False


def _surrogate_path(value: Any, path: str) -> str | None:
    """Where in parsed JSON a string (or an object key) holds a lone surrogate, else None."""
    if isinstance(value, str):
        return (path or "body") if _has_surrogate(value) else None
    if isinstance(value, dict):
        for key, item in value.items():
            if _has_surrogate(key):
                return f"a field name in {path}" if path else "a field name of the body"
            found = _surrogate_path(item, f"{path}.{key}" if path else key)
            if found is not None:
                return found
    elif isinstance(value, list):
        for index, item in enumerate(value):
            found = _surrogate_path(item, f"{path}[{index}]")
            if found is not None:
                return found
    return None


def lone_surrogate_error(raw: bytes, parsed: Any = None) -> SandboxError | None:
    """400 IR_04 when JSON `raw` holds an unpaired UTF-16 surrogate escape (`"\\ud800"`).

    pydantic-core refuses such a body with a parser message ("unexpected end of hex escape")
    that does not say what is wrong; Python's `json` accepts it and the string then fails
    wherever it is encoded (SQLite, the response). Meant for error paths and bodies parsed
    with `json`: the escape is looked for in the bytes first, and only then is the body
    walked to name the field (`parsed`, when the caller already has it).
    """
    if not _SURROGATE_ESCAPE.search(raw):
        return None
    if parsed is None:
        try:
            parsed = json.loads(raw)
        except (ValueError, RecursionError):  # RecursionError: nested too deeply to walk
            return None
    where = _surrogate_path(parsed, "")
    if where is None:
        return None
    return SandboxError(
        400,
        INVALID,
        "IR_04",
        f"Invalid value for {where}: the string holds an unpaired UTF-16 surrogate escape "
        "(\\ud800 to \\udfff without its other half), which is not valid text. Send the "
        "character itself in UTF-8, or escape a character beyond U+FFFF as a full pair "
        "such as \\ud83d\\ude00.",
    )


def from_validation_error(exc: ValidationError) -> SandboxError:
    """`from_validation_errors` for a raised pydantic `ValidationError`."""
    return from_validation_errors(exc.errors())
