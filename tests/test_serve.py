"""`payscope serve` (issue 34): loopback by default, another host refused without --public and
said plainly with it, the URL printed, a real textual-serve page served, Ctrl+C stops it;
`--demo` refuses a broken story before serving. In a real browser: tests/test_serve_browser.py."""

from __future__ import annotations

import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

import httpx
import pytest

from tui.cli import main
from tui.serve_cli import is_loopback


@pytest.mark.parametrize(
    ("host", "loopback"),
    [
        ("127.0.0.1", True),
        ("127.1.2.3", True),
        ("::1", True),
        ("localhost", True),
        ("0.0.0.0", False),
        ("192.168.1.5", False),
        ("::", False),
        ("example.com", False),
    ],
)
def test_loopback_is_told_apart(host: str, loopback: bool) -> None:
    assert is_loopback(host) is loopback


def test_a_host_that_is_not_loopback_needs_public(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["serve", "--host", "0.0.0.0", "--port", "8123"]) == 2
    err = capsys.readouterr().err
    assert "not a loopback address" in err and "drives payscope with its keys" in err
    assert "--public" in err


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def test_it_serves_the_page_prints_the_url_and_stops_on_ctrl_c() -> None:
    port = _free_port()
    process = subprocess.Popen(
        [sys.executable, "-m", "tui", "serve", "--port", str(port)],
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
    )
    try:
        url = f"http://127.0.0.1:{port}"
        deadline = time.monotonic() + 20
        page = None
        while page is None:
            assert process.poll() is None, process.communicate()[0]
            assert time.monotonic() < deadline, "nothing served"
            try:
                page = httpx.get(url + "/", timeout=2)
            except httpx.TransportError:
                time.sleep(0.1)
        assert page.status_code == 200
        assert "textual.js" in page.text and "payscope" in page.text  # textual-serve's page
        process.send_signal(signal.SIGINT)  # what Ctrl+C sends
        out, _ = process.communicate(timeout=15)
        assert process.returncode == 0, out
        assert f"open {url} in a browser" in out
        assert "payscope serve: stopped" in out
        with pytest.raises(httpx.TransportError):
            httpx.get(url + "/", timeout=2)
    finally:
        if process.poll() is None:
            process.kill()
            process.wait()


def test_serve_demo_refuses_a_broken_story_before_serving(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    story = tmp_path / "mine.toml"
    story.write_text('[[step]]\ncaption = "one"\n[[step]]\nkeys = ["enter"]\ntimeout = "soon"\n')
    assert main(["serve", "--demo", str(story), "--port", str(_free_port())]) == 2
    err = capsys.readouterr().err
    assert "step 2, field 'timeout'" in err and "mine.toml" in err
    assert main(["serve", "--demo", "no-such-story"]) == 2
    assert "developer, support, tour" in capsys.readouterr().err


def test_each_tab_runs_this_payscope_or_the_demo_as_the_servers_own_child(
    tmp_path: Path,
) -> None:
    from tui.cli import build_parser
    from tui.serve_cli import command_for

    plain = command_for(build_parser().parse_args(["--profile", "staging", "serve"]))
    assert plain == f"exec {sys.executable} -m tui --profile staging"
    demo = command_for(build_parser().parse_args(["serve", "--demo", "tour", "--pace", "2"]))
    assert demo == f"exec {sys.executable} -m tui demo tour --pace 2"
    story = tmp_path / "mine.toml"
    story.write_text('[[step]]\ncaption = "one"\n')
    own = command_for(build_parser().parse_args(["serve", "--demo", str(story)]))
    assert own.endswith(f"demo {story.resolve()} --pace 1")
