"""Subscriptions on a remote profile, against a service that answers as the real one does: no
route lists subscriptions (nor the sandbox's `/_sandbox/...` controls), and the plans are at
`GET /subscriptions/items?item_type=plan` as a bare array of items (`item_id`), not
`GET /subscriptions/plans` (real-service-differences.md).

The service is the seeded sandbox behind a small adapter that speaks those shapes; its webhooks
go to the app's listener. The list shows the subscriptions payscope has seen (its own requests,
`invoice_paid` webhooks) and says so; the renewal history comes from those webhooks.
"""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx
import pytest
from textual.widgets import Input, Static

from payscope.app import make_app
from payscope.areas.subscriptions.detail import SubscriptionDetailScreen
from payscope.areas.subscriptions.forms import NewSubscriptionForm
from payscope.areas.subscriptions.view import SubscriptionsView
from payscope.core.asgi_server import EmbeddedServer
from payscope.core.display import STABLE
from payscope.widgets.inputs import Picker
from tests.tui.conftest import frozen_clock
from tests.tui.pilot import shown_text, submit, until
from tests.tui.test_remote_snapshots import _point_webhook, _save_profile, _settled
from tests.waits import REQUEST_TIMEOUT, on_screen

Dirs = tuple[Path, Path]
NOT_A_ROUTE = {
    "error": {"type": "invalid_request", "code": "HE_02", "message": "Unrecognized request URL"}
}


@dataclass
class RealShapes:
    """An ASGI adapter in front of the sandbox: the real service's subscription routes."""

    upstream: str
    api_key: str
    seen: list[tuple[str, str, str]] = field(default_factory=list)

    async def __call__(self, scope: Any, receive: Any, send: Any) -> None:
        if scope["type"] == "lifespan":
            while True:
                message = await receive()
                if message["type"] == "lifespan.startup":
                    await send({"type": "lifespan.startup.complete"})
                elif message["type"] == "lifespan.shutdown":
                    await send({"type": "lifespan.shutdown.complete"})
                    return
        body = b""
        while True:
            message = await receive()
            body += message.get("body", b"")
            if not message.get("more_body"):
                break
        method, path = scope["method"], scope["path"]
        query = scope["query_string"].decode()
        self.seen.append((method, path, query))
        headers = {k.decode(): v.decode() for k, v in scope["headers"] if k.decode() != "host"}
        status, answer = await self._answer(method, path, query, headers, body)
        await send(
            {
                "type": "http.response.start",
                "status": status,
                "headers": [(b"content-type", b"application/json")],
            }
        )
        await send({"type": "http.response.body", "body": answer})

    async def _answer(
        self, method: str, path: str, query: str, headers: dict[str, str], body: bytes
    ) -> tuple[int, bytes]:
        if path.startswith("/_sandbox/") or path == "/subscriptions/plans":
            return 404, json.dumps(NOT_A_ROUTE).encode()
        async with httpx.AsyncClient(timeout=REQUEST_TIMEOUT, base_url=self.upstream) as up:
            if path == "/subscriptions/items":
                assert query == "item_type=plan"
                got = await up.get("/subscriptions/plans", headers=headers)
                items = [
                    {
                        "item_id": plan["plan_id"],
                        "name": plan["name"],
                        "description": plan["description"],
                        "price_id": [{**p, "item_id": plan["plan_id"]} for p in plan["price_id"]],
                    }
                    for plan in got.json()["data"]
                ]
                return 200, json.dumps(items).encode()
            got = await up.request(
                method, path + (f"?{query}" if query else ""), content=body, headers=headers
            )
            return got.status_code, got.content


@dataclass
class Remote:
    adapter: RealShapes
    sandbox: Any
    url: str


@pytest.fixture
async def real_service(dirs: Dirs) -> AsyncIterator[Remote]:
    """The seeded sandbox behind the adapter, and a `remote` profile (key and webhook secret)."""
    from payscope.core import secrets
    from payscope.sandbox.config import SandboxConfig
    from payscope.sandbox.server import Sandbox

    # The service's clock stands still where the seed left it (nothing falls due by itself),
    # and moves only when the test advances it.
    sandbox = Sandbox(SandboxConfig(data_dir=dirs[1] / "sandbox", time_source=frozen_clock))
    upstream = await sandbox.start("127.0.0.1", 0)
    creds = sandbox.credentials
    adapter = RealShapes(upstream, creds.api_key)
    server = EmbeddedServer(adapter, "127.0.0.1", 0)
    url = await server.start()
    _save_profile(url, creds.merchant_id, creds.profile_id, creds.api_key)
    secrets.set_secret("remote", creds.webhook_secret, "webhook")
    try:
        yield Remote(adapter, sandbox, url)
    finally:
        await server.stop()
        await sandbox.stop()


async def _create_elsewhere(remote: Remote, customer_id: str) -> str:
    """A subscription made by someone else (not through this app): only its webhook tells."""
    body = {
        "customer_id": customer_id,
        "item_price_id": "price_team_weekly",
        "payment_details": {
            "payment_method": "card",
            "payment_method_data": {
                "card": {
                    "card_number": "4242424242424242",
                    "card_exp_month": "12",
                    "card_exp_year": "2040",
                    "card_holder_name": "Grace Hopper",
                    "card_cvc": "123",
                }
            },
        },
    }
    creds = remote.sandbox.credentials
    async with httpx.AsyncClient(
        timeout=REQUEST_TIMEOUT,
        base_url=remote.url,
        headers={"api-key": creds.api_key, "X-Profile-Id": creds.profile_id},
    ) as http:
        made = await http.post("/subscriptions", json=body)
    assert made.status_code == 200, made.text
    return str(made.json()["id"])


async def test_the_remote_list_shows_what_payscope_has_seen_and_says_so(
    dirs: Dirs, real_service: Remote
) -> None:
    config_dir, data_dir = dirs
    app = make_app(
        profile="remote",
        config_dir=config_dir,
        data_dir=data_dir,
        display=STABLE,
        retry_rng=lambda: 0.0,
    )
    async with app.run_test(size=(120, 40)) as pilot:
        runtime = app.runtime
        await runtime.ready.wait()
        assert not runtime.options.is_local
        client = runtime.api
        await pilot.press("colon", *"subscriptions", "enter")
        view = app.screen.query_one(SubscriptionsView)
        await until(lambda: view.loaded and _settled(app))  # (the health watch never ends)
        await pilot.pause()
        # Nothing seen yet: the empty state says why and which keys help.
        assert view.rows == {}
        empty = shown_text(view.query_one(".empty", Static))
        assert "no list of subscriptions" in empty and ":sub sub_" in empty
        header = str(view.query_one("#subscriptions-header", Static).render())
        assert "the service has no list of subscriptions" in header
        # No sandbox control was asked for; the plans came from the renamed route.
        paths = [p for _m, p, _q in real_service.adapter.seen]
        assert not [p for p in paths if p.startswith("/_sandbox/")]
        assert "/subscriptions/items" in paths

        await _point_webhook(client, runtime.listener.url)

        # A subscription made here: the request journal knows it.
        await pilot.press("n")
        await until(lambda: on_screen(app, NewSubscriptionForm))
        form = app.screen
        assert not form.query("#form-pick-card")  # no test-card picker remotely
        customer = (await client.customers.list()).data[0]
        form.query_one("#field-customer_id", Input).value = customer.customer_id
        prices = form.query_one("#field-item_price_id", Picker)
        assert "price_pro_monthly_trial" in {v for _p, v in prices.choices}
        prices.value = "price_basic_monthly"
        form.query_one("#field-card", Input).value = "4242 4242 4242 4242"
        await submit(pilot, NewSubscriptionForm)
        await until(lambda: on_screen(app, SubscriptionDetailScreen))
        detail = app.screen
        assert isinstance(detail, SubscriptionDetailScreen)
        await until(lambda: detail.record is not None and not detail.busy)
        mine = detail.record
        assert mine.status == "active"
        assert "Basic" in shown_text(detail.section("summary"))
        await until(lambda: app.runtime.journal.count("invoice_paid", mine.id) == 1)
        await until(lambda: "invoice_paid" in shown_text(detail.section("renewals")))
        assert "invoice_paid webhooks" in shown_text(detail.section("renewals"))
        await pilot.press("escape")
        await until(lambda: mine.id in view.rows)

        # One made elsewhere: its invoice_paid webhook brings it to the list.
        other = await _create_elsewhere(real_service, customer.customer_id)
        await until(lambda: other in view.rows)

        # Any id opens with `:sub`, and is known from then on.
        seeded = real_service.sandbox.state.db.conn.execute(
            "SELECT id FROM subscriptions WHERE status = 'paused'"
        ).fetchone()[0]
        await pilot.press("colon", *f"sub {seeded}", "enter")
        await until(lambda: on_screen(app, SubscriptionDetailScreen))
        opened = app.screen
        await until(lambda: opened.record is not None and not opened.busy)
        assert opened.record.status == "paused"
        assert "resume" in {b.id.removeprefix("act-") for b in opened.query("Button") if b.display}
        await pilot.press("escape")
        await pilot.press("r")
        await until(lambda: seeded in view.rows)
        assert set(view.rows) == {mine.id, other, seeded}
        # The clock is the local sandbox's: not offered remotely.
        assert view.check_action("act", ("clock",)) is False

        # A renewal (the service's clock moves on by itself; here the test moves it): its
        # webhook adds to the history.
        detail = None
        await pilot.press("colon", *f"sub {other}", "enter")
        await until(lambda: on_screen(app, SubscriptionDetailScreen))
        detail = app.screen
        await until(lambda: detail.record is not None and not detail.busy)
        assert len(detail.renewals) == 1
        await real_service.sandbox.state.advance(7 * 86400 + 60)
        await until(lambda: len(detail.renewals) == 2 and not detail.busy)
        assert detail.record.invoice.id == detail.renewals[0].invoice_id
