"""Fixtures (tui/payscope/api/fixtures/, `payscope fixtures run`): every shipped example runs on
a real
sandbox over HTTP; a fixture with a mistake stops at its step, naming the step, the field and
what was already made."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from payscope.api.fixtures.files import load_fixture, parse_fixture
from payscope.api.fixtures.running import run_fixture
from payscope.api.fixtures.steps import Allowed, FixtureError, StepResult
from tests.tools.conftest import FIXTURES, Service, payscope

# The state each example leaves its main object in (the last step's answer).
FINAL_STATUS = {
    "payment-one-step.toml": "succeeded",
    "payment-two-step.toml": "succeeded",
    "payment-manual-capture.toml": "partially_captured",
    "payment-3ds.toml": "succeeded",
    "payment-manual-review.toml": "succeeded",
    "refund.toml": "succeeded",  # a card refund settles at once
    "dispute-with-evidence.json": "dispute_challenged",
    "subscription-renewal.toml": "active",
    "payout.toml": "initiated",
}


async def run_all(
    service: Service, text: str, fmt: str = "toml", allowed: Allowed | None = None
) -> list[StepResult]:
    fixture = parse_fixture(text, fmt, source="test.toml")
    return [result async for result in run_fixture(service.client, fixture, None, allowed)]


async def payment_count(service: Service) -> int:
    listed = await service.client.payments.list()
    return listed.total_count or 0


def test_one_example_per_flow_ships() -> None:
    assert sorted(p.name for p in FIXTURES.iterdir()) == sorted(FINAL_STATUS)


@pytest.mark.parametrize("name", sorted(FINAL_STATUS))
async def test_every_example_runs_on_the_sandbox(service: Service, name: str) -> None:
    fixture = load_fixture(FIXTURES / name)
    results = [r async for r in run_fixture(service.client, fixture)]
    assert [r.step.name for r in results] == [s.name for s in fixture.steps]
    assert all(200 <= r.status < 300 for r in results)
    made = [m.id for r in results for m in r.made]
    assert made, "every example makes something"
    assert results[-1].answer["status"] == FINAL_STATUS[name]
    # What the run says it made exists in the sandbox.
    first = made[0]
    if first.startswith("pay_"):
        assert (await service.client.payments.retrieve(first)).payment_id == first


async def test_the_subscription_example_renews_it(service: Service) -> None:
    results = [
        r
        async for r in run_fixture(
            service.client, load_fixture(FIXTURES / "subscription-renewal.toml")
        )
    ]
    made = results[1].answer
    renewed = results[-1].answer
    assert renewed["next_billing_at"] > made["next_billing_at"]
    # Renewed on the mandate its first charge set up.
    assert made["mandate_id"] and renewed["payment"]["mandate_id"] == made["mandate_id"]
    assert renewed["payment"]["payment_id"] != made["payment"]["payment_id"]


async def test_references_take_earlier_answers_env_and_profile(
    service: Service, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("FIXTURE_NOTE", "from the environment")
    results = await run_all(
        service,
        """
[[steps]]
name = "customer"
method = "POST"
path = "/customers"
body = { name = "Ref Test", email = "ref@example.com", description = "${env.FIXTURE_NOTE}" }

[[steps]]
name = "again"
method = "POST"
path = "/customers/${customer.customer_id}"
body = { description = "copy of ${customer.description} for $${literal}" }
""",
        allowed=Allowed(env=frozenset({"FIXTURE_NOTE"})),
    )
    customer_id = results[0].answer["customer_id"]
    assert results[0].answer["description"] == "from the environment"
    assert results[1].path == f"/customers/{customer_id}"
    assert results[1].answer["description"] == "copy of from the environment for ${literal}"
    assert [m.id for m in results[0].made] == [customer_id]
    assert results[1].made == ()  # an update makes nothing new


async def test_a_whole_reference_keeps_its_type(service: Service) -> None:
    results = await run_all(
        service,
        """
[[steps]]
name = "one"
method = "POST"
path = "/payments"
body = { amount = 1234, currency = "USD", confirm = false }

[[steps]]
name = "two"
method = "POST"
path = "/payments"
body = { amount = "${one.amount}", currency = "${one.currency}", confirm = false }
""",
    )
    assert results[1].answer["amount"] == 1234


async def test_an_unknown_reference_is_refused_before_anything_runs(service: Service) -> None:
    before = await payment_count(service)
    text = """
[[steps]]
name = "payment"
method = "POST"
path = "/payments"
body = { amount = 100, currency = "USD" }

[[steps]]
name = "refund"
method = "POST"
path = "/refunds"
body = { payment_id = "${paymnt.payment_id}" }
"""
    with pytest.raises(FixtureError) as caught:
        await run_all(service, text)
    error = caught.value
    assert error.step_label == 'step 2 "refund"'
    assert error.field_name == "body.payment_id"
    assert "paymnt" in str(error) and "steps before this one: payment" in str(error)
    assert await payment_count(service) == before


async def test_a_status_not_expected_stops_and_says_what_was_made(service: Service) -> None:
    text = """
[[steps]]
name = "payment"
method = "POST"
path = "/payments"
body = { amount = 500, currency = "USD", confirm = false }

[[steps]]
name = "capture"
method = "POST"
path = "/payments/${payment.payment_id}/capture"

[[steps]]
name = "never"
method = "POST"
path = "/customers"
body = { name = "Never" }
"""
    seen: list[StepResult] = []
    fixture = parse_fixture(text, "toml", source="mine.toml")
    with pytest.raises(FixtureError) as caught:
        async for result in run_fixture(service.client, fixture):
            seen.append(result)
    error = caught.value
    payment_id = seen[0].answer["payment_id"]
    assert [r.step.name for r in seen] == ["payment"]
    assert error.step is not None and error.step.name == "capture"
    assert error.field_name == "expect" and error.status is not None and error.status >= 400
    assert [m.id for m in error.made] == [payment_id]
    said = str(error)
    assert said.startswith('mine.toml, step 2 "capture", field expect:')
    assert f"Already made before it stopped: {payment_id} (step payment)" in said
    customers = await service.client.customers.list()
    assert all(c.name != "Never" for c in customers.data)


async def test_an_expected_error_status_goes_on(service: Service) -> None:
    results = await run_all(
        service,
        """
[[steps]]
name = "missing"
method = "GET"
path = "/payments/pay_doesnotexist0000000000"
expect = 404

[[steps]]
name = "after"
method = "GET"
path = "/health"
""",
    )
    assert results[0].status == 404 and results[0].answer["error"]["code"] == "IR_05"
    assert len(results) == 2


async def test_a_field_the_answer_lacks_stops_at_its_step(service: Service) -> None:
    text = """
[[steps]]
name = "customer"
method = "POST"
path = "/customers"
body = { name = "Lacks" }

[[steps]]
name = "use"
method = "GET"
path = "/payments/${customer.payment_id}"
"""
    with pytest.raises(FixtureError) as caught:
        await run_all(service, text)
    error = caught.value
    assert error.field_name == "path" and error.step is not None and error.step.name == "use"
    assert "has no 'payment_id'" in str(error)
    assert len(error.made) == 1 and error.made[0].id.startswith("cus_")


@pytest.mark.parametrize(
    ("text", "fmt", "step", "field", "words"),
    [
        (
            '{"steps": [{"name": "a", "method": "GET", "path": "/health"},]}',
            "json",
            "",
            "",
            "bad JSON at line 1",
        ),
        (
            '[[steps]]\nname = "a"\nmethod = "POST"\npath = "/payments"\n'
            'body = "{\\"amount\\": 1,}"\n',
            "toml",
            'step 1 "a"',
            "body",
            "bad JSON at line 1, column",
        ),
        (
            '[[steps]]\nname = "a"\nmethod = "FETCH"\npath = "/x"\n',
            "toml",
            'step 1 "a"',
            "method",
            "method is one of",
        ),
        (
            '[[steps]]\nname = "a"\nmethod = "GET"\npath = "x"\n',
            "toml",
            'step 1 "a"',
            "path",
            'starting with "/"',
        ),
        (
            '[[steps]]\nmethod = "GET"\npath = "/x"\n',
            "toml",
            "step 1",
            "name",
            "every step needs a name",
        ),
        (
            '[[steps]]\nname = "a"\nmethod = "GET"\npath = "/x"\nexpect = "ok"\n',
            "toml",
            'step 1 "a"',
            "expect",
            "HTTP status",
        ),
        (
            '[[steps]]\nname = "a"\nmethod = "GET"\npath = "/x"\nbodyy = 1\n',
            "toml",
            'step 1 "a"',
            "bodyy",
            "unknown field",
        ),
        (
            '[[steps]]\nname = "a"\nmethod = "GET"\npath = "/x"\n'
            'headers = { "api-key" = "snd_x" }\n',
            "toml",
            'step 1 "a"',
            "headers.api-key",
            "never a file's",
        ),
        (
            '[[steps]]\nname = "a"\nmethod = "GET"\npath = "/x/${env.PAYSCOPE_SURELY_UNSET}"\n',
            "toml",
            'step 1 "a"',
            "path",
            "is not set",
        ),
        (
            '[[steps]]\nname = "a"\nmethod = "GET"\npath = "/x"\n'
            '[[steps]]\nname = "a"\nmethod = "GET"\npath = "/y"\n',
            "toml",
            'step 2 "a"',
            "name",
            "already called",
        ),
        ("steps = []", "toml", "", "", "no steps"),
    ],
)
def test_a_mistake_names_its_step_and_field(
    text: str, fmt: str, step: str, field: str, words: str
) -> None:
    with pytest.raises(FixtureError) as caught:
        parse_fixture(text, fmt, source="f")
    assert caught.value.step_label == step
    assert caught.value.field_name == field
    assert words in str(caught.value)
    assert "snd_x" not in str(caught.value)


async def test_a_read_only_client_refuses_a_fixture_that_writes_whole(service: Service) -> None:
    before = await payment_count(service)
    fixture = load_fixture(FIXTURES / "refund.toml")
    client = service.read_only_client()
    try:
        with pytest.raises(FixtureError) as caught:
            [r async for r in run_fixture(client, fixture)]
        assert "read-only" in str(caught.value) and caught.value.field_name == "method"
        assert len(client.journal.entries()) == 0
        # A fixture that only reads runs.
        reads = parse_fixture('[[steps]]\nname = "h"\nmethod = "GET"\npath = "/health"\n', "toml")
        assert [r.status async for r in run_fixture(client, reads)] == [200]
    finally:
        await client.aclose()
    assert await payment_count(service) == before


# -- the command line ----------------------------------------------------------------------------


async def test_cli_prints_each_step_its_status_and_what_it_made(service: Service) -> None:
    done = await payscope("fixtures", "run", str(FIXTURES / "refund.toml"), "--profile", "box")
    assert done.status == 0, done.err
    lines = done.out.splitlines()
    assert lines[0] == f"fixture Refund: 2 step(s) on {service.url}"
    assert lines[1].startswith(" 1. payment: POST /payments -> 200  made pay_")
    assert lines[2].startswith(" 2. refund: POST /refunds -> 200  made ref_")
    refund_id = lines[2].rsplit(" ", 1)[-1]
    refund = await service.client.refunds.retrieve(refund_id)
    assert refund.amount == 2000


async def test_cli_json_gives_one_object_per_step(service: Service) -> None:
    done = await payscope(
        "--profile",
        "box",
        "fixtures",
        "run",
        str(FIXTURES / "payment-two-step.toml"),
        "--format",
        "json",
    )
    assert done.status == 0, done.err
    objects = [json.loads(line) for line in done.out.splitlines()]
    assert [o["step"] for o in objects] == ["payment", "confirm"]
    assert objects[1]["status"] == 200 and objects[1]["answer"]["status"] == "succeeded"
    assert objects[0]["made"] == [objects[0]["answer"]["payment_id"]]


async def test_cli_a_failing_step_exits_1_naming_it(service: Service, tmp_path: Path) -> None:
    broken = tmp_path / "broken.toml"
    broken.write_text(
        '[[steps]]\nname = "p"\nmethod = "POST"\npath = "/payments"\n'
        'body = { amount = 100, currency = "USD", confirm = false }\n'
        '[[steps]]\nname = "cap"\nmethod = "POST"\npath = "/payments/${p.payment_id}/capture"\n'
    )
    done = await payscope("fixtures", "run", str(broken), "--profile", "box", "--format", "json")
    assert done.status == 1
    *steps, error = [json.loads(line) for line in done.out.splitlines()]
    assert [s["step"] for s in steps] == ["p"]
    assert error["step"] == "cap" and error["field"] == "expect"
    assert error["made"] == [{"step": "p", "id": steps[0]["answer"]["payment_id"]}]
    assert 'step 2 "cap", field expect' in done.err


async def test_cli_read_only_runs_nothing_that_writes(service: Service) -> None:
    before = await payment_count(service)
    done = await payscope(
        "--read-only", "fixtures", "run", str(FIXTURES / "refund.toml"), "--profile", "box"
    )
    assert done.status == 1
    assert "read-only" in done.err and 'step 1 "payment"' in done.err
    assert await payment_count(service) == before


async def test_cli_a_profile_marked_read_only_is_read_only(service: Service) -> None:
    from payscope.core import config

    settings = config.load_settings()
    marked = settings.profiles["box"].model_copy(update={"read_only": True})
    config.save_settings(config.add_profile(settings, marked, replace=True))
    done = await payscope("fixtures", "run", str(FIXTURES / "refund.toml"), "--profile", "box")
    assert done.status == 1 and "read-only" in done.err
