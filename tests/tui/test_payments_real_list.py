"""Payments on a real-contract profile whose service has only the real `GET /payments/list`
(query parameters, cursor paging, `{size, data}` without a total; a POST is answered 404
`HE_02`): the list shows, `]` and `[` page by cursor with an honest header, a status filter is
matched in the view, a time filter goes to the service as `created_gte`/`created_lte`.

The service is a scripted stub on a real loopback port (`tests.real_payments_list`), standing in
for the remote host. Pages are of 4 here, so a few payments make several pages."""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any
from urllib.parse import parse_qsl

import pytest

from payscope.app import PayscopeApp, make_app
from payscope.core.asgi_server import EmbeddedServer
from payscope.core.display import STABLE
from tests.api.conftest import Recorded, Reply, ScriptedApp, envelope
from tests.real_payments_list import payments_list
from tests.real_shapes import example
from tests.tui.pilot import until
from tests.tui.test_remote_snapshots import _settled

Dirs = tuple[Path, Path]
KEY = "snd_reallist00000000000000000000001"
MERCHANT = "merchant_1668273825"
PROFILE = "pro_reallist000000000001"
STATUSES = ["succeeded", "failed", "processing", "failed", "succeeded",
            "requires_capture", "succeeded", "failed", "succeeded", "cancelled"]  # fmt: skip
# Newest first, one a day from 2024-04-10 down; payments 3 to 6 are cus_b's.
PAYMENTS = [
    example(
        "PaymentsResponse",
        payment_id=f"pay_list{n:04d}",
        status=status,
        amount=1000 + n,
        currency="USD",
        customer_id="cus_b" if 3 <= n <= 6 else "cus_a",
        created=f"2024-04-{11 - n:02d}T12:00:00Z",
        refunds=[],
        disputes=[],
    )
    for n, status in enumerate(STATUSES, start=1)
]
IDS = [p["payment_id"] for p in PAYMENTS]


@pytest.fixture
async def service(dirs: Dirs) -> AsyncIterator[ScriptedApp]:
    from payscope.core import config, secrets

    stub = ScriptedApp(fallback=envelope(404, "HE_02", "Unrecognized request URL"))
    stub.script("GET", "/health", Reply(200, body=b"health is good", headers={}))
    stub.route("GET", "/payments/list", lambda asked: payments_list(PAYMENTS, asked))
    server = EmbeddedServer(stub, "127.0.0.1", 0)
    url = await server.start()
    profile = config.Profile(
        name="remote",
        base_url=url,
        merchant_id=MERCHANT,
        profile_id=PROFILE,
        listener_port=0,
        contract="real",
    )
    config.save_settings(config.add_profile(config.load_settings(), profile))
    secrets.set_secret("remote", KEY)
    try:
        yield stub
    finally:
        await server.stop()


@pytest.fixture(autouse=True)
def _pages_of_four(monkeypatch: pytest.MonkeyPatch) -> None:
    from payscope.areas.payments.view import PaymentsView

    monkeypatch.setattr(PaymentsView, "page_size", 4)


def _app(dirs: Dirs) -> PayscopeApp:
    config_dir, data_dir = dirs
    return make_app(
        profile="remote",
        config_dir=config_dir,
        data_dir=data_dir,
        display=STABLE,
        retry_rng=lambda: 0.0,
    )


def _lists(stub: ScriptedApp) -> list[Recorded]:
    return stub.seen("GET", "/payments/list")


def _query(request: Recorded) -> dict[str, str]:
    return dict(parse_qsl(request.query))


async def _settle(pilot: Any, asked_before: int, stub: ScriptedApp) -> None:
    app = pilot.app
    await until(lambda: len(_lists(stub)) > asked_before and _settled(app))
    await pilot.pause()


async def _filter(pilot: Any, view: Any, stub: ScriptedApp, text: str) -> None:
    before = len(_lists(stub))
    await pilot.press("slash")
    view.query_one(".filter-box").value = text
    await pilot.press("enter")
    await until(lambda: view.filter.text == text)
    await _settle(pilot, before, stub)


async def test_payments_page_by_cursor_and_filter_on_the_real_list(
    dirs: Dirs, service: ScriptedApp
) -> None:
    from payscope.areas.payments.view import PaymentsView

    app = _app(dirs)
    async with app.run_test(size=(160, 40)) as pilot:
        await app.runtime.ready.wait()
        assert app.runtime.api.contract == "real"
        view = app.screen.query_one(PaymentsView)
        await until(lambda: bool(view.loaded or view.load_error) and _settled(app))
        assert not view.load_error
        await pilot.pause()

        def header() -> str:
            return view.header_text().plain

        assert list(view.rows) == IDS[:4]
        assert "1-4 of 4 or more  page 1" in header()  # no total: never a made-up one
        assert _query(_lists(service)[-1]) == {"limit": "4"}

        # ] : the next page, asked for after the last payment shown
        for shown, cursor, said in (
            (IDS[4:8], IDS[3], "5-8 of 8 or more  page 2"),
            (IDS[8:], IDS[7], "9-10 of 10  page 3/3"),  # not full: the last page
        ):
            asked = len(_lists(service))
            await pilot.press("right_square_bracket")
            await _settle(pilot, asked, service)
            assert list(view.rows) == shown
            assert _query(_lists(service)[-1]) == {"limit": "4", "starting_after": cursor}
            assert said in header()
        asked = len(_lists(service))
        await pilot.press("right_square_bracket")  # there is no page 4: nothing is asked
        await pilot.pause()
        assert len(_lists(service)) == asked and list(view.rows) == IDS[8:]

        # [ : back, by the cursors remembered, to the first page (no cursor at all)
        for shown, query in (
            (IDS[4:8], {"limit": "4", "starting_after": IDS[3]}),
            (IDS[:4], {"limit": "4"}),
        ):
            asked = len(_lists(service))
            await pilot.press("left_square_bracket")
            await _settle(pilot, asked, service)
            assert list(view.rows) == shown
            assert _query(_lists(service)[-1]) == query
        assert "1-4 of 4 or more  page 1" in header()

        # a status filter: matched here over the newest payments (the route has no status)
        asked = len(_lists(service))
        await _filter(pilot, view, service, "status:failed")
        failed = [p["payment_id"] for p in PAYMENTS if p["status"] == "failed"]
        assert list(view.rows) == failed
        assert "3 matches in all 10 payments" in header()
        assert [_query(r) for r in _lists(service)[asked:]] == [
            {"limit": "4"},
            {"limit": "4", "starting_after": IDS[3]},
            {"limit": "4", "starting_after": IDS[7]},
        ]

        # a time filter: sent to the service as created_gte / created_lte
        await _filter(pilot, view, service, "from:2024-04-03 to:2024-04-05")
        assert list(view.rows) == IDS[5:8]  # created 04-05, 04-04, 04-03
        assert _query(_lists(service)[-1]) == {
            "limit": "4",
            "created_gte": "2024-04-03T00:00:00Z",
            "created_lte": "2024-04-05T23:59:59Z",
        }
        assert "1-3 of 3  page 1/1" in header()

        # a customer with exactly a page of payments: ] finds nothing more, the page stays
        await _filter(pilot, view, service, "customer:cus_b")
        assert list(view.rows) == IDS[2:6]
        assert "1-4 of 4 or more" in header()
        asked = len(_lists(service))
        await pilot.press("right_square_bracket")
        await _settle(pilot, asked, service)
        assert _query(_lists(service)[-1]) == {
            "limit": "4",
            "customer_id": "cus_b",
            "starting_after": IDS[5],
        }
        assert list(view.rows) == IDS[2:6] and view.page_offset == 0
        assert "1-4 of 4  page 1/1" in header()

        assert not service.seen("POST", "/payments/list")
        assert not view.load_error
