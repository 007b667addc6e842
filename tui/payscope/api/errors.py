"""Exceptions raised by the API client, each readable by a person.

Every exception says what happened and what to do next, and never contains a secret key:
messages that echo text from the service pass through the journal's redaction first.

Hierarchy::

    ClientError
    ├── ApiError                  the service answered with an error status
    │   ├── AuthenticationError       401
    │   ├── PermissionDeniedError     403
    │   ├── NotFoundError             404
    │   ├── ConflictError             409
    │   │   └── DuplicateError            HE_01 (whatever the status)
    │   ├── InvalidRequestError       400, 422 (and other 4xx)
    │   ├── RateLimitedError          429
    │   └── ServerError               5xx
    ├── ApiConnectionError        no answer: connection refused, dropped, DNS...
    │   └── ApiTimeoutError           no answer in time
    ├── ResponseFormatError       a 2xx answer that does not match the contract
    ├── ReadOnlyError             a write refused by a read-only client (nothing was sent)
    └── ConfigurationError        the client cannot be used as configured
        ├── ProductionKeyError        prd_ key without allow_production=True
        ├── MissingProfileIdError     subscription call without a profile id
        └── MissingMerchantIdError    events, profile or key call without a merchant id

A declined payment is not an exception: it is a `Payment` with `status == "failed"`.
"""

from __future__ import annotations

import datetime as _dt


class ClientError(Exception):
    """Base class of everything the API client raises on purpose."""


class ApiError(ClientError):
    """The service answered with an error (the `{error: {type, code, message}}` envelope).

    `status` is the HTTP status, `type` and `code` come from the envelope (None when the body
    was not an envelope), `message` is the service's message with secrets redacted.
    `contract` is the contract the code is read by ("spec" or "real", see `payscope.api.codes`),
    set by the client that raised it (None: not said, read as the spec).
    """

    advice = "check the request and try again."
    contract: str | None = None

    def _advice(self) -> str:
        return self.advice

    def __init__(
        self,
        status: int,
        type: str | None,
        code: str | None,
        message: str,
        *,
        method: str | None = None,
        path: str | None = None,
    ) -> None:
        self.status = status
        self.type = type
        self.code = code
        self.message = message
        self.method = method
        self.path = path
        super().__init__(status, type, code, message)

    def _what(self) -> str:
        where = f"{self.method} {self.path}" if self.method and self.path else "The request"
        tags = ", ".join(t for t in (self.code, self.type) if t)
        tag_text = f" ({tags})" if tags else ""
        return f"{where} was refused with HTTP {self.status}{tag_text}: {self.message}"

    def __str__(self) -> str:
        return f"{self._what()}\nWhat to do: {self._advice()}"


class AuthenticationError(ApiError):
    """401: the key is missing, invalid (`AU_01`) or revoked (`AU_02`)."""

    def _advice(self) -> str:
        if self.code == "AU_02":
            return (
                "this key was revoked. Create a new secret key and store it with "
                "`payscope keys set` (or set PAYSCOPE_API_KEY for one run)."
            )
        return (
            "check the secret key of this profile: store it with `payscope keys set` (or set "
            "PAYSCOPE_API_KEY for one run). Sandbox secret keys start with snd_."
        )


class PermissionDeniedError(ApiError):
    """403: the key may not do this (e.g. a publishable key outside the SDK flow)."""

    advice = (
        "use the secret key (snd_...) for server-side calls; a publishable key (pk_...) may only "
        "confirm or retrieve its own payment, and some operations need a different user role."
    )


class NotFoundError(ApiError):
    """404: the object does not exist (`IR_05`)."""

    advice = (
        "check the id; it may belong to another merchant, profile or environment "
        "(sandbox vs production)."
    )


class ConflictError(ApiError):
    """409: the object already exists or is in a state that does not allow the action."""

    advice = "reload the object and check its status before trying again."


class DuplicateError(ConflictError):
    """`HE_01`: an object with this merchant-supplied id already exists.

    The original request was received; read the object (`GET /payments/{id}`) instead of
    creating it again.
    """

    advice = (
        "the original request with this id was received: retrieve the object to read its true "
        "status, or use a new id for a new order."
    )


class InvalidRequestError(ApiError):
    """400 / 422: invalid parameters or missing fields (`IR_01`, `IR_04`...)."""

    advice = "fix the field named in the message and send the request again; it is not retried."


class RateLimitedError(ApiError):
    """429: too many requests. `reset` is the Unix time the window resets, if the service said."""

    def __init__(
        self,
        status: int,
        type: str | None,
        code: str | None,
        message: str,
        *,
        method: str | None = None,
        path: str | None = None,
        reset: float | None = None,
    ) -> None:
        super().__init__(status, type, code, message, method=method, path=path)
        self.reset = reset

    def _advice(self) -> str:
        if self.reset is None:
            return "wait a little and try again; payscope already retried with backoff."
        try:
            when = _dt.datetime.fromtimestamp(self.reset, tz=_dt.UTC).strftime("%H:%M:%S UTC")
        except (ValueError, OverflowError, OSError):  # a reset no clock can show (year 1e300)
            return "wait a little and try again; payscope already retried with backoff."
        return f"wait until the rate-limit window resets at {when}, then try again."


class ServerError(ApiError):
    """5xx: the service or its upstream failed (payscope retried 500, 502 and 503 if it could)."""

    advice = (
        "try again in a moment. For a payment or refund, retrieve it first to check whether it "
        "went through before sending it again."
    )


class ApiConnectionError(ClientError):
    """No answer from the service: connection refused, dropped, or the host is unknown."""

    def __init__(self, method: str, url: str, reason: str, *, attempts: int = 1) -> None:
        self.method = method
        self.url = url
        self.reason = reason
        self.attempts = attempts
        super().__init__(method, url, reason)

    def _tried(self) -> str:
        return f" after {self.attempts} attempts" if self.attempts > 1 else ""

    # What to do, said after the reason; the client may give its own (`unreachable_advice`).
    advice = (
        "check the base URL of this profile and that the service (or `payscope sandbox`) is "
        "running and reachable."
    )

    def __str__(self) -> str:
        return (
            f"{self.method} {self.url} got no answer{self._tried()}: {self.reason}\n"
            f"What to do: {self.advice}"
        )


class ApiTimeoutError(ApiConnectionError):
    """The service did not answer in time."""

    def __str__(self) -> str:
        return (
            f"{self.method} {self.url} timed out{self._tried()}: {self.reason}\n"
            "What to do: try again; for a create, capture or refund, retrieve the object first, "
            "because the service may have processed the request."
        )


class ResponseTooLargeError(ClientError):
    """An answer larger than payscope reads (`ApiClient.max_response_bytes`): refused unread."""

    def __init__(self, method: str, path: str, size: int, limit: int, declared: bool) -> None:
        self.method = method
        self.path = path
        self.size = size
        self.limit = limit
        self.declared = declared
        super().__init__(method, path, size, limit, declared)

    def __str__(self) -> str:
        size = _megabytes(self.size)
        said = f"is {size}" if self.declared else f"passed {size} and was still going"
        return (
            f"The answer to {self.method} {self.path} {said}, over the {_megabytes(self.limit)} "
            "payscope reads, so it was not read.\nWhat to do: ask for less at a time (a smaller "
            "page, a narrower filter or time range)."
        )


def _megabytes(n: int) -> str:
    return f"{n / 1_000_000:.1f} MB"


class ResponseFormatError(ClientError):
    """A successful answer whose body does not match the contract (not JSON, wrong shape)."""

    def __init__(self, method: str, path: str, detail: str) -> None:
        self.method = method
        self.path = path
        self.detail = detail
        super().__init__(method, path, detail)

    def __str__(self) -> str:
        return (
            f"{self.method} {self.path} answered with a body payscope does not understand: "
            f"{self.detail}\nWhat to do: check that the base URL points at the payment service "
            "(not a proxy or a web page); the Request log shows the raw answer."
        )


class ReadOnlyError(ClientError):
    """A call that writes, refused before anything is sent: the client is read-only (a profile
    marked `read_only = true`, or `--read-only`)."""

    def __init__(self, method: str, path: str) -> None:
        self.method = method
        self.path = path
        super().__init__(
            f"{method} {path} was not sent: this profile is read-only, and this call writes.\n"
            "What to do: use a profile that is not read-only (the mark is changed in Settings), "
            "or run without --read-only."
        )


class ConfigurationError(ClientError, ValueError):
    """The client cannot make this call as configured (no request was sent)."""


class ProductionKeyError(ConfigurationError):
    """A production key (`prd_`, `pk_prd_`) was given without `allow_production=True`."""

    def __init__(self, masked_key: str) -> None:
        self.masked_key = masked_key
        super().__init__(masked_key)

    def __str__(self) -> str:
        return (
            f"The key {self.masked_key} is a production key: requests made with it move real "
            "money, and payscope is a tool for sandboxes.\nWhat to do: use a sandbox key (snd_...)"
            "; if you really mean production, pass allow_production=True to ApiClient."
        )


class _MissingSettingError(ConfigurationError):
    """A call that needs a client setting this client was made without (nothing is sent)."""

    needs = ""  # what the operation needs, and why
    fix = ""  # how to give it

    def __init__(self, operation: str) -> None:
        self.operation = operation
        super().__init__(operation)

    def __str__(self) -> str:
        return (
            f"{self.operation} needs {self.needs}, and this client has none. No request was "
            f"sent.\nWhat to do: {self.fix}"
        )


class MissingProfileIdError(_MissingSettingError):
    """A subscription call (which needs the `X-Profile-Id` header) on a client without one."""

    needs = "a business profile id (sent as X-Profile-Id)"
    fix = "set the profile id of this profile (pro_...), or pass profile_id=... to ApiClient."


class MissingMerchantIdError(_MissingSettingError):
    """An events, business-profile or API-key call on a client without a merchant id."""

    needs = "the merchant id (it is part of the path)"
    fix = "set the merchant id of this profile, or pass merchant_id=... to ApiClient."


def error_class_for(status: int, code: str | None) -> type[ApiError]:
    """The exception class for an HTTP error status and envelope code."""
    if code == "HE_01":
        return DuplicateError
    if status == 401:
        return AuthenticationError
    if status == 403:
        return PermissionDeniedError
    if status == 404:
        return NotFoundError
    if status == 409:
        return ConflictError
    if status == 429:
        return RateLimitedError
    if status >= 500:
        return ServerError
    if 400 <= status < 500:
        return InvalidRequestError
    return ApiError
