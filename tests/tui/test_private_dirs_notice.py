"""The TUI makes its own data and config dirs private when others can read it, and says so once."""

from __future__ import annotations

import os
import stat
from pathlib import Path

from tests.tui.pilot import until
from tests.tui.snapshot_app import build, ready


async def test_a_readable_data_dir_is_made_0700_with_one_notice(dirs: tuple[Path, Path]) -> None:
    config, data = dirs
    os.chmod(data, 0o755)
    os.chmod(config, 0o750)  # group may read it: not private either
    app = build(config, data)
    async with app.run_test(size=(120, 40)) as pilot:
        await ready(pilot)
        said = f"The data dir {data} could be read by other users (mode 0755): it is now 0700"
        await until(lambda: any(said in told[0] for told in app.told))
        (notice,) = [t[0] for t in app.told if "could be read by other users" in t[0]]
        assert f"The config dir {config}" in notice  # both dirs, one notice
    assert stat.S_IMODE(os.stat(data).st_mode) == 0o700
    assert stat.S_IMODE(os.stat(data / "cache").st_mode) == 0o700  # made by payscope: 0700
