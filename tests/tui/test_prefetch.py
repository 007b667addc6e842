"""The live first page read at launch (tui/prefetch.py), against a real background sandbox: it
brings the page the client would, is shown as live before the client is up, is journaled and
redacted like any request, and a key pressed meanwhile runs once the client is up."""

from __future__ import annotations

import asyncio
import contextlib
import os
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.daemons import wait_ready
from tests.fresh import modules_loaded
from tests.tui.pilot import until
from tui import prefetch as prefetch_module
from tui.app import make_app
from tui.areas.payments.forms import NewPaymentScreen
from tui.areas.payments.view import PaymentsView
from tui.payments_cache import PAGE_SIZE
from tui.prefetch import Prefetch
from tui.sandbox import daemon


@pytest.fixture
def data(tmp_path: Path) -> Iterator[Path]:
    """A data dir whose background sandbox is up, with 12 seeded payments."""
    path = tmp_path / "data"
    daemon.spawn(path / "sandbox", seed=12)
    wait_ready(path / "sandbox")
    yield path
    daemon.stop(path / "sandbox")


def _wait(prefetch: Prefetch) -> None:
    deadline = time.monotonic() + 10
    while not prefetch.done:
        assert time.monotonic() < deadline, "the start-up read never ended"
        time.sleep(0.01)


async def test_it_brings_the_page_the_client_reads(data: Path) -> None:
    from tui.api.client import ApiClient
    from tui.api.models.payments import PaymentListRequest

    prefetch = Prefetch(data / "sandbox", PAGE_SIZE).start()
    _wait(prefetch)
    page = prefetch.take()
    assert page is not None and prefetch.take() is None  # taken once
    state = daemon.read_state(data / "sandbox")
    credentials = daemon.read_credentials(data / "sandbox")
    assert state is not None and credentials is not None
    async with ApiClient(state.url, credentials.api_key) as client:
        listed = await client.payments.list(PaymentListRequest(limit=PAGE_SIZE))
        assert [r.payment_id for r in page.rows] == [p.payment_id for p in listed.data]
        assert [r.status for r in page.rows] == [p.status for p in listed.data]
        assert [r.amount for r in page.rows] == [p.amount for p in listed.data]
        assert page.total == listed.total_count == 12

        # Journaled by the client's rules: in Requests, copyable, the key redacted.
        assert prefetch.exchange is not None
        client.record_exchange(prefetch.exchange)
        entry = client.journal.entries()[-1]
        assert (entry.method, entry.path, entry.status) == ("POST", "/payments/list", 200)
        assert credentials.api_key not in repr(entry) and credentials.api_key not in entry.to_curl()
        assert entry.request_body is not None and '"limit": 100' in entry.request_body
        assert entry.response_body is not None and page.rows[0].payment_id in entry.response_body


def test_without_a_running_sandbox_it_brings_nothing(tmp_path: Path) -> None:
    prefetch = Prefetch(tmp_path / "sandbox", PAGE_SIZE).start()
    _wait(prefetch)
    assert prefetch.take() is None and prefetch.exchange is None
    called: list[int] = []
    assert prefetch.when_done(lambda: called.append(1))  # ended: the caller goes on at once
    assert called == []


def test_a_refused_read_brings_nothing(data: Path) -> None:
    # The database's key no longer opens the sandbox (rotated by hand): no page, no crash.
    import sqlite3

    db = sqlite3.connect(data / "sandbox" / "sandbox.sqlite3")
    with db:
        db.execute("UPDATE meta SET value = 'snd_wrong' WHERE key = 'api_key'")
    db.close()
    prefetch = Prefetch(data / "sandbox", PAGE_SIZE).start()
    _wait(prefetch)
    assert prefetch.take() is None and prefetch.exchange is None


def test_the_read_loads_nothing_heavy_beside_textuals_import(data: Path) -> None:
    # It runs in a thread while Textual loads: every module it imports takes the GIL from the
    # first paint. pydantic (through `tui.sandbox.db` for a file name) and `http.client` with
    # the `email` package did, about 0.1 s of CPU.
    code = (
        "from pathlib import Path\n"
        "from tui.prefetch import fetch_first_page\n"
        f"page = fetch_first_page(Path({str(data / 'sandbox')!r}), 100)\n"
        "assert page is not None and page.total == 12, page\n"
    )
    heavy = ("pydantic", "textual", "httpx", "orjson", "http.client", "email.parser")
    assert modules_loaded(code, (*heavy, "tui.sandbox.db")) == []


@pytest.mark.parametrize(
    "answer",
    [
        b"HTTP/1.1 200 OK\r\ntransfer-encoding: chunked\r\n\r\n2\r\n{}\r\n0\r\n\r\n",
        b"HTTP/1.1 200 OK\r\ncontent-length: 10\r\n\r\n{}",  # cut short
        b"HTTP/1.1 200 OK\r\n\r\n{}",  # no length
        b"HTTP/1.1 200 OK\r\ncontent-length: 2\r\n{}",  # no blank line after the head
        b"HTTP/1.1 200 OK\r\nno colon here\r\ncontent-length: 2\r\n\r\n{}",
        b"SSH-2.0-OpenSSH_9.6\r\n\r\n",
        b"",
    ],
    ids=["chunked", "short", "no-length", "no-blank", "bad-header", "not-http", "nothing"],
)
def test_an_answer_that_is_not_whole_is_refused(answer: bytes) -> None:
    with _answering(answer) as port, pytest.raises(ValueError):
        prefetch_module._post("127.0.0.1", port, "/payments/list", [], b"{}", 2.0)


def test_a_whole_answer_is_read_with_its_status_and_headers() -> None:
    answer = b'HTTP/1.1 401 Unauthorized\r\nContent-Length: 7\r\nX-Req: a:b\r\n\r\n{"a":1}'
    with _answering(answer) as port:
        status, headers, body = prefetch_module._post(
            "127.0.0.1", port, "/payments/list", [("api-key", "k")], b"{}", 2.0
        )
    assert (status, headers, body) == (401, [("Content-Length", "7"), ("X-Req", "a:b")], b'{"a":1}')


@contextlib.contextmanager
def _answering(answer: bytes) -> Iterator[int]:
    """A server on a free port that reads one request's head and answers `answer`, closing."""
    server = socket.create_server(("127.0.0.1", 0))

    def serve() -> None:
        connection, _ = server.accept()
        with connection:
            received = b""
            while b"\r\n\r\n" not in received:
                received += connection.recv(4096)
            connection.sendall(answer)

    thread = threading.Thread(target=serve, daemon=True)
    thread.start()
    try:
        yield server.getsockname()[1]
    finally:
        thread.join(5)
        server.close()


async def test_the_live_page_shows_before_the_client_and_a_key_waits_for_it(
    data: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    config = tmp_path / "config"
    config.mkdir()
    app = make_app(config_dir=config, data_dir=data, seed=12, daemon=True)
    runtime = app.runtime
    # The client stays down until the test lets it up (its modules "load" until then).
    gate = asyncio.Event()
    importing = runtime._import

    async def held(*modules: str) -> list[Any]:
        await gate.wait()
        return await importing(*modules)

    monkeypatch.setattr(runtime, "_import", held)
    runtime.spawn_early()  # as `payscope` does before the app runs
    assert runtime.prefetch is not None
    async with app.run_test(size=(120, 40)) as pilot:
        view = app.query_one(PaymentsView)
        await until(lambda: view.prefetched, 10)
        assert not runtime.ready.is_set()
        header = view.header_text().plain
        assert "page 1/1" in header and "cached" not in header and "1-12 of 12" in header
        assert len(view.rows) == 12

        await pilot.press("n")  # new payment, pressed while the client is still loading
        await pilot.pause()
        assert not isinstance(app.screen, NewPaymentScreen)
        gate.set()
        await until(lambda: isinstance(app.screen, NewPaymentScreen), 15)
        assert runtime.client_ready.is_set()
        await pilot.press("escape")
        await until(lambda: view.loaded and not view.prefetched, 10)  # read again, whole
        paths = [(e.method, e.path) for e in runtime.api.journal.entries()]
        assert paths.count(("POST", "/payments/list")) == 2  # the start-up read is listed too


async def test_a_key_waits_for_the_client_only_and_events_reach_the_listener_once_up(
    data: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A warm start brings the client up before the listener (about a third of the imports):
    an action runs as soon as the client is up, and the webhooks of a payment made before the
    listener is up are held by the sandbox, then delivered to it."""
    from tests.tui.pilot import create_payment, open_detail, shown_text
    from tui.widgets.status_bar import StatusBar

    config = tmp_path / "config"
    config.mkdir()
    app = make_app(config_dir=config, data_dir=data, seed=12, daemon=True)
    runtime = app.runtime
    gate = asyncio.Event()  # the listener's modules "load" until the test lets them
    importing = runtime._import

    async def held(*modules: str) -> list[Any]:
        if "tui.webhooks.listener" in modules:
            await gate.wait()
        return await importing(*modules)

    monkeypatch.setattr(runtime, "_import", held)
    runtime.spawn_early()
    async with app.run_test(size=(120, 40)) as pilot:
        await until(runtime.client_ready.is_set, 15)
        assert runtime.listener is None and not runtime.ready.is_set()
        await pilot.pause()
        assert app.screen.query_one(StatusBar).state == ""  # no longer "starting"
        await pilot.press("n")
        await until(lambda: isinstance(app.screen, NewPaymentScreen), 10)
        await pilot.press("escape")
        made = await create_payment(runtime.api)
        assert made.status == "succeeded"
        detail = await open_detail(pilot, made.payment_id)
        assert "The listener is starting" in shown_text(detail.section("events"))

        gate.set()
        await until(runtime.ready.is_set, 15)
        listener = runtime.listener
        assert listener is not None
        await until(lambda: listener.journal.recent(20, 0, None, made.payment_id), 15)
        await until(lambda: "payment_succeeded" in shown_text(detail.section("events")), 10)
        main = app.get_screen_main()
        assert main is not None
        assert main.query_one(StatusBar).listener_url.startswith("http://127.0.0.1:")


async def test_a_live_page_back_before_the_first_frame_is_shown_without_the_cached_one(
    data: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The usual warm start: the page cached by the last run is only read when the live page
    is not back yet, not drawn and replaced in the same frame."""
    from tui.payments_cache import cache_path, load_page

    config = tmp_path / "config"
    config.mkdir()
    first = make_app(config_dir=config, data_dir=data, seed=12, daemon=True)
    async with first.run_test(size=(120, 40)):
        view = first.query_one(PaymentsView)
        await until(lambda: view.loaded and not view.prefetched, 15)
    # The last run left its first page behind, as every run does.
    assert load_page(cache_path(data, "local"))

    shown: list[str] = []
    for name in ("_show_cache", "_show_prefetched"):
        original = getattr(PaymentsView, name)

        def recorded(self: PaymentsView, _original: Any = original, _name: str = name) -> None:
            shown.append(_name)
            _original(self)

        monkeypatch.setattr(PaymentsView, name, recorded)
    app = make_app(config_dir=config, data_dir=data, seed=12, daemon=True)
    app.runtime.spawn_early()
    assert app.runtime.prefetch is not None
    _wait(app.runtime.prefetch)  # back before the app mounts
    async with app.run_test(size=(120, 40)):
        view = app.query_one(PaymentsView)
        await until(lambda: view.prefetched or view.loaded, 10)
        assert shown[0] == "_show_prefetched"
        assert "_show_cache" not in shown


def test_the_command_line_starts_it_before_textual_and_the_runtime_adopts_it(
    data: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from tui import prefetch

    monkeypatch.setenv("PAYSCOPE_DATA_DIR", str(data))
    prefetch.start_early("remote", "")  # a remote profile: nothing local to read
    assert prefetch.adopt(data / "sandbox") is None
    prefetch.start_early(None, "in-process")  # the sandbox will start inside the app
    assert prefetch.adopt(data / "sandbox") is None

    prefetch.start_early(None, "")
    early = prefetch.adopt(data / "sandbox")
    assert early is not None and prefetch.adopt(data / "sandbox") is None  # adopted once
    _wait(early)
    assert early.page is not None and early.page.total == 12

    prefetch.start_early(None, "")
    assert prefetch.adopt(data / "elsewhere") is None  # another data dir: not this one's
    app = make_app(data_dir=data, seed=12, daemon=True)
    prefetch.start_early(None, "")
    started = prefetch._early
    app.runtime.spawn_early()
    assert started is not None and app.runtime.prefetch is started  # adopted, not asked again
    _wait(app.runtime.prefetch)
    assert app.runtime.prefetch.page is not None


def test_the_command_line_reads_it_in_a_forked_child_off_the_gil(data: Path) -> None:
    # Before Textual loads the process has one thread: on Linux the read runs in a forked
    # child, on the other core, so its database, socket and JSON work (about 22 ms of CPU)
    # takes nothing from the imports and the first paint. The child is reaped.
    code = (
        "import os, sys, time\n"
        "from pathlib import Path\n"
        "from tui import prefetch\n"
        "prefetch.start_early(None, '')\n"
        f"early = prefetch.adopt(Path({str(data / 'sandbox')!r}))\n"
        "deadline = time.monotonic() + 10\n"
        "while not early.done and time.monotonic() < deadline:\n"
        "    time.sleep(0.01)\n"
        "page = early.take()\n"
        "pid = early.child_pid\n"
        "print(pid is not None and pid != os.getpid(), page.total, len(page.rows))\n"
        "print(sorted(m for m in ('sqlite3', 'tui.sandbox.daemon') if m in sys.modules))\n"
        "try:\n"
        "    os.waitpid(pid, os.WNOHANG)\n"
        "    print('not reaped')\n"
        "except ChildProcessError:\n"
        "    print('reaped')\n"
        "print(early.exchange is not None and early.exchange.status)\n"
    )
    env = {**os.environ, "PAYSCOPE_DATA_DIR": str(data)}
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, timeout=60, env=env
    )
    assert out.returncode == 0, out.stderr
    forked = sys.platform == "linux"
    assert out.stdout.splitlines() == [
        f"{forked} 12 12",
        "[]" if forked else "['sqlite3', 'tui.sandbox.daemon']",
        "reaped" if forked else "not reaped",
        "200",
    ]


def test_with_other_threads_running_it_reads_in_a_thread(data: Path) -> None:
    # A fork copies only the calling thread (a lock another one holds would stay held in the
    # child): once threads run, as in the app or under pytest, the read stays in a thread.
    stop = threading.Event()
    other = threading.Thread(target=stop.wait, daemon=True)
    other.start()
    try:
        prefetch = Prefetch(data / "sandbox", PAGE_SIZE).start(fork=True)
        _wait(prefetch)
    finally:
        stop.set()
    assert prefetch.child_pid is None
    page = prefetch.take()
    assert page is not None and page.total == 12


def test_a_child_that_brings_nothing_leaves_no_page(tmp_path: Path) -> None:
    # No sandbox running: the child ends without a page; the parent sees that, not a crash.
    code = (
        "import time\n"
        "from pathlib import Path\n"
        "from tui.prefetch import Prefetch\n"
        f"p = Prefetch(Path({str(tmp_path / 'sandbox')!r}), 100).start(fork=True)\n"
        "deadline = time.monotonic() + 10\n"
        "while not p.done and time.monotonic() < deadline:\n"
        "    time.sleep(0.01)\n"
        "print(p.done, p.take(), p.exchange)\n"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, timeout=60, check=True
    )
    assert out.stdout.strip() == "True None None"
