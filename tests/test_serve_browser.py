"""`payscope serve` in a real browser (issue 34): Debian's chromium, headless, drives the page
textual-serve serves, through the Chrome DevTools protocol.

The terminal's text is read from the page: xterm.js's DOM renderer draws each row as text in
`.xterm-rows`. (The page also loads xterm's WebGL and canvas renderers, which draw into canvases;
the test's browser is given no canvas context for the terminal's layers, so xterm keeps its DOM
renderer. Everything else is as a person's browser runs it.) Keys are real key events sent to
the browser, which xterm.js turns into the bytes a terminal sends.

What it proves: the Payments rows arrive in the page; Enter opens a payment; a key makes a payment
and its row arrives live in a second tab (its own payscope, on the same background sandbox);
`y` puts the text in the browser's clipboard and `o` opens a tab in the browser (textual-serve's
own means, not the server machine's); Ctrl+C (SIGINT) to the server stops it and leaves no app
process behind. `payscope serve --demo` plays a story in the page.

chromium is needed: CI installs it (.ci/run) and sets PAYSCOPE_REQUIRE_BROWSER=1, so a machine
without it fails there; elsewhere the test is skipped, saying why.
"""

from __future__ import annotations

import asyncio
import contextlib
import http.server
import itertools
import json
import os
import re
import shutil
import signal
import socket
import subprocess
import sys
import threading
import time
from collections.abc import AsyncIterator, Awaitable, Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import aiohttp
import pytest

from payscope.sandbox import daemon
from tests.waits import HANG, awaited, until

EVIL_NAME = "evil.example"
CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
REQUIRED = os.environ.get("PAYSCOPE_REQUIRE_BROWSER") == "1"

# Before the page's own scripts: no canvas context for xterm's layers (its DOM renderer draws
# the rows as text), and a record of what reaches the browser's clipboard and window.open.
_PAGE_SETUP = """
(() => {
  const context = HTMLCanvasElement.prototype.getContext;
  HTMLCanvasElement.prototype.getContext = function (kind, ...rest) {
    if (kind === "webgl2" || kind === "webgl") return null;
    if (kind === "2d" && /xterm-/.test(this.className)) return null;
    return context.call(this, kind, ...rest);
  };
  window.__copied = [];
  if (navigator.clipboard) {
    const write = navigator.clipboard.writeText.bind(navigator.clipboard);
    navigator.clipboard.writeText = (text) => {
      window.__copied.push(text);
      return write(text).catch(() => undefined);
    };
  }
  window.__opened = [];
  window.open = (url, target) => { window.__opened.push([url, target]); return null; };
})();
"""

# CDP key events: (key, code, virtual key code, text)
_SPECIAL = {
    "enter": ("Enter", "Enter", 13, "\r"),
    "escape": ("Escape", "Escape", 27, ""),
}


def _need_chromium() -> str:
    if CHROMIUM is None:
        message = (
            "chromium is not installed (apt-get install chromium): the real-browser test of "
            "payscope serve needs it"
        )
        if REQUIRED:
            pytest.fail(message + " (PAYSCOPE_REQUIRE_BROWSER=1)")
        pytest.skip(message + "; CI installs it and sets PAYSCOPE_REQUIRE_BROWSER=1")
    return CHROMIUM


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _apps(pid: int, *, listeners: bool = False) -> dict[int, str]:
    """The payscope processes under `pid` (its children, theirs, ...; the background sandbox is
    left out: it outlives every payscope by design), with their command lines, from /proc.
    Each payscope's listener (a process of its own) is counted only with `listeners`."""
    parents: dict[int, int] = {}
    commands: dict[int, str] = {}
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            stat = (entry / "stat").read_text()
            command = (entry / "cmdline").read_bytes().replace(b"\0", b" ").decode()
        except OSError:
            continue
        parents[int(entry.name)] = int(stat.rsplit(")", 1)[1].split()[1])
        commands[int(entry.name)] = command
    under = {pid}
    grew = True
    while grew:
        more = {child for child, parent in parents.items() if parent in under} - under
        grew = bool(more)
        under |= more
    return {
        child: commands[child]
        for child in under - {pid}
        if "-m payscope" in commands[child]
        and "sandbox.daemon" not in commands[child]
        and (listeners or "payscope.webhooks.process" not in commands[child])
    }


def _alive(pid: int) -> bool:
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except OSError:
        return False
    return state != "Z"


@dataclass
class Tab:
    """One browser tab, driven over its DevTools websocket."""

    ws: aiohttp.ClientWebSocketResponse
    target: str = ""
    ids: Iterator[int] = field(default_factory=lambda: itertools.count(1))
    waiting: dict[int, asyncio.Future[dict[str, Any]]] = field(default_factory=dict)

    async def pump(self) -> None:
        async for message in self.ws:
            data = json.loads(message.data)
            future = self.waiting.pop(data.get("id", -1), None)
            if future is not None and not future.done():
                future.set_result(data)

    async def call(self, method: str, **params: Any) -> dict[str, Any]:
        number = next(self.ids)
        future = asyncio.get_running_loop().create_future()
        self.waiting[number] = future
        await self.ws.send_str(json.dumps({"id": number, "method": method, "params": params}))
        answer = await awaited(future)
        assert "error" not in answer, (method, answer)
        result: dict[str, Any] = answer["result"]
        return result

    async def js(self, expression: str) -> Any:
        answer = await self.call(
            "Runtime.evaluate", expression=expression, returnByValue=True, awaitPromise=True
        )
        return answer["result"].get("value")

    async def text(self) -> str:
        """The terminal's text as the page shows it, row by row."""
        rows = await self.js(
            "Array.from(document.querySelectorAll('.xterm-rows > div'))"
            ".map(row => row.textContent).join('\\n')"
        )
        return str(rows or "").replace("\xa0", " ")

    async def page(self) -> str:
        """The page's own text (a refusal page: no terminal)."""
        return str(await self.js("document.body ? document.body.innerText : ''") or "")

    async def until(
        self,
        check: Callable[[str], Any],
        what: str,
        *,
        read: Callable[[], Awaitable[str]] | None = None,
    ) -> str:
        """The terminal's text (or what `read` reads) once `check(text)` holds: the suite's one
        `until`, with the text the page showed when it fails."""
        shown = ""

        async def holds() -> bool:
            nonlocal shown
            shown = await (read or self.text)()
            return bool(check(shown))

        await until(holds, what, detail=lambda: f"the page showed:\n{shown}")
        return shown

    async def until_page(self, words: str) -> str:
        """The page's own text once it holds `words` (a refusal page: no terminal)."""
        return await self.until(lambda t: words in t, f"{words!r} on the page", read=self.page)

    async def press(self, *keys: str) -> None:
        """Key events into the terminal (xterm.js turns them into a terminal's bytes)."""
        await self.js("document.querySelector('.xterm-helper-textarea').focus()")
        for key in keys:
            if key in _SPECIAL:  # as a browser sends it: the key, then its character
                name, code, vk, text = _SPECIAL[key]
                down = {"key": name, "code": code, "windowsVirtualKeyCode": vk}
                await self.call("Input.dispatchKeyEvent", type="rawKeyDown", **down)
                if text:
                    await self.call("Input.dispatchKeyEvent", type="char", text=text)
                await self.call("Input.dispatchKeyEvent", type="keyUp", **down)
            else:  # one character, typed
                await self.call("Input.dispatchKeyEvent", type="keyDown", key=key, text=key)
                await self.call("Input.dispatchKeyEvent", type="keyUp", key=key)
            # A lone Esc is told from the start of an escape sequence by the pause after it.
            await asyncio.sleep(0.4 if key == "escape" else 0.05)

    async def command(self, text: str) -> None:
        """`:text` and Enter, as typed, once the prompt is open (its hint on screen)."""
        await self.press(":")
        await self.until(lambda t: "pay <id>" in t, "the command prompt did not open")
        await self.press(*text, "enter")


@dataclass
class Browser:
    session: aiohttp.ClientSession
    port: int
    tabs: list[Tab] = field(default_factory=list)
    pumps: list[asyncio.Task[None]] = field(default_factory=list)

    async def open(self, url: str) -> Tab:
        async with self.session.put(f"http://127.0.0.1:{self.port}/json/new?about:blank") as r:
            target = await r.json()
        ws = await self.session.ws_connect(target["webSocketDebuggerUrl"], max_msg_size=0)
        tab = Tab(ws, target["id"])
        self.tabs.append(tab)
        self.pumps.append(asyncio.create_task(tab.pump()))
        await tab.call("Page.enable")
        await tab.call("Runtime.enable")
        await tab.call("Page.addScriptToEvaluateOnNewDocument", source=_PAGE_SETUP)
        # Each tab takes keys as if it were the window in front (two tabs are driven at once).
        await tab.call("Emulation.setFocusEmulationEnabled", enabled=True)
        await tab.call(
            "Emulation.setDeviceMetricsOverride",
            width=1500,
            height=1000,
            deviceScaleFactor=1,
            mobile=False,
        )
        await tab.call("Page.navigate", url=url)
        return tab


@pytest.fixture
async def browser(tmp_path: Path) -> AsyncIterator[Browser]:
    binary = _need_chromium()
    profile = tmp_path / "chromium"
    command = [
        binary,
        "--headless=new",
        "--remote-debugging-port=0",
        f"--user-data-dir={profile}",
        "--no-first-run",
        "--disable-gpu",
        # DNS rebinding, for real: a page's own name that resolves to this machine.
        f"--host-resolver-rules=MAP {EVIL_NAME} 127.0.0.1",
        "about:blank",
    ]
    if os.getuid() == 0:
        command.insert(1, "--no-sandbox")  # chromium refuses to run as root with its sandbox
    process = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        active = profile / "DevToolsActivePort"
        deadline = time.monotonic() + 30
        while not (active.is_file() and active.read_text().strip()):
            assert process.poll() is None, "chromium exited at start"
            assert time.monotonic() < deadline, "chromium did not open its DevTools port"
            await asyncio.sleep(0.1)
        port = int(active.read_text().split()[0])
        async with aiohttp.ClientSession() as session:
            driven = Browser(session, port)
            try:
                yield driven
            finally:
                for tab in driven.tabs:
                    await tab.ws.close()
                for pump in driven.pumps:
                    pump.cancel()
    finally:
        process.terminate()  # the chromium this fixture started (its Popen)
        try:
            process.wait(15)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()


@dataclass
class Served:
    process: subprocess.Popen[str]
    url: str  # as printed: with its token
    data: Path
    origin: str  # http://127.0.0.1:PORT


@pytest.fixture
def serve(tmp_path: Path) -> Iterator[Any]:
    """Start `payscope serve` (a real process, on data and config directories of its own)."""
    started: list[Served] = []

    def start(*extra: str) -> Served:
        port = _free_port()
        data, config = tmp_path / "data", tmp_path / "config"
        config.mkdir(exist_ok=True)
        env = dict(os.environ, PAYSCOPE_CONFIG_DIR=str(config), PAYSCOPE_DATA_DIR=str(data))
        env.pop("PAYSCOPE_SANDBOX", None)  # the background sandbox every tab shares
        process = subprocess.Popen(
            [sys.executable, "-m", "payscope", "serve", "--port", str(port), *extra],
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            text=True,
            env=env,
        )
        assert process.stdout is not None
        line = process.stdout.readline()  # the URL it prints, with its token, before it serves
        printed = re.search(r"open (http://127\.0\.0\.1:\d+/\?token=[\w-]+) in a browser", line)
        assert printed, line
        served = Served(process, printed.group(1), data, f"http://127.0.0.1:{port}")
        started.append(served)
        deadline = time.monotonic() + 30
        while True:
            assert process.poll() is None, process.communicate()[0]
            assert time.monotonic() < deadline, "payscope serve did not listen"
            with socket.socket() as probe:
                if probe.connect_ex(("127.0.0.1", port)) == 0:
                    return served
            time.sleep(0.1)

    yield start
    for served in started:
        apps = _apps(served.process.pid)
        if served.process.poll() is None:  # the process this fixture started (its Popen)
            served.process.kill()
            served.process.wait()
        # Its tabs' payscopes quit once it is gone; until then one could start the sandbox
        # again, so the sandbox is stopped after them.
        deadline = time.monotonic() + 15
        while any(_alive(pid) for pid in apps) and time.monotonic() < deadline:
            time.sleep(0.1)
        daemon.stop(served.data / "sandbox")  # proven to be this directory's daemon first


def _stop(served: Served, apps: dict[int, str]) -> str:
    """Ctrl+C to the server; it ends cleanly and no app process of its tabs is left (nor any
    of their listeners' processes)."""
    apps = {**apps, **_apps(served.process.pid, listeners=True)}
    served.process.send_signal(signal.SIGINT)  # what Ctrl+C sends, to the process we started
    out, _ = served.process.communicate(timeout=HANG)
    assert served.process.returncode == 0, out
    assert "payscope serve: stopped" in out
    deadline = time.monotonic() + 10
    while any(_alive(pid) for pid in apps) and time.monotonic() < deadline:
        time.sleep(0.1)
    left = {pid: command for pid, command in apps.items() if _alive(pid)}
    assert not left, f"app processes left behind: {left}"
    return out


_PAYMENT_ID = re.compile(r"pay_[A-Za-z0-9]{20}")


async def test_payscope_serve_in_a_real_browser(browser: Browser, serve: Any) -> None:
    served = serve()
    first = await browser.open(served.url)
    listed = await first.until(
        lambda t: len(_PAYMENT_ID.findall(t)) >= 5 and "Payments" in t, "no Payments rows"
    )
    seen = set(_PAYMENT_ID.findall(listed))

    # A second tab: its own payscope on the same background sandbox.
    second = await browser.open(served.url)
    await second.until(lambda t: seen & set(_PAYMENT_ID.findall(t)), "no rows in the second tab")
    apps = _apps(served.process.pid)
    assert len(apps) == 2, apps  # one payscope per tab, the server's own children (exec)
    # Each with its listener, a process of its own (started once its client is up).
    deadline = time.monotonic() + 20
    while True:
        everything = _apps(served.process.pid, listeners=True)
        if sum("payscope.webhooks.process" in c for c in everything.values()) == 2:
            break
        assert time.monotonic() < deadline, everything
        await asyncio.sleep(0.1)

    # Enter opens the payment under the cursor (the first row).
    top = _PAYMENT_ID.findall(listed)[0]
    await first.press("enter")
    opened = await first.until(lambda t: "Summary" in t and "esc Back" in t, "no payment opened")
    assert f"Payment {top}" in opened
    await first.press("escape")

    # A key makes a payment (the sandbox's 1: one step, opened); it arrives live in tab two.
    await first.command("sandbox")
    await first.until(lambda t: "Use it from outside" in t, "no sandbox area")
    await first.press("1")
    made_text = await first.until(
        lambda t: "succeeded" in t and set(_PAYMENT_ID.findall(t)) - seen, "no payment made"
    )
    made = (set(_PAYMENT_ID.findall(made_text)) - seen).pop()
    await second.until(lambda t: made in t, f"{made} did not arrive live in the second tab")

    # y: copied to the browser's clipboard (OSC 52, handed to navigator.clipboard by the page).
    await first.press("escape")
    await first.command("requests")
    await first.until(lambda t: "Requests" in t and "POST" in t, "no requests listed")
    await first.press("y")
    await first.until(lambda t: "Copied" in t, "no copy said")
    copied = await first.js("window.__copied")
    assert copied and copied[-1].startswith("curl "), copied
    assert "$PAYSCOPE_API_KEY" in copied[-1]  # the key stays out of it
    await first.press("escape")

    # o: the customer's page of a 3-D Secure payment opens in the browser (a new tab).
    await first.command("sandbox")
    await first.until(lambda t: "Use it from outside" in t, "no sandbox area")
    await first.press("4")
    page = await first.until(lambda t: "Open page (o)" in t, "no 3-D Secure payment")
    waiting = (set(_PAYMENT_ID.findall(page)) - seen - {made}).pop()
    await first.press("o")
    await first.until(lambda t: "Opened" in t, "no open said")
    opened_urls = await first.js("window.__opened")
    assert opened_urls, "the browser opened nothing"
    url, target = opened_urls[-1]
    assert url.startswith("http://127.0.0.1:") and f"/_sandbox/payments/{waiting}/3ds" in url
    assert target == "_blank"  # a new tab of the viewer's browser

    _stop(served, apps)


async def test_payscope_serve_demo_plays_in_a_real_browser(browser: Browser, serve: Any) -> None:
    served = serve("--demo", "tour", "--pace", "8")
    tab = await browser.open(served.url)
    caption = re.compile(r"(?m)^ (\d+)/(\d+)  \S")  # the caption line: "3/14  What happens"
    first = await tab.until(lambda t: caption.search(t), "no caption of the story")
    steps = int(caption.search(first).group(2))  # type: ignore[union-attr]
    later = await tab.until(
        lambda t: (m := caption.search(t)) is not None and int(m.group(1)) >= 3,
        "the story did not go on",
    )
    assert f"/{steps}  " in later
    await tab.until(lambda t: "The end of “A tour of payscope”" in t, "the story did not end")
    apps = _apps(served.process.pid)
    assert len(apps) == 1 and " demo tour" in next(iter(apps.values())), apps
    _stop(served, apps)


# Another site's page: it opens a WebSocket to payscope serve and records what came of it.
_HOSTILE_PAGE = """<!DOCTYPE html><html><body>hostile page<script>
window.__ws = [];
const ws = new WebSocket("ws://127.0.0.1:%d/ws?width=80&height=24");
ws.onopen = () => { window.__ws.push("open"); ws.send(JSON.stringify(["stdin", ":sandbox\\r"])); };
ws.onmessage = () => window.__ws.push("message");
ws.onerror = () => window.__ws.push("error");
ws.onclose = (event) => window.__ws.push("close " + event.code);
</script></body></html>"""


@contextlib.contextmanager
def _hostile_site(target_port: int) -> Iterator[int]:
    """A web server of its own on a free loopback port, serving `_HOSTILE_PAGE`."""
    page = (_HOSTILE_PAGE % target_port).encode()

    class Hostile(http.server.BaseHTTPRequestHandler):
        def do_GET(self) -> None:
            self.send_response(200)
            self.send_header("Content-Type", "text/html")
            self.send_header("Content-Length", str(len(page)))
            self.end_headers()
            self.wfile.write(page)

        def log_message(self, *args: Any) -> None:
            pass

    site = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Hostile)
    thread = threading.Thread(target=site.serve_forever, daemon=True)
    thread.start()
    try:
        yield int(site.server_address[1])
    finally:
        site.shutdown()
        site.server_close()
        thread.join()


async def _handshake_refused(tab: Tab) -> list[str]:
    deadline = time.monotonic() + 30
    while True:
        seen = list(await tab.js("window.__ws || []") or [])
        if any(entry.startswith("close") for entry in seen):
            return seen
        assert time.monotonic() < deadline, f"the WebSocket never ended: {seen}"
        await asyncio.sleep(0.1)


async def test_only_the_printed_url_opens_it_in_a_real_browser(
    browser: Browser, serve: Any
) -> None:
    """Issue 38: a bare URL, a rebinding name and another site's WebSocket are refused in a
    real browser; the printed URL opens payscope, a reload works by the cookie alone, and a
    tab past --max-tabs gets a page saying so."""
    served = serve("--max-tabs", "1")
    port = int(served.origin.rsplit(":", 1)[1])
    token = served.url.split("token=", 1)[1]

    # The bare URL (no token, no cookie yet): the refusal page, no terminal, no payscope.
    bare = await browser.open(served.origin + "/")
    refused = await bare.until_page("token needed")
    assert "printed" in refused and token not in refused

    # The printed URL: payscope in the page, the token gone from the address bar.
    first = await browser.open(served.url)
    await first.until(lambda t: len(_PAYMENT_ID.findall(t)) >= 5, "no Payments rows")
    assert await first.js("location.href") == served.origin + "/"
    assert len(_apps(served.process.pid)) == 1
    # A reload at the cap: the browser asks for the page while its old tab is still open;
    # the page may say "all tabs taken" a moment, and tries again by itself: payscope again.
    await first.call("Page.reload")
    await first.until(lambda t: len(_PAYMENT_ID.findall(t)) >= 5, "no rows after a reload")

    # DNS rebinding: evil.example resolves to 127.0.0.1; its page names itself in Host.
    await bare.call("Page.navigate", url=f"http://{EVIL_NAME}:{port}/")
    rebound = await bare.until_page("wrong address")
    assert "DNS rebinding" in rebound and token not in rebound

    # Another site's pages open a WebSocket to payscope serve: refused, nothing started.
    # 127.0.0.1 on another port is the same *site* (the cookie goes along) but another origin.
    with _hostile_site(port) as hostile_port:
        for site in (f"http://{EVIL_NAME}:{hostile_port}/", f"http://127.0.0.1:{hostile_port}/"):
            await bare.call("Page.navigate", url=site)
            await bare.until_page("hostile page")
            seen = await _handshake_refused(bare)
            assert "open" not in seen and "message" not in seen, (site, seen)
    assert len(_apps(served.process.pid)) == 1  # still only the first tab's payscope

    # A second tab past --max-tabs 1: a page says so (and starts nothing).
    second = await browser.open(served.url)
    full = await second.until_page("all tabs taken")
    assert "--max-tabs 1" in full and "Close one" in full and "tries again" in full
    assert len(_apps(served.process.pid)) == 1

    # The first tab closes; the second one's reload opens payscope by its cookie alone.
    await browser.session.get(f"http://127.0.0.1:{browser.port}/json/close/{first.target}")
    deadline = time.monotonic() + 20
    while _apps(served.process.pid) and time.monotonic() < deadline:
        await asyncio.sleep(0.1)
    await second.call("Page.reload")
    await second.until(lambda t: len(_PAYMENT_ID.findall(t)) >= 5, "no rows after the reload")
    assert await second.js("location.href") == served.origin + "/"
    _stop(served, _apps(served.process.pid))
