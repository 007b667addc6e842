"""The hostile-input catalogue (issue 14): every hostile input the two servers face, each sent
over real HTTP (a raw socket: nothing in between normalises it), each answered with its own
clear error: the status, the error envelope with its code and a message naming the problem.
Never a 5xx, never a dropped connection: after an answer the same connection serves a good
request, unless the answer says `Connection: close` (input the HTTP parser itself refuses),
and then a new connection is served.

`CATALOGUE` lists what is sent here; `ELSEWHERE` names the hostile inputs whose checks need
more than one exchange and live in other modules (`test_every_reference_exists` keeps those
names honest). One deliberate omission on the listener: duplicate JSON keys. Its bodies are
signed by their sender, so a duplicate cannot be slipped in by anyone else. (A forged `Host` is
refused by both servers: tests/test_host_guard.py.)
"""

from __future__ import annotations

import ast
import asyncio
import contextlib
import hmac
import json
import re
import time
from collections.abc import AsyncIterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx
import pytest

from payscope.core.asgi_server import MAX_HEAD_BYTES
from payscope.sandbox.middleware import MAX_BODY_BYTES
from payscope.sandbox.server import Sandbox
from payscope.webhooks.listener import Listener
from tests.sandbox.conftest import API_KEY, Receiver, make_sandbox, payment_body
from tests.sandbox.conftest import receiver as receiver  # the fixture, for this module
from tests.waits import REQUEST_TIMEOUT, awaited, until

ROOT = Path(__file__).resolve().parents[1]
SECRET = "catalogue-secret-0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMN"
METRICS = "/analytics/v1/merchant/metrics/payments"
DEEP_ARRAYS = b"[" * 100_000 + b"]" * 100_000
DEEP_OBJECTS = b'{"a":' * 100_000 + b"1" + b"}" * 100_000
PAYMENT = json.dumps({"amount": 100, "currency": "USD"}).encode()
NOT_JSON = "not valid JSON"
DEEP = "not valid JSON (recursion limit exceeded"
CONTENT_TYPE = "Invalid value for Content-Type"
CLOSED = "closed"  # the HTTP parser refused the request: plain-text 400, Connection: close


@dataclass(frozen=True)
class Case:
    """One hostile request and the answer it must get (`code` None: not the app's envelope)."""

    id: str
    request: bytes
    status: int
    code: str | None
    needle: str


def request(
    method: str,
    path: str,
    body: bytes | None = None,
    *,
    content_type: str | None = "application/json",
    headers: tuple[tuple[str, str], ...] = (),
    key: str | None = API_KEY,
    raw_headers: bytes = b"",
) -> bytes:
    """A raw HTTP/1.1 request for the sandbox (with the api-key unless `key` is None)."""
    lines = [f"{method} {path} HTTP/1.1", "Host: 127.0.0.1"]
    if key is not None:
        lines.append(f"api-key: {key}")
    if content_type is not None and body is not None:
        lines.append(f"Content-Type: {content_type}")
    lines += [f"{name}: {value}" for name, value in headers]
    if body is not None:
        lines.append(f"Content-Length: {len(body)}")
    head = "\r\n".join(lines).encode("latin-1") + b"\r\n" + raw_headers
    return head + b"\r\n" + (body or b"")


def signed(
    body: bytes,
    *,
    content_type: str | None = "application/json",
    signature: str | None = "good",
    method: str = "POST",
    path: str = "/webhooks",
) -> bytes:
    """A raw request for the listener, signed with SECRET unless told otherwise."""
    headers: tuple[tuple[str, str], ...] = ()
    if signature == "good":
        headers = (
            ("X-Webhook-Signature-512", hmac.new(SECRET.encode(), body, "sha512").hexdigest()),
        )
    elif signature is not None:
        headers = (("X-Webhook-Signature-512", signature),)
    return request(method, path, body, content_type=content_type, headers=headers, key=None)


def event(event_id: Any = "evt_catalogue", **fields: Any) -> dict[str, Any]:
    return {
        "merchant_id": "merchant_catalogue",
        "event_id": event_id,
        "event_type": "payment_succeeded",
        "content": {"type": "payment_details", "object": {"payment_id": "pay_1"}},
        "timestamp": time.strftime("%Y-%m-%dT%H:%M:%S.000Z", time.gmtime()),
        **fields,
    }


# Well past the bound whatever the size of the server's reads (it counts from its second read).
HUGE_HEADER = b"X-Filler: " + b"f" * (16 * MAX_HEAD_BYTES) + b"\r\n"
GARBAGE = b"GARBAGE\r\n\r\n"
SMUGGLE = (
    b"POST /payments HTTP/1.1\r\nHost: 127.0.0.1\r\napi-key: " + API_KEY.encode() + b"\r\n"
    b"Content-Type: application/json\r\nContent-Length: 4\r\nTransfer-Encoding: chunked\r\n\r\n"
    b"0\r\n\r\n"
)

SANDBOX: list[Case] = [
    # Deep JSON: the four routes that used to crash (their bodies went through the standard
    # library's parser, which raised RecursionError), then the model-validated routes.
    Case(
        "deep-json/clock-advance",
        request("POST", "/_sandbox/clock/advance", DEEP_ARRAYS),
        400,
        "IR_04",
        DEEP,
    ),
    Case(
        "deep-json/3ds",
        request("POST", "/_sandbox/payments/pay_x/3ds", DEEP_ARRAYS),
        400,
        "IR_04",
        DEEP,
    ),
    Case("deep-json/analytics", request("POST", METRICS, DEEP_ARRAYS), 400, "IR_04", DEEP),
    Case(
        "deep-json/invite-multiple",
        request("POST", "/user/user/invite_multiple", DEEP_ARRAYS),
        400,
        "IR_04",
        DEEP,
    ),
    Case(
        "deep-json/objects-clock-advance",
        request("POST", "/_sandbox/clock/advance", DEEP_OBJECTS),
        400,
        "IR_04",
        DEEP,
    ),
    Case(
        "deep-json/payouts-list", request("POST", "/payouts/list", DEEP_ARRAYS), 400, "IR_04", DEEP
    ),
    Case("deep-json/payments", request("POST", "/payments", DEEP_OBJECTS), 400, "IR_04", DEEP),
    # Bodies that are not labelled JSON: the spec and the real service both want
    # application/json; neither a form nor XML nor text is read as JSON.
    Case(
        "content-type/text-plain",
        request("POST", "/payments", PAYMENT, content_type="text/plain"),
        400,
        "IR_04",
        CONTENT_TYPE,
    ),
    Case(
        "content-type/form",
        request(
            "POST",
            "/payments",
            b"amount=100&currency=USD",
            content_type="application/x-www-form-urlencoded",
        ),
        400,
        "IR_04",
        CONTENT_TYPE,
    ),
    Case(
        "content-type/xml",
        request(
            "POST",
            "/customers",
            b"<customer><name>Jo</name></customer>",
            content_type="application/xml",
        ),
        400,
        "IR_04",
        CONTENT_TYPE,
    ),
    Case(
        "content-type/multipart",
        request(
            "POST",
            METRICS,
            b"--b\r\n\r\n[]\r\n--b--",
            content_type="multipart/form-data; boundary=b",
        ),
        400,
        "IR_04",
        CONTENT_TYPE,
    ),
    Case(
        "content-type/missing",
        request("POST", "/payments", PAYMENT, content_type=None),
        400,
        "IR_04",
        "Content-Type: none",
    ),
    Case(
        "content-type/text-plain-clock",
        request("POST", "/_sandbox/clock/advance", b'{"seconds": 1}', content_type="text/plain"),
        400,
        "IR_04",
        CONTENT_TYPE,
    ),
    Case(
        "content-type/two-labels",
        request("POST", "/payments", PAYMENT, headers=(("Content-Type", "text/plain"),)),
        400,
        "IR_04",
        "'application/json, text/plain'",
    ),
    # Bodies
    Case(
        "body/declared-beyond-the-limit",
        request("POST", "/payments", None, headers=(("Content-Length", str(10**12)),)),
        413,
        "IR_04",
        f"at most {MAX_BODY_BYTES} bytes",
    ),
    Case(
        "body/array-for-an-object",
        request("POST", "/payments", b"[1, 2]"),
        400,
        "IR_04",
        "must be a JSON object",
    ),
    Case(
        "body/string-for-an-object",
        request("POST", "/_sandbox/clock/advance", b'"x"'),
        400,
        "IR_04",
        "Allowed: a JSON object",
    ),
    Case(
        "body/trailing-garbage",
        request("POST", "/payments", PAYMENT + b" x"),
        400,
        "IR_04",
        "trailing characters",
    ),
    Case(
        "body/byte-order-mark",
        request("POST", "/payments", b"\xef\xbb\xbf" + PAYMENT),
        400,
        "IR_04",
        NOT_JSON,
    ),
    Case(
        "body/invalid-utf8",
        request("POST", "/payments", b'{"amount": 100, "currency": "\xff\xfe"}'),
        400,
        "IR_04",
        "invalid unicode code point",
    ),
    Case(
        "body/invalid-utf8-read-json",
        request("POST", METRICS, b'[{"metrics": ["\xc3"]}]'),
        400,
        "IR_04",
        NOT_JSON,
    ),
    Case(
        "body/nan-amount",
        request("POST", "/payments", b'{"amount": NaN, "currency": "USD"}'),
        400,
        "IR_04",
        "amount must be a whole number",
    ),
    Case(
        "body/infinity-offset",
        request("POST", "/payments/list", b'{"offset": Infinity}'),
        400,
        "IR_04",
        "offset must be a whole number",
    ),
    Case(
        "body/duplicate-keys",
        request("POST", "/payments", b'{"amount": 100, "currency": "USD", "amount": 1}'),
        400,
        "IR_04",
        "'amount' appears twice",
    ),
    Case(
        "body/duplicate-keys-nested",
        request("POST", "/customers", b'{"name": "Jo", "metadata": {"a": 1, "a": 2}}'),
        400,
        "IR_04",
        "'a' appears twice",
    ),
    Case(
        "body/duplicate-keys-read-json",
        request("POST", "/_sandbox/clock/advance", b'{"seconds": 1, "seconds": 99999}'),
        400,
        "IR_04",
        "'seconds' appears twice",
    ),
    # Methods and routes
    Case("method/not-taken", request("DELETE", "/payments"), 405, "IR_03", "It takes: POST"),
    Case("method/options", request("OPTIONS", "/payments/list"), 405, "IR_03", "not allowed"),
    Case("method/not-a-method", request("BREW", "/payments"), 400, None, CLOSED),
    Case("route/unknown", request("GET", "/nope"), 404, "IR_02", "not a route"),
    Case(
        "route/dot-segments",
        request("GET", "/payments/../../etc/passwd"),
        404,
        "IR_02",
        "not a route",
    ),
    Case(
        "route/invalid-utf8",
        b"GET /payments/\xff\xfe HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n",
        400,
        None,
        CLOSED,
    ),
    # Keys
    Case(
        "key/missing",
        request("GET", "/payments/list", key=None),
        401,
        "AU_01",
        "API key not provided",
    ),
    Case(
        "key/unknown",
        request("GET", "/payments/list", key="snd_nobody_has_this_key"),
        401,
        "AU_01",
        "Invalid API key",
    ),
    Case(
        "key/production",
        request("GET", "/payments/list", key="prd_live_0123456789"),
        401,
        "AU_01",
        "production keys",
    ),
    Case(
        "key/8-bit",
        request("GET", "/payments/list", key=None, raw_headers=b"api-key: snd_\xff\xfe\r\n"),
        401,
        "AU_01",
        "Invalid API key",
    ),
    Case(
        "key/huge",
        request("GET", "/payments/list", key="snd_" + "k" * 8000),
        401,
        "AU_01",
        "Invalid API key",
    ),
    Case(
        "key/escape-sequence",
        request("GET", "/payments/list", key=None, raw_headers=b"api-key: snd_\x1b[2J\r\n"),
        400,
        None,
        CLOSED,
    ),
    # The request head and the protocol
    Case(
        "head/oversized-header",
        request("GET", "/health", raw_headers=HUGE_HEADER),
        431,
        None,
        str(MAX_HEAD_BYTES),
    ),
    Case("protocol/garbage", GARBAGE, 400, None, CLOSED),
    Case("protocol/length-and-chunked", SMUGGLE, 400, None, CLOSED),
    Case(
        "protocol/negative-length",
        request("POST", "/payments", None, headers=(("Content-Length", "-1"),)),
        400,
        None,
        CLOSED,
    ),
]

LISTENER: list[Case] = [
    Case(
        "method/get",
        signed(b"", method="GET", content_type=None),
        405,
        "method_not_allowed",
        "send webhooks with POST",
    ),
    Case("route/unknown", signed(b"{}", path="/other"), 404, "not_found", "nothing at /other"),
    Case(
        "content-type/text-plain",
        signed(json.dumps(event()).encode(), content_type="text/plain"),
        415,
        "unsupported_media_type",
        "not application/json",
    ),
    Case(
        "content-type/form",
        signed(b"event_id=evt_1", content_type="application/x-www-form-urlencoded"),
        415,
        "unsupported_media_type",
        "not application/json",
    ),
    Case(
        "content-type/xml",
        signed(b"<event/>", content_type="application/xml"),
        415,
        "unsupported_media_type",
        "not application/json",
    ),
    Case(
        "content-type/missing",
        signed(json.dumps(event()).encode(), content_type=None),
        415,
        "unsupported_media_type",
        "'none'",
    ),
    Case(
        "body/declared-beyond-the-limit",
        request(
            "POST",
            "/webhooks",
            None,
            key=None,
            headers=(("Content-Type", "application/json"), ("Content-Length", str(10**12))),
        ),
        413,
        "payload_too_large",
        "not read",
    ),
    Case(
        "signature/missing",
        signed(json.dumps(event()).encode(), signature=None),
        401,
        "unauthorized",
        "missing X-Webhook-Signature-512",
    ),
    Case(
        "signature/wrong",
        signed(json.dumps(event()).encode(), signature="0" * 128),
        401,
        "unauthorized",
        "does not match",
    ),
    Case("deep-json/arrays", signed(DEEP_ARRAYS), 400, "bad_request", "nested too deeply"),
    Case("deep-json/objects", signed(DEEP_OBJECTS), 400, "bad_request", "nested too deeply"),
    Case(
        "body/invalid-utf8",
        signed(b'{"event_id": "\xff\xfe"}'),
        400,
        "bad_request",
        "not valid JSON",
    ),
    Case(
        "body/nan-event-id",
        signed(b'{"event_id": NaN}'),
        400,
        "bad_request",
        "event_id must be a string",
    ),
    Case(
        "body/escape-sequence-event-id",
        signed(json.dumps(event("evt_\x1b[2J\x1b[31m")).encode()),
        400,
        "bad_request",
        "control or invisible characters",
    ),
    Case("body/not-an-object", signed(b"[1, 2]"), 400, "bad_request", "not an object"),
    Case(
        "head/oversized-header",
        request("POST", "/webhooks", b"{}", key=None, raw_headers=HUGE_HEADER),
        431,
        None,
        str(MAX_HEAD_BYTES),
    ),
    Case("protocol/garbage", GARBAGE, 400, None, CLOSED),
    Case(
        "protocol/length-and-chunked",
        SMUGGLE.replace(b"/payments", b"/webhooks"),
        400,
        None,
        CLOSED,
    ),
]

CATALOGUE = [pytest.param("sandbox", c, id=f"sandbox:{c.id}") for c in SANDBOX] + [
    pytest.param("listener", c, id=f"listener:{c.id}") for c in LISTENER
]

# Hostile inputs checked elsewhere, where the check needs more than one request and answer.
ELSEWHERE = {
    "a forged Host (DNS rebinding), on both servers and the listener's process": [
        "tests/test_host_guard.py::test_the_sandbox_refuses_a_forged_host",
        "tests/test_host_guard.py::test_the_in_process_listener_refuses_a_forged_host",
        "tests/test_host_guard.py::test_the_listener_process_refuses_a_forged_host",
    ],
    "a 16 MiB request head, URL or header, on both servers": [
        "tests/test_size_limits.py::test_the_sandbox_refuses_an_oversized_head",
        "tests/test_size_limits.py::test_the_listener_refuses_an_oversized_header",
    ],
    "an oversized body, declared or chunked, on the sandbox": [
        "tests/test_size_limits.py::test_the_sandbox_refuses_a_declared_oversized_body_with_the_envelope",
        "tests/test_size_limits.py::test_the_sandbox_refuses_a_chunked_oversized_body_with_the_envelope",
    ],
    "an oversized body sent in full or trickled, on the listener": [
        "tests/webhooks/test_listener_http.py::test_an_oversized_body_is_refused_before_it_is_read",
        "tests/webhooks/test_listener_edges.py::test_one_byte_over_the_limit_sent_in_full_still_gets_its_413",
    ],
    "slow heads and bodies (slowloris), idle connections, connection floods": [
        "tests/test_slow_clients.py::test_a_head_that_never_ends_is_answered_408_and_closed",
        "tests/test_slow_clients.py::test_a_body_that_never_ends_is_cut_and_the_app_sees_the_client_gone",
        "tests/test_slow_clients.py::test_connections_past_the_cap_are_refused_and_normal_requests_are_served",
    ],
    "numbers beyond 64 bits, NaN and infinities for the clock": [
        "tests/sandbox/test_bad_input.py::test_numbers_beyond_storage_are_400_naming_the_field",
        "tests/sandbox/test_bad_input.py::test_clock_advance_refuses_what_the_clock_cannot_reach",
        "tests/sandbox/test_bad_input.py::test_query_offset_beyond_64_bits_is_400",
    ],
    "lone UTF-16 surrogate escapes and other scripts' digits": [
        "tests/sandbox/test_bad_input_fuzz.py::test_lone_surrogate_escape_is_named_not_a_parser_message",
        "tests/sandbox/test_bad_input_fuzz.py::test_card_fields_refuse_other_scripts_digits",
        "tests/webhooks/test_listener_http.py::test_an_event_id_with_a_lone_surrogate_is_a_400_and_nothing_breaks",
    ],
    "analytics windows too large to compute": [
        "tests/sandbox/test_bad_input.py::test_analytics_refuses_windows_it_cannot_compute",
    ],
    "a signature sent twice, or with a prefix, on the listener": [
        "tests/webhooks/test_listener_edges.py::test_two_signature_headers_are_refused_whichever_comes_first",
        "tests/webhooks/test_listener_edges.py::test_a_refused_signature_says_what_is_wrong_with_it",
    ],
    "escape sequences in a sender's fields, in the listener's output": [
        "tests/webhooks/test_listener_edges.py::test_text_lines_cannot_be_forged_or_broken_by_a_senders_fields",
    ],
    "made-up keys by the thousand": [
        "tests/sandbox/test_bad_keys.py::test_distinct_bad_keys_leave_no_cache_entry_or_window_behind",
    ],
    "whatever schemathesis generates from the sandbox's OpenAPI": [
        "tests/sandbox/test_schemathesis.py::test_stateless_no_5xx",
        "tests/sandbox/test_schemathesis.py::test_stateful_no_5xx",
    ],
}


# -- the wire -----------------------------------------------------------------------------------


@dataclass
class Answer:
    status: int
    headers: dict[str, str]
    body: bytes

    @property
    def closes(self) -> bool:
        return self.headers.get("connection", "").lower() == "close"


async def read_answer(reader: asyncio.StreamReader) -> Answer:
    head = await awaited(reader.readuntil(b"\r\n\r\n"))
    status_line, *lines = head.decode("latin-1").split("\r\n")
    headers: dict[str, str] = {}
    for line in lines:
        if ":" in line:
            name, value = line.split(":", 1)
            headers[name.strip().lower()] = value.strip()
    length = int(headers.get("content-length", "0"))
    body = await awaited(reader.readexactly(length)) if length else b""
    return Answer(int(status_line.split()[1]), headers, body)


async def exchange(url: str, data: bytes, then: bytes) -> tuple[Answer, Answer]:
    """Send `data`; read its answer; then send `then` (on the same connection unless the first
    answer closed it) and read that answer too."""
    host, port = url.split("//", 1)[1].split("/", 1)[0].rsplit(":", 1)
    reader, writer = await asyncio.open_connection(host, int(port))
    try:
        writer.write(data)
        with contextlib.suppress(ConnectionError):  # refused while still sending: expected
            await writer.drain()
        first = await read_answer(reader)
        if first.closes:
            assert await awaited(reader.read()) == b"", "closed means closed"
            writer.close()
            reader, writer = await asyncio.open_connection(host, int(port))
        writer.write(then)
        await writer.drain()
        second = await read_answer(reader)
    finally:
        writer.close()
    return first, second


def error_of(server: str, answer: Answer) -> tuple[str, str]:
    """(code, message) from the envelope each server answers errors with."""
    assert answer.headers.get("content-type", "").startswith("application/json"), answer
    body = json.loads(answer.body)
    if server == "sandbox":  # the spec's {error: {type, code, message}}
        assert set(body) == {"error"} and set(body["error"]) == {"type", "code", "message"}
        return body["error"]["code"], body["error"]["message"]
    assert set(body) == {"error", "message"}, body  # the listener's {error, message}
    return body["error"], body["message"]


@pytest.fixture
async def servers(tmp_path: Path) -> AsyncIterator[dict[str, str]]:
    box = make_sandbox(tmp_path / "sandbox")
    listener = Listener(tmp_path / "listener", [SECRET])
    urls = {"sandbox": await box.start(), "listener": str(await listener.start(port=0))}
    yield urls
    await listener.stop()
    await box.stop()


GOOD = {
    "sandbox": request("GET", "/health"),
    "listener": signed(json.dumps(event("evt_good")).encode()),
}


@pytest.mark.parametrize(("server", "case"), CATALOGUE)
async def test_hostile_input_gets_its_clear_error(
    servers: dict[str, str], server: str, case: Case
) -> None:
    answer, after = await exchange(servers[server], case.request, GOOD[server])
    assert answer.status < 500
    assert answer.status == case.status, answer
    if case.code is None:  # refused before the app: by the HTTP server itself
        shown = CLOSED if case.needle == CLOSED else answer.body.decode("latin-1")
        assert answer.closes and case.needle in shown, answer
    else:
        code, message = error_of(server, answer)
        assert code == case.code, message
        assert case.needle in message, message
    assert after.status == 200, after  # the server (and, unless closed, the connection) lives


def test_every_reference_exists() -> None:
    """Each test `ELSEWHERE` names is defined where it says (renaming one breaks this)."""
    for refs in ELSEWHERE.values():
        for ref in refs:
            path, name = ref.split("::")
            tree = ast.parse((ROOT / path).read_text(encoding="utf-8"))
            names = {
                n.name for n in tree.body if isinstance(n, ast.FunctionDef | ast.AsyncFunctionDef)
            }
            assert name in names, ref


# -- inputs whose check is more than an error ----------------------------------------------------

# A loopback name (the sandbox refuses any other Host: tests/test_host_guard.py), but not the
# one it serves on: what a caller puts in Host must still never reach a stored URL.
EVIL = "evil.localhost:9"


@pytest.fixture
async def served(tmp_path: Path, receiver: Receiver) -> AsyncIterator[tuple[Sandbox, str]]:
    box = make_sandbox(tmp_path / "sandbox", webhook_url=receiver.url)
    url = await box.start()
    yield box, url
    await box.stop()


async def test_a_host_header_never_reaches_stored_urls_or_webhooks(
    served: tuple[Sandbox, str], receiver: Receiver
) -> None:
    # Before: redirect_to_url, link_to_pay and payment_link.link were built from the Host
    # header, so a caller chose the URL every later reader (and the webhook) got.
    _, url = served
    async with httpx.AsyncClient(
        timeout=REQUEST_TIMEOUT, base_url=url, headers={"api-key": API_KEY, "Host": EVIL}
    ) as evil:
        challenged = await evil.post("/payments", json=payment_body("4000003800000446"))
        linked = await evil.post("/payment_link", json={"amount": 500, "currency": "USD"})
        with_link = await evil.post(
            "/payments", json={"amount": 700, "currency": "USD", "payment_link": True}
        )
    for answer in (challenged, linked, with_link):
        assert answer.status_code == 200, answer.text
        assert EVIL not in answer.text
    redirect = challenged.json()["next_action"]["redirect_to_url"]
    assert redirect.startswith(f"{url}/_sandbox/payments/")
    assert linked.json()["link_to_pay"].startswith(f"{url}/pay/")
    assert with_link.json()["payment_link"]["link"].startswith(f"{url}/pay/")
    # What was stored: read back with an ordinary Host.
    async with httpx.AsyncClient(
        timeout=REQUEST_TIMEOUT, base_url=url, headers={"api-key": API_KEY}
    ) as http:
        stored = await http.get(f"/payments/{challenged.json()['payment_id']}")
        assert stored.json()["next_action"]["redirect_to_url"] == redirect
        page = await http.get(redirect.removeprefix(url))
        assert page.status_code == 200 and EVIL not in page.text
    await until(lambda: any(e["event_type"] == "action_required" for e in receiver.events()))
    delivered = [e for e in receiver.events() if e["event_type"] == "action_required"]
    assert delivered, receiver.events()
    assert delivered[0]["content"]["object"]["next_action"]["redirect_to_url"] == redirect
    assert not any(EVIL.encode() in body for body, _ in receiver.received)


MARKUP = "<script>alert(1)</script><!--<script>\x1b[2J\x1b]0;pwned\x07\u202e\u0000\"'&"


async def test_markup_and_escape_sequences_are_kept_as_data_never_rendered(
    served: tuple[Sandbox, str],
) -> None:
    _, url = served
    async with httpx.AsyncClient(
        timeout=REQUEST_TIMEOUT, base_url=url, headers={"api-key": API_KEY}
    ) as http:
        customer = await http.post("/customers", json={"name": MARKUP, "metadata": {MARKUP: 1}})
        assert customer.status_code == 200, customer.text
        assert customer.headers["content-type"] == "application/json"
        again = await http.get(f"/customers/{customer.json()['customer_id']}")
        assert again.json()["name"] == MARKUP and again.json()["metadata"] == {MARKUP: 1}
        link = await http.post(
            "/payment_link", json={"amount": 500, "currency": "USD", "description": MARKUP}
        )
        assert link.status_code == 200, link.text
        page = (await http.get(link.json()["link_to_pay"].removeprefix(url))).text
    # Before: `<!--<script>` in a description switched the page's HTML parser into a state
    # where the page's own </script> no longer closed the data block (the page broke).
    found = re.search(r'<script id="link" type="application/json">(.*?)</script>', page, re.S)
    assert found, page[:500]
    assert "<" not in found.group(1)
    assert json.loads(found.group(1))["description"] == MARKUP
    assert "<script>alert(1)" not in page


async def test_a_form_post_to_the_3ds_page_and_bodiless_calls_still_work(
    served: tuple[Sandbox, str],
) -> None:
    # The content-type rule reads only JSON bodies: the challenge page's HTML form, calls
    # without a body (whatever they are labelled) and JSON with a charset all still pass.
    _, url = served
    async with httpx.AsyncClient(
        timeout=REQUEST_TIMEOUT, base_url=url, headers={"api-key": API_KEY}
    ) as http:
        created = (await http.post("/payments", json=payment_body("4000003800000446"))).json()
        redirect = created["next_action"]["redirect_to_url"]
        secret = created["client_secret"]
        form = await http.post(
            redirect.removeprefix(url).split("?")[0] + "/challenge",
            data={"client_secret": secret, "result": "authorize"},
        )
        assert form.status_code == 200, form.text
        listed = await http.post("/payments/list", headers={"content-type": "text/plain"})
        assert listed.status_code == 200, listed.text
        charset = await http.post(
            "/customers",
            content=b'{"name": "Jo"}',
            headers={"content-type": "Application/JSON; charset=utf-8"},
        )
        assert charset.status_code == 200, charset.text
