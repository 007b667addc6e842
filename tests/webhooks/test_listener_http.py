"""POST /webhooks over real loopback HTTP: every answer the receiver rules call for."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from urllib.parse import urlsplit

import httpx
import pytest

from payscope.core.bounded import MAX_DEPTH
from payscope.webhooks.deliveries import Delivery
from payscope.webhooks.listener import MAX_BODY_BYTES, Listener
from tests.waits import REQUEST_TIMEOUT, awaited, until
from tests.webhooks.conftest import (
    OLD_SECRET,
    SECRET,
    SIGNATURE_HEADER,
    event_body,
    hmac_sha512,
    iso_now,
    post_signed,
)


async def test_a_signed_event_is_acknowledged_and_journaled_byte_for_byte(
    listener: Listener, client: httpx.AsyncClient
) -> None:
    assert listener.url is not None
    body = event_body("evt_good", object_id="pay_abc")
    response = await post_signed(client, listener.url, body)

    assert response.status_code == 200
    assert response.json() == {"received": True, "duplicate": False}
    detail = listener.journal.get("evt_good")
    assert detail is not None
    assert detail.body == body
    assert detail.verified is True
    assert detail.headers[SIGNATURE_HEADER.lower()] == hmac_sha512(body, SECRET)
    assert detail.event.event_type == "payment_succeeded"
    assert detail.event.object_id == "pay_abc"
    assert detail.event.object_status == "succeeded"
    assert (listener.stats.accepted, listener.stats.rejected) == (1, 0)


async def test_a_missing_signature_is_rejected_recorded_and_not_processed(
    listener: Listener, client: httpx.AsyncClient
) -> None:
    assert listener.url is not None
    body = event_body("evt_unsigned")
    response = await post_signed(client, listener.url, body, secret=None)

    assert response.status_code == 401
    assert "missing X-Webhook-Signature-512" in response.json()["message"]
    assert listener.journal.get("evt_unsigned") is None
    assert listener.journal.count() == 0
    [attempt] = listener.journal.deliveries(rejected_only=True)
    assert attempt.status == 401
    assert attempt.verified is False
    assert attempt.reason is not None and "missing" in attempt.reason
    assert attempt.body == body  # kept for debugging
    assert listener.stats.rejected == 1


async def test_a_wrong_signature_is_rejected_with_its_reason(
    listener: Listener, client: httpx.AsyncClient
) -> None:
    assert listener.url is not None
    signed_by_stranger = await post_signed(
        client, listener.url, event_body("evt_stranger"), secret="someone-elses-secret"
    )
    original = event_body("evt_tampered")
    tampered = original.replace(b"1250", b"9999")
    tampered_response = await client.post(
        listener.url,
        content=tampered,
        headers={
            "Content-Type": "application/json",
            SIGNATURE_HEADER: hmac_sha512(original, SECRET),
        },
    )

    assert signed_by_stranger.status_code == 401
    assert tampered_response.status_code == 401
    assert listener.journal.count() == 0
    reasons = [d.reason for d in listener.journal.deliveries(rejected_only=True)]
    assert len(reasons) == 2
    assert all(r is not None and "does not match" in r for r in reasons)


async def test_every_configured_secret_is_accepted_during_rotation(
    listener: Listener, client: httpx.AsyncClient
) -> None:
    assert listener.url is not None
    new = await post_signed(client, listener.url, event_body("evt_new_key"), secret=SECRET)
    old = await post_signed(client, listener.url, event_body("evt_old_key"), secret=OLD_SECRET)
    retired = await post_signed(client, listener.url, event_body("evt_retired"), secret="retired")

    assert (new.status_code, old.status_code, retired.status_code) == (200, 200, 401)
    assert listener.journal.count() == 2


async def test_malformed_json_with_a_good_signature_is_a_400(
    listener: Listener, client: httpx.AsyncClient
) -> None:
    assert listener.url is not None
    broken = await post_signed(client, listener.url, b'{"event_id": "evt_x",')
    no_id = await post_signed(client, listener.url, b'{"event_type": "payment_succeeded"}')
    a_list = await post_signed(client, listener.url, b'["evt_x"]')

    assert broken.status_code == 400
    assert "not valid JSON" in broken.json()["message"]
    assert no_id.status_code == 400
    assert a_list.status_code == 400
    assert listener.journal.count() == 0
    assert len(listener.journal.deliveries(rejected_only=True)) == 3


async def test_a_body_over_one_mib_is_a_413(listener: Listener, client: httpx.AsyncClient) -> None:
    assert listener.url is not None
    big = b'{"event_id": "evt_big", "pad": "' + b"x" * MAX_BODY_BYTES + b'"}'
    response = await post_signed(client, listener.url, big)
    exactly_limit = b'{"event_id":"evt_limit","pad":"'
    exactly_limit += b"y" * (MAX_BODY_BYTES - len(exactly_limit) - 2) + b'"}'
    at_limit = await post_signed(client, listener.url, exactly_limit)

    assert response.status_code == 413
    assert at_limit.status_code == 200
    [attempt] = listener.journal.deliveries(rejected_only=True)
    assert attempt.status == 413 and attempt.body == b""


async def _raw_exchange(url: str, head: bytes, body_chunks: list[bytes]) -> bytes:
    """Send a request by hand and read the answer without finishing the body."""
    parts = urlsplit(url)
    assert parts.hostname is not None and parts.port is not None
    reader, writer = await asyncio.open_connection(parts.hostname, parts.port)
    writer.write(head)
    for chunk in body_chunks:
        writer.write(chunk)
    await writer.drain()
    answer = await awaited(reader.read(4096))
    writer.close()
    return answer


async def _announced_only(listener: Listener, length: int) -> bytes:
    """The answer to a request that announces `length` body bytes and sends none."""
    assert listener.url is not None
    path = urlsplit(listener.url).path
    declared = (
        f"POST {path} HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
        f"Content-Length: {length}\r\n\r\n"
    ).encode()
    return await _raw_exchange(listener.url, declared, [])


async def test_an_oversized_body_is_refused_before_it_is_read(listener: Listener) -> None:
    assert listener.url is not None
    path = urlsplit(listener.url).path
    # Announced as 50 MiB but never sent: the answer must come from the header alone.
    answer = await _announced_only(listener, 50 * MAX_BODY_BYTES)
    assert answer.startswith(b"HTTP/1.1 413")

    # Chunked, no length: refused as soon as it passes 1 MiB, while the body is still "open".
    chunked = (
        f"POST {path} HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
        "Transfer-Encoding: chunked\r\n\r\n"
    ).encode()
    chunk = b"z" * 65536
    chunks = [b"%x\r\n%s\r\n" % (len(chunk), chunk)] * 17  # 1.06 MiB, no final 0-chunk
    answer = await _raw_exchange(listener.url, chunked, chunks)
    assert answer.startswith(b"HTTP/1.1 413")


async def test_a_wrong_content_type_is_a_415(listener: Listener, client: httpx.AsyncClient) -> None:
    assert listener.url is not None
    body = event_body("evt_form")
    form = await post_signed(client, listener.url, body, content_type="text/plain")
    with_charset = await post_signed(
        client, listener.url, body, content_type="application/json; charset=utf-8"
    )

    assert form.status_code == 415
    assert "text/plain" in form.json()["message"]
    assert with_charset.status_code == 200
    [attempt] = listener.journal.deliveries(rejected_only=True)
    assert attempt.status == 415 and attempt.reason is not None


async def test_other_methods_get_405_with_allow(
    listener: Listener, client: httpx.AsyncClient
) -> None:
    assert listener.url is not None
    for method in ("GET", "PUT", "DELETE"):
        response = await client.request(method, listener.url)
        assert response.status_code == 405
        assert response.headers["allow"] == "POST"


async def test_other_paths_get_404(listener: Listener, client: httpx.AsyncClient) -> None:
    assert listener.url is not None
    base = listener.url.removesuffix("/webhooks")
    response = await post_signed(client, base + "/hooks", event_body("evt_lost"))
    assert response.status_code == 404
    assert "/webhooks" in response.json()["message"]
    assert listener.journal.count() == 0


async def test_a_duplicate_is_acknowledged_counted_and_not_processed_again(
    listener: Listener, client: httpx.AsyncClient
) -> None:
    assert listener.url is not None
    body = event_body("evt_twice")
    answers = [await post_signed(client, listener.url, body) for _ in range(3)]

    assert [r.status_code for r in answers] == [200, 200, 200]
    assert [r.json()["duplicate"] for r in answers] == [False, True, True]
    assert listener.journal.count() == 1
    [event] = listener.journal.recent()
    assert event.duplicates == 2
    assert (listener.stats.accepted, listener.stats.duplicates) == (1, 2)
    flags = [d.duplicate for d in reversed(listener.journal.deliveries())]
    assert flags == [False, True, True]


async def test_deduplication_survives_a_restart(tmp_path: Path, client: httpx.AsyncClient) -> None:
    first = Listener(tmp_path / "j", [SECRET])
    url = await first.start(port=0)
    assert (await post_signed(client, url, event_body("evt_persist"))).status_code == 200
    await first.stop()

    second = Listener(tmp_path / "j", [SECRET])
    url = await second.start(port=0)
    try:
        again = await post_signed(client, url, event_body("evt_persist"))
        assert again.json()["duplicate"] is True
        assert second.journal.count() == 1
    finally:
        await second.stop()


async def test_many_concurrent_senders_lose_nothing_and_process_nothing_twice(
    listener: Listener,
) -> None:
    assert listener.url is not None
    url = listener.url
    seen_new: list[str] = []

    def on_delivery(d: Delivery) -> None:
        if d.accepted and not d.duplicate and d.event_id is not None:
            seen_new.append(d.event_id)

    listener.add_subscriber(on_delivery)
    ids = [f"evt_conc_{i:04d}" for i in range(120)]
    limits = httpx.Limits(max_connections=50)
    async with httpx.AsyncClient(timeout=REQUEST_TIMEOUT, limits=limits) as c:
        # Every event twice, interleaved, all at once: both copies race for the same event_id.
        responses = await asyncio.gather(
            *(post_signed(c, url, event_body(i)) for i in ids + ids[::-1])
        )

    assert all(r.status_code == 200 for r in responses)
    new_answers = [json.loads(r.content)["duplicate"] for r in responses].count(False)
    assert new_answers == 120
    assert listener.journal.count() == 120
    assert {e.event_id for e in listener.journal.recent(limit=500)} == set(ids)
    assert (listener.stats.accepted, listener.stats.duplicates) == (120, 120)
    await until(lambda: len(seen_new) >= 120)
    assert sorted(seen_new) == sorted(ids)


async def test_one_byte_over_the_limit_is_refused_from_the_header_alone(listener: Listener) -> None:
    answer = await _announced_only(listener, MAX_BODY_BYTES + 1)
    assert answer.startswith(b"HTTP/1.1 413")


@pytest.mark.parametrize(
    "body",
    [
        b'{"event_id": "evt_nan", "amount": NaN}',
        b'\xef\xbb\xbf{"event_id": "evt_bom"}',
        '{"event_id": "evt_utf16"}'.encode("utf-16"),
    ],
    ids=["nan", "utf8-bom", "utf16"],
)
async def test_json_the_standard_library_reads_is_still_accepted(
    listener: Listener, client: httpx.AsyncClient, body: bytes
) -> None:
    assert listener.url is not None
    response = await post_signed(client, listener.url, body)

    assert response.status_code == 200
    [event] = listener.journal.recent()
    detail = listener.journal.get(event.event_id)
    assert detail is not None and detail.body == body


async def test_an_event_id_with_a_lone_surrogate_is_a_400_and_nothing_breaks(
    listener: Listener, client: httpx.AsyncClient
) -> None:
    assert listener.url is not None
    odd = await post_signed(client, listener.url, b'{"event_id": "evt_\\ud800"}')
    after = await post_signed(client, listener.url, event_body("evt_after_odd"))

    assert odd.status_code == 400
    assert "surrogate" in odd.json()["message"]
    assert after.status_code == 200
    assert listener.journal.count() == 1
    [attempt] = listener.journal.deliveries(rejected_only=True)
    assert attempt.status == 400 and attempt.verified


async def test_json_nested_too_deeply_is_a_400(
    listener: Listener, client: httpx.AsyncClient
) -> None:
    assert listener.url is not None
    response = await post_signed(client, listener.url, b"[" * 100_000 + b"]" * 100_000)

    assert response.status_code == 400
    assert "nested too deeply" in response.json()["message"]
    [attempt] = listener.journal.deliveries(rejected_only=True)
    assert attempt.status == 400


@pytest.mark.parametrize("levels", [MAX_DEPTH + 1, 1000])
async def test_json_deeper_than_payscope_reads_is_a_400_though_orjson_reads_it(
    listener: Listener, client: httpx.AsyncClient, levels: int
) -> None:
    # orjson reads 1,024 levels; what payscope shows and walks later stops at MAX_DEPTH.
    assert listener.url is not None
    deep = b'{"event_id": "evt_deep", "x": ' + b"[" * levels + b"]" * levels + b"}"
    response = await post_signed(client, listener.url, deep)
    fine = b'{"event_id": "evt_deep", "x": ' + b"[" * 200 + b"]" * 200 + b"}"
    assert (await post_signed(client, listener.url, fine)).status_code != 500

    assert response.status_code == 400
    assert f"more than {MAX_DEPTH} levels" in response.json()["message"]


async def test_secrets_replaced_at_run_time_take_effect_at_once(
    listener: Listener, client: httpx.AsyncClient
) -> None:
    assert listener.url is not None
    listener.secrets = ("rotated-secret-0123456789",)

    old = await post_signed(client, listener.url, event_body("evt_old_key"))
    new = await post_signed(
        client, listener.url, event_body("evt_new_key"), secret="rotated-secret-0123456789"
    )

    assert (old.status_code, new.status_code) == (401, 200)
    assert listener.secrets == ("rotated-secret-0123456789",)


async def test_a_mandate_event_is_journaled_under_its_mandate(
    listener: Listener, client: httpx.AsyncClient
) -> None:
    """`mandate_details` names its object by `mandate_id` (no other id field is in it), so the
    Events list, a filter `object:man_…` and a detail watching the mandate all find it."""
    assert listener.url is not None
    body = json.dumps(
        {
            "merchant_id": "merchant_1",
            "event_id": "evt_mandate",
            "event_type": "mandate_revoked",
            "content": {
                "type": "mandate_details",
                "object": {
                    "mandate_id": "man_abc",
                    "status": "revoked",
                    "payment_method_id": "pm_1",
                },
            },
            # Now: a date written here ages past the listener's freshness window (7 days).
            "timestamp": iso_now(),
        }
    ).encode()
    response = await post_signed(client, listener.url, body)
    assert response.status_code == 200
    detail = listener.journal.get("evt_mandate")
    assert detail is not None
    assert (detail.event.object_id, detail.event.object_status) == ("man_abc", "revoked")
    assert listener.journal.count("mandate_revoked", "man_abc") == 1
