"""`Retry-After` comes first: a 429 that says "retry in 1 s" is retried in 1 s even when its
`X-RateLimit-Reset` is a minute away (the client used to give up at once: the reset was past its
retry budget). Against a scripted service on a real loopback port, on a fake clock."""

from __future__ import annotations

import email.utils

import pytest

from payscope.api import errors as e
from payscope.api.retry import RetryPolicy, retry_after_seconds
from tests.api.conftest import ClientFactory, FakeTime, Reply, ScriptedApp

Served = tuple[ScriptedApp, str]

LIMITED = {"error": {"type": "rate_limit_error", "code": "RL_01", "message": "slow down"}}


def _limited(retry_after: str | None, reset: float) -> Reply:
    headers = {
        "x-ratelimit-limit": "6000",
        "x-ratelimit-remaining": "0",
        "x-ratelimit-reset": str(int(reset)),
    }
    if retry_after is not None:
        headers["retry-after"] = retry_after
    return Reply(429, LIMITED, headers=headers)


async def test_a_429_with_retry_after_1_and_a_far_reset_waits_1_s_and_succeeds(
    app: Served, make_client: ClientFactory, fake_time: FakeTime
) -> None:
    scripted, url = app
    far = fake_time.wall + 55  # past the 30 s retry budget: waiting for it means giving up
    scripted.script("GET", "/health", _limited("1", far), Reply(200, {}))
    client = make_client(url, max_retry_time=30)
    assert await client.health()
    assert fake_time.sleeps == [1.0]
    assert len(scripted.seen("GET", "/health")) == 2


async def test_a_429_whose_retry_after_is_past_the_budget_raises_at_once(
    app: Served, make_client: ClientFactory, fake_time: FakeTime
) -> None:
    scripted, url = app
    scripted.script("GET", "/health", _limited("45", fake_time.wall + 50))
    with pytest.raises(e.RateLimitedError):
        await make_client(url, max_retry_time=30).health()
    assert fake_time.sleeps == []


async def test_retry_after_as_an_http_date_is_honoured(
    app: Served, make_client: ClientFactory, fake_time: FakeTime
) -> None:
    scripted, url = app
    when = email.utils.formatdate(fake_time.wall + 3, usegmt=True)
    scripted.script("GET", "/health", _limited(when, fake_time.wall + 55), Reply(200, {}))
    assert await make_client(url).health()
    assert fake_time.sleeps == [pytest.approx(3.0, abs=1.0)]


async def test_a_503_with_retry_after_waits_as_told_not_the_backoff(
    app: Served, make_client: ClientFactory, fake_time: FakeTime
) -> None:
    scripted, url = app
    outage = {"error": {"type": "api_error", "code": "HE_00", "message": "outage"}}
    scripted.script(
        "GET", "/health", Reply(503, outage, headers={"retry-after": "2"}), Reply(200, {})
    )
    assert await make_client(url).health()
    assert fake_time.sleeps == [2.0]  # the backoff alone would be 0.5 (jitter fixed at 1.0)


def test_retry_after_parsing() -> None:
    now = 1_700_000_000.0
    assert retry_after_seconds(None, now) is None
    assert retry_after_seconds("0", now) == 0.0
    assert retry_after_seconds(" 7 ", now) == 7.0
    assert retry_after_seconds("soon", now) is None
    assert retry_after_seconds("-1", now) is None
    past = email.utils.formatdate(now - 60, usegmt=True)
    assert retry_after_seconds(past, now) == 0.0
    policy = RetryPolicy()
    assert policy.rate_limit_wait(now + 50, now, 0, lambda: 1.0, retry_after=1.0) == 1.0
    assert policy.rate_limit_wait(now + 50, now, 0, lambda: 1.0) == 50.0
