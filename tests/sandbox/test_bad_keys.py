"""Made-up API keys cost the sandbox no memory, over real HTTP: unknown keys are not cached,
rate windows exist only for real keys, and failed authentications share one window."""

from __future__ import annotations

from pathlib import Path

import httpx
import pytest

from tests.sandbox.conftest import API_KEY, envelope, make_sandbox
from tests.waits import REQUEST_TIMEOUT

pytestmark = pytest.mark.slow


async def test_distinct_bad_keys_leave_no_cache_entry_or_window_behind(tmp_path: Path) -> None:
    box = make_sandbox(tmp_path / "sb", rate_limit=100_000)
    url = await box.start()
    try:
        async with httpx.AsyncClient(timeout=REQUEST_TIMEOUT, base_url=url) as http:
            for i in range(300):
                bad = await http.get("/health", headers={"api-key": f"snd_made_up_{i:06d}"})
                assert bad.status_code == 401 and envelope(bad)["code"] == "AU_01"
            good = await http.get("/health", headers={"api-key": API_KEY})
            assert good.status_code == 200
        state = box.state
        assert len(state.key_cache) == 0
        # The real key's window and the one shared by the 300 failures.
        assert len(state.limiter) == 2
    finally:
        await box.stop()


async def test_failed_authentications_share_one_window_and_real_keys_keep_theirs(
    tmp_path: Path,
) -> None:
    box = make_sandbox(tmp_path / "sb", rate_limit=5)
    url = await box.start()
    try:
        async with httpx.AsyncClient(timeout=REQUEST_TIMEOUT, base_url=url) as http:
            for i in range(5):
                bad = await http.get("/health", headers={"api-key": f"snd_guess_{i}"})
                assert bad.status_code == 401
                assert int(bad.headers["x-ratelimit-remaining"]) == 4 - i
            # A sixth guess, with yet another key, finds the shared window spent.
            over = await http.get("/health", headers={"api-key": "snd_guess_new"})
            assert over.status_code == 429 and envelope(over)["code"] == "RL_01"
            assert "failed authentications" in envelope(over)["message"]
            missing = await http.get("/health")
            assert missing.status_code == 429
            # The real key is untouched by all of it.
            good = await http.get("/health", headers={"api-key": API_KEY})
            assert good.status_code == 200 and good.headers["x-ratelimit-remaining"] == "4"
    finally:
        await box.stop()


async def test_a_created_key_is_accepted_and_cached_as_a_real_key(tmp_path: Path) -> None:
    box = make_sandbox(tmp_path / "sb")
    url = await box.start()
    try:
        async with httpx.AsyncClient(
            timeout=REQUEST_TIMEOUT, base_url=url, headers={"api-key": API_KEY}
        ) as http:
            merchant = box.credentials.merchant_id
            made = await http.post(
                f"/api_keys/{merchant}", json={"name": "ci", "expiration": "never"}
            )
            assert made.status_code == 200, made.text
            new_key = made.json()["api_key"]
            first = await http.get("/health", headers={"api-key": new_key})
            second = await http.get("/health", headers={"api-key": new_key})
            assert first.status_code == second.status_code == 200
            assert len(box.state.key_cache) == 1
    finally:
        await box.stop()
