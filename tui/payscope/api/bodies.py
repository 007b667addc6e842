"""The request model of each route that takes a body, for callers that hold a raw body
(`payscope post PATH -d ...`): the body is checked and shaped by the same model the typed
calls use (`payscope.api.resources`), and a creation keyed by its own id is retried as safely.

A route not listed here takes its body as it is (raw JSON).
"""

from __future__ import annotations

import copy
import importlib
import json
import re
from dataclasses import dataclass
from typing import Any, Final
from urllib.parse import quote

from pydantic import ValidationError

from payscope.api.retry import Replay

_ID = r"[^/]+"


@dataclass(frozen=True)
class Route:
    """A route with a request model (`module:Class` under payscope.api.models)."""

    method: str
    pattern: re.Pattern[str]
    model: str
    # A creation with this field set (the merchant's own id) is retried safely, a duplicate
    # answered by reading the object at `read` (formatted with that id).
    keyed_by: str | None = None
    read: str | None = None
    replay: Replay | None = None


def _route(method: str, template: str, model: str, **extra: Any) -> Route:
    pattern = re.compile("^" + template.replace("{id}", _ID) + "/?$")
    return Route(method, pattern, model, **extra)


ROUTES: Final[tuple[Route, ...]] = (
    _route(
        "POST",
        "/payments",
        "payments:PaymentCreateRequest",
        keyed_by="payment_id",
        read="/payments/{}",
    ),
    _route("POST", "/payments/list", "payments:PaymentListRequest", replay=Replay.SAFE),
    _route("POST", "/payments/{id}/confirm", "payments:PaymentConfirmRequest"),
    _route("POST", "/payments/{id}/capture", "payments:PaymentCaptureRequest"),
    _route("POST", "/payments/{id}/cancel", "payments:PaymentCancelRequest"),
    _route("POST", "/payments/{id}", "payments:PaymentUpdateRequest"),
    _route(
        "POST", "/refunds", "refunds:RefundCreateRequest", keyed_by="refund_id", read="/refunds/{}"
    ),
    _route("POST", "/refunds/list", "refunds:RefundListRequest", replay=Replay.SAFE),
    _route("POST", "/refunds/{id}", "refunds:RefundUpdateRequest"),
    _route("POST", "/customers", "customers:CustomerCreateRequest"),
    _route("POST", "/customers/{id}", "customers:CustomerUpdateRequest"),
    _route("POST", "/payment_link", "links:PaymentLinkCreateRequest"),
    _route("POST", "/payouts/create", "payouts:PayoutCreateRequest"),
    _route("POST", "/payouts/list", "payouts:PayoutListRequest", replay=Replay.SAFE),
    _route("POST", "/payouts/{id}", "payouts:PayoutUpdateRequest"),
    _route("PUT", "/payouts/{id}", "payouts:PayoutUpdateRequest"),
    _route("POST", "/disputes/evidence", "disputes:DisputeEvidenceSubmit"),
    _route("POST", "/subscriptions", "subscriptions:SubscriptionCreateRequest"),
    _route("POST", "/subscriptions/create", "subscriptions:SubscriptionCreateOnlyRequest"),
    _route("POST", "/subscriptions/estimate", "subscriptions:SubscriptionEstimateRequest"),
    _route("POST", "/subscriptions/{id}/confirm", "subscriptions:SubscriptionConfirmRequest"),
    _route("POST", "/subscriptions/{id}/update", "subscriptions:SubscriptionUpdateRequest"),
    _route("POST", "/subscriptions/{id}/pause", "subscriptions:SubscriptionPauseRequest"),
    _route("POST", "/subscriptions/{id}/resume", "subscriptions:SubscriptionResumeRequest"),
    _route("POST", "/subscriptions/{id}/cancel", "subscriptions:SubscriptionCancelRequest"),
    _route("POST", "/payment_methods", "payment_methods:PaymentMethodCreateRequest"),
    _route("POST", "/payment_methods/{id}/update", "payment_methods:PaymentMethodUpdateRequest"),
    _route("POST", "/api_keys/{id}", "api_keys:ApiKeyCreateRequest"),
)


class BodyError(ValueError):
    """A body its route's model refuses (said for a person; never quotes the values)."""


@dataclass(frozen=True)
class Prepared:
    """A body ready to send, and how safely its call may be repeated."""

    body: Any
    model: str | None = None  # the model it went through (None: raw JSON)
    replay: Replay | None = None
    resolve_duplicate: str | None = None


def route_for(method: str, path: str) -> Route | None:
    """The listed route `method path` matches (the path without its query), if any."""
    bare = path.split("?", 1)[0]
    for route in ROUTES:
        if route.method == method.upper() and route.pattern.match(bare):
            return route
    return None


def prepare(method: str, path: str, body: Any, *, typed_from_text: bool = False) -> Prepared:
    """`body` through the model of its route (`BodyError` when the model refuses it); as it
    is on a route with none.

    With `typed_from_text` (a body of command-line fields, all strings), a string the model
    refuses is tried as the JSON value it spells (`1000`, `true`, `null`): numbers go where the
    model wants numbers, and `"12"` stays a string where it wants one."""
    route = route_for(method, path)
    if route is None or body is None:
        return Prepared(body)
    module_name, class_name = route.model.split(":")
    model = getattr(importlib.import_module(f"payscope.api.models.{module_name}"), class_name)
    if not isinstance(body, dict):
        raise BodyError(f"{method.upper()} {path} takes a JSON object ({class_name})")
    try:
        shaped: dict[str, Any] = _validated(model, body, typed_from_text)
    except ValidationError as exc:
        problems = [
            f"{'.'.join(str(part) for part in error['loc']) or 'the body'}: {error['msg']}"
            for error in exc.errors(include_input=False, include_url=False)
        ]
        more = len(problems) - 5
        shown = "; ".join(problems[:5]) + (f" (and {more} more)" if more > 0 else "")
        raise BodyError(f"the body is not a valid {class_name}: {shown}") from None
    key = shaped.get(route.keyed_by) if route.keyed_by else None
    if key and route.read:
        return Prepared(
            shaped, class_name, Replay.KEYED, route.read.format(quote(str(key), safe=""))
        )
    return Prepared(shaped, class_name, route.replay)


def _validated(model: Any, body: dict[str, Any], typed_from_text: bool) -> dict[str, Any]:
    try:
        shaped: dict[str, Any] = model.model_validate(body).to_body()
        return shaped
    except ValidationError as refused:
        if not typed_from_text:
            raise
        first = error = refused
    attempt = copy.deepcopy(body)
    for _ in range(64):  # each round types at least one more field, or gives up
        changed = False
        for problem in error.errors(include_input=False, include_url=False):
            holder, last = _holder(attempt, problem["loc"])
            if holder is None:
                continue
            value = holder[last]
            if not isinstance(value, str):
                continue
            try:
                typed = json.loads(value)
            except ValueError:
                continue
            if isinstance(typed, int | float | bool) or typed is None:
                holder[last] = typed
                changed = True
        if not changed:
            raise first
        try:
            shaped = model.model_validate(attempt).to_body()
            return shaped
        except ValidationError as again:
            error = again
    raise first


def _holder(body: Any, loc: Any) -> tuple[Any, Any]:
    """The container of the value at `loc` (a pydantic error's location) and its key; (None,
    None) when `loc` does not lead to a value of `body` (a union's branch name, say)."""
    here = body
    parts = list(loc)
    for index, part in enumerate(parts):
        last = index == len(parts) - 1
        found = (isinstance(here, dict) and part in here) or (
            isinstance(here, list) and isinstance(part, int) and 0 <= part < len(here)
        )
        if not found:
            return None, None
        if last:
            return here, part
        here = here[part]
    return None, None
