"""Payment links on a remote profile, against a service that answers in the real service's
shapes (real-service-differences.md): no `POST /payment_link` create (a link is made by
`POST /payments` with `payment_link: true`, answered with `payment_link {link, secure_link,
payment_link_id}`), a link record without its payment, and lists of links as a bare array.

The service is the seeded sandbox behind a small adapter that speaks those shapes (the
sandbox itself keeps the spec's `POST /payment_link`); everything else passes through to it.
"""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import httpx
import pytest
from textual.widgets import Input, Static

from payscope.app import make_app
from payscope.areas.links.detail import LinkDetailScreen
from payscope.areas.links.forms import NewLinkForm
from payscope.areas.links.view import LinksView
from payscope.core.asgi_server import EmbeddedServer
from payscope.core.display import STABLE
from tests.tui.pilot import shown_text, submit, until
from tests.tui.test_remote_snapshots import _save_profile
from tests.waits import REQUEST_TIMEOUT, on_screen

Dirs = tuple[Path, Path]
# What the real service's RetrievePaymentLinkResponse holds (no payment, no look).
RECORD_FIELDS = (
    "payment_link_id",
    "merchant_id",
    "link_to_pay",
    "amount",
    "created_at",
    "expiry",
    "description",
    "status",
    "currency",
    "secure_link",
)


@dataclass
class RealShapes:
    """An ASGI adapter in front of the sandbox: the real service's link routes and shapes."""

    upstream: str
    api_key: str
    seen: list[tuple[str, str, Any]] = field(default_factory=list)

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
        headers = {k.decode(): v.decode() for k, v in scope["headers"]}
        data = json.loads(body) if body else None
        self.seen.append((method, path, data))
        status, answer = await self._answer(method, path, scope, headers, body, data)
        payload = answer if isinstance(answer, bytes) else json.dumps(answer).encode()
        await send(
            {
                "type": "http.response.start",
                "status": status,
                "headers": [(b"content-type", b"application/json")],
            }
        )
        await send({"type": "http.response.body", "body": payload})

    async def _answer(
        self, method: str, path: str, scope: Any, headers: dict[str, str], body: bytes, data: Any
    ) -> tuple[int, Any]:
        async with httpx.AsyncClient(
            timeout=REQUEST_TIMEOUT, base_url=self.upstream, headers={"api-key": self.api_key}
        ) as up:
            if (method, path) == ("POST", "/payment_link"):
                return 404, {
                    "error": {
                        "type": "invalid_request",
                        "code": "HE_02",
                        "message": "Unrecognized request URL",
                    }
                }
            if (method, path) == ("POST", "/payments") and data and data.get("payment_link"):
                return await self._payment_with_link(up, data)
            if method == "GET" and path.startswith("/payment_link/"):
                got = await up.get(path)
                return got.status_code, _record(got.json()) if got.is_success else got.json()
            if (method, path) == ("POST", "/payment_link/list"):
                got = await up.post(path, json=data or {})
                return got.status_code, [_record(d) for d in got.json()["data"]]
            forwarded = {k: v for k, v in headers.items() if k.lower() not in ("host",)}
            query = scope["query_string"].decode()
            got = await up.request(
                method, path + (f"?{query}" if query else ""), content=body, headers=forwarded
            )
            return got.status_code, got.content

    async def _payment_with_link(self, up: httpx.AsyncClient, data: dict[str, Any]) -> Any:
        """What the real service does with `payment_link: true`: the payment, and its link."""
        now = datetime.now(UTC)
        expiry = now + timedelta(seconds=int(data.get("session_expiry") or 900))
        link_body = {
            k: data[k]
            for k in (
                "amount",
                "currency",
                "description",
                "customer_id",
                "return_url",
                "payment_link_config",
                "metadata",
            )
            if data.get(k) is not None
        }
        link_body["expiry"] = expiry.strftime("%Y-%m-%dT%H:%M:%SZ")
        made = await up.post("/payment_link", json=link_body)
        if not made.is_success:
            return made.status_code, made.json()
        link = made.json()
        payment = (await up.get(f"/payments/{link['payment_id']}")).json()
        payment["expires_on"] = link["expiry"]
        payment["payment_link"] = {
            "link": link["link_to_pay"],
            "secure_link": None,
            "payment_link_id": link["payment_link_id"],
        }
        return 200, payment


def _record(link: dict[str, Any]) -> dict[str, Any]:
    return {k: link.get(k) for k in RECORD_FIELDS}


@dataclass
class Remote:
    adapter: RealShapes
    url: str


@pytest.fixture
async def real_service(dirs: Dirs) -> AsyncIterator[Remote]:
    """The seeded sandbox behind the adapter, and a `remote` profile on the adapter."""
    from payscope.sandbox.config import SandboxConfig
    from payscope.sandbox.server import Sandbox

    # Real time: on a remote profile the app judges times by the wall clock, as the service does.
    sandbox = Sandbox(SandboxConfig(data_dir=dirs[1] / "sandbox"))
    upstream = await sandbox.start("127.0.0.1", 0)
    creds = sandbox.credentials
    adapter = RealShapes(upstream, creds.api_key)
    server = EmbeddedServer(adapter, "127.0.0.1", 0)
    url = await server.start()
    _save_profile(url, creds.merchant_id, creds.profile_id, creds.api_key)
    try:
        yield Remote(adapter, url)
    finally:
        await server.stop()
        await sandbox.stop()


async def test_links_on_a_remote_profile_use_the_real_services_shapes(
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
        await app.runtime.ready.wait()
        assert not app.runtime.options.is_local
        await pilot.press("colon", *"links", "enter")
        view = app.screen.query_one(LinksView)
        await until(lambda: view.loaded)
        # A bare array: no total from the service, the rows are counted.
        assert len(view.rows) == 3
        assert "1-3 of 3" in str(view.query_one("#links-header", Static).render())
        # No payment in the real record: a link is active or expired, never known paid (the
        # seeded link paid on its page shows expired; the seed's times are long past here).
        assert {r.state for r in view.rows.values()} <= {"active", "expired"}
        assert all(r.payment_id is None for r in view.rows.values())

        await pilot.press("n")
        await until(lambda: on_screen(app, NewLinkForm))
        form = app.screen
        assert "payment_link: true" in shown_text(form.query_one("#form-intro"))
        form.query_one("#field-amount", Input).value = "19.90"
        form.query_one("#field-currency", Input).value = "EUR"
        form.query_one("#field-description", Input).value = "Workshop seat"
        form.query_one("#field-expiry", Input).value = "2h"
        form.query_one("#field-seller_name", Input).value = "Demo Shop"
        await submit(pilot, NewLinkForm)

        made = [d for m, p, d in real_service.adapter.seen if (m, p) == ("POST", "/payments")]
        assert len(made) == 1
        body = made[0]
        assert body["payment_link"] is True and body["session_expiry"] == 7200
        assert body["payment_link_config"] == {"seller_name": "Demo Shop"}
        assert body["amount"] == 1990 and body["currency"] == "EUR"
        assert "expiry" not in body and "link_type" not in body
        assert ("POST", "/payment_link") not in [(m, p) for m, p, _ in real_service.adapter.seen]

        await until(lambda: on_screen(app, LinkDetailScreen))
        detail = app.screen
        assert isinstance(detail, LinkDetailScreen)
        await until(lambda: detail.record is not None and not detail.busy)
        link = detail.record
        assert (link.amount, link.currency, link.state) == (1990, "EUR", "active")
        due = datetime.fromisoformat(link.expiry.replace("Z", "+00:00"))
        assert abs((due - datetime.now(UTC)).total_seconds() - 7200) < 60
        assert "left" in shown_text(detail.section("link"))
        # The real record names no payment: the section says so rather than guess.
        assert "does not name its payment" in shown_text(detail.section("payment"))
        # So there is no payment to open: g (and Enter) are not offered; the link's are.
        assert [a.name for a in detail.allowed()] == ["open", "copy", "qr"]
        assert not detail.query_one("#act-payment").display
        assert detail.check_action("act", ("payment",)) is False
        await pilot.press("escape")
        await until(lambda: link.payment_link_id in view.rows)
