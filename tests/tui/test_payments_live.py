"""A payment made elsewhere appears on top of Payments at every width, with no error."""

from __future__ import annotations

from pathlib import Path

import pytest

from payscope.areas.payments.view import PaymentsView
from tests.tui.pilot import create_payment, until
from tests.tui.snapshot_app import build, ready


@pytest.mark.parametrize("size", [(120, 40), (80, 24)])
async def test_a_new_payment_goes_on_top_by_its_webhook(
    dirs: tuple[Path, Path], size: tuple[int, int]
) -> None:
    app = build(*dirs)
    async with app.run_test(size=size) as pilot:
        await ready(pilot)
        view = app.screen.query_one(PaymentsView)
        payment = await create_payment(app.runtime.client, payment_id=f"pay_live_{size[0]}")
        await until(lambda: payment.payment_id in view.rows)
        await app.workers.wait_for_complete()
        await pilot.pause()
        assert view.table.get_row_index(payment.payment_id) == 0
        errors = [n.message for n in app.told if n.severity == "error"]
        assert errors == []
