"""The new-payment form shows only the chosen way to pay's fields (no card fields for a wallet
or a bank redirect) and says nothing of the local sandbox on a remote profile; the payout form
opens with real values, so Ctrl+S sends at once."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from textual.widget import Widget
from textual.widgets import Button, Select, Static

from payscope.areas.payments.forms import NewPaymentScreen
from tests.tui.pilot import until
from tests.tui.snapshot_app import build, ready
from tests.tui.test_remote_snapshots import remote  # noqa: F401  (the fixture)
from tests.waits import on_screen

Dirs = tuple[Path, Path]
CARD_PARTS = ("card", "expiry", "cvc", "authentication_type")


def _in_sight(form: Any) -> set[str]:
    """The fields a user sees: their widget (`#field-<name>`) displayed and in the layout."""
    return {
        widget.id.removeprefix("field-")
        for widget in form.query(Widget)
        if widget.id
        and widget.id.startswith("field-")
        and widget.display
        and not widget.has_class("-off")
    }


async def _form(pilot: Any) -> NewPaymentScreen:
    await ready(pilot)
    await pilot.press("n")
    await until(lambda: on_screen(pilot.app, NewPaymentScreen))
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


async def test_a_new_payout_sends_at_once_with_the_values_it_opens_with(dirs: Dirs) -> None:
    from payscope.areas.payouts.forms.payout import NewPayoutForm
    from payscope.areas.payouts.view import PayoutsView
    from tests.tui.pilot import open_list

    app = build(*dirs)
    async with app.run_test(size=(120, 40)) as pilot:
        await ready(pilot)
        view = await open_list(pilot, "payouts", PayoutsView, start=False)
        before = set(view.rows)
        await pilot.press("n")
        await until(lambda: on_screen(app, NewPayoutForm))
        form = app.screen
        await pilot.pause()
        assert form.value("card-card_number").replace(" ", "") == "4242424242424242"
        assert (form.value("card-expiry_month"), form.value("card-expiry_year")) == ("10", "2030")
        await pilot.press("ctrl+s")  # nothing typed
        await until(lambda: not isinstance(app.screen, NewPayoutForm), 20)
        made = [t for t in app.told if "Required" in t.message]
        assert made == []
        payouts = await app.runtime.api.payouts.list()
        ids = {p.payout_id for p in payouts.data} - before
        assert len(ids) == 1


async def test_the_email_hint_says_nothing_of_the_local_sandbox_on_a_remote_profile(
    dirs: Dirs,
    remote: Any,  # noqa: F811
) -> None:
    from payscope.app import make_app

    app = make_app(profile="remote", config_dir=dirs[0], data_dir=dirs[1])
    async with app.run_test(size=(120, 40)) as pilot:
        await app.runtime.ready.wait()
        await pilot.pause()
        await pilot.press("n")
        await until(lambda: isinstance(app.screen, NewPaymentScreen), 15)
        form = app.screen
        await pilot.pause()
        hints = form.query("#hint-email")
        hint = str(hints.first(Static).render()) if hints else ""
        assert "+expire" not in hint and "local sandbox" not in hint.lower()
        assert not form.query("#form-pick-card")  # no test-card table there
