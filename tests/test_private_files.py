"""Files only their owner may read (issue 14): the sandbox's and the listener's SQLite files
(with their -wal and -shm), the background sandbox's directory, state file and log, and the
Requests export are created 0600 in 0700 directories, whatever the umask. Every test runs under
umask 000, where anything left to the default would come out world-readable."""

from __future__ import annotations

import os
import stat
from collections.abc import Iterator
from pathlib import Path
from types import SimpleNamespace

import httpx
import pytest

from payscope.core.private_files import open_private, private_dir, write_private
from payscope.sandbox import daemon
from payscope.webhooks.listener import Listener
from tests.daemons import wait_ready
from tests.sandbox.conftest import API_KEY, make_sandbox, payment_body
from tests.waits import REQUEST_TIMEOUT


def mode(path: Path) -> int:
    return stat.S_IMODE(os.stat(path).st_mode)


@pytest.fixture(autouse=True)
def open_umask() -> Iterator[None]:
    previous = os.umask(0)
    yield
    os.umask(previous)


def assert_private(files: list[Path], dirs: list[Path]) -> None:
    for path in files:
        assert path.exists(), path
        assert mode(path) == 0o600, f"{path}: {oct(mode(path))}"
    for path in dirs:
        assert mode(path) == 0o700, f"{path}: {oct(mode(path))}"


async def test_the_sandbox_database_and_its_companions_are_0600_in_0700_dirs(
    tmp_path: Path,
) -> None:
    data = tmp_path / "new" / "nested" / "sandbox"
    box = make_sandbox(data)
    url = await box.start()
    try:
        async with httpx.AsyncClient(
            timeout=REQUEST_TIMEOUT, base_url=url, headers={"api-key": API_KEY}
        ) as http:
            assert (await http.post("/payments", json=payment_body())).status_code == 200
        db = data / "sandbox.sqlite3"
        assert_private(
            [db, Path(f"{db}-wal"), Path(f"{db}-shm")],
            [data, data.parent, data.parent.parent],
        )
    finally:
        await box.stop()


async def test_the_listener_journal_is_0600_in_a_0700_dir(tmp_path: Path) -> None:
    directory = tmp_path / "fresh" / "listener"
    listener = Listener(directory, ["s" * 64])
    await listener.start(port=0)
    try:
        journal = directory / "journal.sqlite3"
        assert_private(
            [journal, Path(f"{journal}-wal"), Path(f"{journal}-shm")],
            [directory, directory.parent],
        )
    finally:
        await listener.stop()


def test_a_database_an_older_version_left_readable_is_tightened(tmp_path: Path) -> None:
    # As an older version (or a crash) leaves it: the database and its -wal and -shm, 0644.
    data = tmp_path / "sandbox"
    first = make_sandbox(data)
    db = data / "sandbox.sqlite3"
    files = [db, Path(f"{db}-wal"), Path(f"{db}-shm")]
    for path in files:
        os.chmod(path, 0o644)
    again = make_sandbox(data)
    try:
        assert_private(files, [])
    finally:
        again.state.db.close()
        first.state.db.close()


def test_an_existing_directory_given_with_data_keeps_its_mode(tmp_path: Path) -> None:
    # Only what payscope creates is made 0700: `--data .` must not lock the user's own folder.
    mine = tmp_path / "mine"
    mine.mkdir(mode=0o755)
    os.chmod(mine, 0o755)
    box = make_sandbox(mine)
    box.state.db.close()
    assert mode(mine) == 0o755
    assert mode(mine / "sandbox.sqlite3") == 0o600


def test_the_background_sandbox_directory_state_and_log_are_private(tmp_path: Path) -> None:
    directory = tmp_path / "data" / "sandbox"
    try:
        daemon.spawn(directory)
        wait_ready(directory)
        assert_private(
            [
                directory / daemon.STATE_FILE,
                directory / daemon.LOG_FILE,
                directory / "sandbox.sqlite3",
            ],
            [directory, directory.parent],
        )
    finally:
        daemon.stop(directory)


def test_the_requests_export_is_private(tmp_path: Path) -> None:
    from payscope.areas.requests.view import export_entries

    entry = SimpleNamespace(
        id=1,
        method="GET",
        url="http://127.0.0.1/payments/list",
        status=200,
        latency_ms=1.0,
        started_at=0.0,
        request_headers={},
        request_body=None,
        response_headers={},
        response_body="{}",
        error=None,
        to_curl=lambda: "curl http://127.0.0.1/payments/list",
    )
    exports = tmp_path / "data" / "exports"
    path = export_entries([entry], exports)
    assert_private([path], [exports, exports.parent])


def test_the_helpers_set_modes_whatever_the_umask(tmp_path: Path) -> None:
    made = private_dir(tmp_path / "a" / "b")
    with open_private(made / "log", "ab") as log:
        log.write(b"x")
    write_private(made / "state.json", "{}")
    existing = made / "loose.txt"
    existing.write_text("x")
    os.chmod(existing, 0o666)
    with open_private(existing, "a") as out:
        out.write("y")
    assert_private([made / "log", made / "state.json", existing], [made, tmp_path / "a"])
    assert existing.read_text() == "xy" and not (made / "state.json.tmp").exists()
