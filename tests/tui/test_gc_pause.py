"""The garbage collector is paused from `payscope`'s launch until its runtime is up
(tui/payscope/core/gc_pause.py): Textual's import included, where most of its 76 passes over live
objects were,
and the client's and the listener's imports after the first frame."""

from __future__ import annotations

import gc
import subprocess
import sys
from pathlib import Path

import pytest

from tests.tui.pilot import until
from tests.tui.snapshot_app import build, ready
from tests.waits import HANG

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
        "from payscope.cli import main\n"
        "main(['--profile', 'no-such-profile'])\n"
    )
    env = {"PAYSCOPE_CONFIG_DIR": str(tmp_path / "config"), "PAYSCOPE_DATA_DIR": str(tmp_path)}
    out = subprocess.run(
        [sys.executable, "-c", code],
        capture_output=True,
        text=True,
        cwd=ROOT,
        env={**_environment(), **env},
        timeout=HANG,
    )
    assert "collector on at textual import: False" in out.stdout, out.stdout + out.stderr
    assert out.returncode == 2 and "no-such-profile" in out.stderr  # refused, said


def _environment() -> dict[str, str]:
    import os

    return {k: v for k, v in os.environ.items() if not k.startswith("PAYSCOPE_")}


async def test_the_app_resumes_it_frozen_once_its_runtime_is_up(
    dirs: tuple[Path, Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    from payscope.core import gc_pause

    assert gc.isenabled()
    gc_pause.pause()
    try:
        app = build(*dirs)
        at_first_frame: list[bool] = []
        first_frame_out = app.first_frame_out

        def watched() -> None:
            at_first_frame.append(gc.isenabled())
            first_frame_out()

        monkeypatch.setattr(app, "first_frame_out", watched)
        async with app.run_test(size=(120, 40)) as pilot:
            await ready(pilot)
            assert at_first_frame == [False]  # still paused for the runtime's imports
            assert gc.isenabled() and gc.get_freeze_count() > 0
    finally:
        _restore()


async def test_a_runtime_slow_to_start_has_it_resumed_all_the_same(
    dirs: tuple[Path, Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    """A first run's seeding can take minutes: the collector is not kept off meanwhile."""
    import asyncio

    from payscope.app import app as app_module
    from payscope.core import gc_pause

    monkeypatch.setattr(app_module, "GC_PAUSE_LIMIT", 0.2)
    gc_pause.pause()
    try:
        app = build(*dirs)
        started = asyncio.Event()

        async def seeding(progress: object = None) -> None:
            started.set()
            await asyncio.sleep(30)

        monkeypatch.setattr(app.runtime, "start", seeding)
        async with app.run_test(size=(120, 40)) as pilot:
            await started.wait()
            assert not gc.isenabled()
            await until(gc.isenabled)
            assert not app.runtime.ready.is_set()
            await pilot.pause()
    finally:
        _restore()


def _restore() -> None:
    from payscope.core import gc_pause

    gc_pause.resume()
    gc.unfreeze()  # this test process's objects go back to the collector
    gc.enable()


# `payscope sandbox` and `payscope listen`: paused from launch through their imports and set-up,
# then set aside (gc.freeze) and on again once they serve.
_SANDBOX = (
    "from payscope.cli import sandbox_run as cli\n"
    "from payscope.sandbox import server\n"
    "built = server.Sandbox.__init__\n"
    "def watched(self, *a, **k):\n"
    "    print('building, collector on:', gc.isenabled(), flush=True)\n"
    "    built(self, *a, **k)\n"
    "server.Sandbox.__init__ = watched\n"
    "async def serve(sandbox, host, port):\n"
    "    print('serving, collector on:', gc.isenabled(), gc.get_freeze_count() > 0, flush=True)\n"
    "    return 0\n"
    "cli._serve = serve\n"
    "sys.exit(main(['sandbox', '--port', '0', '--data', DATA]))\n"
)
_LISTEN = (
    "from payscope.webhooks import listener\n"
    "start = listener.Listener.start\n"
    "async def watched(self, *a, **k):\n"
    "    print('building, collector on:', gc.isenabled(), flush=True)\n"
    "    return await start(self, *a, **k)\n"
    "listener.Listener.start = watched\n"
    "def subscribe(self, *a, **k):\n"
    "    print('serving, collector on:', gc.isenabled(), gc.get_freeze_count() > 0, flush=True)\n"
    "    os._exit(0)\n"
    "listener.Listener.subscribe = subscribe\n"
    "sys.exit(main(['listen', '--port', '0', '--data', DATA]))\n"
)


@pytest.mark.parametrize("script", [_SANDBOX, _LISTEN], ids=["sandbox", "listen"])
def test_the_servers_pause_it_until_they_serve(script: str, tmp_path: Path) -> None:
    code = (
        "import gc, os, sys\n"
        "from payscope.cli import main\n"
        f"DATA = {str(tmp_path / 'data')!r}\n" + script
    )
    env = {**_environment(), "PAYSCOPE_WEBHOOK_SECRET": "whsec_" + "k" * 32}
    out = subprocess.run(
        [sys.executable, "-c", code],
        capture_output=True,
        text=True,
        cwd=ROOT,
        env=env,
        timeout=HANG,
    )
    assert "building, collector on: False" in out.stdout, out.stdout + out.stderr
    assert "serving, collector on: True True" in out.stdout, out.stdout + out.stderr
