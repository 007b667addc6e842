"""What the listener judges a webhook by, apart from HTTP itself: its signature, its body (JSON an
object, not nested too deeply, with a usable `event_id`), its freshness; what it is about (type,
object, status); and, for one that fails, why, said for its sender."""

from __future__ import annotations

import json
from collections.abc import Sequence
from datetime import UTC, datetime
from typing import Any

import orjson

from payscope.core import bounded
from payscope.webhooks.secret_store import generate_secret
from payscope.webhooks.signing import SIGNATURE_HEADER

MAX_EVENT_ID_CHARS = 255
# Events older than this (by their `timestamp`) are refused as stale: generous, so a sender's
# retries (about a day for the sandbox's schedule) and a paused laptop still get through.
DEFAULT_MAX_AGE = 7 * 24 * 3600.0
SIGNATURE_KEY = SIGNATURE_HEADER.lower().encode("latin-1")  # as ASGI gives header names
# The kind of object each content.type carries, to pick its id; a refund also names its payment.
_ID_FIELDS = {
    "payment_details": "payment_id",
    "refund_details": "refund_id",
    "dispute_details": "dispute_id",
    "payout_details": "payout_id",
    "subscription_details": "subscription_id",
    "mandate_details": "mandate_id",
}
_ID_FALLBACK = (
    "refund_id",
    "dispute_id",
    "payout_id",
    "invoice_id",
    "subscription_id",
    "payment_id",
    "id",
)


def checked_max_age(max_age: float | None) -> float | None:
    """A listener's freshness window as given; ValueError when it is not a positive time."""
    if max_age is not None and max_age <= 0:
        raise ValueError(f"max_age must be more than 0 seconds (or None), got {max_age}")
    return max_age


def checked_secrets(secrets: Sequence[str] | None) -> tuple[str, ...]:
    """A listener's signing secrets: those given, or a fresh one that lives in memory only
    (secrets are never written to disk); ValueError for an empty one."""
    given = [s for s in (secrets or []) if s is not None]
    if any(not s.strip() for s in given):
        raise ValueError("a webhook signing secret cannot be empty")
    return tuple(given) or (generate_secret(),)


def repeated_headers(
    raw_headers: Sequence[tuple[bytes, bytes]], content_type: bytes
) -> tuple[dict[str, str], bytes, bool]:
    """Headers with repeated names joined by ", " (as HTTP combines them), the content type to
    judge, and whether the signature header came more than once."""
    values: dict[str, list[str]] = {}
    for name, value in raw_headers:
        values.setdefault(name.decode("latin-1"), []).append(value.decode("latin-1"))
    headers = {name: ", ".join(vals) for name, vals in values.items()}
    types = set(values.get("content-type", ()))
    if len(types) > 1:  # "text/plain, application/json" is not JSON: 415 names them all
        content_type = headers["content-type"].encode("latin-1")
    repeated_signature = len(values.get(SIGNATURE_KEY.decode(), ())) > 1
    return headers, content_type, repeated_signature


def staleness(stamp: str, received_at: float, max_age: float) -> str | None:
    """Why an event dated `stamp` is too old to process, or None when it is fresh enough (or
    its date cannot be read: then it is not judged)."""
    try:
        dated = datetime.fromisoformat(stamp)
    except ValueError:
        return None
    if dated.tzinfo is None:
        dated = dated.replace(tzinfo=UTC)
    try:
        age = received_at - dated.timestamp()
    except (OverflowError, ValueError, OSError):
        return None
    if age <= max_age:
        return None
    return (
        f"stale: the event's timestamp {stamp} is {_span(age)} old, older than the listener "
        f"accepts ({_span(max_age)}); not processed. A replay of an old event? If it is "
        "genuine, widen the window (payscope listen --max-age) or turn it off (--no-freshness)"
    )


def _span(seconds: float) -> str:
    """A duration for people: "3 days", "5 h", "90 s"."""
    if seconds >= 2 * 86400:
        return f"{seconds / 86400:.0f} days"
    if seconds >= 2 * 3600:
        return f"{seconds / 3600:.0f} h"
    if seconds >= 120:
        return f"{seconds / 60:.0f} min"
    return f"{seconds:.0f} s"


def signature_problem(signature: bytes | None, repeated: bool) -> str:
    """Why a signature was refused, as specific as can be said without echoing it."""
    if signature is None:
        return f"missing {SIGNATURE_HEADER} header"
    if repeated:
        return f"{SIGNATURE_HEADER} was sent more than once; send exactly one"
    given = signature.strip()
    if not given:
        return f"{SIGNATURE_HEADER} is empty"
    prefix, sep, rest = given.partition(b"=")
    if sep and len(rest) == 128 and len(prefix) <= 16:
        shown = prefix.decode("latin-1")
        return f"{SIGNATURE_HEADER} starts with {shown + '='!r}; send only the 128 hex digits"
    if len(given) != 128 or given.strip(b"0123456789abcdefABCDEF"):
        return (
            f"{SIGNATURE_HEADER} is {len(given)} characters, not the 128 hex digits of an "
            "HMAC-SHA512"
        )
    return f"{SIGNATURE_HEADER} does not match the body under any configured secret"


def event_id_problem(payload: Any, event_id: Any) -> str:
    if type(payload) is not dict:
        return f"body is JSON but not an object (got {_json_kind(payload)}); send an event object"
    if event_id is None:
        return "body is not a JSON object with a string event_id (event_id is missing or null)"
    if type(event_id) is not str:
        return f"event_id must be a string, got {_json_kind(event_id)}"
    if not event_id:
        return "event_id is empty"
    if len(event_id) > MAX_EVENT_ID_CHARS:
        return f"event_id is {len(event_id)} characters long; at most {MAX_EVENT_ID_CHARS}"
    return "event_id holds control or invisible characters; send printable text only"


def _json_kind(value: Any) -> str:
    kinds = {list: "an array", str: "a string", bool: "a boolean", dict: "an object"}
    if value is None:
        return "null"
    return kinds.get(type(value), "a number")


def is_json(content_type: bytes) -> bool:
    """True for application/json with parameters or in another case (`; charset=utf-8`)."""
    return content_type.split(b";", 1)[0].strip().lower() == b"application/json"


def declared_length(value: bytes) -> int:
    try:
        return int(value)
    except ValueError:
        return 0  # not a number: the body read decides


def parse_body(body: bytes) -> Any:
    """The JSON value of `body`: orjson, with the standard library as the judge of last resort.

    orjson is several times faster but stricter (no NaN, no UTF-16, no lone surrogates); the
    standard library decides whatever orjson refuses, so what is accepted has not changed. A
    string with a lone surrogate is refused here, though: SQLite cannot store it as text.
    """
    try:
        return _bounded(orjson.loads(body))
    except orjson.JSONDecodeError:
        pass
    try:
        payload = _bounded(json.loads(body))
        json.dumps(payload, ensure_ascii=False).encode("utf-8")
    except RecursionError as exc:
        raise ValueError("nested too deeply to read") from exc
    except UnicodeEncodeError as exc:
        raise ValueError(
            "a string holds an unpaired UTF-16 surrogate escape, which cannot be stored"
        ) from exc
    return payload


def _bounded(payload: Any) -> Any:
    """`payload`, nested no deeper than payscope reads anywhere
    (`payscope.core.bounded.MAX_DEPTH`): what the TUI and the journal's readers walk later stays
    within Python's recursion."""
    try:
        return bounded.check_depth(payload)
    except bounded.TooDeep as exc:
        raise ValueError(
            f"nested too deeply to read (more than {bounded.MAX_DEPTH} levels)"
        ) from exc


def describe(payload: dict[str, Any]) -> tuple[str | None, str | None, str | None]:
    """(event_type, object id, object status) from a payload of any event type."""
    event_type = payload.get("event_type")
    content = payload.get("content")
    obj = content.get("object") if isinstance(content, dict) else None
    object_id = None
    object_status = None
    if isinstance(obj, dict):
        preferred = _ID_FIELDS.get(str(content.get("type"))) if isinstance(content, dict) else None
        for key in (preferred, *_ID_FALLBACK):
            if key and isinstance(obj.get(key), str):
                object_id = obj[key]
                break
        status = obj.get("status")
        object_status = status if isinstance(status, str) else None
    return (event_type if isinstance(event_type, str) else None, object_id, object_status)


def json_problem(body: bytes, exc: Exception) -> str:
    if not body.strip():
        return "body is empty; send the event as a JSON object"
    if isinstance(exc, json.JSONDecodeError):
        problem = f"{exc.msg} at line {exc.lineno} column {exc.colno}"
    elif isinstance(exc, UnicodeDecodeError):
        problem = "not UTF-8 text"
    else:
        problem = str(exc)
    return f"body is not valid JSON ({problem})"
