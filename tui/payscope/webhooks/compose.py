"""Compose a webhook event, sign it and send it anywhere (`payscope send-event`, the Events
composer): the body from a file, an object or the type's template; the answer kept whole
enough to read (status, headers, body up to 64 KiB, latency)."""

from __future__ import annotations

import json
import secrets as random_secrets
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any

import httpx

from payscope.core import bounded
from payscope.webhooks.signing import SIGNATURE_HEADER, sign

MAX_ANSWER_BODY = 64 * 1024

# content.type of an event type, by its prefix (the sandbox's own pairing,
# tui/payscope/sandbox/outbox.py).
_CONTENT_TYPES = (
    ("payment_", "payment_details"),
    ("action_required", "payment_details"),
    ("refund_", "refund_details"),
    ("dispute_", "dispute_details"),
    ("payout_", "payout_details"),
    ("mandate_", "mandate_details"),
    ("invoice_", "subscription_details"),
)
# What each kind's template object holds: its id field, an id prefix and a status per event.
_TEMPLATES: dict[str, tuple[str, str, dict[str, Any]]] = {
    "payment_details": ("payment_id", "pay", {"amount": 1000, "currency": "USD"}),
    "refund_details": ("refund_id", "ref", {"amount": 500, "currency": "USD"}),
    "dispute_details": ("dispute_id", "dp", {"amount": "1000", "currency": "USD"}),
    "payout_details": ("payout_id", "payout", {"amount": 2500, "currency": "USD"}),
    "mandate_details": ("mandate_id", "man", {}),
    "subscription_details": ("id", "sub", {"customer_id": "cus_composed"}),
}
_STATUS_OF = {
    "payment_succeeded": "succeeded",
    "payment_failed": "failed",
    "payment_processing": "processing",
    "payment_cancelled": "cancelled",
    "payment_authorized": "requires_capture",
    "payment_captured": "succeeded",
    "payment_expired": "expired",
    "action_required": "requires_customer_action",
    "refund_succeeded": "succeeded",
    "refund_failed": "failed",
    "payout_success": "success",
    "payout_failed": "failed",
    "payout_initiated": "initiated",
    "invoice_paid": "active",
}


class ComposeError(ValueError):
    """A body that cannot be sent as an event, said for a person."""


def content_type_of(event_type: str) -> str:
    for prefix, content_type in _CONTENT_TYPES:
        if event_type.startswith(prefix):
            return content_type
    raise ComposeError(
        f"no content type is known for the event type {event_type!r}: start it with payment_, "
        "refund_, dispute_, payout_, mandate_ or invoice_ (or give the whole body in a file)"
    )


def new_event_id() -> str:
    return "evt_" + random_secrets.token_hex(10)


def template(
    event_type: str, merchant_id: str = "merchant_composed", obj: dict[str, Any] | None = None
) -> dict[str, Any]:
    """An event of `event_type` as the service sends it: `obj` (e.g. the latest real object of
    that kind) as its content, or the type's template object."""
    content_type = content_type_of(event_type)
    if obj is None:
        id_field, prefix, fields = _TEMPLATES[content_type]
        obj = {id_field: f"{prefix}_composed{random_secrets.token_hex(4)}", **fields}
        status = _STATUS_OF.get(event_type) or event_type.split("_", 1)[-1]
        obj["status"] = status
    now = datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%S.%fZ")
    return {
        "merchant_id": merchant_id,
        "event_id": new_event_id(),
        "event_type": event_type,
        "content": {"type": content_type, "object": obj},
        "timestamp": now,
    }


def problems(text: str) -> str:
    """What is wrong with `text` as an event body ("" when nothing): said as the user types."""
    try:
        data = bounded.loads_json(text)
    except bounded.TooDeep as exc:
        return exc.problem
    except json.JSONDecodeError as exc:
        return f"line {exc.lineno}, column {exc.colno}: {exc.msg}"
    if not isinstance(data, dict):
        return "an event is a JSON object"
    for name in ("event_id", "event_type"):
        if not isinstance(data.get(name), str) or not data.get(name):
            return f"{name} is missing (a non-empty string)"
    content = data.get("content")
    if not isinstance(content, dict) or not isinstance(content.get("object"), dict):
        return "content.object is missing (the object the event is about)"
    return ""


@dataclass(frozen=True)
class Answer:
    """What the target said: status, headers, body (the first 64 KiB) and latency. `error`
    instead when nothing came back (refused, timed out)."""

    status: int | None
    headers: dict[str, str] = field(default_factory=dict)
    body: str = ""
    truncated: bool = False
    latency_ms: float = 0.0
    error: str = ""

    @property
    def ok(self) -> bool:
        return self.status is not None and 200 <= self.status < 300

    def to_json(self) -> dict[str, Any]:
        return {
            "status": self.status,
            "headers": self.headers,
            "body": self.body,
            "truncated": self.truncated,
            "latency_ms": round(self.latency_ms, 1),
            "error": self.error or None,
        }


async def send(body: bytes, url: str, secret: str, *, timeout: float = 10.0) -> Answer:
    """POST `body` to `url`, signed with `secret` as the service signs (HMAC-SHA512 of the exact
    bytes); the answer, its body read up to 64 KiB."""
    if not url.startswith(("http://", "https://")):
        raise ComposeError(f"the target is an http:// or https:// URL, not {url!r}")
    if not secret:
        raise ComposeError("no signing secret: give the profile's webhook secret")
    headers = {
        "Content-Type": "application/json",
        SIGNATURE_HEADER: sign(body, secret),
        "User-Agent": "payscope-send-event",
    }
    started = time.monotonic()
    async with httpx.AsyncClient(timeout=timeout, verify=not url.startswith("http://")) as http:
        try:
            async with http.stream("POST", url, content=body, headers=headers) as response:
                chunks: list[bytes] = []
                size = 0
                truncated = False
                async for chunk in response.aiter_bytes():
                    chunks.append(chunk)
                    size += len(chunk)
                    if size > MAX_ANSWER_BODY:
                        truncated = True
                        break
                latency = (time.monotonic() - started) * 1000.0
                raw = b"".join(chunks)[:MAX_ANSWER_BODY]
                return Answer(
                    response.status_code,
                    {k.lower(): v for k, v in response.headers.items()},
                    raw.decode("utf-8", errors="replace"),
                    truncated,
                    latency,
                )
        except (httpx.HTTPError, httpx.InvalidURL) as exc:
            latency = (time.monotonic() - started) * 1000.0
            return Answer(None, latency_ms=latency, error=f"{type(exc).__name__}: {exc}")


def sender(
    secret: str, default_to: str = "", *, timeout: float = 10.0
) -> Callable[[dict[str, Any], str], Awaitable[tuple[int | None, Any, str]]]:
    """What sends a fixture's event steps (the `send_event` of
    `payscope.api.fixtures.running.run_fixture`): signed with `secret`, to the step's `to` or
    `default_to`."""

    async def send_event(event: dict[str, Any], to: str) -> tuple[int | None, Any, str]:
        target = to or default_to
        if not target:
            return None, None, "no target: give the step a `to` URL"
        body = json.dumps(event, separators=(",", ":"), ensure_ascii=False).encode("utf-8")
        try:
            answer = await send(body, target, secret, timeout=timeout)
        except ComposeError as exc:
            return None, None, str(exc)
        if answer.error:
            return None, None, answer.error
        try:
            data: Any = bounded.loads_json(answer.body)
        except ValueError:  # not JSON, or nested deeper than payscope reads: kept as text
            data = answer.body
        return answer.status, data, ""

    return send_event
