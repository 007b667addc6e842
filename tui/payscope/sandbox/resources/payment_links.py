"""Payment links: create, retrieve, list, and the hosted checkout page behind `link_to_pay`.

Creating a link creates its payment (`requires_payment_method`, with a `client_secret`). The
link is `active` until `expiry` (default 15 minutes) on the sandbox clock, then `expired`.
`POST /payments` with `payment_link: true` (the real service's way; `session_expiry` seconds,
default 15 minutes) makes the same record for the payment it creates (`_links.link_payment`); either
way the payment carries `payment_link {link, secure_link, payment_link_id}`.
Beyond the reference's record, a link answers `payment_id` and `payment_status` (its payment's
status as merchants see it), so a client can tell a paid link from one still waiting.
`link_to_pay` serves a small checkout page (no API key needed: a customer's browser opens it)
that confirms the payment the way the browser SDK does: with the publishable key and the
payment's `client_secret`, never the secret key.
"""

from __future__ import annotations

import html
import json
import random
import sqlite3
from importlib import resources as package_files
from typing import Any
from urllib.parse import quote

from fastapi import APIRouter, Request
from starlette.responses import HTMLResponse, RedirectResponse, Response

from payscope.api.models.links import PaymentLinkCreateRequest, PaymentLinkListRequest
from payscope.sandbox import ids
from payscope.sandbox.clock import iso, parse_iso
from payscope.sandbox.db import dumps
from payscope.sandbox.errors import invalid, not_found
from payscope.sandbox.filters import Where
from payscope.sandbox.public import OLD_PAY_PAGE, PAY_PAGE
from payscope.sandbox.resource import Due, Job, Resource, SeedContext, due_list
from payscope.sandbox.resources._links import DEFAULT_EXPIRY, insert_link, link_record, page_url
from payscope.sandbox.resources._support import base_url, validate
from payscope.sandbox.resources.payments.engine import check_customer, insert_payment, new_payment
from payscope.sandbox.resources.payments.store import SHOWN, load
from payscope.sandbox.responses import json_body, read_object, respond, respond_list
from payscope.sandbox.state import SandboxState, state_of

SCHEMA = """
CREATE TABLE IF NOT EXISTS payment_links (
    payment_link_id TEXT PRIMARY KEY,
    payment_id TEXT NOT NULL,
    status TEXT NOT NULL,
    created TEXT NOT NULL,
    expires_at REAL NOT NULL,
    data TEXT NOT NULL
);
CREATE INDEX IF NOT EXISTS payment_links_created ON payment_links(created);
CREATE INDEX IF NOT EXISTS payment_links_expiry ON payment_links(expires_at)
    WHERE status = 'active';
"""

router = APIRouter(tags=["payment links"])


def _load(conn: sqlite3.Connection, link_id: str) -> tuple[dict[str, Any], float]:
    found = conn.execute(
        "SELECT data, expires_at FROM payment_links WHERE payment_link_id = ?", (link_id,)
    ).fetchone()
    if found is None:
        raise not_found("Payment link", link_id)
    data: dict[str, Any] = json.loads(found[0])
    return data, float(found[1])


def _current(data: dict[str, Any], expires_at: float, now: float) -> dict[str, Any]:
    """The record as of `now` (a link past its expiry reads expired before the job runs)."""
    if expires_at <= now:
        data["status"] = "expired"
    return data


def _payment_statuses(conn: sqlite3.Connection, payment_ids: list[str]) -> dict[str, str]:
    """The status of each of these payments, as merchants see it (one query for a page)."""
    if not payment_ids:
        return {}
    marks = ", ".join("?" * len(payment_ids))
    found = conn.execute(
        f"SELECT payment_id, status FROM payments WHERE payment_id IN ({marks})", payment_ids
    ).fetchall()
    return {str(pid): SHOWN.get(str(status), str(status)) for pid, status in found}


def _out(
    request: Request,
    data: dict[str, Any],
    expires_at: float,
    now: float,
    payment_status: str | None,
) -> dict[str, Any]:
    """The record as answered: current status, its payment's status, and the page URL on the
    sandbox's own base URL."""
    data = _current(data, expires_at, now)
    data["link_to_pay"] = _page_url(request, str(data["payment_link_id"]))
    data["payment_status"] = payment_status
    return data


def _page_url(request: Request, link_id: str) -> str:
    return page_url(base_url(request), link_id)


@router.post("/payment_link", summary="Create a payment link")
async def create_link(request: Request, body: PaymentLinkCreateRequest) -> Response:
    """A link to a hosted page where the customer pays `amount` in `currency`."""
    state = state_of(request)
    now = state.clock.now()
    expires_at = parse_iso(body.expiry) if body.expiry else now + DEFAULT_EXPIRY
    if expires_at <= now:
        raise invalid("expiry", body.expiry, f"a time after the sandbox's now ({iso(now)})")
    link_id = ids.new_id("plink")
    row = new_payment(
        state,
        amount=body.amount,
        currency=body.currency,
        now=now,
        customer_id=body.customer_id,
        description=body.description,
        metadata={**(body.metadata or {}), "payment_link_id": link_id},
        capture_method=str(body.capture_method or "automatic"),
        authentication_type=str(body.authentication_type or "no_three_ds"),
        email=body.email,
        return_url=body.return_url,
    )
    config = body.payment_link_config.to_body() if body.payment_link_config else {}
    data = link_record(
        state,
        link_id,
        row.data,
        now,
        expires_at,
        link_type=body.link_type or "one_time",
        send_email=bool(body.send_email),
        require_customer_info=bool(body.require_customer_info),
        payment_link_config=config or None,
    )
    row.data["payment_link"] = {
        "link": _page_url(request, link_id),
        "secure_link": None,
        "payment_link_id": link_id,
    }
    row.data["expires_on"] = data["expiry"]
    with state.db.transaction() as conn:
        check_customer(conn, body.customer_id)
        insert_payment(conn, state, row)
        insert_link(conn, data, expires_at)
    out = _out(request, data, expires_at, now, SHOWN.get(row.status, row.status))
    return respond({**out, "client_secret": row.data["client_secret"]})


@router.post(
    "/payment_link/list",
    summary="List payment links, newest first",
    openapi_extra=json_body(PaymentLinkListRequest, required=False),
)
async def list_links(request: Request) -> Response:
    """Body `{limit, offset, created_gte, created_lte}` (all optional)."""
    q = validate(PaymentLinkListRequest, await read_object(request, '{"limit": 10}'))
    where = Where()
    where.created(q.created_gte, q.created_lte)
    state = state_of(request)
    now = state.clock.now()
    rows, total = where.page(
        state.db.conn, "payment_links", q.limit, q.offset, "data, expires_at, payment_id"
    )
    paid = _payment_statuses(state.db.conn, [str(r[2]) for r in rows])
    return respond_list(
        [dumps(_out(request, json.loads(r[0]), r[1], now, paid.get(str(r[2])))) for r in rows],
        total,
    )


@router.get("/payment_link/{payment_link_id}", summary="Retrieve a payment link")
async def retrieve_link(request: Request, payment_link_id: str) -> Response:
    """The link record (status as of the sandbox clock), or 404 IR_05."""
    state = state_of(request)
    data, expires_at = _load(state.db.conn, payment_link_id)
    payment_id = str(data["payment_id"])
    status = _payment_statuses(state.db.conn, [payment_id]).get(payment_id)
    return respond(_out(request, data, expires_at, state.clock.now(), status))


# -- the hosted checkout page ----------------------------------------------------------------


def _template() -> str:
    return (
        package_files.files("payscope.sandbox")
        .joinpath("static/checkout.html")
        .read_text(encoding="utf-8")
    )


@router.get(OLD_PAY_PAGE, include_in_schema=False)
async def old_checkout_page(payment_link_id: str) -> Response:
    """Where links made by earlier versions point: moved for good to `/pay/{id}`."""
    page = PAY_PAGE.format(payment_link_id=quote(payment_link_id, safe=""))
    return RedirectResponse(page, status_code=308)


# Public (see tui/payscope/sandbox/public.py): a customer's browser has no key; the page shows and
# confirms only its own link's payment.
@router.get(PAY_PAGE, include_in_schema=False)
async def checkout_page(request: Request, payment_link_id: str) -> Response:
    """The page a customer opens: amount, description and a card form (test cards work)."""
    state = state_of(request)
    conn = state.db.conn
    found = conn.execute(
        "SELECT data, expires_at FROM payment_links WHERE payment_link_id = ?", (payment_link_id,)
    ).fetchone()
    if found is None:
        return HTMLResponse(_message_page("This payment link does not exist."), status_code=404)
    link = _current(json.loads(found[0]), float(found[1]), state.clock.now())
    payment = load(conn, str(link["payment_id"]))
    shown = payment.data["status"]
    if link["status"] == "expired" and shown in (
        "requires_payment_method",
        "requires_confirmation",
    ):
        return HTMLResponse(
            _message_page("This payment link has expired. Ask the seller for a new one."),
            status_code=410,
        )
    config = link.get("payment_link_config") or {}
    page = {
        "payment_id": payment.payment_id,
        "client_secret": payment.data["client_secret"],
        "publishable_key": state.credentials.publishable_key,
        "amount": link["amount"],
        "currency": link["currency"],
        "description": link.get("description") or "",
        "seller_name": config.get("seller_name") or "payscope sandbox",
        "status": shown,
        "expiry": link["expiry"],
    }
    # No `<` at all inside the script element: `</script>` cannot close it and `<!--<script>`
    # (in a description) cannot switch the parser into a state where the page's own
    # `</script>` no longer ends it. `\u003c` is still a `<` to JSON.parse.
    payload = json.dumps(page).replace("<", "\\u003c")
    body = _template().replace("__PAYSCOPE_LINK__", payload)
    return HTMLResponse(body, headers={"Cache-Control": "no-store"})


def _message_page(text: str) -> str:
    return (
        "<!doctype html><meta charset='utf-8'><title>payscope checkout</title>"
        f"<body style='font-family:sans-serif;margin:3em'><p>{html.escape(text)}</p></body>"
    )


# -- clock job: links expire ------------------------------------------------------------------


def _next_expiry(conn: sqlite3.Connection) -> float | None:
    value = conn.execute(
        "SELECT MIN(expires_at) FROM payment_links WHERE status = 'active'"
    ).fetchone()[0]
    return None if value is None else float(value)


def _expire(state: SandboxState, now: float) -> int:
    due = state.db.conn.execute(
        "SELECT payment_link_id FROM payment_links WHERE status = 'active' AND expires_at <= ?",
        (now,),
    ).fetchall()
    for (link_id,) in due:
        with state.db.transaction() as conn:
            data, _ = _load(conn, link_id)
            data["status"] = "expired"
            conn.execute(
                "UPDATE payment_links SET status = 'expired', data = ? WHERE payment_link_id = ?",
                (dumps(data), link_id),
            )
    return len(due)


def seed_links(ctx: SeedContext) -> None:
    """Links for the seeded payments still awaiting a method (active ones are payable), and a
    few whose payment went through (paid on the page, then past their expiry)."""
    rng = ctx.rng
    rows: list[tuple[Any, ...]] = []
    seeded = ctx.shared.get("payments", [])
    waiting = [p for p in seeded if p.status == "requires_payment_method"][: max(4, ctx.n // 50)]
    # Their own generator: the draws of `ctx.rng` (and so every later seeder's data) stay as
    # they were before paid links were seeded.
    paid_rng = random.Random(f"paid-links-{ctx.n}")
    paid = [p for p in seeded if p.status == "succeeded"][: max(1, ctx.n // 100)]
    chosen = [(p, rng) for p in waiting] + [(p, paid_rng) for p in paid]
    for i, (p, draw) in enumerate(chosen):
        link_id = ids.new_id("plink", draw)
        active = i % 3 != 2 and i < len(waiting)
        expires_at = ctx.now + draw.uniform(2, 30) * 86400 if active else p.created + 900
        data = {
            "payment_link_id": link_id,
            "payment_id": p.payment_id,
            "merchant_id": ctx.merchant_id,
            "link_to_pay": None,
            "secure_link": None,
            "amount": p.amount,
            "currency": p.currency,
            "description": draw.choice(("Invoice", "Workshop seat", "Deposit", "Gift card")),
            "link_type": "one_time",
            "customer_id": p.customer_id,
            "email": None,
            "send_email": False,
            "require_customer_info": False,
            # Every other link has the look a seller gives it (the page shows the name).
            "payment_link_config": (
                {"seller_name": "Payscope Demo Shop", "sdk_layout": "tabs"} if i % 2 else None
            ),
            "created_at": iso(p.created),
            "expiry": iso(expires_at),
            "status": "active" if active else "expired",
            "profile_id": ctx.profile_id,
        }
        rows.append(
            (link_id, p.payment_id, data["status"], data["created_at"], expires_at, dumps(data))
        )
    ctx.conn.executemany(
        "INSERT OR IGNORE INTO payment_links(payment_link_id, payment_id, status, created, "
        "expires_at, data) VALUES (?, ?, ?, ?, ?, ?)",
        rows,
    )


def _due_expiry(conn: sqlite3.Connection, start: float, end: float) -> list[Due]:
    """What `_expire` would do between `start` and `end` (the clock's upcoming preview)."""
    sql = "SELECT expires_at, payment_link_id FROM payment_links WHERE status = 'active'"
    return due_list(conn, sql, "expires_at", start, end, "link_expires", "payment link {0} expires")


RESOURCE = Resource(
    name="payment_links",
    router=router,
    schema=SCHEMA,
    jobs=(Job("expired_payment_links", _next_expiry, _expire, _due_expiry),),
    seed=seed_links,
)
