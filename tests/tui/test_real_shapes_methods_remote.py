"""On a remote profile, a payment of every family the real OpenAPI names (each variant of its
`PaymentMethodDataResponse`), each with one of its next actions and its mandate, renders in the
payment's detail from the real shapes (`tests/real_shapes.py`): the method's part, the next
action and the mandate on screen, and every field kept.

The service is a scripted stub on a real loopback port (`tests.api.conftest.ScriptedApp`), the
stand-in for the remote host, as in `test_real_shapes_remote.py`."""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest

from payscope.core.asgi_server import EmbeddedServer
from tests.api.conftest import Reply, ScriptedApp
from tests.real_payments_list import payments_list
from tests.real_shapes import example, schema
from tests.tui.pilot import open_detail, shown_text
from tests.tui.test_real_shapes_remote import (
    KEY,
    MERCHANT,
    NOT_A_ROUTE,
    PROFILE,
    _app,
    _kept,
    _raw_shows_every_field,
)
from tests.tui.test_remote_snapshots import _save_profile

Dirs = tuple[Path, Path]


def _variants(name: str) -> list[dict[str, Any]]:
    found: list[dict[str, Any]] = schema(name)["oneOf"]
    return found


FAMILIES = [next(iter(v["properties"])) for v in _variants("PaymentMethodDataResponse")]
ACTIONS = [v["properties"]["type"]["enum"][0] for v in _variants("NextActionData")]


def _payment(n: int, family: str) -> dict[str, Any]:
    payment = example(
        "PaymentsResponse",
        choose={"PaymentMethodDataResponse": n, "NextActionData": n % len(ACTIONS)},
        payment_id=f"pay_family{n:014d}",
        status="requires_customer_action",
        payment_method=family,
        payment_method_type=f"{family}_type",
        amount=1000 + n,
        currency="EUR",
        customer_id="cus_y3oqhf46pyzuxjbcn2giaqnb44",
        created=f"2024-04-{10 + n}T10:11:12Z",
    )
    # As in test_real_shapes_remote: its refunds and disputes name it, amounts as numbers.
    for refund in payment["refunds"]:
        refund |= {"refund_id": f"ref_in{n:04d}", "payment_id": payment["payment_id"]}
    for dispute in payment["disputes"]:
        dispute |= {"dispute_id": f"dp_in{n:04d}", "payment_id": payment["payment_id"],
                    "amount": "6540", "currency": "EUR"}  # fmt: skip
    return payment


PAYMENTS = [_payment(n, family) for n, family in enumerate(FAMILIES)]


@pytest.fixture
async def real_service(dirs: Dirs) -> AsyncIterator[str]:
    stub = ScriptedApp(fallback=NOT_A_ROUTE)
    stub.script("GET", "/health", Reply(200, body=b"health is good", headers={}))
    stub.route("GET", "/payments/list", lambda asked: payments_list(PAYMENTS, asked))
    for payment in PAYMENTS:
        stub.script("GET", f"/payments/{payment['payment_id']}", Reply(200, payment))
    server = EmbeddedServer(stub, "127.0.0.1", 0)
    url = await server.start()
    _save_profile(url, MERCHANT, PROFILE, KEY)
    try:
        yield url
    finally:
        await server.stop()


def test_every_family_and_next_action_of_the_document_is_covered() -> None:
    assert {"wallet", "bank_redirect", "bank_transfer", "bank_debit", "pay_later"} <= set(FAMILIES)
    assert len(FAMILIES) >= len(ACTIONS) - 1  # each next action is served at least once


# The families in a few groups, one app each: the suite's workers share them out (one test of
# every family was the suite's longest by far), and each group still pays for one start only.
GROUPS = 4


@pytest.mark.parametrize("group", range(GROUPS))
async def test_a_payment_of_every_family_renders_from_the_real_shapes(
    dirs: Dirs, real_service: str, group: int
) -> None:
    from payscope.areas.payments.detail import PaymentDetailScreen

    app = _app(dirs)
    async with app.run_test(size=(160, 50)) as pilot:
        await app.runtime.ready.wait()
        assert not app.runtime.options.is_local
        for served in PAYMENTS[group::GROUPS]:
            detail = await open_detail(pilot, served["payment_id"])
            assert isinstance(detail, PaymentDetailScreen)
            _kept(detail.record, served)
            _raw_shows_every_field(detail, served)
            family = served["payment_method"]
            method = shown_text(detail.section("card"))
            if family == "card":
                assert "••••" in method, family
            else:
                assert detail.section("card").border_title == "Method and customer", family
                assert f"{family} · {family}_type" in method, family
            action = served["next_action"]
            assert not detail.section("next").has_class("-hidden"), family
            shown = shown_text(detail.section("next"))
            assert action["type"] in shown, family
            assert "answers it as the customer" not in shown  # not on a remote profile
            mandate = shown_text(detail.section("mandate"))
            assert served["mandate_id"] in mandate, family
            await pilot.press("escape")
