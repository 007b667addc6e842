"""What the client makes of what comes back: an answer read whole within its limit, the fields
of an error envelope, a failed attempt said in words, and the long lists validated in slices."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, get_args, get_origin

import httpx
from pydantic import BaseModel

from payscope.api import errors
from payscope.core import bounded

# Lists of more records than `MANY` are validated in a thread, `SLICE` records at a time: the
# UI's loop keeps answering keys meanwhile.
MANY = 1000
SLICE = 500
# How an answer's body was framed on the wire: no longer true of the body once read whole.
_BODY_FRAMING = frozenset({"content-encoding", "content-length", "transfer-encoding"})

_TRANSPORT_ERROR_KINDS: dict[type[httpx.TransportError], str] = {
    httpx.ConnectTimeout: "the connection could not be made in time",
    httpx.ReadTimeout: "the service accepted the request but did not answer in time",
    httpx.WriteTimeout: "the request could not be sent in time",
    httpx.PoolTimeout: "no free connection in time (too many requests at once)",
    httpx.ConnectError: "the connection was refused or the host is unreachable",
    httpx.RemoteProtocolError: "the service closed the connection without a full answer",
    httpx.ReadError: "the connection broke while reading the answer",
    httpx.WriteError: "the connection broke while sending the request",
}


def describe_transport_error(exc: httpx.TransportError) -> str:
    kind = _TRANSPORT_ERROR_KINDS.get(type(exc), "the request failed on the way")
    detail = str(exc)
    return f"{kind} ({detail})" if detail else kind


async def read_capped(
    request: httpx.Request, response: httpx.Response, limit: int
) -> httpx.Response:
    """The streamed `response` read whole, unless it is over `limit` bytes: then it is closed
    unread (by its Content-Length) or as soon as it passes the limit."""
    path = request.url.path
    try:
        declared = response.headers.get("content-length", "")
        if declared.isdigit() and int(declared) > limit:
            raise errors.ResponseTooLargeError(request.method, path, int(declared), limit, True)
        chunks: list[bytes] = []
        size = 0
        async for chunk in response.aiter_bytes():
            size += len(chunk)
            if size > limit:
                raise errors.ResponseTooLargeError(request.method, path, size, limit, False)
            chunks.append(chunk)
    finally:
        await response.aclose()
    # The same answer, whole and decoded (its encoding headers no longer apply).
    # As bytes: a value may hold any byte HTTP allows (obs-text, 0x80-0xFF), which a str
    # header would have to be ASCII to carry.
    headers = [
        (name, value)
        for name, value in response.headers.raw
        if name.decode("latin-1").lower() not in _BODY_FRAMING
    ]  # the request log keeps them as they came (the attempt's journal entry)
    return httpx.Response(
        response.status_code,
        headers=headers,
        content=b"".join(chunks),
        request=request,
        extensions=response.extensions,
    )


@dataclass(frozen=True)
class Envelope:
    """What an error answer says of itself (its message not yet redacted).

    `error_type_key`: the type came as the real service's `error_type`, not the spec's `type`.
    """

    type: str | None
    code: str | None
    message: str
    error_type_key: bool


def envelope_of(response: httpx.Response) -> Envelope:
    """The error envelope of a failed answer; a message of its own when it has none."""
    type_: str | None = None
    code: str | None = None
    message = ""
    error_type_key = False
    try:
        payload = bounded.loads_json(response.content) if response.content.strip() else None
    except ValueError:  # not JSON, or nested too deeply (bounded.TooDeep)
        payload = None
    envelope = payload.get("error") if isinstance(payload, dict) else None
    if envelope is None and isinstance(payload, dict) and "error_type" in payload:
        envelope = payload  # the real service's bare `{error_type, message, code}`
    if isinstance(envelope, dict):
        error_type_key = "error_type" in envelope and "type" not in envelope
        type_ = _str_or_none(envelope.get("type")) or _str_or_none(envelope.get("error_type"))
        code = _str_or_none(envelope.get("code"))
        message = _str_or_none(envelope.get("message")) or ""
    elif isinstance(envelope, str):
        message = envelope
    if not message:
        text = " ".join(response.text.split())[:200]
        reason = response.reason_phrase or "error"
        message = (
            f"{reason}; the body was not an error envelope: {text!r}"
            if text
            else f"{reason}, with an empty body"
        )
    return Envelope(type_, code, message, error_type_key)


def many_records(data: Any) -> bool:
    """True for an answer of more than `MANY` records (a list, or a page's list)."""
    if isinstance(data, list):
        return len(data) > MANY
    if isinstance(data, dict):
        return any(isinstance(v, list) and len(v) > MANY for v in data.values())
    return False


def long_list_of(
    target: Any, data: Any
) -> tuple[tuple[Any, list[Any]] | None, Callable[[list[Any]], Any]]:
    """For `data` holding a long list of records of one model: (that model, the list) and how
    to make the validated whole from the validated records; (None, ...) otherwise."""

    def whole(records: list[Any]) -> Any:
        return records

    if isinstance(data, list) and get_origin(target) is list:
        (kind,) = get_args(target) or (None,)
        if isinstance(kind, type) and issubclass(kind, BaseModel):
            return (kind, data), whole
        return None, whole
    if not (isinstance(data, dict) and isinstance(target, type) and issubclass(target, BaseModel)):
        return None, whole
    for name, info in target.model_fields.items():
        key = info.alias or name
        values = data.get(key)
        if not (isinstance(values, list) and len(values) > MANY):
            continue
        args = get_args(info.annotation) if get_origin(info.annotation) is list else ()
        if len(args) == 1 and isinstance(args[0], type) and issubclass(args[0], BaseModel):
            head = {**data, key: []}

            def rebuild(records: list[Any], head: Any = head, name: str = name) -> Any:
                return target.model_validate(head).model_copy(update={name: records})

            return (args[0], values), rebuild
    return None, whole


def _str_or_none(value: Any) -> str | None:
    return value if isinstance(value, str) and value else None
