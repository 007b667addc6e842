"""The new-payment form shows only the chosen way to pay's fields (no card fields for a wallet
or a bank redirect) and says nothing of the local sandbox on a remote profile; the payout form
opens with real values, so Ctrl+S sends at once."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from textual.widgets import Button, Select

from tests.tui.pilot import until
from tests.tui.snapshot_app import build, ready
from tui.areas.payments.forms import NewPaymentScreen

Dirs = tuple[Path, Path]
CARD_PARTS = ("card", "expiry", "cvc", "authentication_type")


def _in_sight(form: Any) -> set[str]:
    """The fields a user sees: their widget displayed and in the layout."""
    return {
        f.name
        for f in form._fields
        if f.widget.is_attached and f.widget.display and not f.widget.has_class("-off")
    }


async def _form(pilot: Any) -> NewPaymentScreen:
    await ready(pilot)
    await pilot.press("n")
    await until(lambda: isinstance(pilot.app.screen, NewPaymentScreen))
    form = pilot.app.screen
    assert isinstance(form, NewPaymentScreen)
    await pilot.pause()
    return form


async def test_only_the_chosen_methods_fields_show(dirs: Dirs) -> None:
    app = build(*dirs)
    async with app.run_test(size=(120, 40)) as pilot:
        form = await _form(pilot)
        shown = _in_sight(form)
        assert set(CARD_PARTS) <= shown
        assert form.query_one("#form-pick-card").display
        for family in ("wallet", "bank_redirect"):
            form.query_one("#field-method", Select).value = family
            await pilot.pause()
            await pilot.pause()
            shown = _in_sight(form)
            assert not set(CARD_PARTS) & shown, (family, shown)
            assert f"{family}-kind" in shown
            picker = form.query_one("#form-pick-card", Button)
            assert str(picker.label) != "Test cards…"  # test values, when the method has any
        form.query_one("#field-method", Select).value = "card"
        await pilot.pause()
        await pilot.pause()
        assert set(CARD_PARTS) <= _in_sight(form)
        assert str(form.query_one("#form-pick-card", Button).label) == "Test cards…"
