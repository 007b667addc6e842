"""Payments, a payment's detail, Refunds, Disputes, Customers and Payouts on a remote profile whose
service answers exactly in the real service's shapes: objects built from its OpenAPI document's
schemas and examples (`tests/real_shapes.py`: every property, required or not), its list shapes
(`{size, data}` for payments, `{count, total_count, data}` for refunds, bare arrays for disputes
and customers, `{size, data, total_count}` for payouts), its status names, and its errors for
any route it does not have.

The service is a scripted stub on a real loopback port (`tests.api.conftest.ScriptedApp`), the
stand-in for the remote host. Each area is opened as a user does; every field of every object
must be on screen or kept in the record the screen holds (no lost field), known statuses take
their colour and unknown ones the neutral one, and nothing crashes.
"""

from __future__ import annotations

import asyncio
import threading
from collections.abc import AsyncIterator, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TypeVar

import pytest
from textual.widgets import Static

from payscope.app import PayscopeApp, make_app
from payscope.core.asgi_server import EmbeddedServer
from payscope.core.display import STABLE
from payscope.widgets.format import theme_colour
from payscope.widgets.theming import status_variable
from tests.api.conftest import Reply, ScriptedApp, envelope
from tests.real_payments_list import payments_list
from tests.real_shapes import example, lost
from tests.tui.pilot import shown_text, until
from tests.tui.test_remote_snapshots import _save_profile, _settled
from tests.waits import HANG, on_screen

Dirs = tuple[Path, Path]
V = TypeVar("V")
S = TypeVar("S")
KEY = "snd_realshapes0000000000000000000001"
MERCHANT = "merchant_1668273825"  # the real document's example merchant
PROFILE = "pro_realshapes0000000001"
UNKNOWN = "on_hold_for_review"  # a status no version of payscope knows: shown neutral
NOT_A_ROUTE = envelope(404, "HE_02", "Unrecognized request URL")

CARD = {"last4": "4242", "card_exp_month": "03", "card_exp_year": "2030", "card_type": "credit",
        "card_issuer": "JP Morgan", "card_isin": "424242", "card_extended_bin": "42424242",
        "card_holder_name": "John Doe", "card_issuing_country": "UNITEDSTATES"}  # fmt: skip


def _payment(n: int, status: str) -> dict[str, Any]:
    payment = example(
        "PaymentsResponse",
        payment_id=f"pay_real{n:04d}",
        status=status,
        amount=6540 + n,
        currency="USD",
        customer_id="cus_y3oqhf46pyzuxjbcn2giaqnb44",
        created=f"2024-04-{20 + n}T10:1{n}:12Z",
    )
    payment["payment_method_data"]["card"] |= CARD
    for refund in payment["refunds"]:
        refund |= {"refund_id": f"ref_in{n:04d}", "payment_id": payment["payment_id"],
                   "currency": "USD"}  # fmt: skip
    for dispute in payment["disputes"]:
        dispute |= {"dispute_id": f"dp_in{n:04d}", "payment_id": payment["payment_id"],
                    "amount": "6540", "currency": "USD"}  # fmt: skip
    return payment


def _refund(n: int, status: str) -> dict[str, Any]:
    return example(
        "RefundResponse",
        refund_id=f"ref_real{n:04d}",
        payment_id=f"pay_real{n:04d}",
        status=status,
        currency="USD",
        amount=1000 + n,
        profile_id=PROFILE,
    )


def _dispute(n: int, status: str) -> dict[str, Any]:
    return example(
        "DisputeResponse",
        dispute_id=f"dp_real{n:04d}",
        payment_id=f"pay_real{n:04d}",
        attempt_id=f"pay_real{n:04d}_1",
        dispute_status=status,
        amount="6540",  # a string on the real service
        currency="USD",
        profile_id=PROFILE,
    )


def _customer(n: int) -> dict[str, Any]:
    return example("CustomerResponse", customer_id=f"cus_real{n:04d}", name=f"Jon Test {n}")


def _payout(n: int, status: str, method: int) -> dict[str, Any]:
    payout = example(
        "PayoutCreateResponse",
        choose={"PayoutMethodDataResponse": method},
        payout_id=f"payout_real{n:04d}",
        payout_type=("card", "bank")[method],
        status=status,
        currency="USD",
        profile_id=PROFILE,
    )
    if method == 0:
        payout["payout_method_data"]["card"] |= {"last4": "4242", "card_issuer": "JP Morgan",
                                                 "card_type": "debit"}  # fmt: skip
    return payout


# Every status the real document names for each object, and one it does not.
PAYMENTS = [
    _payment(i, status)
    for i, status in enumerate(
        [
            "succeeded",
            "requires_customer_action",
            "partially_authorized_and_requires_capture",
            "partially_captured_and_processing",
            "conflicted",
            "cancelled_post_capture",
            "processing",
            UNKNOWN,
        ]
    )
]
REFUNDS = [
    _refund(i, s) for i, s in enumerate(["succeeded", "failed", "pending", "review", UNKNOWN])
]
DISPUTES = [
    _dispute(i, s)
    for i, s in enumerate(["dispute_opened", "dispute_accepted", "dispute_won", "dispute_lost",
                           UNKNOWN])
]  # fmt: skip
CUSTOMERS = [_customer(i) for i in range(3)]
PAYOUTS = [
    _payout(i, s, i % 2)
    for i, s in enumerate(["success", "ineligible", "requires_vendor_account_creation",
                           "requires_fulfillment", UNKNOWN])
]  # fmt: skip


def _real_service() -> ScriptedApp:
    """The stub: the real routes the TUI reads, answered in the real shapes; 404 HE_02 else."""
    stub = ScriptedApp(fallback=NOT_A_ROUTE)
    # Not in the document, but the real service answers it (the app's health check asks).
    stub.script("GET", "/health", Reply(200, body=b"health is good", headers={}))
    # Payments: only GET with a query, paged by cursor (a POST gets the fallback, as there).
    stub.route("GET", "/payments/list", lambda asked: payments_list(PAYMENTS, asked))
    for method in ("GET", "POST"):
        stub.script(
            method,
            "/payouts/list",
            Reply(200, {"size": len(PAYOUTS), "data": PAYOUTS, "total_count": len(PAYOUTS)}),
        )
    stub.script(
        "POST",
        "/refunds/list",
        Reply(200, {"count": len(REFUNDS), "total_count": len(REFUNDS), "data": REFUNDS}),
    )
    stub.script("GET", "/disputes/list", Reply(200, DISPUTES))
    stub.script("GET", "/customers/list", Reply(200, CUSTOMERS))
    for payment in PAYMENTS:
        stub.script("GET", f"/payments/{payment['payment_id']}", Reply(200, payment))
    for refund in REFUNDS:
        stub.script("GET", f"/refunds/{refund['refund_id']}", Reply(200, refund))
    for dispute in DISPUTES:
        stub.script("GET", f"/disputes/{dispute['dispute_id']}", Reply(200, dispute))
    for customer in CUSTOMERS:
        stub.script("GET", f"/customers/{customer['customer_id']}", Reply(200, customer))
    for payout in PAYOUTS:
        stub.script("GET", f"/payouts/{payout['payout_id']}", Reply(200, payout))
    return stub


@dataclass
class Remote:
    stub: ScriptedApp
    url: str


@pytest.fixture
async def real_service(dirs: Dirs) -> AsyncIterator[Remote]:
    stub = _real_service()
    server = EmbeddedServer(stub, "127.0.0.1", 0)
    url = await server.start()
    _save_profile(url, MERCHANT, PROFILE, KEY)
    try:
        yield Remote(stub, url)
    finally:
        await server.stop()


def _app(dirs: Dirs) -> PayscopeApp:
    config_dir, data_dir = dirs
    return make_app(
        profile="remote",
        config_dir=config_dir,
        data_dir=data_dir,
        display=STABLE,
        retry_rng=lambda: 0.0,
    )


async def _open_area(pilot: Any, area: str, view_type: type[V]) -> V:
    """`:area`, as a user types it, and wait until its first page is on screen."""
    app = pilot.app
    await pilot.press("colon", *area, "enter")
    view = app.screen.query_one(view_type)
    await until(lambda: (bool(view.loaded) or bool(view.load_error)) and _settled(app))
    assert not view.load_error, f"{area}: {view.load_error}"  # the answer was not read
    await pilot.pause()
    return view


async def _open_row(pilot: Any, view: Any, record_id: str, screen_type: type[S]) -> S:
    """Select a record's row, press Enter, and wait for its detail to load."""
    app = pilot.app
    table = view.table
    table.focus()
    table.move_cursor(row=table.get_row_index(record_id))
    await pilot.press("enter")
    await until(lambda: on_screen(app, screen_type))
    screen = app.screen
    assert isinstance(screen, screen_type)
    await until(lambda: getattr(screen, "record", None) is not None and not screen.busy)
    await until(lambda: _settled(app))
    await pilot.pause()
    return screen


def _kept(record: Any, served: dict[str, Any]) -> None:
    """Every field the service sent is in the record the screen holds, with its value."""
    assert lost(served, record.model_dump(mode="json")) == []


def _sections(screen: Any) -> str:
    """What a detail screen's sections show, as plain text."""
    return " ".join(shown_text(s) for s in screen.query(".section").results(Static))


def _raw_shows_every_field(screen: Any, served: dict[str, Any]) -> None:
    """The detail's raw JSON (`v`) shows every field that has a value (the secret excepted)."""
    raw = shown_text(screen.query_one("#raw", Static))
    hidden = set(screen.raw_exclude)
    for key, value in served.items():
        if value is not None and key not in hidden:
            assert f'"{key}"' in raw, key


def _colours(view: Any, served: list[dict[str, Any]], id_key: str, status_key: str) -> None:
    """Each status in its theme colour: a known one never neutral, an unknown one neutral."""
    table = view.table
    variables = view.app.theme_variables
    for obj in served:
        status = obj[status_key]
        cell = table.get_cell(obj[id_key], "status")
        variable = status_variable(status)
        assert (variable == "status-other") == (status == UNKNOWN), status
        assert str(cell.style).split()[-1] == theme_colour(variables, variable), status


async def test_the_areas_read_the_real_shapes(dirs: Dirs, real_service: Remote) -> None:
    from payscope.areas.customers.detail import CustomerDetailScreen
    from payscope.areas.customers.view import CustomersView
    from payscope.areas.disputes.detail import DisputeDetailScreen
    from payscope.areas.disputes.view import DisputesView
    from payscope.areas.payments.detail import PaymentDetailScreen
    from payscope.areas.payments.view import PaymentsView
    from payscope.areas.payouts.detail import PayoutDetailScreen
    from payscope.areas.payouts.view import PayoutsView
    from payscope.areas.refunds.detail import RefundDetailScreen
    from payscope.areas.refunds.view import RefundsView

    app = _app(dirs)
    async with app.run_test(size=(160, 50)) as pilot:
        await app.runtime.ready.wait()
        assert not app.runtime.options.is_local

        payments = await _open_area(pilot, "payments", PaymentsView)
        assert list(payments.rows) == [p["payment_id"] for p in PAYMENTS]
        for served in PAYMENTS:
            _kept(payments.rows[served["payment_id"]], served)
        _colours(payments, PAYMENTS, "payment_id", "status")
        for served in (PAYMENTS[0], PAYMENTS[2], PAYMENTS[-1]):
            detail = await _open_row(pilot, payments, served["payment_id"], PaymentDetailScreen)
            _kept(detail.record, served)
            _raw_shows_every_field(detail, served)
            shown = _sections(detail)
            for text in ("Visa •••• 4242  exp 03/2030", "credit · JP Morgan", served["status"]):
                assert text in shown, text
            # the decline's unified family (error_details.unified_details), read and said
            decline = " ".join(shown_text(detail.section("decline")).split())
            for text in ("Category UE_1000 Card or method problem", "do not retry"):
                assert text in decline, (text, decline)
            # The payment's refunds: a table of their own, each row opens the refund.
            table = detail.related_section("refunds").table
            refund_id = served["refunds"][0]["refund_id"]
            cells = " ".join(str(c) for c in table.get_row(refund_id))
            for text in ("succeeded", "65.40 USD", "sample", "2022"):
                assert text in cells, (text, cells)
            await pilot.press("escape")

        refunds = await _open_area(pilot, "refunds", RefundsView)
        assert list(refunds.rows) == [r["refund_id"] for r in REFUNDS]
        for served in REFUNDS:
            _kept(refunds.rows[served["refund_id"]], served)
        _colours(refunds, REFUNDS, "refund_id", "status")
        review = REFUNDS[3]
        detail = await _open_row(pilot, refunds, review["refund_id"], RefundDetailScreen)
        _kept(detail.record, review)
        _raw_shows_every_field(detail, review)
        # its times, under the real names created_at / updated_at
        assert "Created         2022-09-10 10:11:12" in _sections(detail)
        assert "Modified        2022-09-10 10:11:12" in _sections(detail)
        await pilot.press("escape")

        disputes = await _open_area(pilot, "disputes", DisputesView)
        assert list(disputes.rows) == [d["dispute_id"] for d in DISPUTES]
        for served in DISPUTES:
            _kept(disputes.rows[served["dispute_id"]], served)
        _colours(disputes, DISPUTES, "dispute_id", "dispute_status")
        detail = await _open_row(pilot, disputes, DISPUTES[1]["dispute_id"], DisputeDetailScreen)
        _kept(detail.record, DISPUTES[1])
        _raw_shows_every_field(detail, DISPUTES[1])
        await pilot.press("escape")

        customers = await _open_area(pilot, "customers", CustomersView)
        assert list(customers.rows) == [c["customer_id"] for c in CUSTOMERS]
        for served in CUSTOMERS:
            _kept(customers.rows[served["customer_id"]], served)
        detail = await _open_row(
            pilot, customers, CUSTOMERS[0]["customer_id"], CustomerDetailScreen
        )
        _kept(detail.record, CUSTOMERS[0])
        _raw_shows_every_field(detail, CUSTOMERS[0])
        assert "Created         2023-01-18 11:04:09" in _sections(detail)  # its created_at
        await pilot.press("escape")

        payouts = await _open_area(pilot, "payouts", PayoutsView)
        assert list(payouts.rows) == [p["payout_id"] for p in PAYOUTS]
        for served in PAYOUTS:
            _kept(payouts.rows[served["payout_id"]], served)
        _colours(payouts, PAYOUTS, "payout_id", "status")
        for served in PAYOUTS[:2]:  # a card, a bank account
            detail = await _open_row(pilot, payouts, served["payout_id"], PayoutDetailScreen)
            _kept(detail.record, served)
            _raw_shows_every_field(detail, served)
            if served["payout_type"] == "card":  # the real card payout method, read and said
                method = " ".join(shown_text(detail.section("method")).split())
                for text in ("Card · Visa", "Card •••• 4242 exp 01/2026", "Card holder John Doe",
                             "Issued debit · JP Morgan"):  # fmt: skip
                    assert text in method, (text, method)
            await pilot.press("escape")

        assert not app.get_screen_main().service_is_down
        # Only the routes the real service has were asked for.
        asked = {(r.method, r.path) for r in real_service.stub.requests}
        assert not [p for _m, p in asked if p.startswith("/_sandbox/")]
        assert ("GET", "/payments/list") in asked and ("POST", "/payments/list") not in asked


# -- snapshots: a payment and the payouts as the real service shapes them -----------------------


class ThreadedStub:
    """The stub served from its own thread and loop: `snap_compare` runs the app in a loop of
    its own, so a server on the test's loop would not answer while that loop waits."""

    def __init__(self, stub: ScriptedApp) -> None:
        self.stub = stub
        self.url = ""
        self._loop: asyncio.AbstractEventLoop | None = None
        self._stop: asyncio.Event | None = None
        self._started = threading.Event()
        self._thread = threading.Thread(target=asyncio.run, args=(self._serve(),), daemon=True)

    async def _serve(self) -> None:
        server = EmbeddedServer(self.stub, "127.0.0.1", 0)
        self.url = await server.start()
        try:
            self._loop = asyncio.get_running_loop()
            self._stop = asyncio.Event()
            self._started.set()
            await self._stop.wait()
        finally:
            await server.stop()

    def __enter__(self) -> ThreadedStub:
        self._thread.start()
        assert self._started.wait(HANG), "the stub did not start in 30 s"
        return self

    def __exit__(self, *_exc: object) -> None:
        if self._loop is not None and self._stop is not None:
            self._loop.call_soon_threadsafe(self._stop.set)
        self._thread.join(30)


@pytest.fixture
def threaded_service(dirs: Dirs) -> Iterator[ThreadedStub]:
    with ThreadedStub(_real_service()) as served:
        _save_profile(served.url, MERCHANT, PROFILE, KEY)
        yield served


async def _payment_detail(pilot: Any) -> None:
    from payscope.areas.payments.detail import PaymentDetailScreen
    from payscope.areas.payments.view import PaymentsView

    app = pilot.app
    await app.runtime.ready.wait()
    view = app.screen.query_one(PaymentsView)
    await until(lambda: bool(view.loaded) and _settled(app))
    await _open_row(pilot, view, PAYMENTS[0]["payment_id"], PaymentDetailScreen)
    app.screen.focus(scroll_visible=False)
    await pilot.pause()


async def _payouts(pilot: Any) -> None:
    from payscope.areas.payouts.view import PayoutsView

    app = pilot.app
    await app.runtime.ready.wait()
    await _open_area(pilot, "payouts", PayoutsView)


@pytest.mark.parametrize(
    ("drive", "theme"),
    [
        pytest.param(_payment_detail, "payscope-dark", id="payment_detail-dark"),
        pytest.param(_payouts, "payscope-light", id="payouts-light"),
    ],
)
def test_snapshot(
    drive: Any, theme: str, dirs: Dirs, threaded_service: ThreadedStub, snap_compare: Any
) -> None:
    config_dir, data_dir = dirs
    app = make_app(
        profile="remote",
        theme=theme,
        config_dir=config_dir,
        data_dir=data_dir,
        display=STABLE,
        retry_rng=lambda: 0.0,
    )
    assert snap_compare(app, terminal_size=(120, 40), run_before=drive)
