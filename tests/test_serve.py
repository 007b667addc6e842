"""`payscope serve` (issue 34): loopback by default, another host refused without --public and
said plainly with it, the URL printed, a real textual-serve page served, Ctrl+C stops it;
`--demo` refuses a broken story before serving. In a real browser: tests/test_serve_browser.py."""

from __future__ import annotations

import re
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import aiohttp
import httpx
import pytest

from payscope.cli import build_parser, main
from payscope.cli.serve_run import command_for, is_loopback
from tests.waits import HANG, REQUEST_TIMEOUT


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


_PRINTED = re.compile(r"open (http://127\.0\.0\.1:(\d+)/\?token=([A-Za-z0-9_-]+)) in a browser")


@dataclass
class Served:
    process: subprocess.Popen[str]
    url: str  # as printed, with its token
    origin: str
    token: str
    first_line: str


def start_serve(*extra: str) -> Served:
    """`payscope serve` in a real process; returns once it accepts connections."""
    port = _free_port()
    process = subprocess.Popen(
        [sys.executable, "-m", "payscope", "serve", "--port", str(port), *extra],
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
    )
    assert process.stdout is not None
    line = process.stdout.readline()  # said before it serves
    found = _PRINTED.search(line)
    assert found, line + process.communicate(timeout=HANG)[0]
    origin = f"http://127.0.0.1:{port}"
    deadline = time.monotonic() + 20
    while True:
        assert process.poll() is None, process.communicate()[0]
        assert time.monotonic() < deadline, "nothing served"
        with socket.socket() as probe:
            if probe.connect_ex(("127.0.0.1", port)) == 0:
                return Served(process, found.group(1), origin, found.group(3), line)
        time.sleep(0.05)


def stop_serve(served: Served) -> str:
    """Ctrl+C (SIGINT) to the process started here; what it printed in all."""
    served.process.send_signal(signal.SIGINT)  # what Ctrl+C sends, to the process we started
    out, _ = served.process.communicate(timeout=HANG)
    assert served.process.returncode == 0, out
    return served.first_line + out


@pytest.fixture
def served() -> Iterator[Served]:
    running = start_serve()
    try:
        yield running
    finally:
        if running.process.poll() is None:  # the process this fixture started
            running.process.kill()
            running.process.wait()


def test_it_serves_the_page_prints_the_url_and_stops_on_ctrl_c(served: Served) -> None:
    with httpx.Client(
        timeout=REQUEST_TIMEOUT, follow_redirects=True
    ) as browser:  # cookies kept, as a browser
        opened = browser.get(served.url)  # the printed URL: its cookie, then the page at /
        assert [r.status_code for r in opened.history] == [303]
        assert opened.status_code == 200 and str(opened.url) == served.origin + "/"
        assert "textual.js" in opened.text and "payscope" in opened.text  # textual-serve's page
        assert served.token not in opened.text
        cookie = opened.history[0].headers["set-cookie"]
        assert "HttpOnly" in cookie and "SameSite=Strict" in cookie
        reloaded = browser.get(served.origin + "/")  # a reload: the cookie is enough
        assert reloaded.status_code == 200 and "textual.js" in reloaded.text
        assert browser.get(served.origin + "/static/js/textual.js").status_code == 200
    out = stop_serve(served)
    assert f"open {served.url} in a browser" in out
    assert "payscope serve: stopped" in out
    assert out.count(served.token) == 1  # said once: the printed URL, nothing else
    with pytest.raises(httpx.TransportError):
        httpx.get(served.origin + "/", timeout=2)  # not a deadline: nothing may answer


def test_without_the_token_nothing_is_served(served: Served) -> None:
    for path in ("/", "/?fontsize=20", "/static/js/textual.js", "/download/x", "/ws"):
        bare = httpx.get(served.origin + path, timeout=REQUEST_TIMEOUT)
        assert bare.status_code == 403, (path, bare.text)
        assert "token needed" in bare.text and "printed" in bare.text
    wrong = httpx.get(served.origin + "/?token=" + "x" * len(served.token), timeout=REQUEST_TIMEOUT)
    assert wrong.status_code == 403 and "not this server's" in wrong.text
    other_port = httpx.get(
        served.origin + "/", cookies={"payscope-serve-1": served.token}, timeout=REQUEST_TIMEOUT
    )
    assert other_port.status_code == 403  # the cookie is this port's own
    for answer in (bare, wrong):
        assert served.token not in answer.text


@pytest.mark.parametrize(
    "host", ["evil.example", "evil.example:{port}", "localhost:{port}", "127.0.0.1", "[::1]:{port}"]
)
def test_a_forged_host_is_refused_even_with_the_token(served: Served, host: str) -> None:
    # DNS rebinding: a page at evil.example, its name pointed at 127.0.0.1, says its own name.
    port = served.origin.rsplit(":", 1)[1]
    forged = host.format(port=port)
    for url in (served.url, served.origin + "/ws"):
        answer = httpx.get(
            url,
            headers={"Host": forged},
            cookies={f"payscope-serve-{port}": served.token},
            timeout=REQUEST_TIMEOUT,
        )
        assert answer.status_code == 403, answer.text
        assert "wrong address" in answer.text and "DNS rebinding" in answer.text
        assert served.token not in answer.text


async def test_a_websocket_from_another_origin_is_refused(served: Served) -> None:
    port = served.origin.rsplit(":", 1)[1]
    cookie = {f"payscope-serve-{port}": served.token}
    async with aiohttp.ClientSession(cookies=cookie) as session:
        for origin in ("http://evil.example", "null", "http://localhost:" + port, None):
            headers = {"Origin": origin} if origin is not None else {}
            with pytest.raises(aiohttp.WSServerHandshakeError) as refused:
                await session.ws_connect(served.origin + "/ws", headers=headers)
            assert refused.value.status == 403, origin
    # The right origin without the cookie or the token: refused too.
    async with aiohttp.ClientSession() as session:
        with pytest.raises(aiohttp.WSServerHandshakeError) as refused:
            await session.ws_connect(served.origin + "/ws", headers={"Origin": served.origin})
        assert refused.value.status == 403
    assert _apps_under(served.process.pid) == []  # no payscope was started for any of them


def _apps_under(pid: int) -> list[int]:
    """The processes whose parent is `pid` (a tab's payscope is the server's own child)."""
    children = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                stat = (entry / "stat").read_text()
            except OSError:
                continue
            if int(stat.rsplit(")", 1)[1].split()[1]) == pid:
                children.append(int(entry.name))
    return children


def test_public_still_needs_the_token_and_says_how_to_pass_it_on(
    capsys: pytest.CaptureFixture[str],
) -> None:
    assert main(["serve", "--host", "0.0.0.0", "--port", "8123"]) == 2  # refused before it binds
    err = capsys.readouterr().err
    assert "holds the URL's token" in err and "--public" in err

    # With --public (on every address, for the few seconds of the test; the token guards it).
    port = _free_port()
    command = [sys.executable, "-m", "payscope", "serve", "--host", "0.0.0.0", "--public"]
    process = subprocess.Popen(
        [*command, "--port", str(port)],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        assert process.stdout is not None and process.stderr is not None
        warning = process.stderr.readline()
        line = process.stdout.readline()
        name = f"{socket.gethostname()}:{port}"
        printed = re.search(rf"open (http://{re.escape(name)}/\?token=([\w-]+)) in a browser", line)
        assert printed, line
        assert "WARNING: serving on 0.0.0.0" in warning
        assert "Pass the whole URL on only to whom should drive it" in warning
        assert "plain http" in warning and printed.group(2) not in warning
        deadline = time.monotonic() + 20
        while True:
            with socket.socket() as probe:
                if probe.connect_ex(("127.0.0.1", port)) == 0:
                    break
            assert process.poll() is None and time.monotonic() < deadline, "nothing served"
            time.sleep(0.05)
        base = f"http://127.0.0.1:{port}"
        as_named = {"Host": name}  # as a browser that opened the printed URL sends it
        bare = httpx.get(base + "/", headers=as_named, timeout=REQUEST_TIMEOUT)
        assert bare.status_code == 403 and "token needed" in bare.text
        query = "/?token=" + printed.group(2)
        opened = httpx.get(base + query, headers=as_named, timeout=REQUEST_TIMEOUT)
        assert opened.status_code == 303 and "set-cookie" in opened.headers
        elsewhere = httpx.get(
            base + query, timeout=REQUEST_TIMEOUT
        )  # Host 127.0.0.1: not the name printed
        assert elsewhere.status_code == 403 and "wrong address" in elsewhere.text
    finally:
        process.send_signal(signal.SIGINT)  # the process this test started
        try:
            process.communicate(timeout=30)
        except subprocess.TimeoutExpired:
            process.kill()
            process.communicate()


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
    plain = command_for(build_parser().parse_args(["--profile", "staging", "serve"]))
    assert plain == f"exec {sys.executable} -m payscope --profile staging"
    demo = command_for(build_parser().parse_args(["serve", "--demo", "tour", "--pace", "2"]))
    assert demo == f"exec {sys.executable} -m payscope demo tour --pace 2"
    story = tmp_path / "mine.toml"
    story.write_text('[[step]]\ncaption = "one"\n')
    own = command_for(build_parser().parse_args(["serve", "--demo", str(story)]))
    assert own.endswith(f"demo {story.resolve()} --pace 1")
