"""The error envelope everywhere, authentication, API keys and the business profile."""

from __future__ import annotations

import httpx
import pytest

from payscope.api import ApiClient
from payscope.api.errors import AuthenticationError, NotFoundError
from payscope.api.models.api_keys import ApiKeyCreateRequest
from payscope.sandbox.server import Sandbox
from tests.sandbox.conftest import API_KEY, api_client, envelope


@pytest.mark.parametrize(
    ("method", "path", "content", "status", "code", "needle"),
    [
        ("GET", "/nowhere", None, 404, "IR_02", "/nowhere"),
        ("DELETE", "/payments/list", None, 405, "IR_03", "DELETE"),
        ("POST", "/payments", b"{not json", 400, "IR_04", "not valid JSON"),
        ("POST", "/payments", b"[1, 2]", 400, "IR_04", "JSON object"),
        ("POST", "/payments", b"", 400, "IR_01", "body"),
        ("POST", "/payments", b'{"currency": "USD"}', 400, "IR_01", "amount"),
        ("POST", "/payments", b'{"amount": 10}', 400, "IR_01", "currency"),
        ("POST", "/payments", b'{"amount": "ten", "currency": "USD"}', 400, "IR_04", "'ten'"),
        ("POST", "/payments", b'{"amount": 10, "currency": "ZZZ"}', 400, "IR_04", "ZZZ"),
        (
            "POST",
            "/payments",
            b'{"amount": 10, "currency": "USD", "capture_method": "later"}',
            400,
            "IR_04",
            "manual",
        ),
        ("GET", "/payments/pay_missing", None, 404, "IR_05", "pay_missing"),
        ("GET", "/customers/cus_missing", None, 404, "IR_05", "cus_missing"),
        ("GET", "/refunds/ref_missing", None, 404, "IR_05", "ref_missing"),
        ("POST", "/refunds", b'{"payment_id": "pay_missing"}', 404, "IR_05", "pay_missing"),
        ("POST", "/payments/list", b'{"limit": 0}', 400, "IR_04", "limit"),
        ("POST", "/_sandbox/clock/advance", b"{}", 400, "IR_01", "seconds"),
        ("POST", "/_sandbox/clock/advance", b'{"seconds": -1}', 400, "IR_04", "seconds"),
    ],
)
async def test_errors_use_the_envelope(
    raw: httpx.AsyncClient,
    method: str,
    path: str,
    content: bytes | None,
    status: int,
    code: str,
    needle: str,
) -> None:
    response = await raw.request(
        method, path, content=content, headers={"content-type": "application/json"}
    )
    assert response.status_code == status, response.text
    error = envelope(response)
    assert error["code"] == code
    assert needle in error["message"]
    assert response.headers["x-ratelimit-limit"]


async def test_missing_unknown_and_production_keys(sandbox: Sandbox) -> None:
    async with httpx.AsyncClient(
        transport=httpx.ASGITransport(app=sandbox.app), base_url="http://sandbox.test"
    ) as http:
        missing = await http.get("/health")
        unknown = await http.get("/health", headers={"api-key": "snd_not_a_key"})
        production = await http.get("/health", headers={"api-key": "prd_live_key"})
        ok = await http.get("/health", headers={"api-key": API_KEY})
    assert [r.status_code for r in (missing, unknown, production, ok)] == [401, 401, 401, 200]
    assert envelope(missing)["code"] == envelope(unknown)["code"] == "AU_01"
    assert "api-key" in envelope(missing)["message"]
    assert "sandbox" in envelope(production)["message"]
    assert "prd_live_key" not in production.text and API_KEY not in unknown.text


async def test_api_keys_create_use_list_revoke(sandbox: Sandbox, client: ApiClient) -> None:
    created = await client.api_keys.create(ApiKeyCreateRequest(name="ci", description="for CI"))
    assert created.api_key.startswith("snd_")
    second = api_client(sandbox, api_key=created.api_key)
    try:
        assert await second.health()
        listed = await client.api_keys.list()
        assert [k.key_id for k in listed] == [created.key_id]
        assert "api_key" not in listed[0].model_dump(exclude_none=True)
        fetched = await client.api_keys.retrieve(created.key_id)
        assert fetched.name == "ci" and fetched.revoked is False
        revoked = await client.api_keys.revoke(created.key_id)
        assert revoked.revoked is True
        with pytest.raises(AuthenticationError) as info:
            await second.payments.list()
        assert info.value.code == "AU_02"
    finally:
        await second.aclose()
    with pytest.raises(NotFoundError):
        await client.api_keys.retrieve("dev_unknown")
    stored = sandbox.state.db.conn.execute("SELECT * FROM api_keys").fetchall()
    assert created.api_key not in repr(stored)  # only a digest is kept


async def test_expired_api_key_is_refused(sandbox: Sandbox, client: ApiClient) -> None:
    created = await client.api_keys.create(
        ApiKeyCreateRequest(name="short", expiration="2000-01-01T00:00:00Z")
    )
    async with httpx.AsyncClient(
        transport=httpx.ASGITransport(app=sandbox.app), base_url="http://sandbox.test"
    ) as http:
        response = await http.get("/health", headers={"api-key": created.api_key})
    assert response.status_code == 401 and envelope(response)["code"] == "AU_01"
    assert "expired" in envelope(response)["message"]


async def test_other_merchant_is_not_found(raw: httpx.AsyncClient) -> None:
    response = await raw.get("/api_keys/merchant_other/list")
    assert response.status_code == 404 and envelope(response)["code"] == "IR_05"


async def test_business_profile_read_and_update(sandbox: Sandbox, raw: httpx.AsyncClient) -> None:
    creds = sandbox.credentials
    path = f"/account/{creds.merchant_id}/business_profile/{creds.profile_id}"
    profile = (await raw.get(path)).json()
    assert profile["payment_response_hash_key"] == creds.webhook_secret
    assert len(creds.webhook_secret) == 64
    updated = await raw.post(
        path,
        json={
            "webhook_details": {"webhook_url": "http://127.0.0.1:9/hooks"},
            "payment_response_hash_key": "new-secret-0123456789",
        },
    )
    assert updated.json()["webhook_details"]["webhook_url"] == "http://127.0.0.1:9/hooks"
    assert sandbox.credentials.webhook_secret == "new-secret-0123456789"
    bad = await raw.post(path, json={"webhook_details": {"webhook_url": "ftp://x"}})
    assert bad.status_code == 400 and "webhook_url" in envelope(bad)["message"]
    missing = await raw.get(f"/account/{creds.merchant_id}/business_profile/pro_other")
    assert missing.status_code == 404


async def test_docs_and_openapi_work_offline_without_a_key(sandbox: Sandbox) -> None:
    async with httpx.AsyncClient(
        transport=httpx.ASGITransport(app=sandbox.app), base_url="http://sandbox.test"
    ) as http:
        docs = await http.get("/docs")
        spec = await http.get("/openapi.json")
        asset = await http.get("/_sandbox/assets/swagger-ui-bundle.js")
    assert docs.status_code == 200 and "/_sandbox/assets/swagger-ui-bundle.js" in docs.text
    assert "cdn" not in docs.text.lower()
    assert asset.status_code == 200 and len(asset.content) > 100_000
    document = spec.json()
    assert "/payments" in document["paths"] and "/_sandbox/clock/advance" in document["paths"]
    body_ref = document["paths"]["/payments"]["post"]["requestBody"]["content"]["application/json"][
        "schema"
    ]["$ref"]
    assert body_ref.rsplit("/", 1)[-1] in document["components"]["schemas"]
