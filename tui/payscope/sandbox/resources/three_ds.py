"""The 3-D Secure challenge page a browser opens from `next_action.redirect_to_url`, and the
page of a non-card method's step (a bank or wallet redirect, a QR code, transfer or voucher
instructions, a UPI collect) at `/_sandbox/payments/{id}/redirect`, with the same three answers.

`GET /_sandbox/payments/{id}/3ds?client_secret=...` shows the payment and three buttons
(Authorize, Fail, Abandon). They post a plain HTML form to `.../3ds/challenge`, so the page
works offline and without JavaScript. No API key is involved: like a real issuer's page, it
is authorised by the per-payment token in its URL (the payment's `client_secret`). The answer
shows the outcome and, when the payment has a `return_url`, sends the browser there with
`payment_id` and `status` added to its query. Scripts keep using `POST .../3ds` with the
secret key (`payments/routes.py`).
"""

from __future__ import annotations

import hmac
import html
from importlib import resources as package_files
from typing import Any
from urllib.parse import parse_qs, quote, urlencode, urlsplit, urlunsplit

from fastapi import APIRouter, Request
from starlette.responses import HTMLResponse, Response

from payscope.api.models._iso import format_minor_units
from payscope.sandbox.errors import SandboxError, forbidden
from payscope.sandbox.public import REDIRECT_FORM, REDIRECT_PAGE, THREE_DS_FORM, THREE_DS_PAGE
from payscope.sandbox.resource import Resource
from payscope.sandbox.resources.payments.engine import complete_challenge
from payscope.sandbox.resources.payments.store import SHOWN, Row, load
from payscope.sandbox.state import state_of

router = APIRouter(tags=["sandbox controls"])

_BUTTONS = (
    ("authorize", "", "Authorize"),
    ("fail", "fail", "Fail authentication"),
    ("abandon", "abandon", "Abandon the challenge"),
)
_SECONDS_BEFORE_RETURN = 2


def _template() -> str:
    return (
        package_files.files("payscope.sandbox")
        .joinpath("static/three_ds.html")
        .read_text(encoding="utf-8")
    )


_METHOD_BUTTONS = (
    ("authorize", "", "Authorize (pay)"),
    ("fail", "fail", "Fail (declined)"),
    ("abandon", "abandon", "Abandon (give up)"),
)


def _page(
    content: str,
    status: int = 200,
    refresh_to: str | None = None,
    heading: str = "3-D Secure check",
) -> HTMLResponse:
    refresh = ""
    if refresh_to is not None:
        target = html.escape(refresh_to, quote=True)
        refresh = f'<meta http-equiv="refresh" content="{_SECONDS_BEFORE_RETURN};url={target}">'
    body = (
        _template()
        .replace("__REFRESH__", refresh)
        .replace("__CONTENT__", content)
        .replace("__HEADING__", html.escape(heading))
    )
    return HTMLResponse(body, status_code=status, headers={"Cache-Control": "no-store"})


def _error_page(exc: SandboxError, heading: str = "3-D Secure check") -> HTMLResponse:
    return _page(f'  <p class="bad">{html.escape(exc.message)}</p>', exc.status, heading=heading)


def _pending(
    request: Request, payment_id: str, presented: str | None, what: str = "3-D Secure challenge"
) -> Row:
    """The payment whose challenge (or method step) this browser may complete (404, 403,
    then 400)."""
    row = load(state_of(request).db.conn, payment_id)
    expected = str(row.data.get("client_secret") or "")
    if not presented or not hmac.compare_digest(presented.encode(), expected.encode()):
        raise forbidden(
            f"This {what} link is not valid for this payment: open the exact URL from the "
            "payment's next_action (it carries the payment's client_secret)."
        )
    is_method = bool((row.card_rule or {}).get("family"))
    if row.status != "requires_customer_action" or is_method != (what != "3-D Secure challenge"):
        shown = SHOWN.get(row.status, row.status)
        raise SandboxError(
            400,
            "invalid_request",
            "IR_04",
            f"This {what} is already over (or was never asked): payment {payment_id} is "
            f"{shown}, and only a payment in requires_action waiting on its customer has one "
            "to complete.",
        )
    return row


_METHOD_STEP = "payment step"
_METHOD_HEADING = "Payment step"


def _method_text(data: dict[str, Any], rule: dict[str, Any]) -> str:
    """What the customer is asked, by the method's flow."""
    name = f"{rule.get('type')} ({rule.get('family')})"
    flow = rule.get("flow")
    if flow == "transfer":
        return f"Send the money by {name} with the instructions the shop showed you."
    if flow == "voucher":
        return f"Pay this {name} voucher at a shop or in your bank app."
    if flow == "wait":
        return f"Approve the collect request for {name} in your payment app."
    if flow == "debit":
        return f"Verify your bank account and accept the {name} debit mandate."
    if flow == "qr":
        return f"Scan the QR code and approve the payment in {name}."
    return f"{name} asks you to approve this payment."


@router.get(REDIRECT_PAGE, include_in_schema=False)
async def method_page(request: Request, payment_id: str) -> Response:
    """A non-card method's step: what is being paid and the customer's three answers."""
    try:
        row = _pending(request, payment_id, request.query_params.get("client_secret"), _METHOD_STEP)
    except SandboxError as exc:
        return _error_page(exc, _METHOD_HEADING)
    data = row.data
    action = REDIRECT_FORM.format(payment_id=quote(payment_id, safe=""))
    secret = html.escape(str(data["client_secret"]), quote=True)
    buttons = "\n".join(
        f'    <button type="submit" name="result" value="{value}" class="{css}">{label}</button>'
        for value, css, label in _METHOD_BUTTONS
    )
    amount = html.escape(format_minor_units(int(data["amount"]), data["currency"]))
    content = f"""\
  <div class="amount">{amount}</div>
  <p>{html.escape(_method_text(data, row.card_rule or {}))}</p>
  <p>Payment {html.escape(payment_id)}</p>
  <form method="post" action="{html.escape(action, quote=True)}">
    <input type="hidden" name="client_secret" value="{secret}">
{buttons}
  </form>"""
    return _page(content, heading=_METHOD_HEADING)


@router.post(REDIRECT_FORM, include_in_schema=False)
async def method_answer(request: Request, payment_id: str) -> Response:
    """The form's answer: finish the step, show the outcome, go back to the shop."""
    form = parse_qs((await request.body()).decode("utf-8", "replace"))
    presented = next(iter(form.get("client_secret", ())), None)
    result = next(iter(form.get("result", ())), "authorize")
    state = state_of(request)
    try:
        _pending(request, payment_id, presented, _METHOD_STEP)
        row = complete_challenge(state, payment_id, result)
    except SandboxError as exc:
        return _error_page(exc, _METHOD_HEADING)
    return _outcome(row, payment_id, "Paid", "Not paid", _METHOD_HEADING)


@router.get(THREE_DS_PAGE, include_in_schema=False)
async def challenge_page(request: Request, payment_id: str) -> Response:
    """The challenge: what is being paid, and the customer's three possible answers."""
    try:
        row = _pending(request, payment_id, request.query_params.get("client_secret"))
    except SandboxError as exc:
        return _error_page(exc)
    data = row.data
    card = (data.get("payment_method_data") or {}).get("card") or {}
    card_text = f"{card.get('brand') or 'Card'} ending {card.get('last4') or '????'}"
    action = THREE_DS_FORM.format(payment_id=quote(payment_id, safe=""))
    secret = html.escape(str(data["client_secret"]), quote=True)
    buttons = "\n".join(
        f'    <button type="submit" name="result" value="{value}" class="{css}">{label}</button>'
        for value, css, label in _BUTTONS
    )
    content = f"""\
  <div class="amount">{html.escape(format_minor_units(int(data["amount"]), data["currency"]))}</div>
  <p>Your bank asks you to confirm this payment with {html.escape(card_text)}.</p>
  <p>Payment {html.escape(payment_id)}</p>
  <form method="post" action="{html.escape(action, quote=True)}">
    <input type="hidden" name="client_secret" value="{secret}">
{buttons}
  </form>"""
    return _page(content)


@router.post(THREE_DS_FORM, include_in_schema=False)
async def challenge_answer(request: Request, payment_id: str) -> Response:
    """The form's answer: complete the challenge, show the outcome, go back to the shop."""
    form = parse_qs((await request.body()).decode("utf-8", "replace"))
    presented = next(iter(form.get("client_secret", ())), None)
    result = next(iter(form.get("result", ())), "authorize")
    state = state_of(request)
    try:
        _pending(request, payment_id, presented)
        row = complete_challenge(state, payment_id, result)
    except SandboxError as exc:
        return _error_page(exc)
    return _outcome(row, payment_id, "Authenticated", "Not authenticated", "3-D Secure check")


def _outcome(row: Row, payment_id: str, ok: str, bad: str, heading: str) -> Response:
    """The answer page: the payment's new status, then back to the shop if it gave a URL."""
    status = str(row.data["status"])
    if status in ("succeeded", "requires_capture", "processing"):
        outcome = f'<p class="ok">{ok}: payment {html.escape(payment_id)} is {status}.</p>'
    else:
        reason = row.data.get("unified_message") or row.data.get("error_message") or status
        outcome = (
            f'<p class="bad">{bad} ({html.escape(str(reason))}): payment '
            f"{html.escape(payment_id)} is {html.escape(status)}.</p>"
        )
    back = _return_to(row.data.get("return_url"), payment_id, status)
    if back is not None:
        link = html.escape(back, quote=True)
        outcome += f'\n  <p>Returning to the shop... <a href="{link}">continue</a></p>'
    return _page(f"  {outcome}", refresh_to=back, heading=heading)


def _return_to(return_url: object, payment_id: str, status: str) -> str | None:
    """`return_url` with the outcome added to its query, or None when there is none to follow.

    Only http(s) addresses are followed: anything else (javascript:, data:) is not a shop.
    """
    if not isinstance(return_url, str):
        return None
    parts = urlsplit(return_url)
    if parts.scheme not in ("http", "https"):
        return None
    added = urlencode({"payment_id": payment_id, "status": status})
    query = f"{parts.query}&{added}" if parts.query else added
    return urlunsplit(parts._replace(query=query))


RESOURCE = Resource(name="three_ds", router=router)
