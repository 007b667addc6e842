import pytest

from tests.tui.snapshot_app import build, ready


@pytest.mark.parametrize("i", range(80))
async def test_start(i, dirs):
    app = build(*dirs)
    async with app.run_test(size=(120, 40)) as pilot:
        await ready(pilot)
