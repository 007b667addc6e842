"""The real service's `GET /payments/list`, for stubs of it (not a test module).

Its document has only the GET form: query parameters `customer_id`, `created_gte`/`created_lte`
(and `created`, `created_lt`, `created_gt`), `limit`, and the cursors `starting_after` /
`ending_before`; the answer is `{size, data}`, without a total. There is no POST form: a stub
leaves `POST /payments/list` to its fallback (404 `HE_02`, "Unrecognized request URL").
"""

from __future__ import annotations

from typing import Any
from urllib.parse import parse_qsl

from tests.api.conftest import Recorded, Reply, envelope

QUERY = frozenset({"customer_id", "created_gte", "created_lte", "limit", "starting_after"})


def payments_list(payments: list[dict[str, Any]], asked: Recorded) -> Reply:
    """`GET /payments/list` over `payments` (in the service's order): `customer_id`,
    `created_gte`/`created_lte`, `limit` (default 10) and `starting_after`. A parameter payscope
    has no business sending (one the route does not take, or a cursor the stub does not
    implement) is refused, 400 `IR_06`, so a test sees it."""
    query = dict(parse_qsl(asked.query))
    unknown = set(query) - QUERY
    if unknown:
        return envelope(400, "IR_06", f"unknown query parameter(s): {sorted(unknown)}")
    low, high = query.get("created_gte", "0"), query.get("created_lte", "9")
    found = [
        p
        for p in payments
        if query.get("customer_id") in (None, p["customer_id"])
        and low <= p["created"] <= high  # all `YYYY-MM-DDTHH:MM:SSZ`: compared as text
    ]
    after = query.get("starting_after")
    if after is not None:
        ids = [p["payment_id"] for p in found]
        found = found[ids.index(after) + 1 :] if after in ids else []
    page = found[: int(query.get("limit", "10"))]
    return Reply(200, {"size": len(page), "data": page})
