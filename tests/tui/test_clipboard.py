"""Copying where people work (`payscope.views.clipboard`): which commands are tried and what each
copy says, with a real tmux server (a private socket) and, where a desktop cannot be real here,
a stand-in `xclip` on PATH that keeps what it is given; and a card payment's curl copied from
Requests, run with real `curl` against the sandbox."""

from __future__ import annotations

import asyncio
import json
import os
import shutil
import stat
import subprocess
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from payscope.areas.requests.view import RequestsView
from payscope.views.clipboard import NO_COMMAND, CopiedScreen, deliver, tools
from tests.tui.pilot import create_payment, open_list, run_command, until
from tests.tui.snapshot_app import build, ready
from tests.waits import awaited, on_screen

Dirs = tuple[Path, Path]
TMUX = shutil.which("tmux")
needs_tmux = pytest.mark.skipif(TMUX is None, reason="tmux is not installed")


@pytest.fixture
def tmux_server(tmp_path: Path) -> Iterator[tuple[str, Path]]:
    """A tmux server of this test's own (its own socket): ($TMUX as inside it, the socket)."""
    assert TMUX is not None
    socket = tmp_path / "tmux.sock"
    subprocess.run(
        [TMUX, "-S", str(socket), "-f", "/dev/null", "new-session", "-d", "-s", "t"], check=True
    )
    pid = subprocess.run(
        [TMUX, "-S", str(socket), "display-message", "-p", "#{pid}"],
        check=True,
        capture_output=True,
        text=True,
    ).stdout.strip()
    try:
        yield f"{socket},{pid},0", socket
    finally:
        subprocess.run([TMUX, "-S", str(socket), "kill-server"], check=False)


def _buffer(socket: Path) -> str:
    assert TMUX is not None
    return subprocess.run(
        [TMUX, "-S", str(socket), "show-buffer"], check=True, capture_output=True, text=True
    ).stdout


def _fake_xclip(directory: Path, status: int = 0) -> Path:
    """An `xclip` that keeps what it reads in `directory/xclip.out` (no X server here)."""
    directory.mkdir(exist_ok=True)
    kept = directory / "xclip.out"
    script = directory / "xclip"
    script.write_text(f'#!/bin/sh\necho "$@" > "{kept}.args"\ncat > "{kept}"\nexit {status}\n')
    script.chmod(script.stat().st_mode | stat.S_IXUSR)
    return kept


def _env(path: str, **extra: str) -> dict[str, str]:
    return {"PATH": path, "HOME": os.environ.get("HOME", "/tmp"), **extra}


def test_nothing_to_run_writes_a_private_file_and_a_secret_never(tmp_path: Path) -> None:
    empty = tmp_path / "bin"
    empty.mkdir()
    env = _env(str(empty), DISPLAY=":0", WAYLAND_DISPLAY="wayland-0")
    assert tools(env, platform="linux") == []  # nothing on PATH, whatever the display says
    copied = deliver("curl -sS http://x", "as curl", env, tmp_path / "copied", platform="linux")
    assert not copied.reached and copied.places == []
    assert copied.file is not None and copied.file.parent == tmp_path / "copied"
    assert copied.file.read_text() == "curl -sS http://x\n"
    assert stat.S_IMODE(copied.file.stat().st_mode) == 0o600
    assert stat.S_IMODE(copied.file.parent.stat().st_mode) == 0o700
    assert copied.summary() == "Copied as curl to the terminal (OSC 52), if it allows."

    secret = deliver("snd_abc", "the API key", env, tmp_path / "s", secret=True, platform="linux")
    assert secret.file is None and not (tmp_path / "s").exists()


def test_xclip_is_used_with_a_display_and_a_failing_one_is_not_counted(tmp_path: Path) -> None:
    kept = _fake_xclip(tmp_path / "bin")
    env = _env(f"{tmp_path / 'bin'}:/usr/bin:/bin", DISPLAY=":0")
    copied = deliver("hello", "the link", env, tmp_path / "copied", platform="linux")
    assert copied.places == ["the X clipboard (xclip)"] and copied.file is None
    assert kept.read_text() == "hello"
    assert Path(f"{kept}.args").read_text().split() == ["-selection", "clipboard", "-in"]
    assert copied.summary() == (
        "Copied the link to the X clipboard (xclip) and the terminal (OSC 52), if it allows."
    )
    # Without a display xclip is not tried; an xclip that fails does not count as a copy.
    assert tools(_env(env["PATH"]), platform="linux") == []
    _fake_xclip(tmp_path / "broken", status=1)
    env = _env(f"{tmp_path / 'broken'}:/usr/bin:/bin", DISPLAY=":0")
    failed = deliver("hello", "the link", env, tmp_path / "copied", platform="linux")
    assert not failed.reached and failed.file is not None


def test_pbcopy_only_on_macos(tmp_path: Path) -> None:
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    (bin_dir / "pbcopy").write_text("#!/bin/sh\ncat >/dev/null\n")
    (bin_dir / "pbcopy").chmod(0o700)
    env = _env(str(bin_dir))
    assert [t.place for t in tools(env, platform="darwin")] == ["the macOS clipboard (pbcopy)"]
    assert tools(env, platform="linux") == []


@needs_tmux
def test_inside_tmux_the_buffer_takes_it_with_the_desktop_too(
    tmp_path: Path, tmux_server: tuple[str, Path]
) -> None:
    tmux_env, socket = tmux_server
    kept = _fake_xclip(tmp_path / "bin")
    env = _env(f"{tmp_path / 'bin'}:/usr/bin:/bin", TMUX=tmux_env, DISPLAY=":0")
    copied = deliver("it's 'quoted'\nand two lines", "as curl", env, None, platform="linux")
    assert copied.places == ["the tmux paste buffer", "the X clipboard (xclip)"]
    assert _buffer(socket) == "it's 'quoted'\nand two lines"
    assert kept.read_text() == "it's 'quoted'\nand two lines"
    # $TMUX naming a server that is gone: tmux fails, and that is said as no copy.
    gone = _env("/usr/bin:/bin", TMUX=f"{tmp_path / 'no.sock'},1,0")
    lost = deliver("x", "the link", gone, tmp_path / "copied", platform="linux")
    assert not lost.reached and lost.file is not None


@needs_tmux
@pytest.mark.skipif(shutil.which("curl") is None, reason="curl is not installed")
async def test_a_card_payments_curl_copied_in_tmux_runs_against_the_sandbox(
    dirs: Dirs, tmux_server: tuple[str, Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    tmux_env, socket = tmux_server
    monkeypatch.setenv("TMUX", tmux_env)
    for name in ("DISPLAY", "WAYLAND_DISPLAY"):
        monkeypatch.delenv(name, raising=False)
    app = build(*dirs)
    async with app.run_test(size=(120, 40)) as pilot:
        await ready(pilot)
        await create_payment(app.runtime.api, card="4242424242424242", amount=1234)
        view = await open_list(pilot, "requests", RequestsView, start=False)
        row = next(
            key
            for key, e in view.rows.items()
            if e.method == "POST" and e.path == "/payments" and e.ok
        )
        view.table.move_cursor(row=view.table.get_row_index(row))
        await pilot.pause()
        await pilot.press("y")
        await until(lambda: on_screen(app, CopiedScreen))
        copied = app.last_copy
        curl = copied.text
        assert copied.places == ["the tmux paste buffer"]
        assert _buffer(socket) == curl == app.clipboard
        assert "4242424242424242" in curl and '"card_cvc": "123"' in curl  # a test card
        assert app.runtime.sandbox.credentials.api_key not in curl
        said = str(app.screen.query_one("#copied-where").render())
        assert "Copied as curl to the tmux paste buffer and the terminal (OSC 52)" in said
        await pilot.press("escape")

        await run_command(pilot, "sandbox")
        await pilot.pause()
        await pilot.press("x")
        await until(lambda: app.last_copy is not copied)
        exports = app.last_copy.text
        # Another terminal: a clean environment, the exports pasted, then the curl as copied.
        shell = await asyncio.create_subprocess_exec(
            "bash",
            "-c",
            f"{exports}\n{curl}",
            env={"PATH": "/usr/bin:/bin"},
            stdout=asyncio.subprocess.PIPE,
            stderr=asyncio.subprocess.PIPE,
        )
        out, err = await awaited(shell.communicate())
        assert shell.returncode == 0, err.decode()
        answer = json.loads(out)
        assert answer["status"] == "succeeded", answer
        assert answer["amount"] == 1234 and answer["payment_id"].startswith("pay_")


async def test_with_nothing_to_run_a_copy_shows_the_text_and_its_file(
    dirs: Dirs, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    empty = tmp_path / "nothing"
    empty.mkdir()
    for name in ("TMUX", "DISPLAY", "WAYLAND_DISPLAY"):
        monkeypatch.delenv(name, raising=False)
    app = build(*dirs)
    async with app.run_test(size=(120, 40)) as pilot:
        await ready(pilot)
        await run_command(pilot, "sandbox")
        await pilot.pause()
        monkeypatch.setenv("PATH", str(empty))  # no clipboard command from here on
        view: Any = app.screen.query_one("SandboxView")
        view.values_table.move_cursor(row=view.values_table.get_row_index("merchant_id"))
        await pilot.press("y")
        await until(lambda: app.last_copy is not None)
        copied = app.last_copy
        merchant = app.runtime.sandbox.credentials.merchant_id
        assert copied.text == merchant and not copied.reached
        assert copied.file is not None and copied.file.read_text() == merchant + "\n"
        assert copied.file.parent == dirs[1] / "copied"
        await until(lambda: any(NO_COMMAND in t.message for t in app.told))
        told = next(t for t in app.told if NO_COMMAND in t.message)
        assert told.message.startswith(merchant + "\n")  # the text, to select by hand
        assert f"Also written to {copied.file}" in told.message

        # A secret: said, never written to a file, nor shown in the toast.
        view.values_table.move_cursor(row=view.values_table.get_row_index("api_key"))
        await pilot.press("y")
        await until(lambda: app.last_copy is not copied)
        key = app.runtime.sandbox.credentials.api_key
        assert app.last_copy.file is None and app.clipboard == key
        await until(lambda: any("Masked here" in t.message for t in app.told))
        assert all(key not in t.message for t in app.told)
        assert sorted(p.name for p in (dirs[1] / "copied").iterdir()) == [copied.file.name]
