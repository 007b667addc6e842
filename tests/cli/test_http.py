"""`payscope get|post|delete PATH` (tui/payscope/cli/http.py): any path through the shared
client,
on the embedded sandbox and on a remote profile, run as a subprocess."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from payscope.api.bodies import BodyError, prepare
from payscope.api.request_log import RequestLogFollower, request_log_path
from payscope.cli.http_run import UsageError, clean_path, parse_fields
from tests.cli.conftest import Remote, no_traceback, payscope
from tests.waits import HANG


def test_fields_nest_list_and_type() -> None:
    assert parse_fields(
        ["amount:=1000", "currency=USD", "metadata[order]=42", "a[b][c]=d", "tags[]=x", "tags[]=y"]
    ) == {
        "amount": 1000,
        "currency": "USD",
        "metadata": {"order": "42"},
        "a": {"b": {"c": "d"}},
        "tags": ["x", "y"],
    }
    assert parse_fields(["note=a=b", "flag:=true", "none:=null"]) == {
        "note": "a=b",
        "flag": True,
        "none": None,
    }


@pytest.mark.parametrize(
    ("fields", "says"),
    [
        (["amount"], "field 1 is not KEY=VALUE"),
        (["a=1", "card_number:4242424242424242"], "field 2 is not KEY=VALUE"),
        (["a=1", "a=2"], "given twice"),
        (["a=1", "a[b]=2"], "both a value and an object"),
        (["a[b]=1", "a[]=2"], "both a value and an object"),
        (["a]b=1"], "a key is NAME"),
        (["n:=not json"], "not a JSON value"),
    ],
)
def test_a_mistaken_field_is_named_never_its_value(fields: list[str], says: str) -> None:
    with pytest.raises(UsageError, match=says) as caught:
        parse_fields(fields)
    assert "not json" not in str(caught.value) and "4242" not in str(caught.value)


def test_paths_are_paths_not_urls() -> None:
    assert clean_path("payments/list") == "/payments/list"
    for bad in ("https://evil.example/x", "//evil.example/x", "/a b", "/a\x1b[2J"):
        with pytest.raises(UsageError):
            clean_path(bad)


def test_fields_go_through_the_routes_model_typed_where_it_wants_numbers() -> None:
    body = {"amount": "1000", "currency": "USD", "description": "12", "confirm": "false"}
    shaped = prepare("POST", "/payments", body, typed_from_text=True)
    assert shaped.model == "PaymentCreateRequest"
    assert shaped.body["amount"] == 1000 and shaped.body["confirm"] is False
    assert shaped.body["description"] == "12"  # a string where the model wants one
    with pytest.raises(BodyError, match="amount"):
        prepare("POST", "/payments", body)  # --json is taken as written
    assert prepare("POST", "/not/a/route", {"x": "1"}).body == {"x": "1"}  # raw JSON
    keyed = prepare("POST", "/payments", {"amount": 5, "currency": "USD", "payment_id": "p_1"})
    assert keyed.resolve_duplicate == "/payments/p_1"  # retried safely, as the resource does


def test_on_the_embedded_sandbox(embedded: Path) -> None:
    made = payscope(
        "--seed",
        "0",
        "post",
        "/payments",
        "-d",
        "amount=1250",
        "-d",
        "currency=USD",
        "-d",
        "confirm=false",
        "-d",
        "metadata[order]=A-42",
    )
    no_traceback(made)
    assert made.returncode == 0, made.stderr
    assert made.stdout.count("\n") == 1  # piped: compact, one line
    payment = json.loads(made.stdout)
    assert payment["amount"] == 1250 and payment["metadata"] == {"order": "A-42"}
    read = payscope("get", f"/payments/{payment['payment_id']}")
    assert read.returncode == 0, read.stderr
    assert json.loads(read.stdout)["payment_id"] == payment["payment_id"]
    listed = payscope("get", "/customers/list", "-d", "limit=1")
    assert listed.returncode == 0 and "data" in json.loads(listed.stdout)
    missing = payscope("get", "/payments/pay_missing0000000000")
    no_traceback(missing)
    assert missing.returncode == 1 and missing.stdout == ""
    assert "HTTP 404" in missing.stderr and "IR_05" in missing.stderr
    assert "does not exist" in missing.stderr  # the service's message
    # Every call went through the client, so into the local profile's request log.
    with RequestLogFollower(request_log_path(embedded, None), from_start=True) as log:
        seen = [(r.source, r.method, r.status) for r in log.poll()]
    assert ("post", "POST", 200) in seen and ("get", "GET", 404) in seen


def test_on_a_remote_profile(remote: Remote, tmp_path: Path) -> None:
    body = tmp_path / "customer.json"
    body.write_text(json.dumps({"name": "Zoë \u202eevil", "email": "zoe@example.com"}))
    made = payscope("post", "/customers", "--json", f"@{body}", "--profile", "box")
    no_traceback(made)
    assert made.returncode == 0, made.stderr
    customer = json.loads(made.stdout)
    assert customer["name"] == "Zoë \u202eevil"  # the same value, read back from its escape
    assert "\u202e" not in made.stdout and "\\u202e" in made.stdout  # never raw on a terminal
    path = f"/customers/{customer['customer_id']}"
    from_stdin = payscope("post", path, "--json", "@-", "--profile", "box", stdin='{"phone":"1"}')
    assert from_stdin.returncode == 0, from_stdin.stderr
    gone = payscope("delete", path, "--profile", "box")
    assert gone.returncode == 0, gone.stderr
    again = payscope("get", path, "--profile", "box")
    assert again.returncode == 1 and "HTTP 404" in again.stderr
    # The request log of this profile, not the local one's.
    with RequestLogFollower(request_log_path(Path(_data_dir()), "box"), from_start=True) as log:
        methods = [(r.method, r.status) for r in log.poll()]
    assert methods == [("POST", 200), ("POST", 200), ("DELETE", 200), ("GET", 404)]


def _data_dir() -> str:
    from payscope.core import paths

    return str(paths.data_dir())


def test_mistakes_are_said_before_anything_is_sent(remote: Remote, tmp_path: Path) -> None:
    cases = [
        (["post", "/payments", "-d", "amount=ten", "-d", "currency=USD"], "amount"),
        (["post", "/payments", "-d", "a=1", "--json", "{}"], "not both"),
        (["get", "/payments/list", "--json", "{}"], "a GET has no body"),
        (["post", "/payments", "--json", "{nope"], "is not JSON"),
        (["post", "/payments", "--json", f"@{tmp_path / 'none.json'}"], "cannot read it"),
        (["get", "https://evil.example/payments"], "give the path only"),
    ]
    for args, says in cases:
        done = payscope(*args, "--profile", "box")
        no_traceback(done)
        assert done.returncode == 2, (args, done.stderr)
        assert says in done.stderr, (args, done.stderr)
    refused = payscope(
        "post",
        "/payments",
        "-d",
        "amount=5",
        "-d",
        "currency=USD",
        "--profile",
        "box",
        "--read-only",
    )
    assert refused.returncode == 2 and "read-only" in refused.stderr
    log = request_log_path(Path(_data_dir()), "box")
    assert not log.exists()  # nothing reached the client's network


def test_a_production_key_is_refused_and_never_shown(remote: Remote) -> None:
    key = "prd_live_0123456789abcdef"
    done = payscope("get", "/payments/list", "--profile", "box", env={"PAYSCOPE_API_KEY": key})
    no_traceback(done)
    assert done.returncode == 2 and "production" in done.stderr.lower()
    assert key not in done.stderr and key not in done.stdout


def test_an_unreachable_service_is_said_plainly(remote: Remote) -> None:
    from payscope.core import config

    settings = config.load_settings()
    dead = config.Profile(name="dead", base_url="http://127.0.0.1:9", contract="spec")
    config.save_settings(config.add_profile(settings, dead))
    done = payscope("get", "/payments/list", "--profile", "dead", timeout=HANG)
    no_traceback(done)
    assert done.returncode == 1 and "refused" in done.stderr


def _on_a_terminal(*args: str, env: dict[str, str] | None = None) -> str:
    """`payscope ARGS` with its standard output on a pseudo-terminal; what it wrote there."""
    import os
    import pty
    import subprocess
    import sys

    from tests.cli.conftest import ROOT

    leader, follower = pty.openpty()
    proc = subprocess.Popen(
        [sys.executable, "-m", "payscope", *args],
        cwd=ROOT,
        stdout=follower,
        stderr=subprocess.PIPE,
        env={**os.environ, "TERM": "xterm-256color", **(env or {})},
    )
    os.close(follower)
    chunks = []
    while True:
        try:
            chunk = os.read(leader, 65536)
        except OSError:  # EIO: the terminal's other end closed (the process ended)
            break
        if not chunk:
            break
        chunks.append(chunk)
    os.close(leader)
    assert proc.wait(HANG) == 0, proc.stderr.read() if proc.stderr else ""
    return b"".join(chunks).decode()


def test_on_a_terminal_the_answer_is_pretty_and_coloured(remote: Remote) -> None:
    shown = _on_a_terminal("get", "/payments/list", "--profile", "box", env={"NO_COLOR": ""})
    assert '\x1b[34;1m"data"\x1b[0m: []' in shown  # a key, coloured
    assert '\n  \x1b[34;1m"count"' in shown.replace("\r\n", "\n")  # indented, a key a line
    plain = _on_a_terminal("get", "/payments/list", "--profile", "box", env={"NO_COLOR": "1"})
    assert "\x1b[" not in plain and '\n  "count": 0' in plain.replace("\r\n", "\n")


def test_a_body_nested_past_reason_is_refused_not_a_traceback(tmp_path: Path) -> None:
    deep = tmp_path / "deep.json"
    deep.write_text("[" * 100_000 + "]" * 100_000)
    done = payscope("post", "/payments", "--json", f"@{deep}")
    no_traceback(done)
    assert done.returncode == 2 and "nested too deeply" in done.stderr
