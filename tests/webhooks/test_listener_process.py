"""The listener serving from a process of its own (`payscope.webhooks.process.ListenerProcess`).

Real signed requests over HTTP to a real child process; the TUI's side reads what it received
from the journal and is told of each delivery over the pipe.
"""

from __future__ import annotations

import asyncio
import os
import signal
import sys
import time
from collections.abc import AsyncIterator
from pathlib import Path

import httpx
import pytest

from payscope.webhooks.deliveries import Delivery
from payscope.webhooks.listener import ListenerError, NoForwardTarget
from payscope.webhooks.process import ListenerProcess, delivery_from_wire, delivery_to_wire
from tests.waits import awaited, until
from tests.webhooks.conftest import (
    OLD_SECRET,
    SECRET,
    Receiver,
    event_body,
    post_signed,
)

pytestmark = pytest.mark.slow


@pytest.fixture
async def child(tmp_path: Path) -> AsyncIterator[ListenerProcess]:
    """A listener serving from its own process, on a free port; stopped after the test."""
    listener = ListenerProcess(tmp_path / "listener", [SECRET])
    await listener.start(port=0)
    yield listener
    await listener.stop()


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)  # our own child: signal 0 only asks whether it exists
    except ProcessLookupError:
        return False
    return True


async def _gone(pid: int) -> None:
    # Reaped by asyncio's child watcher once it exits; a zombie still answers signal 0, so
    # the process table's state is read too.
    def ended() -> bool:
        try:
            state = Path(f"/proc/{pid}/stat").read_text().split(")")[-1].split()[0]
        except OSError:
            return True
        return state == "Z"

    await until(ended)


async def test_the_child_serves_journals_and_tells_each_delivery(
    tmp_path: Path, client: httpx.AsyncClient
) -> None:
    listener = ListenerProcess(tmp_path / "listener", [SECRET])
    url = await listener.start(port=0)
    seen: list[Delivery] = []
    listener.add_subscriber(seen.append)
    try:
        assert listener.pid is not None and listener.pid != os.getpid()
        assert url == f"http://127.0.0.1:{listener.port}/webhooks"
        body = event_body("evt_child_1")
        answer = await post_signed(client, url, body)
        assert answer.status_code == 200
        assert answer.json() == {"received": True, "duplicate": False}
        again = await post_signed(client, url, body)
        assert again.json() == {"received": True, "duplicate": True}
        bad = await post_signed(client, url, event_body("evt_child_2"), secret="wrong")
        assert bad.status_code == 401

        await until(lambda: len(seen) == 3)
        first, duplicate, refused = seen
        assert (first.event_id, first.verified, first.duplicate) == ("evt_child_1", True, False)
        assert first.object_id == "pay_00000000000000000001"
        assert first.body == body
        assert first.headers["content-type"] == "application/json"
        assert duplicate.duplicate and duplicate.duplicate_count == 1
        assert refused.status == 401 and not refused.verified
        assert (listener.stats.accepted, listener.stats.rejected) == (1, 1)
        assert listener.stats.duplicates == 1

        # The TUI's side reads the child's journal.
        assert listener.journal.count() == 1
        detail = listener.journal.get("evt_child_1")
        assert detail is not None and detail.verified
    finally:
        await listener.stop()
    assert listener.url is None


async def test_a_secret_changed_here_is_the_one_the_child_checks(
    tmp_path: Path, client: httpx.AsyncClient
) -> None:
    listener = ListenerProcess(tmp_path / "listener", [OLD_SECRET])
    url = await listener.start(port=0)
    try:
        assert (await post_signed(client, url, event_body("evt_s1"))).status_code == 401
        listener.secrets = [SECRET]

        async def accepted() -> bool:
            answer = await post_signed(client, url, event_body(f"evt_s{time.monotonic_ns()}"))
            return answer.status_code == 200

        await until(accepted, "the new secret to take effect")
    finally:
        await listener.stop()


async def test_replay_goes_through_the_child_and_its_errors_come_back_as_theirs(
    child: ListenerProcess, client: httpx.AsyncClient, receiver: Receiver
) -> None:
    listener, url = child, str(child.url)
    body = event_body("evt_replayed")
    assert (await post_signed(client, url, body)).status_code == 200

    record = await listener.replay("evt_replayed", receiver.url)
    assert record.status == 202 and record.delivered and record.url == receiver.url
    assert [r.body for r in receiver.requests] == [body]
    detail = listener.journal.get("evt_replayed")
    assert detail is not None and [f.status for f in detail.forwards] == [202]

    with pytest.raises(NoForwardTarget):
        await listener.replay("evt_replayed")
    with pytest.raises(LookupError, match="evt_never"):
        await listener.replay("evt_never", receiver.url)


async def test_stopping_ends_the_child_and_frees_the_port(tmp_path: Path) -> None:
    listener = ListenerProcess(tmp_path / "listener", [SECRET])
    await listener.start(port=0)
    pid, port = listener.pid, listener.port
    assert pid is not None and port is not None and _alive(pid)
    await listener.stop()
    await _gone(pid)
    again = ListenerProcess(tmp_path / "listener", [SECRET])
    await again.start(port=port, fallback_to_free_port=False)
    try:
        assert again.port == port
    finally:
        await again.stop()


async def test_a_taken_port_is_said_with_what_to_do(tmp_path: Path) -> None:
    first = ListenerProcess(tmp_path / "one", [SECRET])
    await first.start(port=0)
    try:
        second = ListenerProcess(tmp_path / "two", [SECRET])
        with pytest.raises(ListenerError) as caught:
            await second.start(port=first.port or 0, fallback_to_free_port=False)
        assert str(first.port) in str(caught.value)
        assert "Traceback" not in str(caught.value)
    finally:
        await first.stop()


async def test_a_damaged_journal_is_moved_aside_and_the_tui_is_told_where(
    tmp_path: Path, client: httpx.AsyncClient
) -> None:
    directory = tmp_path / "listener"
    directory.mkdir()
    (directory / "journal.sqlite3").write_bytes(os.urandom(49152))
    listener = ListenerProcess(directory, [SECRET])
    url = await listener.start(port=0)
    try:
        moved = listener.journal.moved_aside
        assert moved is not None and moved.exists() and moved.parent == directory
        assert (await post_signed(client, url, event_body("evt_fresh"))).status_code == 200
        await until(lambda: listener.journal.count() == 1)
    finally:
        await listener.stop()


async def test_when_the_tui_dies_its_listener_does_not_outlive_it(tmp_path: Path) -> None:
    """The child stops at the end of its stdin: a TUI killed with -9 leaves no listener."""
    script = (
        "import asyncio, sys\n"
        "from pathlib import Path\n"
        "from payscope.webhooks.process import ListenerProcess\n"
        "async def main():\n"
        f"    listener = ListenerProcess(Path({str(tmp_path / 'l')!r}), ['s' * 40])\n"
        "    await listener.start(port=0)\n"
        "    print(listener.pid, flush=True)\n"
        "    await asyncio.sleep(60)\n"
        "asyncio.run(main())\n"
    )
    parent = await asyncio.create_subprocess_exec(
        sys.executable, "-c", script, stdout=asyncio.subprocess.PIPE
    )
    assert parent.stdout is not None
    line = await awaited(parent.stdout.readline())
    child = int(line)
    assert _alive(child)
    parent.send_signal(signal.SIGKILL)  # our own child process (its Process object)
    await parent.wait()
    await until(lambda: not _alive(child), "the listener to end with the payscope that started it")


def test_a_delivery_crosses_the_pipe_whole() -> None:
    delivery = Delivery(
        delivery_id=7,
        received_at=1714564800.25,
        status=200,
        verified=True,
        reason=None,
        event_id="evt_x",
        event_type="payment_succeeded",
        object_id="pay_x",
        object_status="succeeded",
        duplicate=False,
        duplicate_count=0,
        headers={"content-type": "application/json", "x": "é"},
        body=b'{"a":1}\xff\x00',  # any bytes
    )
    assert delivery_from_wire(delivery_to_wire(delivery)) == delivery


async def test_a_child_killed_is_started_again_on_the_same_url_and_the_tui_is_told(
    child: ListenerProcess, client: httpx.AsyncClient
) -> None:
    listener, url = child, str(child.url)
    told: list[str] = []
    listener.on_notice = told.append
    seen: list[Delivery] = []
    listener.add_subscriber(seen.append)
    first = listener.pid
    assert first is not None
    os.kill(first, signal.SIGKILL)  # its own child, by the pid of its own Process object
    await until(lambda: listener.pid != first and bool(told))
    assert told == [
        "The webhook listener's process ended (exit code -9); it was started again on "
        "the same port."
    ]
    assert listener.url == url and listener.problem == ""
    answer = await post_signed(client, url, event_body("evt_after_restart"))
    assert answer.status_code == 200
    await until(lambda: [d.event_id for d in seen] == ["evt_after_restart"])


async def test_a_child_that_keeps_dying_is_not_started_forever(child: ListenerProcess) -> None:
    from payscope.webhooks import process

    listener = child
    told: list[str] = []
    listener.on_notice = told.append
    for _ in range(process.RESTARTS + 1):
        pid = listener.pid
        assert pid is not None
        count = len(told)
        os.kill(pid, signal.SIGKILL)  # its own child (its Process object's pid)
        await until(lambda n=count: len(told) > n)  # type: ignore[misc]
    assert "4 times within a minute" in told[-1] and "Quit and start payscope" in told[-1]
    assert listener.problem == told[-1]
