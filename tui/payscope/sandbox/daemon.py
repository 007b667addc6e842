"""The local sandbox as a small background service, kept running between runs of the TUI.

Why: the TUI's live first page needs a running sandbox, and starting one (FastAPI, uvicorn,
every route, the database) costs more than the whole first paint. Kept running, the sandbox is
there at once next time, on the same port with the same keys, so a copied curl keeps working;
and quitting the TUI does not wait for it to stop.

- `python -m payscope.sandbox.daemon --data DIR [--port N] [--seed N]` serves the sandbox in `DIR`
  (what `spawn` runs, detached). It takes `DIR/daemon.lock` first and holds it for its whole
  life: one daemon per data dir, and a second one started meanwhile leaves at once, so its
  starter attaches to the first. It writes `DIR/daemon.json` (pid, start time, URL, phase,
  seeding progress, a note when the wanted port was taken; never a key) and removes it when it
  stops (SIGTERM or SIGINT).
- `read_state(DIR)` is what a client reads: None unless the daemon that holds the lock proves
  the file is its own (`payscope.sandbox.files.check_state`); `check(DIR)` also says why a file was
  not trusted.
- `read_credentials(DIR)` reads the sandbox's identity and keys from its own database (where
  the sandbox has always kept them), without starting anything.
- `stop(DIR)` ends it; `payscope sandbox status|stop` are the commands around these.

This module imports neither FastAPI nor Textual at import time: the TUI reads it on its start.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import os
import signal
import sqlite3
import subprocess
import sys
import time
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

from payscope.core import gc_pause
from payscope.core.disk import full_disk
from payscope.core.private_files import open_private, private_dir
from payscope.sandbox import files
from payscope.sandbox.config import SandboxConfig
from payscope.sandbox.files import STATE_FILE as STATE_FILE  # re-exported: the daemon's file
from payscope.sandbox.files import alive as alive
from payscope.sandbox.identity import Credentials

LOG_FILE = "daemon.log"
HOST = "127.0.0.1"


@dataclass(frozen=True)
class DaemonState:
    """What `daemon.json` says: who serves, where, and how far it is."""

    pid: int
    url: str
    phase: str  # "starting", "seeding", "ready"
    done: int = 0
    total: int = 0
    note: str = ""  # e.g. the wanted port was taken
    started: str = ""  # the process's start time (`files.start_time`): proves the pid is it
    afresh: str = ""  # why it started with new keys though a database was there

    @property
    def port(self) -> int:
        return int(self.url.rsplit(":", 1)[-1]) if self.url else 0


def read_state(directory: Path) -> DaemonState | None:
    """The daemon proven to serve `directory`, or None (no file, a broken or lying one, or its
    process is gone)."""
    return check(directory)[0]


def check(directory: Path) -> tuple[DaemonState | None, str]:
    """The daemon proven to serve `directory`, and why a state file there was not trusted
    ("" when it was, or when there is none)."""
    fields, problem = files.check_state(directory)
    if fields is None:
        return None, problem
    return DaemonState(
        **{k: fields[k] for k in DaemonState.__dataclass_fields__ if k in fields}
    ), ""


def _write_state(directory: Path, state: DaemonState) -> None:
    path = directory / STATE_FILE
    temporary = path.with_suffix(".tmp")
    with open_private(temporary) as out:  # 0600, like everything in the sandbox's directory
        out.write(json.dumps(asdict(state)))
    os.replace(temporary, path)


def read_credentials(directory: Path) -> Credentials | None:
    """The keys and ids in the sandbox's database in `directory` (None before its first run)."""
    path = directory / files.DB_FILE
    if not path.exists():
        return None
    try:
        conn = sqlite3.connect(f"file:{path}?mode=ro", uri=True, timeout=5)
    except sqlite3.Error:
        return None
    try:
        meta = dict(conn.execute("SELECT key, value FROM meta").fetchall())
        row = conn.execute(
            "SELECT payment_response_hash_key FROM business_profiles WHERE profile_id = ?",
            (meta.get("profile_id"),),
        ).fetchone()
    except sqlite3.Error:
        return None
    finally:
        conn.close()
    try:
        return Credentials(
            None,
            str(meta["merchant_id"]),
            str(meta["profile_id"]),
            str(meta["api_key"]),
            str(meta["publishable_key"]),
            str(row[0]) if row else "",
        )
    except KeyError:
        return None


def read_clock_offset(directory: Path) -> float:
    """How far the sandbox's clock runs ahead of real time (0 when unknown)."""
    try:
        value = _read_one(directory, "SELECT value FROM meta WHERE key = 'clock_offset'")
        return float(value) if value is not None else 0.0
    except ValueError:
        return 0.0


def read_webhook_url(directory: Path) -> str | None:
    """Where the sandbox delivers its webhooks now (None: held, or unknown)."""
    value = _read_one(
        directory,
        "SELECT webhook_url FROM business_profiles "
        "WHERE profile_id = (SELECT value FROM meta WHERE key = 'profile_id')",
    )
    return str(value) if value else None


def read_webhook_listeners(directory: Path) -> list[str] | None:
    """The listeners attached to the sandbox (each running payscope's); None when unknown."""
    value = _read_one(
        directory,
        "SELECT json_group_array(url) FROM (SELECT url FROM webhook_listeners "
        "ORDER BY attached_at, url)",
    )
    if value is None:
        return None
    return [str(url) for url in json.loads(value)]


def _read_one(directory: Path, sql: str) -> Any:
    """The first column of the first row `sql` reads from the sandbox's database, read-only
    (None when there is none, or the database cannot be read)."""
    try:
        conn = sqlite3.connect(f"file:{directory / files.DB_FILE}?mode=ro", uri=True, timeout=1)
        try:
            row = conn.execute(sql).fetchone()
        finally:
            conn.close()
    except sqlite3.Error:
        return None
    return row[0] if row else None


def spawn(directory: Path, *, port: int = 0, seed: int = 0) -> int:
    """Start the daemon for `directory`, detached from this process and its terminal; returns
    its pid (it is ready once `read_state(directory).phase == "ready"`)."""
    private_dir(directory)
    log = open_private(directory / LOG_FILE, "ab")  # handed to the child
    try:
        process = subprocess.Popen(
            [
                sys.executable,
                "-m",
                "payscope.sandbox.daemon",
                "--data",
                str(directory),
                "--port",
                str(port),
                "--seed",
                str(seed),
            ],
            stdin=subprocess.DEVNULL,
            stdout=log,
            stderr=log,
            start_new_session=True,  # Ctrl+C in the TUI's terminal is not for it
            close_fds=True,
        )
    finally:
        log.close()
    return process.pid


def log_tail(directory: Path, lines: int = 8) -> str:
    """The end of the daemon's log (why it stopped)."""
    try:
        text = (directory / LOG_FILE).read_text(encoding="utf-8", errors="replace")
    except OSError:
        return ""
    return "\n".join(text.strip().splitlines()[-lines:])


FAILED = "payscope sandbox daemon failed: "


def why_stopped(directory: Path) -> str:
    """Why the daemon of `directory` stopped before serving: its own last word on it in its
    log (the log is kept across runs: older runs' lines are not this one's), else its tail."""
    # A full disk first: the daemon could not write its database, nor (often) its log.
    full = full_disk(directory)
    if full is not None:
        return (
            f"{full[0].upper()}{full[1:]}: the sandbox cannot write its database there. "
            f"Free some space on that disk (or set PAYSCOPE_DATA_DIR to another one), then "
            "start payscope again."
        )
    tail = log_tail(directory, 50)
    for line in reversed(tail.splitlines()):
        if line.startswith(FAILED):
            return line.removeprefix(FAILED)
    return "\n".join(tail.splitlines()[-8:]) or "(its log is empty)"


def stop(directory: Path, timeout: float = 10.0) -> bool:
    """Ask the daemon of `directory` to stop and wait for it; False if none was proven to run.

    A process is signalled only once it is proven to be this directory's daemon (it holds the
    lock, runs the daemon's command line for this directory, and started when its state file
    says), and proven again before SIGKILL: a pid from a file is never trusted on its own."""
    state = read_state(directory)
    if state is None:
        return False
    if not _signal(state, directory, signal.SIGTERM):
        return False
    deadline = time.monotonic() + timeout
    while _same_process(state) and time.monotonic() < deadline:
        time.sleep(0.02)
    if _same_process(state):
        _signal(state, directory, signal.SIGKILL)
        while _same_process(state) and time.monotonic() < deadline + 2.0:
            time.sleep(0.02)
    # Its own stop removes the file; after a SIGKILL it is ours to remove, while it still
    # names the process just stopped (the data dir may hold a new daemon's by now).
    with contextlib.suppress(OSError, ValueError):
        current = json.loads((directory / STATE_FILE).read_text(encoding="utf-8"))
        if isinstance(current, dict) and (current.get("pid"), current.get("started")) == (
            state.pid,
            state.started,
        ):
            (directory / STATE_FILE).unlink()
    return True


def _same_process(state: DaemonState) -> bool:
    """True while the process `state` names is alive and is still the one that wrote it."""
    return alive(state.pid) and files.start_time(state.pid) == state.started


def _signal(state: DaemonState, directory: Path, sig: int) -> bool:
    """Send `sig` to the daemon `state` names, proving first that it is still that process.

    Where the system has pidfds, the process is pinned by one before the proof, so a pid
    reused between the proof and the signal cannot receive it."""
    pidfd = -1
    if hasattr(os, "pidfd_open"):
        try:
            pidfd = os.pidfd_open(state.pid)
        except OSError:
            return False  # gone already
    try:
        if files.identity_problem(state.pid, directory, state.started):
            return False
        with contextlib.suppress(ProcessLookupError):
            if pidfd >= 0:
                signal.pidfd_send_signal(pidfd, sig)
            else:
                os.kill(state.pid, sig)
        return True
    finally:
        if pidfd >= 0:
            os.close(pidfd)


# -- the daemon itself ----------------------------------------------------------------------


async def start_on(sandbox: Any, port: int, origin: str = "") -> tuple[str, str]:
    """Serve `sandbox` on `port` (0: any free one); a taken port falls back to a free one.
    Returns the URL and, after a fallback, a sentence saying so (naming `origin` if given)."""
    try:
        return str(await sandbox.start(HOST, port)), ""
    except OSError as exc:
        if not port:
            raise
        why = exc.strerror or str(exc)
    url = str(await sandbox.start(HOST, 0))
    where = f" ({origin})" if origin else ""
    return url, (
        f"Port {port}{where} is taken ({why}); the sandbox runs on port "
        f"{url.rsplit(':', 1)[-1]} this time."
    )


class AlreadyServed(Exception):
    """Another daemon holds the lock of this data dir (it serves; this one leaves)."""


async def serve(directory: Path, port: int, seed: int) -> int:
    """Run the sandbox of `directory` until SIGTERM or SIGINT."""
    # FastAPI and every route load here, not with this module: the TUI imports it to read
    # the daemon's files and to start it.
    from payscope.sandbox.server import Sandbox

    pid = os.getpid()
    # The lock decides who serves, before anything is written: two starts at once (two TUIs,
    # a TUI and `payscope sandbox`) leave one daemon, and the other's starter attaches to it.
    lock = files.take_lock(directory)
    if lock is None:
        raise AlreadyServed(directory)
    started = files.start_time(pid) or ""
    # The handlers come before any state is written: a SIGTERM sent as soon as the state file
    # says "ready" (`payscope sandbox stop`, a test) stops it cleanly, never by the default
    # action, which would leave the state file and skip the sandbox's own stop.
    done = asyncio.Event()
    loop = asyncio.get_running_loop()
    for sig in (signal.SIGTERM, signal.SIGINT):
        loop.add_signal_handler(sig, done.set)

    afresh = ""

    def state(phase: str, url: str = "", done: int = 0, total: int = 0, note: str = "") -> None:
        _write_state(directory, DaemonState(pid, url, phase, done, total, note, started, afresh))

    state("starting")
    sandbox = await asyncio.to_thread(Sandbox, SandboxConfig(data_dir=directory))
    afresh = sandbox.state.started_afresh
    if afresh:
        print(afresh, flush=True)
    url, note = await start_on(sandbox, port)
    gc_pause.resume(freeze=True)  # paused by `main` since launch
    if seed and not sandbox.is_seeded():
        last = [0.0]

        def progress(done: int, total: int = seed, *_rest: Any) -> None:
            now = time.monotonic()
            if now - last[0] >= 0.1 or done >= total:
                last[0] = now
                loop.call_soon_threadsafe(state, "seeding", url, done, total, note)

        state("seeding", url, 0, seed, note)
        began = time.monotonic()
        await asyncio.to_thread(sandbox.seed, seed, progress)
        print(f"seeded {seed} payments in {time.monotonic() - began:.2f}s", flush=True)
    state("ready", url, seed, seed, note)
    print(f"payscope sandbox daemon {pid} serving {url}", flush=True)

    def still_mine() -> bool:
        try:
            data = json.loads((directory / STATE_FILE).read_text(encoding="utf-8"))
        except (OSError, ValueError):
            return False
        return (
            isinstance(data, dict)
            and data.get("pid") == pid
            and files.still_locked_here(lock, directory)
        )

    async def watch() -> None:
        # Gone with its directory (its state file or its lock file removed or replaced):
        # stop instead of lingering where nobody can find it.
        while not done.is_set():
            await asyncio.sleep(2.0)
            if not still_mine():
                print(f"payscope sandbox daemon {pid}: its state or lock file went", flush=True)
                done.set()

    watchdog = asyncio.create_task(watch())
    try:
        await done.wait()
    finally:
        watchdog.cancel()
        await sandbox.stop()
        if still_mine():
            with contextlib.suppress(FileNotFoundError):
                (directory / STATE_FILE).unlink()
        print(f"payscope sandbox daemon {pid} stopped", flush=True)
        os.close(lock)  # the lock goes last: no other daemon serves before this one is done
    return 0


def main(argv: list[str] | None = None) -> int:
    gc_pause.pause()  # until it serves (tui/payscope/core/gc_pause.py)
    parser = argparse.ArgumentParser(prog="python -m payscope.sandbox.daemon")
    parser.add_argument("--data", required=True, type=Path)
    parser.add_argument("--port", type=int, default=0)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args(argv)
    private_dir(args.data)
    try:
        return asyncio.run(serve(args.data, args.port, args.seed))
    except AlreadyServed:
        # Not a failure: whoever started this one attaches to the daemon that serves.
        print(
            f"payscope sandbox daemon {os.getpid()}: another daemon holds "
            f"{args.data / files.LOCK_FILE} and serves this data; this one leaves",
            flush=True,
        )
        return 0
    except Exception as exc:
        print(f"{FAILED}{exc}", file=sys.stderr, flush=True)
        with contextlib.suppress(OSError, ValueError):  # its own file only, never another's
            data = json.loads((args.data / STATE_FILE).read_text(encoding="utf-8"))
            if isinstance(data, dict) and data.get("pid") == os.getpid():
                (args.data / STATE_FILE).unlink()
        return 1


if __name__ == "__main__":
    sys.exit(main())
