"""The request journal: what it keeps, what it never keeps (secrets), followers, curl export."""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import shlex
import shutil
from dataclasses import asdict

import pytest

from payscope.api.journal import REDACTED, JournalEntry, Redactor, RequestJournal, mask_key
from payscope.api.models.api_keys import ApiKeyCreateRequest
from payscope.api.models.card_fields import CardData
from payscope.api.models.common import Address, Billing
from payscope.api.models.payments import PaymentCreateRequest, PaymentMethodData
from tests.api.conftest import KEY, PUBLISHABLE, ClientFactory, Reply, ScriptedApp
from tests.waits import awaited

Served = tuple[ScriptedApp, str]
CARD = "4242424242424242"
HASH_KEY = "whsec_x7Hq2Lm9Vb4Nc8Zr1Tp6Yw3Ks5Jd0Fg"


def _card_payment() -> PaymentCreateRequest:
    return PaymentCreateRequest(
        amount=1000,
        currency="USD",
        profile_id="pro_1",
        payment_id="order_1",
        confirm=True,
        payment_method="card",
        payment_method_data=PaymentMethodData(
            card=CardData(
                card_number=CARD, card_exp_month="12", card_exp_year="2030", card_cvc="737"
            )
        ),
        billing=Billing(address=Address(country="US", zip="94107"), email="a@example.com"),
    )


def _dump(entry: JournalEntry) -> str:
    return json.dumps(asdict(entry)) + entry.to_curl()


# -- redaction, unit by unit ------------------------------------------------------------------


def test_card_numbers_keep_their_last_four_and_the_cvc_goes() -> None:
    body = {
        "payment_method_data": {"card": {"card_number": CARD, "card_cvc": "737"}},
        "wallet": {"apple_pay_decrypt": {"dpan": "5555555555554444"}},
        "payouts": [{"card": {"card_number": "4000 0000 0000 0002", "cvv": 123}}],
    }
    out = Redactor().json_value(body)
    assert out["payment_method_data"]["card"] == {
        "card_number": "************4242",
        "card_cvc": REDACTED,
    }
    assert out["wallet"]["apple_pay_decrypt"]["dpan"] == "************4444"
    assert out["payouts"][0]["card"] == {"card_number": "************0002", "cvv": REDACTED}


@pytest.mark.parametrize(
    "name",
    [
        "api_key",
        "client_secret",
        "payment_response_hash_key",
        "webhook_secret",
        "password",
        "totp",
        "totp_secret",
        "otpauth_url",
        "Client_Secret",
        "refresh_secret",
        "webhook_password",
        "recovery_code",
        "secret_key",
    ],
)
def test_secret_fields_are_redacted_at_any_depth(name: str) -> None:
    body = {"outer": [{"inner": {name: "s3cr3t-value", "keep": "visible"}}], name: "top-value"}
    out = Redactor().json_value(body)
    assert out[name] == REDACTED
    assert out["outer"][0]["inner"] == {name: REDACTED, "keep": "visible"}
    assert "s3cr3t" not in json.dumps(out)
    # the path a journal entry takes: raw body text in, redacted text out
    stored = Redactor().body(json.dumps(body).encode(), "application/json")
    assert stored is not None and json.loads(stored) == out


def test_a_secret_field_holding_a_structure_keeps_its_shape_only() -> None:
    out = Redactor().json_value({"password": {"old": "a1", "new": ["b2", None]}})
    assert out == {"password": {"old": REDACTED, "new": [REDACTED, None]}}


@pytest.mark.parametrize(
    "key",
    [KEY, PUBLISHABLE, "prd_Live0123a1b2", "pk_prd_Live0123a1b2"],
)
def test_key_shaped_strings_are_masked_in_any_text(key: str) -> None:
    redactor = Redactor()
    text = redactor.text(f"key={key}; other text")
    assert key not in text
    assert text.endswith("[REDACTED]; other text")
    note = redactor.json_value({"note": f"uses {key} here"})["note"]
    assert note.startswith("uses ") and note.endswith("[REDACTED] here")
    assert key not in note


def test_the_clients_own_key_is_masked_even_when_not_key_shaped() -> None:
    redactor = Redactor(["sandbox-local-key-42"])
    assert redactor.text("auth sandbox-local-key-42 failed") == f"auth {REDACTED} failed"


def test_card_numbers_in_free_text_are_masked_but_other_long_numbers_are_not() -> None:
    redactor = Redactor()
    text = redactor.body(f"card={CARD}&ref=1234567890123", "application/x-www-form-urlencoded")
    assert text == "card=************4242&ref=1234567890123"  # the ref fails the Luhn check


def test_secret_headers_are_replaced() -> None:
    headers = Redactor().headers(
        [("API-Key", KEY), ("Authorization", "Bearer abc"), ("X-Note", f"k {PUBLISHABLE}")]
    )
    assert headers["api-key"] == REDACTED
    assert headers["authorization"] == REDACTED
    assert PUBLISHABLE not in headers["x-note"]


def test_mask_key_shows_kind_and_last_four_only() -> None:
    assert mask_key("prd_Live0123a1b2") == "prd_...a1b2"
    assert mask_key("pk_snd_abcdefgh1234") == "pk_snd_...1234"
    assert mask_key("snd_short") == "snd_..."


# -- the journal ------------------------------------------------------------------------------


async def test_entries_record_both_sides_without_any_secret(
    app: Served, make_client: ClientFactory
) -> None:
    scripted, url = app
    scripted.script(
        "POST",
        "/payments",
        Reply(
            200,
            {
                "payment_id": "order_1",
                "status": "succeeded",
                "amount": 1000,
                "currency": "USD",
                "client_secret": "order_1_secret_Zx8Qw2",
                "payment_method_data": {"card": {"last4": "4242"}},
            },
            headers={"x-request-id": "req_1"},
        ),
    )
    client = make_client(url)
    payment = await client.payments.create(_card_payment())
    assert payment.client_secret == "order_1_secret_Zx8Qw2"  # the caller gets the real answer
    (entry,) = client.journal.entries()
    assert (entry.method, entry.path, entry.status, entry.attempt) == ("POST", "/payments", 200, 1)
    assert entry.url == f"{url}/payments"
    assert entry.error is None and entry.ok
    assert entry.response_headers["x-request-id"] == "req_1"
    sent = json.loads(entry.request_body or "")
    assert sent["payment_method_data"]["card"]["card_number"] == "************4242"
    assert sent["amount"] == 1000
    dumped = _dump(entry)
    for secret in (KEY, CARD, "737", "order_1_secret_Zx8Qw2"):
        assert secret not in dumped
    assert scripted.requests[0].json["payment_method_data"]["card"]["card_number"] == CARD


async def test_a_created_api_key_and_webhook_secret_never_reach_the_journal(
    app: Served, make_client: ClientFactory
) -> None:
    scripted, url = app
    new_key = "snd_NewKey9a8b7c6d5e4f3g2h"
    scripted.script("POST", "/api_keys/mer_1", Reply(200, {"key_id": "key_1", "api_key": new_key}))
    scripted.script(
        "GET",
        "/account/mer_1/business_profile/pro_1",
        Reply(
            200,
            {"profile_id": "pro_1", "merchant_id": "mer_1", "payment_response_hash_key": HASH_KEY},
        ),
    )
    client = make_client(url, merchant_id="mer_1", profile_id="pro_1")
    created = await client.api_keys.create(ApiKeyCreateRequest(name="ci"))
    profile = await client.profiles.retrieve()
    assert created.api_key == new_key
    assert profile.payment_response_hash_key == HASH_KEY
    dumped = "".join(_dump(x) for x in client.journal)
    assert new_key not in dumped and HASH_KEY not in dumped and KEY not in dumped


async def test_the_journal_is_bounded_and_keeps_the_newest(
    app: Served, make_client: ClientFactory
) -> None:
    _, url = app
    client = make_client(url, journal_size=3)
    for _ in range(5):
        await client.health()
    assert len(client.journal) == 3
    assert [x.id for x in client.journal] == [3, 4, 5]
    assert client.journal.get(5) is not None and client.journal.get(1) is None


async def test_subscribers_get_each_new_entry_until_they_unsubscribe(
    app: Served, make_client: ClientFactory
) -> None:
    _, url = app
    client = make_client(url)
    got: list[int] = []
    stop = client.journal.subscribe(lambda entry: got.append(entry.id))

    def broken(entry: JournalEntry) -> None:
        raise RuntimeError("a broken subscriber must not break requests")

    client.journal.subscribe(broken)
    await client.health()
    await client.health()
    stop()
    await client.health()
    assert got == [1, 2]


async def test_follow_yields_entries_as_they_are_recorded(
    app: Served, make_client: ClientFactory
) -> None:
    _, url = app
    client = make_client(url)
    await client.health()
    received: list[JournalEntry] = []

    async def follower() -> None:
        # Closed as the follower stops (not whenever the loop finalises the generator).
        async with contextlib.aclosing(client.journal.follow(replay=True)) as entries:
            async for entry in entries:
                received.append(entry)
                if len(received) == 3:
                    return

    task = asyncio.create_task(follower())
    await asyncio.sleep(0)
    await client.health()
    await client.health()
    await awaited(task)
    assert [x.id for x in received] == [1, 2, 3]
    assert client.journal._subscribers == []  # the follower unsubscribed when it stopped


def test_a_journal_needs_room() -> None:
    with pytest.raises(ValueError, match="at least one entry"):
        RequestJournal(0)


# -- curl export ------------------------------------------------------------------------------


async def test_curl_export_reproduces_the_request_without_the_key(
    app: Served, make_client: ClientFactory
) -> None:
    scripted, url = app
    scripted.script(
        "POST",
        "/payments",
        Reply(200, {"payment_id": "order_1", "status": "failed", "amount": 1, "currency": "USD"}),
    )
    client = make_client(url, profile_id="pro_1")
    await client.payments.create(_card_payment())
    entry = client.journal.entries()[0]
    command = entry.to_curl()
    assert KEY not in command and CARD not in command
    # This client knows no public test cards: the number and CVC are shell variables.
    *declared, line = command.split(" && \\\n")
    assert [d.split("=", 1)[0] for d in declared] == ["CARD_NUMBER", "CARD_CVC"]
    assert "the card number ending 4242" in declared[0]
    argv = shlex.split(line)
    assert argv[:5] == ["curl", "-sS", "-X", "POST", f"{url}/payments"]
    headers = [argv[i + 1] for i, arg in enumerate(argv) if arg == "-H"]
    assert "api-key: $PAYSCOPE_API_KEY" in headers
    assert "content-type: application/json" in headers
    assert "accept: application/json" in headers
    body = json.loads(argv[argv.index("--data-raw") + 1])
    card = body["payment_method_data"]["card"]
    assert card["card_number"] == "$CARD_NUMBER" and card["card_cvc"] == "$CARD_CVC"
    recorded = json.loads(entry.request_body or "")
    recorded["payment_method_data"]["card"].update(card_number=card["card_number"])
    recorded["payment_method_data"]["card"].update(card_cvc=card["card_cvc"])
    assert body == recorded


def test_a_public_test_card_is_kept_whole_with_its_cvc() -> None:
    public = {CARD}.__contains__
    body = {
        "payment_method_data": {"card": {"card_number": CARD, "card_cvc": "737"}},
        "other": {"card": {"card_number": "4000056655665556", "card_cvc": "123"}},
        "spaced": {"card_number": "4242 4242 4242 4242", "cvc": 999, "password": "pw"},
        "note": f"paid with {CARD}, refunded to 4000056655665556",
    }
    out = Redactor(public_card=public).json_value(body)
    assert out["payment_method_data"]["card"] == {"card_number": CARD, "card_cvc": "737"}
    assert out["other"]["card"] == {"card_number": "************5556", "card_cvc": REDACTED}
    assert out["spaced"] == {"card_number": "4242 4242 4242 4242", "cvc": 999, "password": REDACTED}
    assert out["note"] == f"paid with {CARD}, refunded to ************5556"
    # A value that is not a plain number is never taken for a test card.
    assert Redactor(public_card=public).json_value({"card_number": f"x{CARD}"}) == {
        "card_number": "************4242"
    }


@pytest.mark.skipif(shutil.which("curl") is None, reason="curl is not installed")
async def test_a_curl_with_card_variables_stops_until_they_are_set_then_runs(
    app: Served, make_client: ClientFactory
) -> None:
    scripted, url = app
    scripted.script(
        "POST",
        "/payments",
        Reply(200, {"payment_id": "order_1", "status": "failed", "amount": 1, "currency": "USD"}),
    )
    client = make_client(url, profile_id="pro_1")
    other = _card_payment()
    other.payment_method_data.card.card_number = "4000056655665556"  # type: ignore[union-attr]
    await client.payments.create(other)
    command = client.journal.entries()[0].to_curl()
    # The CVC as a value: the digits alone may be part of the server's random port.
    assert "4000056655665556" not in command and '"737"' not in command
    assert '"card_cvc": "\'"$CARD_CVC"\'"' in command

    async def run(**env: str) -> tuple[int | None, str]:
        proc = await asyncio.create_subprocess_exec(
            "sh",
            "-c",
            command,
            env={**os.environ, "PAYSCOPE_API_KEY": KEY, **env},
            stdout=asyncio.subprocess.PIPE,
            stderr=asyncio.subprocess.PIPE,
        )
        _out, err = await awaited(proc.communicate())
        return proc.returncode, err.decode()

    code, err = await run()
    assert code != 0 and "set CARD_NUMBER to the card number ending 5556" in err
    assert len(scripted.seen("POST", "/payments")) == 1  # curl never ran
    code, err = await run(CARD_NUMBER="4000056655665556", CARD_CVC="737")
    assert code == 0, err
    first, again = scripted.seen("POST", "/payments")
    assert again.json == first.json


@pytest.mark.skipif(shutil.which("curl") is None, reason="curl is not installed")
async def test_the_exported_curl_command_runs_with_the_key_from_the_environment(
    app: Served, make_client: ClientFactory
) -> None:
    scripted, url = app
    client = make_client(url)
    await client.refunds.list()
    command = client.journal.entries()[0].to_curl()
    proc = await asyncio.create_subprocess_exec(
        "sh",
        "-c",
        command,
        env={**os.environ, "PAYSCOPE_API_KEY": KEY},
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.PIPE,
    )
    out, err = await awaited(proc.communicate())
    assert proc.returncode == 0, err.decode()
    first, again = scripted.seen("POST", "/refunds/list")
    assert again.headers["api-key"] == KEY
    assert again.headers["content-type"] == "application/json"
    assert again.json == first.json == {"limit": 10, "offset": 0}
    assert json.loads(out) == {}
