"""Which routes answer without an `api-key`: exactly `public.PUBLIC_ROUTES`, and nothing else of
the app (every `/_sandbox/` control and every swagger asset outside the list included)."""

from __future__ import annotations

import re

import httpx
import pytest
from starlette.routing import Mount, Route

from payscope.sandbox.public import PUBLIC_ROUTES, is_public
from payscope.sandbox.server import Sandbox
from tests.sandbox.conftest import API_KEY


def concrete(template: str) -> str:
    return re.sub(r"\{[^}]+\}", "x_1", template)


def app_routes(sandbox: Sandbox) -> list[tuple[str, str]]:
    found: list[tuple[str, str]] = []
    for route in sandbox.app.routes:
        if isinstance(route, Route):
            found.extend((method, route.path) for method in sorted(route.methods or ()))
    return found


def test_public_rule_is_exact() -> None:
    assert is_public("GET", "/pay/plink_1") and is_public("HEAD", "/docs")
    assert is_public("POST", "/_sandbox/payments/pay_1/3ds/challenge")
    for method, path in [
        ("GET", "/pay/plink_1/more"),
        ("GET", "/pay/"),
        ("POST", "/pay/plink_1"),
        ("POST", "/_sandbox/payments/pay_1/3ds"),
        ("GET", "/_sandbox/payments/pay_1/3ds/x"),
        ("GET", "/_sandbox/assets/index.html"),
        ("GET", "/_sandbox/assets/"),
        ("GET", "/docs/oauth2-redirect"),
        ("GET", "/openapi.json/x"),
        ("GET", "/_sandbox/clock"),
    ]:
        assert not is_public(method, path), (method, path)


async def test_no_other_route_answers_without_a_key(sandbox: Sandbox) -> None:
    routes = app_routes(sandbox)
    sandbox_controls = [r for r in routes if r[1].startswith("/_sandbox/")]
    assert len(sandbox_controls) >= 8  # the walk below really covers the controls
    assert {r for r in PUBLIC_ROUTES if "{" in r[1]} <= set(routes)
    async with httpx.AsyncClient(
        transport=httpx.ASGITransport(app=sandbox.app), base_url="http://sandbox.test"
    ) as anonymous:
        for method, template in routes:
            if method == "HEAD":
                continue
            answer = await anonymous.request(method, concrete(template))
            if (method, template) in PUBLIC_ROUTES:
                assert answer.status_code != 401, (method, template)
            else:
                assert answer.status_code == 401, (method, template, answer.text)
                assert answer.json()["error"]["code"] == "AU_01"
        # The swagger mount serves many files; only the three the docs page loads are open.
        mounts = [r for r in sandbox.app.routes if isinstance(r, Mount)]
        assert [m.path for m in mounts] == ["/_sandbox/assets"]
        with_key = {"api-key": API_KEY}
        for name in ("index.html", "swagger-ui.js", "oauth2-redirect.html"):
            path = f"/_sandbox/assets/{name}"
            assert (await anonymous.get(path)).status_code == 401, path
            assert (await anonymous.get(path, headers=with_key)).status_code == 200, path
        for _, template in PUBLIC_ROUTES:
            if template.startswith("/_sandbox/assets/swagger") or template.endswith(".png"):
                assert (await anonymous.get(template)).status_code == 200, template


@pytest.mark.parametrize("path", ["/docs", "/openapi.json"])
async def test_docs_are_public(sandbox: Sandbox, path: str) -> None:
    async with httpx.AsyncClient(
        transport=httpx.ASGITransport(app=sandbox.app), base_url="http://sandbox.test"
    ) as anonymous:
        assert (await anonymous.get(path)).status_code == 200
