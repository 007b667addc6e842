"""The client's wire behaviour against a real HTTP server on loopback: headers, error mapping,
retries and backoff, rate limits, duplicate resolution, and the refusals made before sending."""

from __future__ import annotations

import socket
from typing import Any

import pytest

from payscope import __version__
from payscope.api import ApiClient, ApiError, http_core
from payscope.api import errors as e
from payscope.api.models.payments import PaymentCaptureRequest, PaymentCreateRequest
from payscope.api.models.refunds import RefundCreateRequest
from payscope.api.rate_limit import RateLimit
from tests.api.conftest import KEY, ClientFactory, FakeTime, Recorded, Reply, ScriptedApp, envelope

Served = tuple[ScriptedApp, str]

PAYMENT = {"payment_id": "pay_1", "status": "succeeded", "amount": 1000, "currency": "USD"}


def _create(payment_id: str | None = None) -> PaymentCreateRequest:
    return PaymentCreateRequest(
        amount=1000, currency="USD", profile_id="pro_1", payment_id=payment_id, confirm=True
    )


# -- headers ----------------------------------------------------------------------------------


async def test_every_request_carries_key_json_and_user_agent(
    app: Served, make_client: ClientFactory
) -> None:
    scripted, url = app
    client = make_client(url)
    assert await client.health() is True
    (seen,) = scripted.seen("GET", "/health")
    assert seen.headers["api-key"] == KEY
    assert seen.headers["content-type"] == "application/json"
    assert seen.headers["accept"] == "application/json"
    assert seen.headers["user-agent"].startswith(f"payscope/{__version__}")
    assert "x-profile-id" not in seen.headers


async def test_json_body_is_sent_as_given_by_the_model(
    app: Served, make_client: ClientFactory
) -> None:
    scripted, url = app
    scripted.script("POST", "/payments/pay_1/capture", Reply(200, PAYMENT))
    client = make_client(url)
    payment = await client.payments.capture("pay_1", PaymentCaptureRequest(amount_to_capture=500))
    assert payment.status == "succeeded"
    (seen,) = scripted.seen("POST", "/payments/pay_1/capture")
    assert seen.json == {"amount_to_capture": 500}


async def test_an_id_cannot_change_the_route(app: Served, make_client: ClientFactory) -> None:
    scripted, url = app
    client = make_client(url)
    with pytest.raises(e.ResponseFormatError):
        await client.payments.retrieve("../refunds/ref_1")  # {} is not a payment
    assert [r.path for r in scripted.requests] == ["/payments/../refunds/ref_1"]
    assert scripted.requests[0].method == "GET"


# -- errors -----------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("status", "code", "type_", "expected"),
    [
        (401, "AU_01", "authentication_error", e.AuthenticationError),
        (401, "AU_02", "authentication_error", e.AuthenticationError),
        (403, "AU_03", "authentication_error", e.PermissionDeniedError),
        (404, "IR_05", "invalid_request", e.NotFoundError),
        (409, "IR_09", "invalid_request", e.ConflictError),
        (409, "HE_01", "invalid_request", e.DuplicateError),
        (400, "HE_01", "invalid_request", e.DuplicateError),
        (400, "IR_01", "invalid_request", e.InvalidRequestError),
        (422, "IR_04", "invalid_request", e.InvalidRequestError),
        (429, "RL_01", "rate_limit_error", e.RateLimitedError),
        (500, "HE_00", "api_error", e.ServerError),
        (502, "CE_01", "connector_error", e.ServerError),
        (503, "HE_00", "api_error", e.ServerError),
    ],
)
async def test_error_envelope_becomes_a_typed_exception(
    app: Served,
    make_client: ClientFactory,
    status: int,
    code: str,
    type_: str,
    expected: type[ApiError],
) -> None:
    scripted, url = app
    scripted.script("GET", "/payments/pay_x", envelope(status, code, "Something is off", type_))
    client = make_client(url, max_attempts=1)
    with pytest.raises(ApiError) as caught:
        await client.payments.retrieve("pay_x")
    err = caught.value
    assert type(err) is expected
    assert (err.status, err.type, err.code, err.message) == (
        status,
        type_,
        code,
        "Something is off",
    )
    text = str(err)
    assert f"GET /payments/pay_x was refused with HTTP {status} ({code}, {type_})" in text
    assert "What to do:" in text
    assert KEY not in text


async def test_a_revoked_key_says_to_create_a_new_one(
    app: Served, make_client: ClientFactory
) -> None:
    scripted, url = app
    scripted.script("GET", "/health", envelope(401, "AU_02", "API key revoked"))
    with pytest.raises(e.AuthenticationError, match=r"revoked\. Create a new secret key"):
        await make_client(url).health()


async def test_a_message_that_echoes_the_key_is_redacted(
    app: Served, make_client: ClientFactory
) -> None:
    scripted, url = app
    scripted.script("GET", "/health", envelope(401, "AU_01", f"Invalid API key {KEY} given"))
    with pytest.raises(e.AuthenticationError) as caught:
        await make_client(url).health()
    assert KEY not in str(caught.value)
    assert KEY not in caught.value.message
    assert "snd_[REDACTED]" in caught.value.message


@pytest.mark.parametrize(
    ("reply", "fragment"),
    [
        (Reply(502, body=b"<html><h1>Bad Gateway</h1></html>"), "not an error envelope"),
        (Reply(503, body=b""), "with an empty body"),
        (Reply(500, body=b"upstream connect error"), "upstream connect error"),
    ],
)
async def test_a_non_json_error_body_still_becomes_a_clear_error(
    app: Served, make_client: ClientFactory, reply: Reply, fragment: str
) -> None:
    scripted, url = app
    scripted.script("GET", "/health", reply)
    with pytest.raises(e.ServerError) as caught:
        await make_client(url, max_attempts=1).health()
    assert caught.value.status == reply.status
    assert caught.value.code is None
    assert fragment in str(caught.value)
    assert "What to do:" in str(caught.value)


async def test_a_decline_is_a_failed_payment_not_an_exception(
    app: Served, make_client: ClientFactory
) -> None:
    scripted, url = app
    declined = {
        **PAYMENT,
        "status": "failed",
        "unified_code": "UE_1001",
        "unified_message": "Insufficient funds",
        "error_code": "card_declined",
    }
    scripted.script("POST", "/payments", Reply(200, declined))
    payment = await make_client(url).payments.create(_create("order_1"))
    assert payment.status == "failed"
    assert payment.unified_code == "UE_1001"


async def test_a_success_body_that_is_not_the_contract_is_a_format_error(
    app: Served, make_client: ClientFactory
) -> None:
    scripted, url = app
    scripted.script("GET", "/payments/pay_1", Reply(200, body=b"<html>login</html>"))
    with pytest.raises(e.ResponseFormatError, match="body is not JSON"):
        await make_client(url).payments.retrieve("pay_1")
    scripted.script("GET", "/payments/pay_2", Reply(200, {"payment_id": "pay_2"}))
    with pytest.raises(e.ResponseFormatError, match="status: Field required"):
        await make_client(url).payments.retrieve("pay_2")


# -- retries and backoff ----------------------------------------------------------------------


async def test_reads_are_retried_with_exponential_full_jitter_backoff(
    app: Served, make_client: ClientFactory, fake_time: FakeTime
) -> None:
    scripted, url = app
    scripted.script(
        "GET",
        "/payments/pay_1",
        envelope(503, "HE_00", "down"),
        envelope(500, "HE_00", "oops"),
        envelope(502, "CE_01", "upstream"),
        Reply(200, PAYMENT),
    )
    client = make_client(url, rng=lambda: 0.5)
    payment = await client.payments.retrieve("pay_1")
    assert payment.payment_id == "pay_1"
    assert fake_time.sleeps == [0.25, 0.5, 1.0]  # 0.5 * min(8, 0.5 * 2**n)
    entries = client.journal.entries()
    assert [x.attempt for x in entries] == [1, 2, 3, 4]
    assert len({x.call_id for x in entries}) == 1
    assert [x.status for x in entries] == [503, 500, 502, 200]


async def test_backoff_is_capped() -> None:
    from payscope.api.retry import RetryPolicy

    policy = RetryPolicy(base=0.5, cap=8.0)
    assert [policy.backoff(n, lambda: 1.0) for n in range(7)] == [0.5, 1, 2, 4, 8, 8, 8]
    assert policy.backoff(3, lambda: 0.0) == 0.0


async def test_attempts_are_bounded(
    app: Served, make_client: ClientFactory, fake_time: FakeTime
) -> None:
    scripted, url = app
    scripted.script("GET", "/health", envelope(500, "HE_00", "always broken", "api_error"))
    with pytest.raises(e.ServerError):
        await make_client(url, max_attempts=3).health()
    assert len(scripted.seen("GET", "/health")) == 3
    assert fake_time.sleeps == [0.5, 1.0]


async def test_total_retry_time_is_bounded(
    app: Served, make_client: ClientFactory, fake_time: FakeTime
) -> None:
    scripted, url = app
    scripted.script("GET", "/health", envelope(503, "HE_00", "down", "api_error"))
    with pytest.raises(e.ServerError):
        await make_client(url, max_attempts=10, max_retry_time=2.0).health()
    # 0.5 + 1.0 fit in 2 s; the next wait (2.0) would end at 3.5 s, so it gives up.
    assert fake_time.sleeps == [0.5, 1.0]
    assert len(scripted.seen("GET", "/health")) == 3


async def test_client_errors_are_not_retried(
    app: Served, make_client: ClientFactory, fake_time: FakeTime
) -> None:
    scripted, url = app
    scripted.script("GET", "/payments/nope", envelope(404, "IR_05", "Payment not found"))
    with pytest.raises(e.NotFoundError):
        await make_client(url).payments.retrieve("nope")
    assert len(scripted.requests) == 1
    assert fake_time.sleeps == []


async def test_429_waits_until_the_reset_time(
    app: Served, make_client: ClientFactory, fake_time: FakeTime
) -> None:
    scripted, url = app
    reset = fake_time.wall + 7
    limited = Reply(
        429,
        {"error": {"type": "rate_limit_error", "code": "RL_01", "message": "slow down"}},
        headers={
            "x-ratelimit-limit": "100",
            "x-ratelimit-remaining": "0",
            "x-ratelimit-reset": str(int(reset)),
        },
    )
    ok = Reply(
        200,
        {"status": "ok"},
        headers={
            "x-ratelimit-limit": "100",
            "x-ratelimit-remaining": "99",
            "x-ratelimit-reset": str(int(reset) + 60),
        },
    )
    scripted.script("GET", "/health", limited, ok)
    client = make_client(url)
    seen: list[RateLimit] = []
    client.on_rate_limit_change(seen.append)
    assert await client.health()
    assert fake_time.sleeps == [7.0]
    assert seen == [RateLimit(100, 0, reset), RateLimit(100, 99, reset + 60)]
    assert client.rate_limit == RateLimit(100, 99, reset + 60)


async def test_429_without_reset_backs_off(
    app: Served, make_client: ClientFactory, fake_time: FakeTime
) -> None:
    scripted, url = app
    scripted.script("GET", "/health", envelope(429, "RL_01", "slow"), Reply(200, {}))
    assert await make_client(url).health()
    assert fake_time.sleeps == [0.5]


async def test_429_whose_reset_is_past_the_budget_raises_at_once(
    app: Served, make_client: ClientFactory, fake_time: FakeTime
) -> None:
    scripted, url = app
    reset = fake_time.wall + 120
    scripted.script(
        "GET",
        "/health",
        Reply(
            429,
            {"error": {"type": "rate_limit_error", "code": "RL_01", "message": "slow down"}},
            headers={"x-ratelimit-reset": str(int(reset))},
        ),
    )
    with pytest.raises(e.RateLimitedError) as caught:
        await make_client(url, max_retry_time=30).health()
    assert caught.value.reset == reset
    assert "wait until the rate-limit window resets at" in str(caught.value)
    assert fake_time.sleeps == []


async def test_rate_limit_watchers_can_unsubscribe(app: Served, make_client: ClientFactory) -> None:
    scripted, url = app
    scripted.script(
        "GET",
        "/health",
        Reply(200, {}, headers={"x-ratelimit-remaining": "5"}),
        Reply(200, {}, headers={"x-ratelimit-remaining": "4"}),
    )
    client = make_client(url)
    seen: list[RateLimit] = []
    stop = client.on_rate_limit_change(seen.append)
    await client.health()
    stop()
    await client.health()
    assert seen == [RateLimit(None, 5, None)]
    assert client.rate_limit.remaining == 4


# -- requests that are not safe to repeat ------------------------------------------------------


@pytest.mark.parametrize(
    ("status", "retried"), [(500, False), (502, False), (503, True), (429, True)]
)
async def test_a_capture_is_repeated_only_when_it_was_not_processed(
    app: Served, make_client: ClientFactory, status: int, retried: bool
) -> None:
    scripted, url = app
    scripted.script(
        "POST", "/payments/pay_1/capture", envelope(status, "HE_00", "x"), Reply(200, PAYMENT)
    )
    client = make_client(url)
    if retried:
        assert (await client.payments.capture("pay_1")).status == "succeeded"
        assert len(scripted.requests) == 2
    else:
        with pytest.raises(e.ServerError):
            await client.payments.capture("pay_1")
        assert len(scripted.requests) == 1


async def test_a_create_without_payment_id_is_not_blindly_retried(
    app: Served, make_client: ClientFactory
) -> None:
    scripted, url = app
    scripted.script("POST", "/payments", envelope(500, "HE_00", "lost", "api_error"))
    with pytest.raises(e.ServerError):
        await make_client(url).payments.create(_create())
    assert len(scripted.seen("POST", "/payments")) == 1


class PaymentsService:
    """A stateful payments endpoint whose first answers are lost after the payment is stored."""

    def __init__(self, scripted: ScriptedApp, lose_answers: int) -> None:
        self.payments: dict[str, dict[str, Any]] = {}
        self.refunds: dict[str, dict[str, Any]] = {}
        self.lose_answers = lose_answers
        scripted.route("POST", "/payments", self.create)
        scripted.route("POST", "/refunds", self.refund)

    def _lost(self) -> Reply | None:
        if self.lose_answers:
            self.lose_answers -= 1
            return envelope(502, "CE_01", "processor did not answer", "connector_error")
        return None

    def create(self, request: Recorded) -> Reply:
        body = request.json
        pid = body.get("payment_id") or f"pay_gen{len(self.payments)}"
        if pid in self.payments:
            return envelope(409, "HE_01", "payment_id already exists")
        self.payments[pid] = {**body, "payment_id": pid, "status": "succeeded"}
        return self._lost() or Reply(200, self.payments[pid])

    def refund(self, request: Recorded) -> Reply:
        body = request.json
        rid = body["refund_id"]
        if rid in self.refunds:
            return envelope(409, "IR_09", "duplicate refund")
        self.refunds[rid] = {**body, "currency": "USD", "amount": 1000, "status": "succeeded"}
        return self._lost() or Reply(200, self.refunds[rid])


async def test_a_keyed_create_retried_into_he01_resolves_to_the_one_payment(
    app: Served, make_client: ClientFactory
) -> None:
    scripted, url = app
    service = PaymentsService(scripted, lose_answers=1)
    scripted.route("GET", "/payments/order_42", lambda r: Reply(200, service.payments["order_42"]))
    payment = await make_client(url).payments.create(_create("order_42"))
    assert payment.payment_id == "order_42"
    assert payment.status == "succeeded"
    assert list(service.payments) == ["order_42"]
    assert [(r.method, r.path) for r in scripted.requests] == [
        ("POST", "/payments"),
        ("POST", "/payments"),
        ("GET", "/payments/order_42"),
    ]


async def test_he01_on_the_first_attempt_is_a_duplicate_error(
    app: Served, make_client: ClientFactory
) -> None:
    scripted, url = app
    service = PaymentsService(scripted, lose_answers=0)
    service.payments["order_7"] = {"payment_id": "order_7"}
    with pytest.raises(e.DuplicateError, match="retrieve the object"):
        await make_client(url).payments.create(_create("order_7"))
    assert len(scripted.requests) == 1


async def test_a_keyed_refund_retried_into_a_duplicate_resolves_to_the_one_refund(
    app: Served, make_client: ClientFactory
) -> None:
    scripted, url = app
    service = PaymentsService(scripted, lose_answers=1)
    scripted.route(
        "GET", "/refunds/ref_order_42", lambda r: Reply(200, service.refunds["ref_order_42"])
    )
    refund = await make_client(url).refunds.create(
        RefundCreateRequest(payment_id="pay_1", refund_id="ref_order_42", reason="dup test")
    )
    assert refund.refund_id == "ref_order_42"
    assert list(service.refunds) == ["ref_order_42"]
    assert [r.method for r in scripted.requests] == ["POST", "POST", "GET"]


# -- transport failures -----------------------------------------------------------------------


def _closed_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


async def test_a_refused_connection_is_retried_then_explained(
    make_client: ClientFactory, fake_time: FakeTime
) -> None:
    url = f"http://127.0.0.1:{_closed_port()}"
    client = make_client(url, max_attempts=3)
    with pytest.raises(e.ApiConnectionError) as caught:
        await client.payments.capture("pay_1")  # never sent, so even a capture is retried
    text = str(caught.value)
    assert "got no answer after 3 attempts" in text
    assert "payscope sandbox" in text
    assert KEY not in text
    assert fake_time.sleeps == [0.5, 1.0]
    assert all(x.status is None and x.error for x in client.journal)


async def test_production_keys_are_refused_unless_allowed() -> None:
    for key in ("prd_Live0123a1b2", "pk_prd_Live0123a1b2"):
        with pytest.raises(e.ProductionKeyError) as caught:
            ApiClient("https://api.example.test", key)
        text = str(caught.value)
        assert key not in text
        assert "prd_...a1b2" in text
        assert "allow_production=True" in text
    client = ApiClient("https://api.example.test", "prd_Live0123a1b2", allow_production=True)
    await client.aclose()


async def test_bad_configuration_is_refused_with_a_reason() -> None:
    with pytest.raises(e.ConfigurationError, match="not an http:// or https:// address"):
        ApiClient("127.0.0.1:8080", KEY)
    with pytest.raises(e.ConfigurationError, match="empty or contains spaces"):
        ApiClient("http://127.0.0.1:8080", "snd_abc\nInjected: 1")


async def test_repr_never_shows_the_key(make_client: ClientFactory) -> None:
    client = make_client("http://127.0.0.1:9")
    assert KEY not in repr(client)
    assert KEY[-4:] not in repr(client)


async def test_a_second_client_validates_with_the_validators_the_first_built(
    app: Served, make_client: ClientFactory
) -> None:
    # Validators are built once per process (api/http_core.py): a client made later, as each
    # app and each profile switched to makes one, builds none of them again.
    scripted, url = app
    scripted.script("GET", "/payments/pay_1", Reply(200, PAYMENT))
    first = await make_client(url).payments.retrieve("pay_1")
    built = dict(http_core._ADAPTERS)
    assert built, "the first read built no validator"
    second = await make_client(url).payments.retrieve("pay_1")
    assert second == first
    assert built == http_core._ADAPTERS
    assert all(http_core._ADAPTERS[kind] is adapter for kind, adapter in built.items())
