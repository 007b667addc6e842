"""The garbage collector is paused from `payscope`'s launch to the first frame (tui/gc_pause.py):
Textual's import included, where most of its 76 passes over live objects were."""

from __future__ import annotations

import gc
import subprocess
import sys
from pathlib import Path

from tests.tui.snapshot_app import build, ready

ROOT = Path(__file__).resolve().parents[2]


def test_the_command_line_pauses_it_before_textual_is_imported(tmp_path: Path) -> None:
    code = (
        "import gc, importlib.abc, sys\n"
        "class Watch(importlib.abc.MetaPathFinder):\n"
        "    def find_spec(self, name, path, target=None):\n"
        "        if name == 'textual':\n"
        "            print('collector on at textual import:', gc.isenabled(), flush=True)\n"
        "        return None\n"
        "sys.meta_path.insert(0, Watch())\n"
        "from tui.cli import main\n"
        "main(['--profile', 'no-such-profile'])\n"
    )
    env = {"PAYSCOPE_CONFIG_DIR": str(tmp_path / "config"), "PAYSCOPE_DATA_DIR": str(tmp_path)}
    out = subprocess.run(
        [sys.executable, "-c", code],
        capture_output=True,
        text=True,
        cwd=ROOT,
        env={**_environment(), **env},
        timeout=60,
    )
    assert "collector on at textual import: False" in out.stdout, out.stdout + out.stderr
    assert out.returncode == 2 and "no-such-profile" in out.stderr  # refused, said


def _environment() -> dict[str, str]:
    import os

    return {k: v for k, v in os.environ.items() if not k.startswith("PAYSCOPE_")}


async def test_the_app_resumes_it_once_the_shell_is_on_screen(dirs: tuple[Path, Path]) -> None:
    from tui import gc_pause

    assert gc.isenabled()
    gc_pause.pause()
    try:
        assert not gc.isenabled()
        app = build(*dirs)
        async with app.run_test(size=(120, 40)) as pilot:
            await ready(pilot)
            assert gc.isenabled()
    finally:
        gc_pause.resume()
        gc.enable()
