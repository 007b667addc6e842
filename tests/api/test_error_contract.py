"""Error codes read by the contract the service speaks: the spec's table (the local sandbox) or
the real service's (real-service-differences.md), declines shared; and the client's contract,
set or detected from the errors a service returns (a scripted service on a real loopback port:
the real service cannot run here)."""

from __future__ import annotations

import pytest

from payscope.api import errors
from payscope.api.codes import (
    ALL_UNIFIED_CODES,
    CATALOGUE,
    ERROR_ENVELOPE_CODES,
    REAL_CATALOGUE,
    REAL_ERROR_CODES,
    contract_of_error,
    explain,
    family_of,
)
from payscope.widgets.errors import describe_error
from tests.api.conftest import ClientFactory, Reply, ScriptedApp, envelope

App = tuple[ScriptedApp, str]


def test_ir_01_means_a_missing_field_in_the_spec_and_an_invalid_key_on_the_real_service() -> None:
    assert explain("IR_01").title == "Missing required field"
    assert explain("IR_01", "spec") == explain("IR_01")
    real = explain("ir_01", "real")
    assert real.title == "Invalid API key"
    assert "401" in real.meaning and "missing" not in real.title.lower()


@pytest.mark.parametrize(
    ("code", "title"),
    [
        ("IR_04", "Missing required parameter"),
        ("IR_05", "Invalid data format"),
        ("IR_06", "Invalid request data"),
        ("IR_13", "Refund exceeds captured amount"),
        ("IR_14", "Payment in the wrong state"),
        ("IR_16", "Precondition failed"),
        ("HE_01", "Already exists"),
        ("HE_02", "Not found"),
        ("HE_04", "Dispute not found"),
    ],
)
def test_the_real_table_names_the_real_meanings(code: str, title: str) -> None:
    assert explain(code, "real").title == title
    assert code in REAL_ERROR_CODES


def test_the_two_tables_differ_on_their_shared_codes() -> None:
    for code in ("IR_01", "IR_04", "IR_05"):
        assert explain(code, "spec").meaning != explain(code, "real").meaning


def test_spec_only_codes_are_not_explained_by_the_spec_table_on_the_real_service() -> None:
    for code in ("AU_01", "AU_02", "PE_01", "RL_01"):
        assert code in CATALOGUE
        assert code not in REAL_CATALOGUE
        assert explain(code, "real") != explain(code, "spec")
    assert explain("AU_01", "real").family == "unknown"
    # A real code the spec does not list is explained by its family there, not by a guess.
    assert explain("IR_13", "spec").title == "Unlisted invalid_request code"


def test_declines_payout_failures_and_manual_review_are_shared() -> None:
    for code in (*ALL_UNIFIED_CODES, "account_closed", "account_ineligible"):
        assert explain(code, "real") == explain(code, "spec")
    assert explain("UE_1234", "real") == explain("UE_1234", "spec")
    assert explain("manual_review_rejected", "real").family == "manual_review"
    assert family_of("UE_2002", "real") == "UE_2xxx"


def test_real_unlisted_codes_fall_back_to_their_family_and_garbage_never_raises() -> None:
    assert explain("IR_42", "real").family == "invalid_request"
    assert family_of("HE_09", "real") == "api_error"
    assert explain("", "real").family == "none"
    assert explain("no such thing", "real").family == "unknown"
    assert explain("IR_01", "bogus").title == "Missing required field"  # type: ignore[arg-type]
    assert set(ERROR_ENVELOPE_CODES) >= {"IR_01", "IR_05", "HE_01"}


@pytest.mark.parametrize(
    ("status", "type_", "code", "message", "key", "expected"),
    [
        (
            401,
            "invalid_request",
            "IR_01",
            "API key not provided or invalid API key used",
            0,
            "real",
        ),
        (400, "invalid_request", "IR_01", "amount is required", 0, "spec"),
        (404, "invalid_request", "IR_05", "no such payment", 0, "spec"),
        (422, "invalid_request", "IR_05", "bad format", 0, "real"),
        (404, "invalid_request", "HE_02", "Payment does not exist in our records", 0, "real"),
        (400, "invalid_request", "IR_06", "Json deserialize error", 1, "real"),
        (400, "invalid_request", "IR_04", "Missing required param: amount", 0, "real"),
        (400, "invalid_request", "IR_04", "currency is not allowed", 0, None),
        (409, "api_error", "HE_01", "exists", 0, "spec"),
        (400, "api", "HE_01", "exists", 0, "real"),
        (401, "authentication_error", "AU_01", "bad key", 0, "spec"),
        (403, None, "AU_03", "not for this key", 0, "spec"),
        (400, "blocked", None, "blocked", 0, "real"),
        (500, None, None, "", 0, None),
    ],
)
def test_contract_of_error(
    status: int, type_: str | None, code: str | None, message: str, key: int, expected: str | None
) -> None:
    assert contract_of_error(status, type_, code, message, error_type_key=bool(key)) == expected


async def test_a_real_service_s_ir_01_reads_as_an_invalid_key(
    app: App, make_client: ClientFactory
) -> None:
    scripted, url = app
    scripted.script(
        "GET",
        "/payments/pay_1",
        envelope(401, "IR_01", "API key not provided or invalid API key used"),
    )
    client = make_client(url, contract="auto")
    assert client.contract == "real"  # an undetected "auto" is a remote profile's real service
    with pytest.raises(errors.AuthenticationError) as caught:
        await client.call_json("GET", "/payments/pay_1")
    assert client.detected_contract == "real"
    assert caught.value.contract == "real"
    title, message = describe_error(caught.value)
    assert title == "Key refused"
    assert "API key not provided or invalid API key used" in message
    assert "IR_01 on the real service: Invalid API key" in message
    assert "Missing required field" not in message


async def test_auto_learns_the_spec_from_a_sandbox_style_error(
    app: App, make_client: ClientFactory
) -> None:
    scripted, url = app
    scripted.script("POST", "/payments", envelope(400, "IR_01", "amount is required"))
    client = make_client(url, contract="auto")
    with pytest.raises(errors.InvalidRequestError) as caught:
        await client.call_json("POST", "/payments", body={})
    assert client.contract == "spec" and caught.value.contract == "spec"
    assert (
        "IR_01 on the spec (local sandbox): Missing required field"
        in describe_error(caught.value)[1]
    )


async def test_the_real_json_error_shape_is_read(app: App, make_client: ClientFactory) -> None:
    scripted, url = app
    body = {"error_type": "invalid_request", "message": "Json deserialize error", "code": "IR_06"}
    scripted.script("POST", "/refunds", Reply(400, {"error": body}))
    scripted.script("POST", "/payouts/create", Reply(400, body))
    client = make_client(url, contract="auto")
    with pytest.raises(errors.InvalidRequestError) as caught:
        await client.call_json("POST", "/refunds", body={"x": 1})
    assert (caught.value.type, caught.value.code) == ("invalid_request", "IR_06")
    assert client.detected_contract == "real"
    with pytest.raises(errors.InvalidRequestError) as bare:
        await client.call_json("POST", "/payouts/create", body={})
    assert (bare.value.code, bare.value.message) == ("IR_06", "Json deserialize error")


async def test_a_set_contract_is_not_overridden_by_detection(
    app: App, make_client: ClientFactory
) -> None:
    scripted, url = app
    scripted.script("GET", "/payments/x", envelope(404, "HE_02", "not found"))
    client = make_client(url)  # the default: the spec, as the local sandbox speaks it
    with pytest.raises(errors.NotFoundError) as caught:
        await client.call_json("GET", "/payments/x")
    assert client.contract == "spec" and caught.value.contract == "spec"
    assert client.detected_contract is None


def test_an_unknown_contract_is_refused(make_client: ClientFactory) -> None:
    with pytest.raises(errors.ConfigurationError, match=r"spec.*real.*auto"):
        make_client("http://127.0.0.1:1", contract="stripe")


PROBE = "/payments/pay_payscope_contract_probe"


@pytest.mark.parametrize(
    ("probe_answer", "expected", "meaning"),
    [
        (envelope(404, "IR_05", "no such payment"), "spec", "Invalid field value"),
        (envelope(404, "HE_02", "Payment does not exist"), "real", "Missing required parameter"),
    ],
)
async def test_an_error_in_doubt_is_settled_by_one_probe(
    app: App, make_client: ClientFactory, probe_answer: Reply, expected: str, meaning: str
) -> None:
    scripted, url = app
    # IR_04 with wording neither contract fixes: a missing param (real) or a bad value (spec).
    scripted.script("POST", "/payments", envelope(400, "IR_04", "currency: not allowed"))
    scripted.script("GET", PROBE, probe_answer)
    client = make_client(url, contract="auto")
    for _ in range(2):
        with pytest.raises(errors.InvalidRequestError) as caught:
            await client.call_json("POST", "/payments", body={})
        assert caught.value.contract == expected
        assert explain("IR_04", expected).title == meaning  # type: ignore[arg-type]
    assert client.detected_contract == expected
    assert len(scripted.seen("GET", PROBE)) == 1  # once per client


async def test_no_probe_when_the_contract_is_set_known_or_the_service_is_struggling(
    app: App, make_client: ClientFactory
) -> None:
    scripted, url = app
    scripted.script("POST", "/payments", envelope(400, "IR_04", "currency: not allowed"))
    scripted.script("GET", "/payments/busy", envelope(429, "HE_00", "slow down"))
    scripted.script("GET", PROBE, envelope(404, "HE_02", "Payment does not exist"))
    set_to_real = make_client(url, contract="real")
    with pytest.raises(errors.InvalidRequestError):
        await set_to_real.call_json("POST", "/payments", body={})
    busy = make_client(url, contract="auto", max_attempts=1)
    with pytest.raises(errors.RateLimitedError) as caught:
        await busy.call_json("GET", "/payments/busy")
    assert caught.value.contract == "real" and busy.detected_contract is None
    assert scripted.seen("GET", PROBE) == []
    # Asked for explicitly, the probe answers (and only an "auto" client asks the service).
    assert await busy.probe_contract() == "real"
    assert await set_to_real.probe_contract() == "real"
    assert len(scripted.seen("GET", PROBE)) == 1
