"""Over real HTTP (uvicorn on a free loopback port): the client end to end, rate limits and
their headers, reproducible faults, restart persistence."""

from __future__ import annotations

from pathlib import Path

import httpx
import pytest

from payscope.api.errors import RateLimitedError
from payscope.api.models.payments import PaymentCreateRequest
from tests.sandbox.conftest import API_KEY, api_client, make_sandbox, payment_body
from tests.waits import REQUEST_TIMEOUT

pytestmark = pytest.mark.slow


async def test_client_over_http_and_rate_limit_headers(tmp_path: Path) -> None:
    box = make_sandbox(tmp_path / "sb", rate_limit=5)
    url = await box.start()
    api = api_client(box, base_url=url)
    try:
        assert url.startswith("http://127.0.0.1:")
        assert box.credentials.base_url == url
        payment = await api.payments.create(PaymentCreateRequest.model_validate(payment_body()))
        assert payment.status == "succeeded"
        async with httpx.AsyncClient(
            timeout=REQUEST_TIMEOUT, base_url=url, headers={"api-key": API_KEY}
        ) as http:
            seen = []
            for _ in range(4):
                response = await http.get("/health")
                seen.append(response)
            limited = seen[-1]
            assert [r.status_code for r in seen] == [200, 200, 200, 200]
            assert [int(r.headers["x-ratelimit-remaining"]) for r in seen] == [3, 2, 1, 0]
            assert {r.headers["x-ratelimit-limit"] for r in seen} == {"5"}
            over = await http.get("/health")
            assert over.status_code == 429
            assert over.json()["error"] == {
                "type": "rate_limit_error",
                "code": "RL_01",
                "message": over.json()["error"]["message"],
            }
            assert int(over.headers["x-ratelimit-reset"]) >= int(
                limited.headers["x-ratelimit-reset"]
            )
            # 404s and auth failures carry the headers too
            lost = await http.get("/nowhere", headers={"api-key": "snd_other_key"})
            assert lost.status_code == 401 and "x-ratelimit-limit" in lost.headers
        with pytest.raises(RateLimitedError):
            await api.payments.list()
    finally:
        await api.aclose()
        await box.stop()


async def _fault_run(tmp_path: Path, name: str) -> list[str]:
    box = make_sandbox(tmp_path / name, fault_rate=0.5, fault_seed=7)
    url = await box.start()
    outcomes: list[str] = []
    try:
        for _ in range(30):
            async with httpx.AsyncClient(
                timeout=REQUEST_TIMEOUT, base_url=url, headers={"api-key": API_KEY}
            ) as http:
                try:
                    response = await http.get("/health")
                except httpx.TransportError:
                    outcomes.append("drop")
                    continue
                outcomes.append(str(response.status_code))
                if response.status_code != 200:
                    assert response.json()["error"]["code"] in ("HE_00", "CE_01", "RL_01")
        # the sandbox's own controls never fail
        async with httpx.AsyncClient(
            timeout=REQUEST_TIMEOUT, base_url=url, headers={"api-key": API_KEY}
        ) as http:
            for _ in range(10):
                assert (await http.get("/_sandbox/clock")).status_code == 200
    finally:
        await box.stop()
    return outcomes


async def test_faults_are_seeded_and_reproducible(tmp_path: Path) -> None:
    first = await _fault_run(tmp_path, "a")
    second = await _fault_run(tmp_path, "b")
    assert first == second
    faults = set(first) - {"200"}
    assert "200" in first and len(faults) >= 3, first
    assert faults <= {"500", "502", "503", "429", "drop"}


async def test_state_and_credentials_survive_a_restart(tmp_path: Path) -> None:
    data = tmp_path / "sb"
    box = make_sandbox(data, api_key=None)
    creds = box.credentials
    url = await box.start()
    async with httpx.AsyncClient(
        timeout=REQUEST_TIMEOUT, base_url=url, headers={"api-key": creds.api_key}
    ) as http:
        pid = (await http.post("/payments", json=payment_body())).json()["payment_id"]
        await http.post("/_sandbox/clock/advance", json={"seconds": 3600})
    await box.stop()
    again = make_sandbox(data, api_key=None)
    assert again.credentials.api_key == creds.api_key
    assert again.credentials.merchant_id == creds.merchant_id
    assert again.credentials.webhook_secret == creds.webhook_secret
    assert again.state.clock.offset == pytest.approx(3600)
    url = await again.start()
    async with httpx.AsyncClient(
        timeout=REQUEST_TIMEOUT, base_url=url, headers={"api-key": creds.api_key}
    ) as http:
        assert (await http.get(f"/payments/{pid}")).json()["status"] == "succeeded"
    await again.stop()
    fixed = make_sandbox(data, api_key="snd_fixed_key", merchant_id="merchant_fixed")
    assert (fixed.credentials.api_key, fixed.credentials.merchant_id) == (
        "snd_fixed_key",
        "merchant_fixed",
    )
    await fixed.stop()
