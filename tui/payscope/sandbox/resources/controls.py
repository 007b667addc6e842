"""`GET /health` and the sandbox's own controls: the test-card table and the clock."""

from __future__ import annotations

import math
from typing import Any

from fastapi import APIRouter, Request
from starlette.responses import Response

from payscope.sandbox import method_types
from payscope.sandbox.cards import TEST_CARDS
from payscope.sandbox.clock import LATEST, iso, parse_iso
from payscope.sandbox.errors import invalid, missing
from payscope.sandbox.resource import Resource
from payscope.sandbox.responses import read_object, respond
from payscope.sandbox.seed import reset
from payscope.sandbox.state import state_of
from payscope.sandbox.upcoming import upcoming

router = APIRouter()

_HEALTH = b'{"status":"ok"}'


@router.get("/health", tags=["health"], summary="200 with a valid key")
async def health() -> Response:
    """The service is up and the key is valid."""
    return Response(_HEALTH, media_type="application/json")


@router.get("/_sandbox/test-cards", tags=["sandbox controls"], summary="The test-card table")
async def test_cards() -> Response:
    """Every documented card number, what it does, and the unified code it reaches."""
    return respond({"data": [card.as_dict() for card in TEST_CARDS]})


@router.get(
    "/_sandbox/test-methods",
    tags=["sandbox controls"],
    summary="Every non-card way to pay: its flow, a ready payment_method_data, its test values",
)
async def test_methods() -> Response:
    """Each family and type the sandbox takes besides cards, how it flows (sync, redirect,
    qr, transfer, voucher, debit, wait) and the test values that decide its outcome."""
    return respond({"data": [method.as_dict() for method in method_types.TYPES]})


def _clock_view(request: Request) -> dict[str, Any]:
    clock = state_of(request).clock
    return {"now": iso(clock.now()), "offset_seconds": clock.offset}


@router.get("/_sandbox/clock", tags=["sandbox controls"], summary="The sandbox clock")
async def get_clock(request: Request) -> Response:
    """`now` and how far the clock has been advanced past real time."""
    return respond(_clock_view(request))


_ADVANCE_BODY = {
    "requestBody": {
        "required": True,
        "content": {
            "application/json": {
                "schema": {
                    "type": "object",
                    "properties": {"seconds": {"type": "number", "minimum": 0}},
                    "required": ["seconds"],
                }
            }
        },
    }
}


@router.post(
    "/_sandbox/clock/advance",
    tags=["sandbox controls"],
    summary="Advance the clock, running what falls due",
    openapi_extra=_ADVANCE_BODY,
)
async def advance_clock(request: Request) -> Response:
    """Body `{seconds}`: expiries, refund settlements and webhook retries run on the way."""
    parsed = await read_object(request, '{"seconds": 3600}')
    seconds = parsed.get("seconds")
    if seconds is None:
        raise missing("seconds", 'How far to move the clock, e.g. {"seconds": 3600}.')
    state = state_of(request)
    # Every timestamp is written as ISO text: the clock must stay within what that can say.
    most = max(0, int(LATEST - state.clock.now()))
    if (
        isinstance(seconds, bool)
        or not isinstance(seconds, int | float)
        or not 0 <= seconds <= most
        or not math.isfinite(seconds)
    ):
        raise invalid("seconds", seconds, f"a number of seconds from 0 to {most}")
    ran = await state.advance(float(seconds))
    return respond({**_clock_view(request), "ran": ran})


@router.post(
    "/_sandbox/reset",
    tags=["sandbox controls"],
    summary="Bring back the seeded demo data and the clock",
)
async def reset_sandbox(request: Request) -> Response:
    """Every record goes and the seeded demo data is written again as it was seeded (laid out
    back from today); the clock returns to real time. Keys, the profile, the webhook settings
    and attached listeners stay. No body."""
    state = state_of(request)
    done = await reset(state)
    return respond({**_clock_view(request), **done})


@router.get(
    "/_sandbox/clock/upcoming",
    tags=["sandbox controls"],
    summary="What advancing the clock would set off",
)
async def upcoming_work(
    request: Request, seconds: str | None = None, until: str | None = None
) -> Response:
    """Query `seconds=N` (from now) or `until=<ISO 8601 time>`: the expiries, settlements,
    renewals, payout steps and webhook retries due in that span, soonest first, without running
    them. `items` holds at most 200; `total` counts them all."""
    state = state_of(request)
    now = state.clock.now()
    most = max(0, int(LATEST - now))
    if (seconds is None) == (until is None):
        raise missing("seconds", "Give either seconds=N (from now) or until=<ISO 8601 time>.")
    if seconds is not None:
        try:
            span = float(seconds)
        except ValueError:
            span = math.nan
        if not math.isfinite(span) or not 0 <= span <= most:
            raise invalid("seconds", seconds, f"a number of seconds from 0 to {most}")
        end = now + span
    else:
        assert until is not None
        try:
            end = parse_iso(until)
        except ValueError:
            raise invalid("until", until, "an ISO 8601 time, e.g. 2024-05-02T12:00:00Z") from None
        if not now <= end <= LATEST:
            raise invalid("until", until, f"a time from now ({iso(now)}) on")
    webhooks = bool(state.webhook_targets()[0])
    items, total = upcoming(state.db.conn, now, end, jobs=state.jobs, webhooks=webhooks)
    return respond(
        {
            "now": iso(now),
            "until": iso(end),
            "items": [item.as_dict() for item in items],
            "total": total,
        }
    )


_WEBHOOK_BODY = {
    "requestBody": {
        "required": True,
        "content": {
            "application/json": {
                "schema": {
                    "type": "object",
                    "properties": {
                        "url": {"type": ["string", "null"]},
                        "if_url": {"type": ["string", "null"]},
                        "attach": {"type": "string"},
                        "detach": {"type": "string"},
                    },
                }
            }
        },
    }
}


def _webhook_url(parsed: dict[str, Any], name: str, *, nullable: bool) -> str | None:
    url = parsed[name]
    if url is None and nullable:
        return None
    if not isinstance(url, str) or not url.startswith(("http://", "https://")) or len(url) > 2048:
        expected = "an http(s) URL of at most 2048 characters"
        raise invalid(name, url, expected + (", or null" if nullable else ""))
    return url


@router.post(
    "/_sandbox/webhook",
    tags=["sandbox controls"],
    summary="Where webhooks go: the profile's URL, and the attached listeners",
    openapi_extra=_WEBHOOK_BODY,
)
async def set_webhook(request: Request) -> Response:
    """Where the sandbox delivers webhooks, signed with the profile's `payment_response_hash_key`.

    - `{"attach": url}` delivers every webhook to `url` as well, until `{"detach": url}`. Each
      running payscope attaches its own listener (and detaches it on quit), so two payscopes on
      one sandbox both get every webhook.
    - `{"url": url}` sets the business profile's one `webhook_url` (what the service has);
      `null` clears it. With `if_url`, only while the current URL is that one.

    The answer: `{"url": the profile's URL, "listeners": [the attached ones]}`."""
    parsed = await read_object(request, '{"attach": "http://127.0.0.1:8787/webhooks"}')
    if not {"url", "attach", "detach"} & parsed.keys():
        raise missing(
            "url",
            'Attach a listener with {"attach": "http://127.0.0.1:8787/webhooks"}, or set the '
            'profile\'s URL with {"url": ...}.',
        )
    # Every field is checked before anything changes (a mistake changes nothing).
    url = _webhook_url(parsed, "url", nullable=True) if "url" in parsed else None
    attach = _webhook_url(parsed, "attach", nullable=False) if "attach" in parsed else None
    detach = _webhook_url(parsed, "detach", nullable=False) if "detach" in parsed else None
    state = state_of(request)
    if "url" in parsed:
        current, _secret = state.webhook_target()
        # `if_url`: change it only while it is still that one.
        if "if_url" not in parsed or parsed["if_url"] == current:
            state.set_webhook(url)
    if attach is not None:
        state.attach_listener(attach)
    if detach is not None:
        state.detach_listener(detach)
    target, _secret = state.webhook_target()
    return respond({"url": target, "listeners": state.attached_listeners()})


RESOURCE = Resource(name="controls", router=router)
