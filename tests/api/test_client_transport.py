"""Transport failures a loopback server cannot produce on demand (a read timeout, a dropped
answer), simulated with `httpx.MockTransport`: which are retried, and what the caller sees."""

from __future__ import annotations

from collections.abc import Callable

import httpx
import pytest

from payscope.api import errors as e
from payscope.api.retry import Replay, may_retry_error
from tests.api.conftest import KEY, ClientFactory, FakeTime

PAYMENT = {"payment_id": "pay_1", "status": "succeeded", "amount": 1000, "currency": "USD"}


def _failing(failures: list[Exception]) -> tuple[httpx.MockTransport, list[httpx.Request]]:
    """A transport raising `failures` in turn, then answering with a payment."""
    seen: list[httpx.Request] = []

    def handler(request: httpx.Request) -> httpx.Response:
        seen.append(request)
        if failures:
            raise failures.pop(0)
        return httpx.Response(200, json=PAYMENT)

    return httpx.MockTransport(handler), seen


Failure = Callable[[], Exception]
READ_TIMEOUT: Failure = lambda: httpx.ReadTimeout("timed out")  # noqa: E731
DROPPED: Failure = lambda: httpx.RemoteProtocolError("Server disconnected")  # noqa: E731
CONNECT: Failure = lambda: httpx.ConnectError("Connection refused")  # noqa: E731


@pytest.mark.parametrize("failure", [READ_TIMEOUT, DROPPED, CONNECT])
async def test_a_read_is_retried_after_any_transport_failure(
    make_client: ClientFactory, fake_time: FakeTime, failure: Failure
) -> None:
    transport, seen = _failing([failure(), failure()])
    client = make_client("http://service.test", transport=transport)
    payment = await client.payments.retrieve("pay_1")
    assert payment.payment_id == "pay_1"
    assert len(seen) == 3
    assert fake_time.sleeps == [0.5, 1.0]
    assert [x.error is not None for x in client.journal] == [True, True, False]


@pytest.mark.parametrize(
    ("failure", "expected"),
    [(READ_TIMEOUT, e.ApiTimeoutError), (DROPPED, e.ApiConnectionError)],
)
async def test_a_capture_that_may_have_been_processed_is_not_repeated(
    make_client: ClientFactory, failure: Failure, expected: type[e.ApiConnectionError]
) -> None:
    transport, seen = _failing([failure()])
    client = make_client("http://service.test", transport=transport)
    with pytest.raises(expected) as caught:
        await client.payments.capture("pay_1")
    assert type(caught.value) is expected
    assert len(seen) == 1
    assert "POST http://service.test/payments/pay_1/capture" in str(caught.value)
    assert KEY not in str(caught.value)


async def test_a_capture_whose_connection_never_opened_is_repeated(
    make_client: ClientFactory,
) -> None:
    transport, seen = _failing([CONNECT()])
    client = make_client("http://service.test", transport=transport)
    assert (await client.payments.capture("pay_1")).status == "succeeded"
    assert len(seen) == 2


async def test_a_timeout_says_to_check_the_object_before_retrying(
    make_client: ClientFactory,
) -> None:
    transport, _ = _failing([READ_TIMEOUT() for _ in range(4)])
    client = make_client("http://service.test", transport=transport)
    with pytest.raises(e.ApiTimeoutError) as caught:
        await client.payments.retrieve("pay_1")
    text = str(caught.value)
    assert "timed out after 4 attempts" in text
    assert "did not answer in time" in text
    assert "retrieve the object first" in text


def test_the_retry_table() -> None:
    assert may_retry_error(httpx.ConnectError("x"), Replay.UNSAFE)
    assert may_retry_error(httpx.ConnectTimeout("x"), Replay.UNSAFE)
    assert may_retry_error(httpx.PoolTimeout("x"), Replay.UNSAFE)
    assert not may_retry_error(httpx.ReadTimeout("x"), Replay.UNSAFE)
    assert not may_retry_error(httpx.WriteTimeout("x"), Replay.UNSAFE)
    assert not may_retry_error(httpx.ReadError("x"), Replay.UNSAFE)
    for replay in (Replay.SAFE, Replay.KEYED):
        assert may_retry_error(httpx.ReadTimeout("x"), replay)
        assert may_retry_error(httpx.RemoteProtocolError("x"), replay)
        assert not may_retry_error(httpx.UnsupportedProtocol("x"), replay)
